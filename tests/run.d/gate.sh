# scripts/gate: every known-bad and broken variant, submitted as a new file,
# is rejected with its class; every correct variant, the C library's
# included, is accepted; bad invocations get one line and exit 2.
# Sourced by tests/run (uses expect, usage_error, pass, fail, $MG, $TMP).

echo "== the submission gate (scripts/gate)"
make --no-print-directory -s fuzz-build >/dev/null 2>&1

# The file that defines a symbol, under impls/ or tests/bad/.
source_of() {
	grep -rlE "^$1:|[ *]$1\(" impls tests/bad --include='*.c' --include='*.S' | head -n1
}

# gate_case VARIANT OP SYMBOL FEATURES EXPECT: one submission and its verdict.
# The quick sweep stands in for the full one and fuzzing is left out, to keep
# this under a few minutes; what only the full sweep or the 4 GiB+ check can
# see gets those.
gate_case() {
	local v=$1 op=$2 sym=$3 needs=$4 expect=$5 file flags=(--quick --skip=fuzz,huge --no-bench)
	file=$(source_of "$sym")
	[ -n "$file" ] || { fail "gate: $v" "no source file defines $sym"; return; }
	[ "$needs" = - ] || flags+=(--requires="$needs")
	case $expect in
	"FAIL at 4 GiB+"*) flags=(--quick --skip=fuzz,valgrind,regressions --no-bench) ;;
	"FAIL in the full sweep"*) flags=(--skip=fuzz,huge --no-bench) ;;
	esac
	local out rc
	out=$(scripts/gate "${flags[@]}" --op="$op" --symbol="$sym" "$file" 2>/dev/null)
	rc=$?
	if [ "$expect" = pass ]; then
		if [ $rc -eq 0 ] && grep -q "^ACCEPTED: " <<<"$out"; then
			pass "gate accepts $v ($file)"
		else
			fail "gate accepts $v ($file)" "exit $rc: $(grep -m3 '^[0-9]*\. \[' <<<"$out")"
		fi
		return
	fi
	local classes=${expect#*: } hit=
	for c in ${classes//,/ }; do
		grep -qE "^[0-9]+\. \[[a-z]+\] $c: " <<<"$out" && hit=$c
	done
	if [ $rc -eq 1 ] && [ -n "$hit" ]; then
		pass "gate rejects $v with $hit ($file)"
	else
		fail "gate rejects $v with $classes ($file)" "exit $rc: $(grep -m3 '^[0-9]*\. \[' <<<"$out")"
	fi
}

# Every variant of both tables that runs here, two submissions at a time.
$MG list --set=all --tsv | awk -F'\t' '$6 == "runs"' >"$TMP/gate-variants"
while IFS=$'\t' read -r v op _ sym needs _ expect; do
	gate_case "$v" "$op" "$sym" "$needs" "$expect" >"$TMP/gate-$v.out" &
	[ "$(jobs -r | wc -l)" -lt 2 ] || wait -n
done <"$TMP/gate-variants"
wait
cat "$TMP"/gate-*.out
passed=$((passed + $(cat "$TMP"/gate-*.out | grep -c '^PASS')))
failed=$((failed + $(cat "$TMP"/gate-*.out | grep -c '^FAIL')))
