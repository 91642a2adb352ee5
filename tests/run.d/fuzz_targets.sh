# tier: fast
# Fuzz targets, the input decoder, the corpus and the replay driver.
# Sourced by tests/run (uses expect, usage_error, $TMP).

echo "== fuzz inputs: any byte string is a valid case"
expect "random, empty and long inputs decode to valid cases that round-trip" 0 \
	", 0 failures$" build/test-decode
mkdir -p "$TMP/odd/memcpy" "$TMP/odd/memmove" "$TMP/odd/memset" "$TMP/odd/page"
for t in memcpy memmove memset page; do
	: >"$TMP/odd/$t/empty"
	printf '\377' >"$TMP/odd/$t/one-byte"
	head -c 23 /dev/urandom >"$TMP/odd/$t/truncated"
	head -c 4096 /dev/urandom >"$TMP/odd/$t/longest"
	for i in 1 2 3 4 5 6 7 8; do head -c $((i * 5)) /dev/urandom >"$TMP/odd/$t/random$i"; done
done
expect "odd inputs run on every correct variant without a false alarm" 0 "^[0-9]+ passed, 0 failed$" \
	build/replay --each-variant "$TMP/odd"

echo "== the corpus"
expect "seed inputs pass on every correct variant of their target" 0 "^[0-9]+ passed, 0 failed$" \
	build/replay --each-variant corpus/memcpy corpus/memmove corpus/memset corpus/page
expect "each regression input still fails on the variant that produced it" 0 \
	"^[0-9]+ passed, 0 failed$" build/replay --expect=fail corpus/regressions
expect "each regression input passes on the correct variants of its target" 0 \
	"^[0-9]+ passed, 0 failed$" build/replay --each-variant corpus/regressions
expect "a regression input that stops failing is reported" 1 \
	"^FAIL corpus/regressions/memcpy/bad_memcpy_overread_src/.* on memcpy_libc" \
	build/replay --expect=fail --variant=memcpy_libc corpus/regressions/memcpy/bad_memcpy_overread_src
build/memgate encode --variant=bad_memcpy_tail_overwrite --len=17 --dst-align=47 \
	--output="$TMP/tail.in" >/dev/null
expect "replay names the finding of an input, with its signature and replay line" 1 \
	"signature: bad_memcpy_tail_overwrite out-of-bounds-write dst past the end" \
	build/replay --verbose --variant=bad_memcpy_tail_overwrite "$TMP/tail.in"
expect "memgate encode writes what the regression filer reads back" 0 \
	"filed $TMP/reg/memcpy/bad_memcpy_tail_overwrite/out-of-bounds-write-" \
	scripts/add-regression --into="$TMP/reg" \
	--case "build/memgate run --variant=bad_memcpy_tail_overwrite --len=17 --dst-align=47"
expect "a case that does not fail is not filed" 1 "does not reproduce" \
	scripts/add-regression --into="$TMP/reg" --target=memcpy --variant=memcpy_libc "$TMP/tail.in"

echo "== bad input to the replay tools: one line, exit 2"
usage_error "replay: a missing file" "^replay: $TMP/nope.in: No such file or directory$" \
	build/replay --target=memcpy "$TMP/nope.in"
head -c 5000 /dev/zero >"$TMP/big.in"
usage_error "replay: a file too long to be an input" "is not a memgate fuzz input: over 4096 bytes" \
	build/replay --target=memcpy "$TMP/big.in"
usage_error "replay: no target in flags or path" "which target\?" build/replay "$TMP/tail.in"
usage_error "replay: a variant of another target" "variant memset_libc is a memset, not of target memcpy" \
	build/replay --target=memcpy --variant=memset_libc "$TMP/tail.in"
usage_error "encode: a length only memgate run can take" "fuzz inputs go up to" \
	build/memgate encode --variant=memcpy_libc --len=4294967296 --output="$TMP/x.in"
usage_error "encode: no output" "--output=FILE is required" build/memgate encode --variant=memcpy_libc --len=1
usage_error "encode: a selector past one byte" "bad value '256' for --selector" \
	build/memgate encode --variant=memcpy_libc --len=1 --selector=256 --output="$TMP/x.in"
# scripts/seed-corpus spreads its seeds over a family's variants by the
# selector byte; a hash of the whole input decides whether a long length is
# kept, so encode must re-key it after setting the selector.
for sel in 0 1; do
	build/memgate encode --variant=memcpy_libc --len=1048579 --selector=$sel --output="$TMP/sel$sel.in"
done
expect "encode --selector: another variant of the family, the 1 MiB length kept" 0 \
	"^2 of 2 differ, lengths kept$" bash -c "for s in 0 1; do build/replay --target=memcpy --verbose \
	$TMP/sel\$s.in | grep '^  case:'; done | awk '/len 1048579,/ { n++ } { v[NR] = \$2 }
	END { printf \"%d of 2 %s, lengths %s\\n\", NR, v[1] != v[2] ? \"differ\" : \"same\", n == 2 ? \"kept\" : \"lost\" }'"

if ! command -v clang >/dev/null; then
	echo "SKIP fuzz targets: clang is not installed (scripts/install-deps installs it)"
	return 0
fi
make --no-print-directory -s fuzz-build >/dev/null || fail "make fuzz-build" "the fuzz targets do not build"

echo "== the fuzz targets (libFuzzer, ASan/UBSan, AFL++ builds)"
for t in memcpy memmove memset page; do
	expect "libFuzzer fuzz_$t: 20000 inputs from the seeds, no false alarm" 0 "Done 20000 runs" \
		build/fuzz/libfuzzer/fuzz_$t -runs=20000 -max_len=64 -seed=1 \
		-artifact_prefix="$TMP/" "$(mkdir -p "$TMP/work-$t" && echo "$TMP/work-$t")" corpus/$t
	expect "ASan/UBSan fuzz_$t replays its seeds clean" 0 "Done [0-9]+ runs" \
		build/fuzz/libfuzzer-asan/fuzz_$t -runs=0 corpus/$t
done
# libFuzzer exits 77 (its -error_exitcode) when the target aborts.
expect "libFuzzer finds a planted bug in a pinned variant and names it" 77 \
	"FINDING in bad_memcpy_tail_overwrite: out-of-bounds-write: dst, [0-9]+ bytes? past the end" \
	build/fuzz/libfuzzer/fuzz_memcpy --variant=bad_memcpy_tail_overwrite -max_total_time=30 \
	-seed=1 -artifact_prefix="$TMP/"
expect "a finding is saved to disk with its replay command" 0 "replay: +build/memgate run --variant=bad_memcpy_tail_overwrite" \
	bash -c "MEMGATE_FINDINGS=$TMP/found build/fuzz/libfuzzer/fuzz_memcpy -runs=1 $TMP/tail.in \
		--variant=bad_memcpy_tail_overwrite >/dev/null 2>&1; cat $TMP/found/*.txt"
expect "the crash input libFuzzer saved replays as the same finding" 1 \
	"signature: bad_memcpy_tail_overwrite out-of-bounds-write dst past the end" \
	bash -c "build/replay --verbose --target=memcpy --variant=bad_memcpy_tail_overwrite $TMP/crash-*"
expect "a variant that aborts is saved by libFuzzer as a crash" 77 "deadly signal" \
	build/fuzz/libfuzzer/fuzz_memcpy corpus/regressions/memcpy/bad_memcpy_aborts \
	--variant=bad_memcpy_aborts -runs=0 -artifact_prefix="$TMP/"
expect "known-bad variants stay out of an unpinned target" 0 "Done [0-9]+ runs" \
	build/fuzz/libfuzzer/fuzz_memcpy -runs=1 corpus/regressions/memcpy/bad_memcpy_overread_src
expect "a pinned target replays the regression as a finding" 77 "FINDING in bad_memcpy_overread_src" \
	env MEMGATE_VARIANT=bad_memcpy_overread_src build/fuzz/libfuzzer/fuzz_memcpy -runs=1 \
	-artifact_prefix="$TMP/" corpus/regressions/memcpy/bad_memcpy_overread_src
# libFuzzer's own timer (SIGALRM every -timeout/2+1 s) may land in an
# interrupted case; its handler's frame goes below the stack, where the
# stops' poison lies, and is never blamed on the routine (a flaky
# abi-violation in the zoo's kernel memset). Here the signal comes every
# 50 ms, once libFuzzer runs the input (its handler is in place then).
ft_alarmed() {
	local log=$TMP/alarmed.log p i
	build/fuzz/libfuzzer/fuzz_memset --variant=memset_rep_stosb -runs=30 "$TMP/stepped.in" >"$log" 2>&1 &
	p=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '^Running: ' "$log" && break
		sleep 0.05
	done
	while kill -ALRM "$p" 2>/dev/null; do sleep 0.05; done
	wait "$p"
	local rc=$?
	cat "$log"
	return $rc
}
build/memgate encode --variant=memset_rep_stosb --len=4000 --dst-align=1 --interrupt=step \
	--output="$TMP/stepped.in" >/dev/null
expect "another handler's signal in an interrupted case is not the routine's doing" 0 \
	"^Executed .* in [0-9]+ ms$" ft_alarmed
# The coverage cells: the same 3000 inputs keep far more of them when each
# case's cell counts as coverage (the fuzzer is otherwise blind inside asm).
cell_features() {
	mkdir -p "$TMP/cells$1" && rm -rf "$TMP/cells$1"/*
	MEMGATE_CELLS=$1 MEMGATE_MAX_LEN=4096 build/fuzz/libfuzzer/fuzz_memcpy --variant=memcpy_erms \
		-runs=3000 -seed=1 "$TMP/cells$1" 2>&1 | sed -n 's/.*DONE .* ft: \([0-9]*\) .*/\1/p'
}
with_cells=$(cell_features 1) without_cells=$(cell_features 0)
if [ "${with_cells:-0}" -gt $((${without_cells:-0} * 3 / 2)) ]; then
	pass "coverage cells give an asm variant's cases features of their own ($with_cells vs $without_cells)"
else
	fail "coverage cells give an asm variant's cases features of their own" \
		"features with cells ${with_cells:-?}, without ${without_cells:-?}"
fi
# An input the harness cannot judge: exit 2 and an error record on disk,
# which is all an AFL++ run leaves of it.
expect "fuzz target: an input it cannot judge is exit 2 and an error record" 0 \
	'^\{"record":"error","reason":"MEMGATE_TEST_NOT_JUDGED is set","stage":"fuzz","variant":"memcpy_libc"\}$' \
	bash -c "MEMGATE_TEST_NOT_JUDGED=1 MEMGATE_FINDINGS=$TMP/not-judged build/fuzz/libfuzzer/fuzz_memcpy \
		--variant=memcpy_libc -runs=1 $TMP/tail.in >/dev/null 2>&1; [ \$? -eq 2 ] &&
		[ \$(ls $TMP/not-judged | grep -vc '^error-[0-9]*\.json\$') -eq 0 ] && cat $TMP/not-judged/error-*.json"
if [ -x build/fuzz/afl/fuzz_memcpy ]; then
	expect "AFL++ build: an input it cannot judge leaves its error record" 0 '"record":"error"' \
		bash -c "MEMGATE_TEST_NOT_JUDGED=1 MEMGATE_VARIANT=memcpy_libc MEMGATE_FINDINGS=$TMP/not-judged-afl \
			build/fuzz/afl/fuzz_memcpy $TMP/tail.in >/dev/null 2>&1; cat $TMP/not-judged-afl/error-*.json"
fi
expect "fuzz target: an unknown pinned variant is named, exit 2" 2 \
	"memgate fuzz_memcpy: unknown variant 'nope'" build/fuzz/libfuzzer/fuzz_memcpy --variant=nope -runs=1
expect "fuzz target: a variant of another target is named, exit 2" 2 \
	"is a memset, not of target memcpy" build/fuzz/libfuzzer/fuzz_memcpy --variant=memset_libc -runs=1
expect "fuzz target: a bad --max-len is named, exit 2" 2 "max-len 'lots' is not a number" \
	build/fuzz/libfuzzer/fuzz_memcpy --max-len=lots -runs=1
if [ -x build/fuzz/afl/fuzz_memcpy ]; then
	expect "AFL++ build runs an input outside afl-fuzz" 0 "^Execution successful" \
		build/fuzz/afl/fuzz_memcpy corpus/memcpy/len17.in
	expect "AFL++ build aborts on a finding" 134 "FINDING in bad_memcpy_tail_overwrite" \
		bash -c "MEMGATE_VARIANT=bad_memcpy_tail_overwrite build/fuzz/afl/fuzz_memcpy $TMP/tail.in"
	# The driver first runs "##SI" (a length-801 case this variant fails);
	# only the real input, which it passes, may count.
	build/memgate encode --variant=bad_memcpy_tail_overwrite --len=0 --output="$TMP/zero.in" >/dev/null
	expect "AFL++ build does not check its driver's warm-up input" 0 "^Execution successful" \
		env MEMGATE_VARIANT=bad_memcpy_tail_overwrite build/fuzz/afl/fuzz_memcpy "$TMP/zero.in"
else
	echo "SKIP AFL++ build: afl-clang-fast is not installed (scripts/install-deps installs afl++)"
fi
