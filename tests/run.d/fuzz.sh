# scripts/fuzz (make fuzz): fuzzing for a time budget, or for a number of
# inputs from a seed (--runs), with libFuzzer and AFL++, findings replayed,
# minimized and deduplicated by signature.
# Sourced by tests/run (uses expect, usage_error, pass, fail, $TMP). Short
# budgets: the whole group takes about 60 s.

echo "== fuzzing for a time budget or a number of inputs (scripts/fuzz)"

# The fuzz builds, as `make fuzz` makes them; scripts/fuzz is then told not
# to check them again on every run.
fuzz_ready=1
if ! make -s --no-print-directory fuzz-build >"$TMP/fuzz-build.log" 2>&1; then
	# Without AFL++ the afl build fails; the libFuzzer ones may still do.
	if command -v afl-fuzz >/dev/null 2>&1 ||
		! make -s --no-print-directory build/fuzz/libfuzzer/fuzz_memcpy build/replay \
			>>"$TMP/fuzz-build.log" 2>&1; then
		fuzz_ready=0
		fail "make fuzz-build" "$(tail -n 3 "$TMP/fuzz-build.log")"
	fi
fi
FUZZ="env MEMGATE_FUZZ_NO_BUILD=1 scripts/fuzz"
TAIL_SIG="bad_memcpy_tail_overwrite out-of-bounds-write dst past the end"
TAIL_IN=bad_memcpy_tail_overwrite-out-of-bounds-write-dst-past-the-end.in
OVERREAD_SIG="bad_memcpy_overread_src out-of-bounds-read src past the end"
OVERREAD_IN=bad_memcpy_overread_src-out-of-bounds-read-src-past-the-end.in

# dedupes NAME RUN-DIR: the run saved several inputs with one signature,
# reported one finding and kept one raw input.
dedupes() {
	local name=$1 run=$2 sigs saved kept
	sigs=$(grep -c '^  signature: ' "$run/summary.txt" 2>/dev/null)
	saved=$(sed -nE 's/.*; ([0-9]+) saved input\(s\) had this signature.*/\1/p' \
		"$run/summary.txt" 2>/dev/null)
	kept=$(find "$run/memcpy/raw" -type f ! -name '*.txt' ! -name '*.json' 2>/dev/null | wc -l)
	if [ "$sigs" = 1 ] && [ -n "$saved" ] && [ "$saved" -ge 2 ] && [ "$kept" -eq 1 ]; then
		pass "$name ($saved saved inputs, one signature, one input kept)"
	else
		fail "$name" "signatures '$sigs', saved inputs '$saved', raw inputs kept '$kept'"
	fi
}

# summary_of RUN: what RUN/summary.jsonl says, read as the gate reads it
# (records.read: complete, no error record), in one line:
# "complete findings=N classes=C,... engines=E:STATUS,..." or "could not
# judge: REASON".
summary_of() {
	PYTHONPATH=scripts python3 - "$1/summary.jsonl" <<'PY'
import sys
from orchestration import records
try:
    recs = records.read(sys.argv[1])
except records.CouldNotJudge as e:
    print(f"could not judge: {e}")
    sys.exit(0)
found = records.of_kind(recs, "finding")
for f in found:
    assert f["engine"] in ("libfuzzer", "afl") and f["repro"][0] == "scripts/repro", f
    assert f["input"] and isinstance(f["replay"], list), f
    if f["class"] == "flaky":
        assert f["fuzzer"] and f["replay"][0].endswith("replay"), f
assert recs[-1]["findings"] == len(found)
print("complete findings=%d classes=%s engines=%s" % (len(found),
      ",".join(sorted({f["class"] for f in found})) or "-",
      ",".join(f'{e["engine"]}:{e["status"]}' for e in records.of_kind(recs, "engine"))))
PY
}

# runs_of RUN: each engine record of RUN/summary.jsonl as
# "ENGINE:STATUS runs=N seed=S execs=E corpus=C", and the summary's plan
# as "summary=N,S".
runs_of() {
	PYTHONPATH=scripts python3 - "$1/summary.jsonl" <<'PY'
import sys
from orchestration import records
recs = records.read(sys.argv[1], require_summary=False)
print(" ".join([f'{e["engine"]}:{e["status"]} runs={e.get("runs")} seed={e.get("seed")} execs={e["execs"]} '
                f'corpus={e["corpus"]}' for e in records.of_kind(recs, "engine")]
               + [f'summary={s.get("runs")},{s.get("seed")}' for s in records.of_kind(recs, "summary")]))
PY
}

if [ "$fuzz_ready" = 1 ]; then
	corpus_before=$(find corpus -type f -print0 | sort -z | xargs -0 sha1sum | sha1sum)

	expect "libFuzzer finds a planted over-write and names its signature" 1 \
		"^  signature: $TAIL_SIG$" \
		$FUZZ --variant=bad_memcpy_tail_overwrite --seconds=3 --out="$TMP/fuzz-lf"
	expect "libFuzzer: the summary gives the repro command of the saved minimized input" 0 \
		"^  repro: +scripts/repro --target=memcpy --variant=bad_memcpy_tail_overwrite $TMP/fuzz-lf/memcpy/$TAIL_IN$" \
		cat "$TMP/fuzz-lf/summary.txt"
	expect "the saved input replays to the same signature" 1 "^  signature: $TAIL_SIG$" \
		build/replay --target=memcpy --variant=bad_memcpy_tail_overwrite --verbose \
		"$TMP/fuzz-lf/memcpy/$TAIL_IN"
	dedupes "libFuzzer: repeated crashes of one bug are one finding" "$TMP/fuzz-lf"
	expect "a kept finding is filed as a regression, its variant from the record beside it" 0 \
		"^filed $TMP/reg-fuzz/memcpy/bad_memcpy_tail_overwrite/out-of-bounds-write-[0-9]+\.in \($TAIL_SIG\)$" \
		scripts/add-regression --into="$TMP/reg-fuzz" "$TMP/fuzz-lf/memcpy/$TAIL_IN"
	expect "libFuzzer: summary.jsonl holds the engine run, the finding and a complete summary" 0 \
		"^complete findings=1 classes=out-of-bounds-write engines=libfuzzer:ran$" summary_of "$TMP/fuzz-lf"

	if command -v afl-fuzz >/dev/null 2>&1 && [ -x build/fuzz/afl/fuzz_memcpy ]; then
		expect "AFL++ finds a planted over-read and names its signature" 1 \
			"^  signature: $OVERREAD_SIG$" \
			$FUZZ --engine=afl --variant=bad_memcpy_overread_src --seconds=4 --out="$TMP/fuzz-afl"
		expect "AFL++: the summary gives the repro command" 0 \
			"^  repro: +scripts/repro --target=memcpy --variant=bad_memcpy_overread_src $TMP/fuzz-afl/memcpy/$OVERREAD_IN$" \
			cat "$TMP/fuzz-afl/summary.txt"
		dedupes "AFL++: repeated crashes of one bug are one finding" "$TMP/fuzz-afl"
		expect "AFL++: summary.jsonl holds the engine run and the finding" 0 \
			"^complete findings=1 classes=out-of-bounds-read engines=afl:ran$" summary_of "$TMP/fuzz-afl"
		# AFL++'s fork server cannot start with 20 file descriptors: the
		# fuzzer could not run, which says nothing about the routine.
		expect "AFL++ that cannot start (ulimit -n 20): could not judge, exit 2, no finding" 2 \
			"^fuzz: could not judge: afl-fuzz .*" \
			bash -c "ulimit -n 20; $FUZZ --engine=afl --variant=memcpy_erms --seconds=2 --jobs=1 --out='$TMP/fuzz-afl-fd'"
		expect "AFL++ that cannot start: summary.jsonl says it could not judge" 0 "^could not judge: afl-fuzz " \
			summary_of "$TMP/fuzz-afl-fd"
	else
		echo "SKIP AFL++ finds a planted over-read: afl-fuzz is not installed (scripts/install-deps installs AFL++)"
	fi

	expect "a correct pinned variant gives no findings" 0 "^no findings on memcpy_erms" \
		$FUZZ --variant=memcpy_erms --seconds=2 --out="$TMP/fuzz-ok"
	expect "the working corpus is kept in the run directory" 0 "^[1-9][0-9]*$" \
		bash -c "find '$TMP/fuzz-ok/corpus/memcpy' -type f | wc -l"
	expect "no findings: summary.jsonl is complete with none" 0 "^complete findings=0 classes=- engines=libfuzzer:ran$" \
		summary_of "$TMP/fuzz-ok"

	# A crash a fuzzer saved that build/replay passes (planted: a passing
	# seed saved as a libFuzzer crash file): a `flaky` finding with the
	# fuzzer's command and the replay command, never dropped, never a pass.
	cp corpus/memcpy/len17.in "$TMP/fuzz-ok/memcpy/raw/crash-0123456789abcdef0123456789abcdef01234567"
	expect_all "a crash that does not replay is a flaky finding with both commands" 1 \
		"^  signature: memcpy_erms flaky fuzz_memcpy under libfuzzer$" "^  diagnosis: flaky: crashed under libfuzzer but passes build/replay" \
		"^  rerun: +env MEMGATE_VARIANT=memcpy_erms build/fuzz/libfuzzer/fuzz_memcpy " -- \
		$FUZZ --resume="$TMP/fuzz-ok" --seconds=1
	expect "flaky: its record has class flaky, both commands" 0 "^complete findings=1 classes=flaky " \
		summary_of "$TMP/fuzz-ok"
	# A corrupt file in the working corpus (longer than any input) is not a
	# finding against the routine: the run could not judge.
	head -c 5000 /dev/zero >"$TMP/fuzz-ok/corpus/memcpy/corrupt"
	expect "a corrupt corpus file: could not judge, exit 2" 2 \
		"^fuzz: could not judge: corpus file .*/corrupt is not a memgate fuzz input" \
		$FUZZ --resume="$TMP/fuzz-ok" --seconds=1
	expect "a corrupt corpus file: no finding in summary.jsonl" 0 "^could not judge: corpus file " \
		summary_of "$TMP/fuzz-ok"
	rm -f "$TMP/fuzz-ok/corpus/memcpy/corrupt"

	# A full disk (a 64 KiB tmpfs when we may mount one, else a file size
	# limit): could not judge, exit 2; a correct routine is not passed on
	# what could not be written.
	full=$TMP/fuzz-full
	mkdir -p "$full"
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$full" 2>/dev/null; then
		expect "a full disk: could not judge, exit 2" 2 "^fuzz: could not judge: .*No space left on device" \
			$FUZZ --variant=memcpy_erms --seconds=2 --out="$full/run"
		umount "$full"
	else
		expect "a file size limit (ulimit -f): could not judge, exit 2" 2 "^fuzz: could not judge: " \
			bash -c "ulimit -f 4; $FUZZ --variant=memcpy_erms --seconds=2 --out='$full/run'"
	fi

	# A fuzzing job killed from outside (SIGKILL, as the OOM killer does):
	# what it was running was not judged, so neither is the run: exit 2.
	kil=$TMP/fuzz-kill
	$FUZZ --variant=memcpy_erms --seconds=8 --jobs=2 --out="$kil" >"$kil.out" 2>&1 &
	kil_pid=$!
	killed=
	for ((i = 0; i < 150; i++)); do
		sleep 0.1
		job=$(pgrep -f -- "^build/fuzz/libfuzzer/fuzz_memcpy -ignore_crashes=1 .*$kil/" | head -n 1)
		[ -n "$job" ] && sleep 0.5 && kill -KILL "$job" 2>/dev/null && killed=$job && break
	done
	wait "$kil_pid"
	kil_status=$?
	if [ -n "$killed" ] && [ "$kil_status" = 2 ] && grep -q "^fuzz: could not judge: .*killed from outside" "$kil.out"; then
		pass "a fuzzing job killed from outside: could not judge, exit 2"
	else
		fail "a fuzzing job killed from outside: could not judge, exit 2" \
			"killed '$killed', exit $kil_status; output ends: $(tail -n 1 "$kil.out")"
	fi

	# Two runs on one directory: the second refuses with one line, while
	# the first goes on.
	conc=$TMP/fuzz-conc
	setsid $FUZZ --variant=memcpy_erms --seconds=30 --jobs=1 --out="$conc" >"$conc.out" 2>&1 &
	conc_pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '^\[1/1\] memcpy: [0-9]*s of ' "$conc.out" 2>/dev/null && break
		sleep 0.1
	done
	usage_error "fuzz: --resume of a running run is refused" \
		"^fuzz: .*/fuzz-conc is in use by another scripts/fuzz run \(pid $conc_pid\)" \
		$FUZZ --resume="$conc" --seconds=1
	usage_error "fuzz: a second run with --out on a running run's directory is refused" \
		"^fuzz: .*/fuzz-conc is in use by another scripts/fuzz run" \
		$FUZZ --variant=memcpy_erms --seconds=1 --out="$conc"
	kill -TERM -- "-$conc_pid" 2>/dev/null
	wait "$conc_pid"

	# Stopped halfway by SIGTERM to its process group (as a CI runner or a
	# terminal stops a job), once the fuzzers run and have saved a finding:
	# the fuzzers go, the findings and the corpus stay, and --resume goes on
	# from there without losing a corpus entry.
	int=$TMP/fuzz-int
	setsid $FUZZ --variant=bad_memcpy_tail_overwrite --seconds=120 --jobs=2 --out="$int" \
		>"$int.out" 2>&1 &
	int_pid=$! # setsid runs it as the leader of a new group: no fork here
	for ((i = 0; i < 200; i++)); do # the first progress line: the fuzzers started
		grep -q '^\[1/1\] memcpy: [0-9]*s of ' "$int.out" 2>/dev/null && break
		sleep 0.1
	done
	for ((i = 0; i < 150; i++)); do # and something the fuzzers saved, not a seed
		compgen -G "$int/memcpy/raw/bad_memcpy_tail_overwrite-*.txt" >/dev/null && break
		sleep 0.1
	done
	kill -TERM -- "-$int_pid" 2>/dev/null
	wait "$int_pid"
	int_status=$?
	sleep 0.2
	left=$(
		pgrep -f -- "$int/" # libFuzzer and its jobs name the run directory
		pgrep -g "$int_pid"
	)
	missing_seeds=$(find corpus/memcpy -maxdepth 1 -type f ! -name '.*' ! -name '*.md' ! -name '*.txt' |
		while IFS= read -r f; do
			[ -e "$int/corpus/memcpy/${f##*/}" ] || [ -e "$int/memcpy/raw/seed-${f##*/}" ] || echo "${f##*/}"
		done | tr '\n' ' ')
	saved=$(find "$int/memcpy/raw" -type f -name 'bad_memcpy_tail_overwrite-*.in' 2>/dev/null | wc -l)
	if [ "$int_status" = 143 ] && [ -z "$left" ] && [ -z "$missing_seeds" ] && [ "$saved" -gt 0 ] &&
		grep -q "^fuzz: interrupted" "$int.out"; then
		pass "SIGTERM mid-run: exit 143, no fuzzer left, every seed and $saved saved finding(s) kept"
	else
		fail "SIGTERM mid-run: exit 143, no fuzzer left, every seed and the findings kept" \
			"exit $int_status; left running: '$left'; seeds missing: '$missing_seeds'; findings saved: $saved; output ends: $(tail -n 2 "$int.out")"
	fi
	(cd "$int/corpus" && find . -type f | sort) >"$TMP/int-corpus-before"
	expect "--resume continues the stopped run and reports its findings" 1 \
		"^  signature: $TAIL_SIG$" \
		$FUZZ --resume="$int" --seconds=2 --jobs=2
	(cd "$int/corpus" && find . -type f | sort) >"$TMP/int-corpus-after"
	lost=$(comm -23 "$TMP/int-corpus-before" "$TMP/int-corpus-after" | wc -l)
	if [ "$lost" -eq 0 ] && [ -s "$TMP/int-corpus-before" ] && grep -q "earlier session" "$int/summary.txt"; then
		pass "--resume keeps every corpus entry ($(wc -l <"$TMP/int-corpus-before") before, $(wc -l <"$TMP/int-corpus-after") after) and the earlier findings"
	else
		fail "--resume keeps every corpus entry and the earlier findings" \
			"$lost corpus entries lost; summary: $(grep -m1 'saved input' "$int/summary.txt")"
	fi
	usage_error "fuzz: --resume with another variant" \
		"^fuzz: --resume: the run in .* has variant 'bad_memcpy_tail_overwrite', not 'memcpy_erms'$" \
		scripts/fuzz --resume="$int" --variant=memcpy_erms

	# --runs: a number of inputs from a seed, in one process; time only a
	# watchdog (docs/fuzzing.md, "A number of inputs").
	expect_all "--runs: a correct variant passes, and the summary says its inputs and seed" 0 \
		"^2000 inputs from seed 7 per target, in one process \(libfuzzer\)$" "^no findings on memmove_libc" -- \
		$FUZZ --variant=memmove_libc --runs=2000 --seed=7 --out="$TMP/fuzz-runs"
	expect "--runs: summary.jsonl carries the planned runs and the seed" 0 \
		"^libfuzzer:ran runs=2000 seed=7 execs=[0-9]+ corpus=[0-9]+ summary=2000,7$" runs_of "$TMP/fuzz-runs"
	expect "--runs: libFuzzer finds an always-forward memmove" 1 \
		"^  signature: bad_memmove_always_forward wrong-result " \
		$FUZZ --variant=bad_memmove_always_forward --runs=2000 --out="$TMP/fuzz-runs-bad"
	# The same seed twice: the same inputs, so the same count and corpus.
	$FUZZ --variant=memmove_libc --runs=5000 --seed=3 --out="$TMP/fuzz-runs-a" >/dev/null 2>&1
	$FUZZ --variant=memmove_libc --runs=5000 --seed=3 --out="$TMP/fuzz-runs-b" >/dev/null 2>&1
	runs_a=$(runs_of "$TMP/fuzz-runs-a")
	runs_b=$(runs_of "$TMP/fuzz-runs-b")
	if [ -n "$runs_a" ] && [ "$runs_a" = "$runs_b" ] && [[ $runs_a == libfuzzer:ran* ]]; then
		pass "--runs: libFuzzer with the same seed twice runs the same execs ($runs_a)"
	else
		fail "--runs: libFuzzer with the same seed twice runs the same execs" "'$runs_a' then '$runs_b'"
	fi
	expect "--runs not done within --seconds: could not judge, naming how many of N ran" 2 \
		"^fuzz: could not judge: libFuzzer ran [0-9]+ of 999999999 inputs from seed 1 within 2 s \(--seconds\)" \
		$FUZZ --variant=memmove_libc --runs=999999999 --seconds=2 --out="$TMP/fuzz-runs-short"
	if command -v afl-fuzz >/dev/null 2>&1 && [ -x build/fuzz/afl/fuzz_memmove ]; then
		expect "--runs: AFL++ finds an always-forward memmove" 1 \
			"^  signature: bad_memmove_always_forward wrong-result " \
			$FUZZ --engine=afl --variant=bad_memmove_always_forward --runs=2000 --out="$TMP/fuzz-runs-afl"
	fi

	corpus_after=$(find corpus -type f -print0 | sort -z | xargs -0 sha1sum | sha1sum)
	if [ "$corpus_before" = "$corpus_after" ]; then
		pass "the committed corpus is never modified"
	else
		fail "the committed corpus is never modified" "corpus/ changed during the fuzz runs"
	fi
fi

usage_error "fuzz: an unknown option" "^fuzz: unknown option '--bogus' \(valid: --target, " \
	scripts/fuzz --bogus
usage_error "fuzz: an unknown engine" \
	"^fuzz: unknown engine 'honggfuzz' for --engine \(valid: libfuzzer, afl\)$" \
	scripts/fuzz --engine=honggfuzz
usage_error "fuzz: an unknown target" "^fuzz: unknown target 'strcpy' for --target" \
	scripts/fuzz --target=strcpy
usage_error "fuzz: an unknown variant" "^fuzz: unknown variant 'nope' for --variant" \
	scripts/fuzz --variant=nope
usage_error "fuzz: a bad budget" "^fuzz: bad value '1m' for --seconds" scripts/fuzz --seconds=1m
usage_error "fuzz: a bad job count" "^fuzz: bad value '0' for --jobs" scripts/fuzz --jobs 0
usage_error "fuzz: --runs with --jobs=2 is refused" \
	"^fuzz: --runs runs one process: --jobs=2 is for a time budget" scripts/fuzz --runs=2000 --jobs=2
usage_error "fuzz: --seed without --runs is refused" "^fuzz: --seed needs --runs" scripts/fuzz --seed=7
usage_error "fuzz: a bad --runs" "^fuzz: bad value '0' for --runs" scripts/fuzz --runs=0
usage_error "fuzz: a variant of another target" \
	"^fuzz: variant memset_libc is a memset variant, not of target memcpy$" \
	scripts/fuzz --target=memcpy --variant=memset_libc
usage_error "fuzz: --sanitize with AFL++" "^fuzz: --sanitize needs --engine=libfuzzer" \
	scripts/fuzz --sanitize --engine=afl
usage_error "fuzz: --resume on a directory that is no run" \
	"^fuzz: --resume=.* is not a scripts/fuzz run directory" scripts/fuzz --resume="$TMP"
