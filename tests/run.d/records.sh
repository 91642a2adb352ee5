# tier: fast
# The records (docs/records.md): --format=jsonl of run, verify, replay and
# random, the fuzz targets' finding files, "could not judge" (exit 2), and a
# routine that ends the process mid-call, in every mode. Sourced by
# tests/run (uses pass, fail, expect, expect_all, usage_error, $TMP).

# records NAME STATUS CHECK -- COMMAND...: the command exits with STATUS,
# every line of its stdout is a JSON object with a "record" kind, and the
# Python expression CHECK holds. CHECK sees r (the records), kinds, last,
# complete (the last record is a complete summary), findings, errors, of
# (records of one kind), and out (stdout, for text checks).
records() {
	local name=$1 want=$2 check=$3 rc why
	shift 4
	"$@" >"$TMP/records.out" 2>"$TMP/records.err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, want $want; stderr ends: $(tail -n 2 "$TMP/records.err")"
		return
	fi
	if why=$(python3 - "$TMP/records.out" "$check" <<'EOF'
import json, sys
out = open(sys.argv[1], encoding="utf-8").read()
r = []
for n, line in enumerate(out.splitlines(), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        sys.exit(f"line {n} is not JSON ({e}): {line[:80]}")
    if not isinstance(o, dict) or not isinstance(o.get("record"), str):
        sys.exit(f"line {n} has no record kind: {line[:80]}")
    r.append(o)
kinds = [x["record"] for x in r]
last = r[-1] if r else {}
complete = last.get("record") == "summary" and last.get("complete") is True
of = lambda kind: [x for x in r if x["record"] == kind]
findings, errors = of("finding"), of("error")
if not eval("(" + sys.argv[2] + ")"):
    sys.exit(f"not true: {sys.argv[2]}; kinds {kinds}; last {json.dumps(last)[:300]}")
EOF
	2>&1); then
		pass "$name"
	else
		fail "$name" "$why"
	fi
}

echo "== records (--format=jsonl)"
if build/test-json 2>/dev/null | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert lines[-1] == "0 failures", lines[-1]
for line in lines[:-1]:
    json.loads(line)
'; then
	pass "the JSON writer escapes, keeps UTF-8, nests, and refuses what does not fit"
else
	fail "the JSON writer escapes, keeps UTF-8, nests, and refuses what does not fit" \
		"$(build/test-json 2>&1 | tail -n 3)"
fi
records "run: a finding as fields, with its signature and replay argv" 1 \
	"kinds == ['case', 'finding', 'summary'] and complete and last['failed'] == 1 and
	 findings[0]['class'] == 'out-of-bounds-read' and findings[0]['buffer'] == 'src' and
	 findings[0]['side'] == 'past-end' and findings[0]['distance'] == 1 and
	 findings[0]['offset'] == 17 and findings[0]['access'] == 'read' and
	 findings[0]['signature'] == 'bad_memcpy_overread_src out-of-bounds-read src past the end' and
	 findings[0]['replay'][:3] == ['build/memgate', 'run', '--variant=bad_memcpy_overread_src'] and
	 findings[0]['case']['len'] == 17 and findings[0]['case']['src_align'] == 47" -- \
	$MG run --variant=bad_memcpy_overread_src --len=17 --src-align=47 --format=jsonl
records "run: a passing case is a case record and a summary" 0 \
	"kinds == ['case', 'summary'] and r[0]['class'] == 'ok' and last['passed'] == 1" -- \
	$MG run --variant=memcpy_libc --len=17 --format=jsonl
records "run: the first wrong byte as fields" 1 \
	"findings[0]['class'] == 'wrong-result' and findings[0]['index'] == 1 and
	 findings[0]['got'] == 0xac and findings[0]['want'] == 0xab" -- \
	$MG run --variant=bad_memset_whole_int --len=8 --value=0x1ab --format=jsonl
records "run: a process that died, as a signal" 1 \
	"findings[0]['class'] == 'crash' and findings[0]['signal'] == 'SIGABRT' and
	 findings[0]['died'] and findings[0]['site'] == 'died of SIGABRT'" -- \
	$MG run --variant=bad_memcpy_aborts --len=5 --format=jsonl
if [ "$(uname -m)" = x86_64 ]; then
	records "run: an ABI rule with the register's values" 1 \
		"findings[0]['rule'] == 'rbx' and findings[0]['old'] == '0x1111111111111111' and
		 findings[0]['site'] == 'rbx clobbered'" -- \
		$MG run --variant=bad_memcpy_clobbers_rbx --len=40 --format=jsonl
	records "run: a fault as signal and pc symbol+offset" 1 \
		"findings[0]['signal'] == 'SIGILL' and
		 findings[0]['pc'].startswith('mg_x86_64_bad_memcpy_ud2+0x') and
		 findings[0]['site'] == 'SIGILL at ' + findings[0]['pc']" -- \
		$MG run --variant=bad_memcpy_ud2 --len=33 --format=jsonl
fi
usage_error "run: an unknown format" "unknown format 'xml' \(valid: text, jsonl\)" \
	$MG run --variant=memcpy_libc --len=1 --format=xml
records "verify: findings, one record per stage and row, the summary last" 0 \
	"complete and last['command'] == 'verify' and last['passed'] == 2 and
	 [(x['variant'], x['stage'], x['status'], x['row']) for x in of('variant')] ==
	 [('bad_memcpy_overread_src', 'sweep', 'fail', 'failed-as-expected'),
	  ('memcpy_libc', 'sweep', 'pass', 'passed')] and
	 all(f['stage'] == 'sweep' and f['class'] == 'out-of-bounds-read' for f in findings) and
	 len(findings) >= 1" -- \
	$MG verify --variant=bad_memcpy_overread_src,memcpy_libc --huge=off --format=jsonl \
	--findings="$TMP/findings"
records "replay: a case record per input, findings after failing ones, the summary last" 0 \
	"complete and last['cases'] == len(of('case')) and last['cases'] + last['skipped'] == $(find corpus/regressions -name '*.in' | wc -l) and
	 all(x['as_expected'] for x in of('case')) and len(findings) == len(of('case'))" -- \
	build/replay --expect=fail --format=jsonl corpus/regressions
odd_dir="$TMP/$(printf 'caf\303\251 \377')/memcpy"
mkdir -p "$odd_dir" && cp corpus/regressions/memcpy/bad_memcpy_aborts/*.in "$odd_dir/"
records "replay: a path that is not UTF-8 still gives valid JSON" 0 \
	"complete and len(of('case')) == 1 and 'caf\u00e9 \ufffd' in r[0]['input']" -- \
	build/replay --format=jsonl --expect=fail --variant=bad_memcpy_aborts "$odd_dir"
records "random: each new finding names its saved input, the summary last" 1 \
	"complete and len(findings) == 1 and findings[0]['stage'] == 'random' and
	 findings[0]['input'].endswith('.in') and last['cases'] > 0" -- \
	build/random --variant=bad_memmove_always_forward --seconds=20 --seed=7 --max-findings=1 \
	--findings="$TMP/random-jsonl" --format=jsonl
if python3 - "$TMP"/random-jsonl/memmove/*.json <<'EOF'
import json, os, sys
for path in sys.argv[1:]:
    f = json.load(open(path))
    assert f["record"] == "finding" and f["stage"] == "random", path
    assert os.path.exists(f["input"]) and f["input"][:-3] == path[:-5], path
EOF
then
	pass "random: each finding's .json beside its .in names it"
else
	fail "random: each finding's .json beside its .in names it" "$(ls "$TMP"/random-jsonl/memmove)"
fi

echo "== could not judge: exit 2, never a pass, never a finding"
records "verify: without the address space, an error record and exit 2" 2 \
	"complete and last['errors'] == 1 and not findings and
	 errors[0]['stage'] == 'huge' and 'cannot reserve the address space' in errors[0]['reason'] and
	 [x['status'] for x in of('variant') if x['stage'] == 'huge'] == ['error']" -- \
	bash -c "ulimit -v 8000000 && $MG verify --variant=memcpy_erms --format=jsonl --findings=$TMP/findings"
# The 4 GiB+ child is verify's first; killed from outside (as by the OOM
# killer) while it warms up or runs, its check is not judged.
verify_huge_killed() {
	local pid child
	$MG verify --variant=memcpy_erms --findings="$TMP/findings" >"$TMP/killed.out" 2>&1 &
	pid=$!
	sleep 0.5
	child=$(pgrep -P "$pid" | sort -n | head -n 1)
	[ -n "$child" ] && kill -KILL "$child"
	wait "$pid"
	echo "exit $?"
	cat "$TMP/killed.out"
}
expect_all "verify: a 4 GiB+ child killed from outside is not judged (exit 2), not a pass" 0 \
	"^exit 2$" "^memcpy_erms .* ERROR \(4GiB\+: could not judge\)" \
	"^could not judge: 1 variant, the first memcpy_erms: its process was killed by SIGKILL" -- \
	verify_huge_killed
expect "run: a 4 GiB+ case without the address space is not judged" 2 \
	"^could not judge: lengths over 16777216 cannot run here: cannot reserve the address space" \
	bash -c "ulimit -v 8000000 && $MG run --variant=memcpy_erms --len=4294967296"
expect "run: a harness that cannot map its sandbox is not judged, not a crash" 2 \
	"^could not judge: the harness process exited with status 2 before judging the case" \
	bash -c "ulimit -v 60000 && $MG run --variant=memcpy_libc --len=4"
expect "random: a harness without its memory is exit 2 (could not judge)" 2 \
	"^memgate: could not judge: mmap" \
	bash -c "ulimit -v 60000 && build/random --cases=10 --seed=1 --findings=$TMP/random"
expect "replay: a harness without its memory is exit 2 (could not judge)" 2 \
	"^memgate: could not judge: mmap" \
	bash -c "ulimit -v 60000 && build/replay --target=memcpy corpus/memcpy/len17.in"
mkdir -p "$TMP/rec-late" && : >"$TMP/rec-late/memcpy"
expect_all "random: findings that cannot be saved make exit 2, and nothing says saved" 2 \
	"^could not judge: a finding could not be written to $TMP/rec-late" -- \
	build/random --variant=bad_memcpy_exits_midway --cases=50 --seed=3 --findings="$TMP/rec-late"
if build/random --variant=bad_memcpy_exits_midway --cases=50 --seed=3 --findings="$TMP/rec-late" 2>&1 |
	grep -q "saved in"; then
	fail "random: an unsaved finding is never said saved" "a 'saved in' line"
else
	pass "random: an unsaved finding is never said saved"
fi

mkdir -p "$TMP/rec-late/v/bad_memcpy_returns_end.txt"
expect_all "verify: findings that cannot be written make exit 2" 2 \
	"NOT saved: could not write $TMP/rec-late/v/bad_memcpy_returns_end.txt" \
	"^could not judge: 1 variant, the first bad_memcpy_returns_end: a finding could not be saved" -- \
	$MG verify --variant=bad_memcpy_returns_end --huge=off --findings="$TMP/rec-late/v"
if $MG verify --variant=bad_memcpy_returns_end --huge=off --findings="$TMP/rec-late/v" 2>&1 |
	grep -q "saved in"; then
	fail "verify: an unwritten finding is never said saved" "a 'saved in' line"
else
	pass "verify: an unwritten finding is never said saved"
fi

# A full disk under stdout: the results were never read, so never a pass.
for cmd in "$MG run --variant=memcpy_libc --len=3" \
	"$MG verify --variant=memcpy_libc --huge=off --findings=$TMP/findings" \
	"build/replay --each-variant corpus/memcpy" "build/random --cases=10 --seed=1 --findings=$TMP/random" \
	"build/replay --format=jsonl --each-variant corpus/memcpy"; do
	expect "${cmd%% --*}: output that cannot be written is exit 2" 2 "could not|cannot write" \
		bash -c "$cmd >/dev/full"
done

echo "== a routine that ends the process mid-call is a crash in every mode"
caught bad_memcpy_exits_midway crash \
	"the variant ended the process \(exit status 0\) during the call: it never returned$" --len=8
expect "replay (a child per input): a crash, not a pass" 1 \
	"crash: the variant ended the process \(exit status 0\) during the call" \
	build/replay corpus/regressions/memcpy/bad_memcpy_exits_midway
records "replay --in-process: no summary, so the output is cut short" 0 \
	"not complete and 'case' not in kinds" -- \
	build/replay --in-process --format=jsonl corpus/regressions/memcpy/bad_memcpy_exits_midway
expect "replay --in-process (text): nothing is counted passed" 0 "^$" \
	build/replay --in-process corpus/regressions/memcpy/bad_memcpy_exits_midway
records "random: a crash finding, and the run goes on" 1 \
	"complete and last['cases'] == 50 and findings[0]['class'] == 'crash' and
	 findings[0]['site'] == 'exited during the call' and findings[0]['exit_status'] == 0" -- \
	build/random --variant=bad_memcpy_exits_midway --cases=50 --seed=3 \
	--findings="$TMP/random-exit" --format=jsonl

if ! command -v clang >/dev/null; then
	skip "fuzz target records" "clang is not installed (scripts/install-deps installs it)"
	return 0
fi
make --no-print-directory -s build/fuzz/libfuzzer/fuzz_memcpy >/dev/null ||
	fail "fuzz target records" "build/fuzz/libfuzzer/fuzz_memcpy does not build"
echo "== fuzz targets: finding files and the in-flight file"
rm -rf "$TMP/fuzz-found" && mkdir -p "$TMP/fuzz-found"
MEMGATE_FINDINGS="$TMP/fuzz-found" build/fuzz/libfuzzer/fuzz_memcpy -runs=1 \
	--variant=bad_memcpy_tail_overwrite -artifact_prefix="$TMP/fuzz-found/" \
	corpus/regressions/memcpy/bad_memcpy_tail_overwrite >/dev/null 2>&1
if python3 - "$TMP/fuzz-found" <<'EOF'
import glob, json, os, sys
d = sys.argv[1]
jsons = glob.glob(d + "/*.json")
assert len(jsons) == 1, jsons
f = json.load(open(jsons[0]))
stem = jsons[0][:-5]
assert f["record"] == "finding" and f["stage"] == "fuzz" and f["input"] == stem + ".in"
assert os.path.exists(stem + ".in") and os.path.exists(stem + ".txt")
assert f["signature"] == "bad_memcpy_tail_overwrite out-of-bounds-write dst past the end"
assert f["replay"][1] == "run" and not glob.glob(d + "/inflight-*")
EOF
then
	pass "fuzz: a finding is NAME.in, NAME.json (its record) and NAME.txt; no in-flight file left"
else
	fail "fuzz: a finding is NAME.in, NAME.json (its record) and NAME.txt" "$(ls "$TMP/fuzz-found")"
fi
rm -rf "$TMP/fuzz-exit" && mkdir -p "$TMP/fuzz-exit"
MEMGATE_FINDINGS="$TMP/fuzz-exit" build/fuzz/libfuzzer/fuzz_memcpy -runs=0 \
	--variant=bad_memcpy_exits_midway -artifact_prefix="$TMP/fuzz-exit/" \
	corpus/regressions/memcpy/bad_memcpy_exits_midway >/dev/null 2>&1
if python3 - "$TMP/fuzz-exit" corpus/regressions/memcpy/bad_memcpy_exits_midway/*.in <<'EOF'
import glob, sys
left = glob.glob(sys.argv[1] + "/inflight-*")
assert len(left) == 1, left
data = open(left[0], "rb").read()
n = int.from_bytes(data[:8], "little")
assert n and data[8:8 + n] == open(sys.argv[2], "rb").read(), n
EOF
then
	pass "fuzz: a routine that ends the process leaves its input in the in-flight file"
else
	fail "fuzz: a routine that ends the process leaves its input in the in-flight file" \
		"$(ls -l "$TMP/fuzz-exit")"
fi
# New inputs go to the first corpus folder: a scratch one, not corpus/.
rm -rf "$TMP/fuzz-ok" "$TMP/fuzz-ok-work" && mkdir -p "$TMP/fuzz-ok" "$TMP/fuzz-ok-work"
expect "fuzz: a clean run removes its in-flight file" 0 "^$" \
	bash -c "MEMGATE_FINDINGS=$TMP/fuzz-ok build/fuzz/libfuzzer/fuzz_memcpy -runs=200 -seed=1 \
		$TMP/fuzz-ok-work corpus/memcpy >/dev/null 2>&1; ls $TMP/fuzz-ok"
# AFL++'s fork-server children share their parent's in-flight file: the
# next child finds the input the last one never returned from, and saves it.
if command -v afl-fuzz >/dev/null &&
	make --no-print-directory -s build/fuzz/afl/fuzz_memcpy >/dev/null 2>&1; then
	rm -rf "$TMP/afl-exit" && mkdir -p "$TMP/afl-exit/in" "$TMP/afl-exit/found"
	cp corpus/memcpy/len17.in "$TMP/afl-exit/in/"
	(cd "$TMP/afl-exit" && AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		AFL_NO_UI=1 AFL_NO_AFFINITY=1 MEMGATE_VARIANT=bad_memcpy_exits_midway \
		MEMGATE_FINDINGS="$TMP/afl-exit/found" timeout 60 afl-fuzz -i in -o out -V 3 -- \
		"$OLDPWD/build/fuzz/afl/fuzz_memcpy" >afl.log 2>&1)
	expect "AFL++: a routine that ends the process is saved as a crash by the next child" 0 \
		'"site":"exited during the call"' bash -c "cat $TMP/afl-exit/found/*.json"
else
	skip "AFL++ in-flight test" "afl-fuzz or the AFL++ build is missing"
fi
