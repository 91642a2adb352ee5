# tier: fast
# Clauses of the contract (docs/contract.md) checked by the ABI trampoline
# beyond the register list, on the sampled calls (one case in 16 by seed,
# seed 0 among them): x87 mode on return (X8, I4: emms after MMX) and the
# arithmetic flags, undefined at entry (X5, A8); and the floating-point
# environment at entry (C17, X6), fs (X13). The i386 and aarch64 twins
# run in arch_i386's and arch_aarch64's selftest tables. Sourced by
# tests/run (uses expect, caught, $MG, $TMP).

echo "== the contract's clauses in the trampoline"
if [ "$(uname -m)" != x86_64 ]; then
	skip "x87 mode on return" "an x86 rule, and this is $(uname -m)"
	return 0
fi
caught bad_memcpy_mmx_no_emms abi-violation \
	"left the x87 registers in MMX mode \(no emms before it returned\)" --len=100 --seed=0
expect "the MMX copy that ends with emms passes its sweep" 0 "^memcpy_mmx_emms .* PASS " \
	$MG verify --variant=memcpy_mmx_emms --huge=off --findings="$TMP/findings"
expect "the finding names the rule x87-mode" 0 '"rule":"x87-mode"' \
	bash -c "$MG run --variant=bad_memcpy_mmx_no_emms --len=100 --seed=0 --format=jsonl; true"
caught bad_memcpy_entry_carry abi-violation \
	"depends on the arithmetic flags at entry, which the ABI leaves undefined \(with every one set it fails, wrong-result: dst\[99\] .*; with them clear it passes\)$" \
	--len=100 --seed=0
expect "unsampled (flags clear), the same routine passes the case" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_entry_carry --len=100 --seed=1

# The floating-point environment at entry (C17, X6): part of the case, set
# by the trampoline; each self-test is right in the default one.
fe_why="depends on the floating-point environment at entry, which is the caller's"
caught bad_memcpy_rounds_count abi-violation \
	"$fe_why \(with round-up \(MXCSR 0x5f80, the x87 control word 0x0b7f, status word 0x0000\) it fails, out-of-bounds-write: dst, 3 bytes past the end .*; with the default it passes\)$" \
	--len=13 --fpenv=round-up
expect "in the default environment bad_memcpy_rounds_count passes" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_rounds_count --len=13
expect "the finding names the rule entry-fpenv and the case its fpenv" 0 \
	'"fpenv":"round-up".*"rule":"entry-fpenv"' \
	bash -c "$MG run --variant=bad_memcpy_rounds_count --len=13 --fpenv=round-up --format=jsonl | tr -d '\n'; true"
expect "its twin, which truncates, passes its sweep" 0 "^memcpy_truncates_count .* PASS " \
	$MG verify --variant=memcpy_truncates_count --huge=off --findings="$TMP/findings"
caught bad_memcpy_resets_mxcsr abi-violation \
	"MXCSR control bits changed \(0x9fc0 -> 0x1f80\)$" --len=10 --fpenv=ftz-daz
expect "a routine that restores the MXCSR it found passes its sweep" 0 "^memcpy_restores_mxcsr .* PASS " \
	$MG verify --variant=memcpy_restores_mxcsr --huge=off --findings="$TMP/findings"
expect "the sweep's finding replays with its --fpenv" 0 "replay: .* --fpenv=[a-z-]+( --stack-offset=[0-9]+)?$" \
	$MG verify --variant=bad_memcpy_resets_mxcsr --findings="$TMP/findings"
usage_error "an unknown environment is named" \
	"^memgate run: unknown --fpenv 'fast' \(valid: default, flags-set, ftz-daz, round-up, round-down, round-zero, unmasked\)$" \
	$MG run --variant=memcpy_libc --len=8 --fpenv=fast
usage_error "kernel code enters with the default only" \
	"^memgate run: invalid case for copy_page_rep_movsq: --fpenv is default for kernel code" \
	$MG run --variant=copy_page_rep_movsq --len=4096 --fpenv=round-up
# The fuzz input carries it: 33 bytes, replayed in it; without its byte,
# the default.
fe_in="$TMP/fpenv.in"
if $MG encode --variant=bad_memcpy_rounds_count --len=13 --fpenv=round-up --output="$fe_in" \
	>/dev/null 2>&1 && [ "$(wc -c <"$fe_in")" -eq 33 ]; then
	pass "a case with an fpenv encodes to a 33-byte input"
else
	fail "a case with an fpenv encodes to a 33-byte input" "memgate encode failed or wrote $(wc -c <"$fe_in" 2>/dev/null) bytes"
fi
expect_all "build/replay replays the input in its environment, and fails it" 1 \
	"replay: .* --fpenv=round-up$" "^0 passed, 1 failed$" -- \
	build/replay --variant=bad_memcpy_rounds_count "$fe_in"
expect "its last 32 bytes alone are the same case in the default, which passes" 0 "^1 passed, 0 failed$" \
	bash -c "tail -c 32 '$fe_in' >'$TMP/fpenv0.in' && build/replay --variant=bad_memcpy_rounds_count '$TMP/fpenv0.in'"

# fs, the thread pointer (X13): compared after every call (RDFSBASE), or on
# the sampled calls (arch_prctl) where the kernel has not enabled FSGSBASE.
caught bad_memcpy_clears_fs abi-violation \
	"changed fs, the thread pointer, which is reserved for the system \(its base 0x[0-9a-f]+ -> 0x0\)$" \
	--len=100 --seed=0
expect "without FSGSBASE, arch_prctl on a sampled call sees it too" 1 \
	"^verdict: abi-violation: changed fs, the thread pointer" \
	env MEMGATE_TEST_NO_FSGSBASE=1 $MG run --variant=bad_memcpy_clears_fs --len=100 --seed=0
expect "the finding names the rule thread-pointer" 0 '"rule":"thread-pointer"' \
	bash -c "$MG run --variant=bad_memcpy_clears_fs --len=100 --seed=0 --format=jsonl; true"
