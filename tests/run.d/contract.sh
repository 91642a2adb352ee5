# Clauses of the contract (docs/contract.md) checked by the ABI trampoline
# beyond the register list, on the sampled calls (one case in 16 by seed,
# seed 0 among them): x87 mode on return (X8, I4: emms after MMX) and the
# arithmetic flags, undefined at entry (X5, A8). The i386 and aarch64 twins
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
