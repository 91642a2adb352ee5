# tier: fast
# The store-order check (docs/contract.md M1; docs/gate.md): on x86 every
# path from a non-temporal store to a return of the routine passes a fence.
# Its self-tests are right at run time and wrong only in the order their
# stores become visible, so the gate's static audit is what rejects them;
# their fenced twins are accepted. x86-64 and i386 (tests/bad/x86/, one
# source for both). The audit's paths one by one: tests/py/
# test_store_order_audit.py. Sourced by tests/run (uses expect, expect_all,
# skip, $MG, $TMP).

echo "== the store-order check: non-temporal stores fenced before the return"
if [ "$(uname -m)" != x86_64 ]; then
	skip "store-order" "an x86 rule, and this is $(uname -m)"
	return 0
fi
gate_quick=(--quick --skip=fuzz,regressions,valgrind --no-bench)
for v in bad_memset_nt_unfenced bad_copy_page_nt_unfenced; do
	op=${v#bad_}
	op=${op%%_nt_unfenced}
	expect "$v passes at run time" 0 "^$v .* PASS " \
		$MG verify --set=selftest --variant=$v --profile=smoke --findings="$TMP/findings"
	expect_all "gate: $v is the store-order check's unfenced-nt-store" 1 \
		"^store-order +FAIL .* 1 non-temporal store, 1 return reached unfenced" "^sweep +PASS" \
		"^1\. \[store-order\] unfenced-nt-store: movnti qword ptr \[rdi\], rax at mg_x86_64_$v\+0x[0-9a-f]+ reaches ret at mg_x86_64_$v\+0x[0-9a-f]+ with no fence after it" \
		"^REJECTED: mg_x86_64_$v, 1 finding" -- \
		scripts/gate --op "$op" "${gate_quick[@]}" --symbol=mg_x86_64_$v tests/bad/x86/$v.S
done
expect_all "gate: its twin, fenced before the return, is accepted" 0 \
	"^store-order +PASS .* 1 non-temporal store, 0 returns reached unfenced" "^ACCEPTED" -- \
	scripts/gate --op memset "${gate_quick[@]}" --symbol=mg_x86_64_memset_nt_fenced \
	tests/bad/x86/memset_nt_fenced.S
expect_all "gate: a routine with no non-temporal store passes it, saying so" 0 \
	"^store-order +PASS .*: no weakly ordered store on its paths" "^ACCEPTED" -- \
	scripts/gate --op memmove --profile=smoke --skip=fuzz,regressions,valgrind --no-bench tests/gate/word_memmove.c
expect "gate: the finding says how to see it happen (memgate publish)" 0 \
	"^   repro: objdump -d .*merged.o; .*/memgate publish --variant=mg_x86_64_bad_memset_nt_unfenced$" \
	bash -c "scripts/gate --op memset ${gate_quick[*]} --symbol=mg_x86_64_bad_memset_nt_unfenced tests/bad/x86/bad_memset_nt_unfenced.S; true"

# memgate publish, the message-passing run: what a reader on another CPU
# sees after acquiring the caller's release. A fenced routine's count is 0
# on any x86 (the sfence orders its stores before the release); an
# unfenced one's depends on the machine and the moment (no test asserts
# it: docs/contract.md M1 says what was seen here).
if [ "$(nproc)" -ge 2 ]; then
	expect "publish: the fenced memset leaves no stale byte after the release" 0 \
		"^publish memset_nt_fenced: 0 of 2000 rounds stale " \
		$MG publish --variant=memset_nt_fenced --rounds=2000
	expect "publish: nor does the fenced page copy" 0 "^publish copy_page_nt_fenced: 0 of 2000 rounds stale " \
		$MG publish --variant=copy_page_nt_fenced --rounds=2000
	expect "publish: its record" 0 \
		'^\{"record":"publish","variant":"memset_nt_fenced","arch":"x86_64","status":"none","rounds":10,"stale":0,"reason":null\}$' \
		$MG publish --variant=memset_nt_fenced --rounds=10 --format=jsonl
else
	expect "publish: one CPU is n/a, with the reason" 2 "^publish memset_nt_fenced: n/a: one CPU: " \
		$MG publish --variant=memset_nt_fenced --rounds=10
fi
expect "publish: a user copy is n/a, with the reason" 2 "^publish copy_from_user_bytes: n/a: a user copy" \
	$MG publish --variant=copy_from_user_bytes
expect "publish: no variant is one line, exit 2" 2 "^memgate publish: --variant=NAME is required" \
	$MG publish --rounds=10

# i386: the same source, 32-bit registers (movnti is SSE2); the twin passes.
if arch_usable i386 "the i386 store-order self-tests" i386_run; then
	expect_all "gate --arch=i386: the unfenced page copy is rejected" 1 \
		"^1\. \[store-order\] unfenced-nt-store: movnti dword ptr \[edi\], eax at mg_i386_bad_copy_page_nt_unfenced\+0x[0-9a-f]+ reaches ret at " \
		"^REJECTED" -- \
		scripts/gate --arch=i386 --op copy_page --requires=sse2 "${gate_quick[@]}" \
		--symbol=mg_i386_bad_copy_page_nt_unfenced tests/bad/x86/bad_copy_page_nt_unfenced.S
	expect_all "gate --arch=i386: its fenced twin is accepted" 0 "^store-order +PASS " "^ACCEPTED" -- \
		scripts/gate --arch=i386 --op copy_page --requires=sse2 "${gate_quick[@]}" \
		--symbol=mg_i386_copy_page_nt_fenced tests/bad/x86/copy_page_nt_fenced.S
fi
