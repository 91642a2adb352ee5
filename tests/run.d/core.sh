# tier: fast
# The core: the oracle, every check on its broken variant, the ABI rules,
# lengths of 2 GiB and more, the verdict logic, findings and replay, CPU
# features and bad input. Sourced by tests/run (uses its helpers, $MG and
# $TMP).

echo "== the oracle"
expect "references call nothing and use no string instructions" 0 "" \
	tests/inspect-reference build/obj/reference/*.o
cc -O2 -c reference/ref_memset.c -o "$TMP/ref_memset_builtin.o"
expect "the inspection flags a reference built without -fno-builtin" 1 "calls out to: .*memset" \
	tests/inspect-reference "$TMP/ref_memset_builtin.o"
cc -O2 -c reference/ref_clear_page.c -o "$TMP/ref_clear_page_builtin.o"
expect "the inspection flags a reference turned into rep stos" 1 "uses a rep string instruction" \
	tests/inspect-reference "$TMP/ref_clear_page_builtin.o"
expect "references agree with the C library" 0 ", 0 failures" build/test-reference
expect "the comparison with the C library catches a broken reference" 1 \
	"FAIL: ref_memmove differs from the C library" build/test-reference-broken

echo "== every check fires on its broken variant (tests/bad)"
caught bad_memcpy_overread_src out-of-bounds-read "src, 1 byte past the end \(at src\+17, len 17\)$" \
	--len=17 --src-align=47
caught bad_memcpy_underread_src out-of-bounds-read "src, 1 byte before it \(at src-1\)$" \
	--len=17 --src-align=0 --place=before
caught bad_memcpy_touches_at_zero out-of-bounds-read "src, 1 byte past the end \(at src\+0, len 0\)$" \
	--len=0
caught bad_memcpy_write_before_dst out-of-bounds-write "dst, 1 byte before it \(at dst-1\)$" \
	--len=17 --dst-align=0 --place=before
expect "red zone catches a write before dst short of the guard" 1 \
	"^verdict: out-of-bounds-write: dst, 1 byte before it \(at dst-1\): changed 0x[0-9a-f]{2} -> 0xa5$" \
	$MG run --variant=bad_memcpy_write_before_dst --len=17 --dst-align=5
caught bad_memcpy_tail_overwrite out-of-bounds-write "dst, 7 bytes past the end \(at dst\+15, len 9\): changed" \
	--len=9 --dst-align=0
expect "guard page catches a tail write at the end of dst" 1 \
	"^verdict: out-of-bounds-write: dst, 1 byte past the end \(at dst\+9, len 9\)$" \
	$MG run --variant=bad_memcpy_tail_overwrite --len=9 --dst-align=55
caught bad_memmove_always_forward wrong-result "dst\[1\] got 0x[0-9a-f]+ want 0x[0-9a-f]+ \(" \
	--len=16 --overlap=1
caught bad_memcpy_returns_end wrong-return "returned dst\+17, want dst\+0$" --len=17
caught bad_memcpy_writes_src src-modified "wrote src\+0 \(len 17\); the source is read-only" --len=17
caught bad_memcpy_hangs_at_7 timeout "no return within 200 ms of CPU time \(watchdog\)$" --len=7 --timeout-ms=200
caught bad_memset_whole_int wrong-result "dst\[1\] got 0xac want 0xab" --len=8 --value=0x1ab
caught bad_clear_page_short wrong-result "dst\[4095\] got 0x[0-9a-f]+ want 0x00 \(1 of 4096" --len=4096
caught bad_memcpy_aborts crash "the harness process died of SIGABRT" --len=5
if [ "$(uname -m)" = x86_64 ]; then
	caught bad_memcpy_movaps crash "SIGSEGV \(general-protection fault.* at pc mg_x86_64_bad_memcpy_movaps\+0x" \
		--len=16 --src-align=1
	caught bad_memcpy_ud2 crash "SIGILL \(illegal instruction" --len=33
fi
if [ "$(uname -m)" = x86_64 ]; then
	echo "== ABI rules (x86-64): every call goes through the trampoline"
	caught bad_memcpy_clobbers_rbx abi-violation "rbx clobbered \(0x1111111111111111 -> 0x" --len=40
	caught bad_memcpy_clobbers_r15 abi-violation "r15 clobbered \(0x6666666666666666 -> 0x" --len=40
	caught bad_memmove_leaves_df_set abi-violation "direction flag left set$" --len=40 --overlap=3
	caught bad_memcpy_changes_mxcsr abi-violation "MXCSR control bits changed \(0x1f[0-9a-f]{2} -> 0x9f" --len=40
	caught bad_memcpy_changes_x87_cw abi-violation "x87 control word changed \(0x037f -> 0x007f\)$" --len=40
	caught bad_memset_upper_c abi-violation "reads the upper 32 bits of its int argument c" --len=40 --value=7
	caught bad_memcpy_unbalanced_stack abi-violation "stack pointer moved by \+8 bytes$" --len=40
	caught bad_memcpy_writes_caller_frame abi-violation "the caller.s stack frame above the return address was overwritten" --len=40
	expect "a missing vzeroupper is a warning, not a failure" 0 "^bad_memcpy_no_vzeroupper .* PASS \(with warnings\)" \
		$MG verify --variant=bad_memcpy_no_vzeroupper --huge=off --findings="$TMP/findings"
	expect "run names the warning" 0 "^warning: AVX upper state left dirty on return \(no vzeroupper\)" \
		$MG run --variant=bad_memcpy_no_vzeroupper --len=40
	out=$($MG verify --variant=copy_page_unrolled8,memcpy_unrolled64,memmove_rep_backward,memmove_bwd_unrolled,memcpy_avx2 \
		--huge=off --findings="$TMP/findings" 2>&1)
	if [ "$(grep -cE ' PASS( \(4GiB\+ check not run\))? +[0-9]' <<<"$out")" -eq 5 ]; then
		pass "variants that save and restore rbx/r12/r13, or pair std with cld, pass"
	else
		fail "variants that save and restore rbx/r12/r13, or pair std with cld, pass" "$out"
	fi
fi
echo "== lengths of 2 GiB and more"
# The selftest table is swept in two runs: the variants it says fail at
# 4 GiB+ with that check, the rest without it (what each of them proves is
# in the sweep; a correct routine's 4 GiB+ pass is main.sh's, on the main
# table, and "passes at 4 GiB + 4097" below). The 4 GiB+ check cost each
# of the eight correct twins 10 CPU s of its 12 (memcpy_mmx_emms, 2026-12-02).
# The rest under the smoke profile, which catches each as the quick one
# does (16 CPU s against 23).
$MG list --set=selftest --tsv >"$TMP/selftest.tsv"
st_huge=$(awk -F'\t' '$7 ~ /^FAIL at 4 GiB\+/ { printf "%s%s", s, $1; s = "," }' "$TMP/selftest.tsv")
st_rest=$(awk -F'\t' '$7 !~ /^FAIL at 4 GiB\+/ { printf "%s%s", s, $1; s = "," }' "$TMP/selftest.tsv")
$MG verify --set=selftest --timeout-ms=200 --variant="$st_huge" --findings="$TMP/findings" >"$TMP/selftest-huge.out" 2>&1
st_huge_rc=$?
if [ "$(uname -m)" = x86_64 ]; then
	expect "a 32-bit count fails the 4 GiB+ check, and only it" 0 \
		"^bad_memcpy_count32 .* FAIL \(expected\) .* FAIL +wrong-result: " \
		bash -c "cat '$TMP/selftest-huge.out'; exit $st_huge_rc"
	expect "a 32-bit count leaves dst untouched at 4 GiB" 1 "^verdict: wrong-result: dst\[0\] " \
		$MG run --variant=bad_memcpy_count32 --len=4294967296
	expect "the guard oracle: a 32-bit count returns instead of faulting" 1 \
		"^verdict: wrong-result: returned normally from a length of 4294967312 " \
		$MG run --variant=bad_memcpy_count32 --len=4294967312 --oracle
	expect "memmove rep_backward (32-bit count, as posted) is flagged" 0 \
		"^memmove_rep_backward .* FAIL \(expected\) .* FAIL +wrong-result: " \
		$MG verify --variant=memmove_rep_backward --findings="$TMP/findings"
	expect "the real pages around a 4 GiB dst catch a stray write" 1 \
		"^verdict: out-of-bounds-write: dst, 1 byte before it \(at dst-1\): changed 0x[0-9a-f]{2} -> 0xa5$" \
		$MG run --variant=bad_memcpy_write_before_dst --len=4294967296
	expect "a correct routine passes at 4 GiB + 4097" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_erms --len=4294971393 --src-above
fi
expect "a signed length compare fails at 2 GiB" 1 "^verdict: wrong-result: dst\[0\] " \
	$MG run --variant=bad_memset_signed_count --len=2147483648 --value=7
expect "a correct routine faults into the oracle's guard" 0 "^verdict: ok$" \
	$MG run --variant=memset_word --len=2147483664 --oracle
expect_all "without the address space, the 4 GiB+ check could not judge: exit 2, with the reason" 2 \
	"^the 4 GiB\+ check: could not judge: cannot reserve the address space" \
	"^could not judge: 1 variant, the first memcpy_erms: cannot reserve the address space" -- \
	bash -c "ulimit -v 8000000 && $MG verify --variant=memcpy_erms --findings=$TMP/findings"

expect "the selftest table's 4 GiB+ variants fail exactly as declared" 0 "^[0-9]+ variants: 0 passed, [0-9]+ failed as expected, 0 skipped, 0 unexpected$" \
	bash -c "cat '$TMP/selftest-huge.out'; exit $st_huge_rc"
expect "the rest of the selftest table fails exactly as declared" 0 ", 0 unexpected$" \
	$MG verify --set=selftest --profile=smoke --timeout-ms=200 --huge=off --variant="$st_rest" --findings="$TMP/findings"

echo "== the verdict logic itself can fail"
expect "a known-bad variant that passes fails verify" 1 "PASS \(known-bad: expected FAIL\)" \
	$MG verify --variant=memcpy_libc --expect=wrong-result --huge=off --findings="$TMP/findings"
expect "a known-bad variant failing with another class fails verify" 1 \
	"FAIL \(unexpected wrong-return; expected wrong-result\)" \
	$MG verify --variant=bad_memcpy_returns_end --expect=wrong-result --findings="$TMP/findings"
expect "a failing variant that should pass fails verify" 1 "^bad_memcpy_returns_end .* FAIL +[0-9]" \
	$MG verify --variant=bad_memcpy_returns_end --expect=pass --huge=off --findings="$TMP/findings"

echo "== the harness survives what variants do"
out=$($MG verify --variant=bad_memcpy_overread_src --max-failures=1000000 --findings="$TMP/findings")
cases=$(awk '$1 == "bad_memcpy_overread_src" && $5 == "(expected)" { print $6 }' <<<"$out")
runs=$(sed -nE 's/^bad_memcpy_overread_src: ([0-9]+) failing runs.*/\1/p' <<<"$out")
if [ -n "$cases" ] && [ -n "$runs" ] && [ "$runs" -gt 0 ] && [ "$runs" -lt "$cases" ]; then
	pass "cases after a fault still pass ($runs of $cases runs faulted, all as out-of-bounds-read)"
else
	fail "cases after a fault still pass" "cases '$cases', failing runs '$runs'"
fi
expect "a variant that kills its process costs only its own row" 0 "^memcpy_libc .* PASS " \
	$MG verify --variant=bad_memcpy_aborts,memcpy_libc --huge=off --findings="$TMP/findings"

echo "== findings and replay"
$MG verify --variant=memmove_reversed_dispatch --findings="$TMP/a" >"$TMP/verify.out" 2>&1
replay=$(sed -nE 's/^ +replay: //p' "$TMP/verify.out" | head -n 1)
if [ -z "$replay" ]; then
	fail "a failure prints a replay command" "none in: $(tail -n 3 "$TMP/verify.out")"
else
	pass "a failure prints a replay command"
	expect "the replay command reproduces the finding" 1 "^verdict: wrong-result: " $replay
fi
expect "findings are saved with their replay commands" 0 "replay: build/memgate run --variant=memmove_reversed_dispatch" \
	cat "$TMP/a/memmove_reversed_dispatch.txt"
$MG verify --variant=memmove_reversed_dispatch --findings="$TMP/b" >/dev/null 2>&1
$MG verify --variant=memmove_reversed_dispatch --findings="$TMP/c" --seed=2 >/dev/null 2>&1
# The findings without their run headers (time, pid) and ends.
findings_of() { grep -v '^== ' "$1/memmove_reversed_dispatch.txt"; }
if [ "$(findings_of "$TMP/a")" = "$(findings_of "$TMP/b")" ] &&
	[ "$(findings_of "$TMP/a")" != "$(findings_of "$TMP/c")" ]; then
	pass "the sweep is deterministic for a seed and changes with it"
else
	fail "the sweep is deterministic for a seed and changes with it" "findings files differ or agree wrongly"
fi

echo "== missing CPU features are skipped, never dropped"
# Both of memcpy_avx512's features hidden: the SKIP names them on any CPU.
expect "verify shows SKIP with the missing feature" 0 "^memcpy_avx512 .* SKIP \(needs avx512f,avx512bw\)" \
	$MG verify --variant=memcpy_avx512,memcpy_erms --hide-feature=avx512f,avx512bw --huge=off --findings="$TMP/findings"
expect "run says SKIP with the reason" 0 "^SKIP \(needs avx2\)" \
	$MG run --variant=memcpy_avx2 --len=8 --hide-feature=avx2
# erms, fsrm, fsrs say how fast rep movsb is, which every x86 CPU runs:
# a variant declaring them runs wherever it is, hidden or not.
expect "a speed-only feature never skips: it runs without erms" 0 "^verdict: ok$" \
	$MG run --variant=memcpy_erms --len=8 --hide-feature=erms,fsrm,fsrs
expect "list shows what this CPU cannot run" 0 "^memcpy_avx2 .* SKIP \(needs avx2\)" \
	$MG list --hide-feature=avx2

echo "== bad input: one line, exit 2"
usage_error "unknown variant" "unknown variant 'nope' \(valid: memcpy_libc, " $MG verify --variant=nope
usage_error "unknown option" "unknown option '--bogus' \(valid: --profile, " $MG verify --bogus
usage_error "bad number" "bad value 'abc' for --len" $MG run --variant=memcpy_libc --len=abc
usage_error "unknown command" "unknown command 'frob'" $MG frob
usage_error "unknown profile" "unknown profile 'slow' \(valid: smoke, quick, full\)" $MG verify --profile=slow
usage_error "unknown operation for --op" "unknown operation 'memcopy' for --op \(valid: memcpy, " \
	$MG verify --op=memcopy
usage_error "an empty --op" "^memgate verify: --op= names no operation$" $MG verify --op=
usage_error "--op that leaves nothing" "^memgate verify: --op leaves no variant to verify$" \
	$MG verify --variant=memcpy_libc --op=memset
expect_all "verify --op keeps only that operation's variants" 0 "^clear_page_rep_stosq " \
	"^4 variants: 4 passed" -- $MG verify --op=clear_page --huge=off --findings="$TMP/findings"
usage_error "unknown CPU feature" "unknown CPU feature 'avx9'" $MG verify --hide-feature=avx9
usage_error "a case the contract forbids" "invalid case for copy_page_rep_movsq: length 17: the variant only takes 4096" \
	$MG run --variant=copy_page_rep_movsq --len=17
usage_error "a required flag missing" "--variant and --len are required" $MG run --variant=memcpy_libc
usage_error "a stray argument" "unexpected argument 'extra'" $MG list extra
