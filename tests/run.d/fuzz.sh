# scripts/fuzz (make fuzz): fuzzing for a time budget with libFuzzer and
# AFL++, findings replayed, minimized and deduplicated by signature.
# Sourced by tests/run (uses expect, usage_error, pass, fail, $TMP). Short
# budgets: the whole group takes about 45 s.

echo "== fuzzing for a time budget (scripts/fuzz)"

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
	kept=$(find "$run/memcpy/raw" -type f ! -name '*.txt' 2>/dev/null | wc -l)
	if [ "$sigs" = 1 ] && [ -n "$saved" ] && [ "$saved" -ge 2 ] && [ "$kept" -eq 1 ]; then
		pass "$name ($saved saved inputs, one signature, one input kept)"
	else
		fail "$name" "signatures '$sigs', saved inputs '$saved', raw inputs kept '$kept'"
	fi
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

	if command -v afl-fuzz >/dev/null 2>&1 && [ -x build/fuzz/afl/fuzz_memcpy ]; then
		expect "AFL++ finds a planted over-read and names its signature" 1 \
			"^  signature: $OVERREAD_SIG$" \
			$FUZZ --engine=afl --variant=bad_memcpy_overread_src --seconds=4 --out="$TMP/fuzz-afl"
		expect "AFL++: the summary gives the repro command" 0 \
			"^  repro: +scripts/repro --target=memcpy --variant=bad_memcpy_overread_src $TMP/fuzz-afl/memcpy/$OVERREAD_IN$" \
			cat "$TMP/fuzz-afl/summary.txt"
		dedupes "AFL++: repeated crashes of one bug are one finding" "$TMP/fuzz-afl"
	else
		echo "SKIP AFL++ finds a planted over-read: afl-fuzz is not installed (scripts/install-deps installs AFL++)"
	fi

	expect "a correct pinned variant gives no findings" 0 "^no findings on memcpy_erms" \
		$FUZZ --variant=memcpy_erms --seconds=2 --out="$TMP/fuzz-ok"
	expect "the working corpus is kept in the run directory" 0 "^[1-9][0-9]*$" \
		bash -c "find '$TMP/fuzz-ok/corpus/memcpy' -type f | wc -l"

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
	if [ "$int_status" = 130 ] && [ -z "$left" ] && [ -z "$missing_seeds" ] && [ "$saved" -gt 0 ] &&
		grep -q "^fuzz: interrupted" "$int.out"; then
		pass "SIGTERM mid-run: exit 130, no fuzzer left, every seed and $saved saved finding(s) kept"
	else
		fail "SIGTERM mid-run: exit 130, no fuzzer left, every seed and the findings kept" \
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
usage_error "fuzz: a variant of another target" \
	"^fuzz: variant memset_libc is a memset variant, not of target memcpy$" \
	scripts/fuzz --target=memcpy --variant=memset_libc
usage_error "fuzz: --sanitize with AFL++" "^fuzz: --sanitize needs --engine=libfuzzer" \
	scripts/fuzz --sanitize --engine=afl
usage_error "fuzz: --resume on a directory that is no run" \
	"^fuzz: --resume=.* is not a scripts/fuzz run directory" scripts/fuzz --resume="$TMP"
