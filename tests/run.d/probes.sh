# The probe suite (issue 28): every command under bad input and signals,
# from the tables in tests/probes/ (tests/probes/probe.py says how a row
# reads and what fails a probe). One PASS or FAIL line per probe.
# Sourced by tests/run (uses pass, fail, $TMP).

echo "== every command under bad input and signals (tests/probes)"
python3 tests/probes/probe.py tests/probes/*.tsv >"$TMP/probes.out" 2>&1
probes_rc=$?
cat "$TMP/probes.out"
passed=$((passed + $(grep -c '^PASS' "$TMP/probes.out")))
failed=$((failed + $(grep -c '^FAIL' "$TMP/probes.out")))
if [ "$probes_rc" -ne 0 ] && ! grep -q '^FAIL' "$TMP/probes.out"; then
	fail "probe suite" "tests/probes/probe.py exited with status $probes_rc: $(tail -n 3 "$TMP/probes.out")"
fi

# The runner itself: each probe of tests/probes/meta/ breaks one of its
# rules, and must fail for that reason.
python3 tests/probes/probe.py tests/probes/meta/*.tsv >"$TMP/meta.out" 2>&1
while read -r probes_name probes_why; do
	if grep -qE "^FAIL probe $probes_name: $probes_why" "$TMP/meta.out"; then
		pass "the probe runner fails $probes_name"
	else
		fail "the probe runner fails $probes_name" "want FAIL for /$probes_why/, got: $(grep -E " $probes_name[: ]" "$TMP/meta.out")"
	fi
done <<'META'
meta-traceback 'Traceback \(most recent call last\)' in the output
meta-two-lines 2 lines, want one
meta-wrong-status exit 1, want 2
meta-no-pattern no line matches
meta-left-running left running: [0-9]+ sleep
meta-earlier-file-changed earlier files not kept: keep.txt \(changed\)
meta-signal-ignored-wrong-status exit 0, want 130
META
