# Clauses of the contract (docs/contract.md) checked by the ABI trampoline
# beyond the register list: x87 mode on return (X8, I4: emms after MMX,
# probed on the sampled calls, one case in 16 by seed). The i386 twins of
# the MXCSR and x87 control word rules (I3) run in arch_i386's selftest
# table. Sourced by tests/run (uses expect, caught, $MG, $TMP).

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
