# The user copies (docs/usercopy.md): copy_from_user, copy_to_user and
# clear_user with the user buffer faulting from byte k on, the faults
# resumed through the routines' own exception tables as the kernel would,
# and each rule of the fault contract with its broken variant. The host's
# x86-64 build; aarch64's, under qemu, are usercopy_aarch64.sh's. Sourced
# by tests/run (uses expect, expect_all, caught, skip, $MG, $TMP).

echo "== the user copies and their exception tables"
if [ "$(uname -m)" != x86_64 ]; then
	skip "user copies" "this group is x86-64's (aarch64's: usercopy_aarch64), and this is $(uname -m)"
	return 0
fi

# Every broken variant fails its sweep with its class alone, and a case of
# it gets the class's diagnosis.
caught bad_copy_from_user_count_off_by_one wrong-count \
	"returned 11 of n = 17, so 6 bytes copied, but the user buffer faults from byte 5: at most 5 could be$" \
	--len=17 --fault-at=5
caught bad_copy_from_user_quadwords_left wrong-count \
	"returned 4 of n = 40, so 36 bytes copied, but the user buffer faults from byte 12: at most 12 could be$" \
	--len=40 --fault-at=12
caught bad_copy_to_user_tail_unlisted unhandled-fault \
	"dst, inside it \(at dst\+9\); the user buffer faulted at pc mg_x86_64_bad_copy_to_user_tail_unlisted\+0x[0-9a-f]+, which the exception table does not list: the kernel would oops$" \
	--len=17 --fault-at=9
caught bad_copy_from_user_pads_one write-past-count \
	"dst\[5\] changed 0x[0-9a-f]{2} -> 0x00, past the 5 bytes the count says were copied \(returned 12 of n = 17\)" \
	--len=17 --fault-at=5
caught bad_copy_to_user_reads_past_src kernel-fault \
	"src, 1 byte past the end \(at src\+16, len 16\); the kernel buffer faulted at pc mg_x86_64_bad_copy_to_user_reads_past_src\+0x0" \
	--len=16 --src-align=48 --dst-align=0
caught bad_copy_from_user_probes_end nothing-copied \
	"returned n = 17 \(nothing copied\), but the first 5 bytes could be" \
	--len=17 --fault-at=5

# The correct ones pass (copy_from_user_movs_alt, with a register convention
# of its own, in conventions.sh): a fault at each end and inside, every handler
# type they use (UACCESS; UCOPY_LEN8 then UACCESS for rep movsq), and a
# budgeted sweep of each (the whole quick sweep is main's `make verify`).
for v in copy_from_user_bytes copy_to_user_bytes clear_user_bytes copy_from_user_rep_movsb \
	copy_to_user_rep_movsb clear_user_rep_stosb copy_from_user_rep_movsq; do
	for k in 0 13 20; do
		expect "$v resumes a fault at byte $k of 21" 0 "^verdict: ok$" \
			$MG run --variant=$v --len=21 --fault-at=$k --dst-align=5 --src-align=5
	done
done
$MG verify --op=copy_from_user,copy_to_user,clear_user --sweep-seconds=2 \
	--findings="$TMP/findings" >"$TMP/usercopy-verify.out" 2>&1
expect "every correct user copy passes its (budgeted) sweep" 0 \
	"^8 variants: 8 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
	cat "$TMP/usercopy-verify.out"
expect "a fault in the rep movsq's quadwords is resumed (UCOPY_LEN8), then in its bytes" 0 \
	"^verdict: ok$" $MG run --variant=copy_from_user_rep_movsq --len=4100 --fault-at=4097 \
	--dst-align=3

# The SMAP brackets (docs/contract.md U9): stac and clac are nops outside
# the kernel (MG_STAC, MG_CLAC, the shim's ASM_STAC, ASM_CLAC), so a user
# store after the clac passes at run time; the gate's static uaccess check
# alone rejects it, and passes its twin.
for k in 0 13 20; do
	expect "bad_copy_to_user_stores_after_clac passes at run time (fault at byte $k of 21)" 0 "^verdict: ok$" \
		$MG run --variant=bad_copy_to_user_stores_after_clac --len=21 --fault-at=$k
done
expect_all "gate: a user store after the clac is the uaccess check's smap-unbracketed" 1 \
	"^uaccess +FAIL .*3 listed user accesses, 1 outside stac/clac" "^sweep +PASS" \
	"^1\. \[uaccess\] smap-unbracketed: mov byte ptr \[rdi\], al at mg_x86_64_bad_copy_to_user_stores_after_clac\+0x24, listed in the exception table as a user access, runs outside the SMAP brackets" \
	"^REJECTED: mg_x86_64_bad_copy_to_user_stores_after_clac, 1 finding" -- \
	scripts/gate --op copy_to_user --quick --skip=fuzz,regressions,valgrind --no-bench \
	--symbol=mg_x86_64_bad_copy_to_user_stores_after_clac --report="$TMP/smap-bad.json" \
	tests/bad/x86/bad_copy_to_user_stores_after_clac.S
# A fixup that returns with the brackets open (U11): right at run time too.
expect "bad_copy_to_user_fault_leaves_stac passes at run time (fault at its last byte)" 0 "^verdict: ok$" \
	$MG run --variant=bad_copy_to_user_fault_leaves_stac --len=21 --fault-at=20
expect_all "gate: a fixup that returns without its clac is the uaccess check's smap-left-open" 1 \
	"^uaccess +FAIL .*3 listed user accesses, 0 outside stac/clac, 1 returns with them open" \
	"^1\. \[uaccess\] smap-left-open: ret at mg_x86_64_bad_copy_to_user_fault_leaves_stac\+0x[0-9a-f]+ returns with the SMAP brackets open" \
	"^REJECTED: mg_x86_64_bad_copy_to_user_fault_leaves_stac, 1 finding" -- \
	scripts/gate --op copy_to_user --quick --skip=fuzz,regressions,valgrind --no-bench \
	--symbol=mg_x86_64_bad_copy_to_user_fault_leaves_stac tests/bad/x86/bad_copy_to_user_fault_leaves_stac.S
expect_all "gate: its twin, every access bracketed, passes the uaccess check" 0 \
	"^uaccess +PASS .*3 listed user accesses, 0 outside stac/clac" "^ACCEPTED" -- \
	scripts/gate --op copy_to_user --quick --skip=fuzz,regressions,valgrind --no-bench \
	--symbol=mg_x86_64_copy_to_user_bracketed tests/bad/x86/copy_to_user_bracketed.S
# A jump through a register: the audit cannot follow it, so the check
# could not judge (exit 2) and names it.
expect_all "gate: an indirect jump the uaccess audit cannot follow is could not judge, naming it" 2 \
	"^COULD NOT JUDGE: copy_to_user_indirect: could not judge: uaccess: a path from copy_to_user_indirect reaches jmp rax at copy_to_user_indirect\+0x14, an indirect jump or call the audit cannot follow" -- \
	scripts/gate --op copy_to_user --quick --skip=fuzz,regressions,valgrind --no-bench \
	tests/gate/copy_to_user_indirect.S
# A kernel file as it lives in its tree: the shim's ASM_STAC/ASM_CLAC are
# followed through a jump to the tail (as 6.1's copy_user_64.S jumps to
# copy_user_short_string); one access after the clac is found, and a
# routine with no brackets of its own (6.1's clear_user_*) is its caller's.
mkdir -p "$TMP/smap-tree/arch/x86/lib"
cat >"$TMP/smap-tree/arch/x86/lib/tcu.S" <<'EOS'
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/smap.h>
SYM_FUNC_START(__tcu)
	ASM_STAC
	movl %edx, %ecx
	jmp .Ltail
SYM_FUNC_END(__tcu)
SYM_CODE_START_LOCAL(.Ltail)
	testl %ecx, %ecx
	jz 2f
1:	movb (%rsi), %al
	ASM_CLAC
3:	movb %al, (%rdi)
	ASM_STAC
	incq %rsi
	incq %rdi
	decl %ecx
	jnz 1b
2:	ASM_CLAC
	movl %ecx, %eax
	RET
	_ASM_EXTABLE_UA(1b, 2b)
	_ASM_EXTABLE_UA(3b, 2b)
SYM_CODE_END(.Ltail)
SYM_FUNC_START(__tcu_caller_brackets)
	movl %edx, %ecx
	testl %ecx, %ecx
	jz 5f
4:	movb (%rsi), %al
	movb %al, (%rdi)
	incq %rsi
	incq %rdi
	decl %ecx
	jnz 4b
5:	movl %ecx, %eax
	RET
	_ASM_EXTABLE_UA(4b, 5b)
SYM_FUNC_END(__tcu_caller_brackets)
EOS
expect_all "gate --kernel: the shim's ASM_CLAC before a user store is smap-unbracketed" 1 \
	"^uaccess +FAIL .*__tcu: 2 listed user accesses, 1 outside stac/clac" \
	"\[uaccess\] smap-unbracketed: mov byte ptr \[rdi\], al at __tcu\+0x19" -- \
	scripts/gate --kernel --op copy_from_user --symbol __tcu --quick \
	--skip=fuzz,regressions,valgrind --no-bench "$TMP/smap-tree/arch/x86/lib/tcu.S"
expect "gate --kernel: a routine without brackets of its own leaves them to its caller (n/a)" 0 \
	"^uaccess +N/A .*__tcu_caller_brackets: no stac/clac of its own \(its caller brackets it\)" \
	scripts/gate --kernel --op copy_from_user --symbol __tcu_caller_brackets --quick \
	--skip=fuzz,regressions,valgrind --no-bench "$TMP/smap-tree/arch/x86/lib/tcu.S"

# The records: the case says where the user buffer faults; the finding
# names the class and the instruction.
expect_all "a finding's record has the class, the pc and the fault byte" 1 \
	'"class":"unhandled-fault"' '"pc":"mg_x86_64_bad_copy_to_user_tail_unlisted\+0x' \
	'"fault_at":9' -- \
	$MG run --variant=bad_copy_to_user_tail_unlisted --len=17 --fault-at=9 --format=jsonl
expect "a case without a fault says so" 0 '"fault_at":null' \
	$MG run --variant=copy_to_user_bytes --len=17 --format=jsonl
expect "the replay line of a fault case carries --fault-at" 0 "--fault-at=[0-9]+" \
	cat "$TMP/findings/bad_copy_from_user_probes_end.txt"

# Bad input: one line, exit 2.
expect "--fault-at is for the user copies" 2 "--fault-at is for copy_from_user" \
	$MG run --variant=memcpy_erms --len=17 --fault-at=3
expect "--fault-at must lie in the buffer" 2 "the user buffer's bytes are 0..16" \
	$MG run --variant=copy_from_user_bytes --len=17 --fault-at=17
expect "a user copy takes no --spot" 2 "runs at the guard pages, alone" \
	$MG run --variant=copy_from_user_bytes --len=17 --spot=straddle-src:3
expect "a user buffer's alignment follows from --fault-at" 0 "src%64 = 59, dst%64 = 2" \
	$MG run --variant=copy_from_user_bytes --len=17 --fault-at=5 --src-align=0 --dst-align=2

# The fuzz inputs: the seeds decode to user-copy cases (with and without a
# fault) that every correct variant passes; the random driver and the
# libFuzzer target find a broken one.
expect "the usercopy seeds pass on every correct user copy" 0 "^[0-9]+ passed, 0 failed$" \
	build/replay --each-variant corpus/usercopy
expect "random finds the unlisted store, as unhandled-fault" 1 \
	"signature: bad_copy_to_user_tail_unlisted unhandled-fault SIGSEGV at mg_x86_64_bad_copy_to_user_tail_unlisted\+0x" \
	build/random --variant=bad_copy_to_user_tail_unlisted --seconds=10 --seed=1 --max-findings=1 \
	--findings="$TMP/random"
# The standalone reproducer: its fixed part with a sample case, then each
# rule's broken variant on its regression input and correct ones with a
# fault, through scripts/repro --emit-c, built and run.
expect "the user copy's reproducer's fixed part (targets/standalone_user.c) passes its sample case" 0 \
	"^verdict: ok$" build/test-standalone-user
for uc_bad in corpus/regressions/usercopy/bad_*/; do
	uc_bad=${uc_bad%/}
	uc_in=$(find "$uc_bad" -name '*.in' | sort | head -n 1)
	emit_and_reproduce "${uc_bad##*/}" 1 "$TMP/emit-${uc_bad##*/}.c" "$uc_in" --variant="${uc_bad##*/}"
done
for uc_ok in copy_from_user_rep_movsq:copy_from_user_bytes-len100-fault50 \
	copy_to_user_rep_movsb:copy_to_user_bytes-len17-fault8 clear_user_rep_stosb:clear_user_bytes-len4097-fault2048; do
	emit_and_reproduce "${uc_ok%%:*}" 0 "$TMP/emit-${uc_ok%%:*}.c" "corpus/usercopy/${uc_ok#*:}.in" \
		--variant="${uc_ok%%:*}"
done
expect "the user copy's program builds memgate's exception-table emulation in" 0 \
	'^ \*[[:blank:]]cc .* -Iharness/engine -Iharness/arch/x86 harness/arch/x86/extable\.c tests/bad/x86/bad_copy_to_user_tail_unlisted\.S$' \
	cat "$TMP/emit-bad_copy_to_user_tail_unlisted.c"
if ! command -v clang >/dev/null; then
	skip "fuzz_usercopy" "clang is not installed (scripts/install-deps installs it)"
elif ! make --no-print-directory -s build/fuzz/libfuzzer/fuzz_usercopy >/dev/null 2>&1; then
	fail "fuzz_usercopy builds" "make build/fuzz/libfuzzer/fuzz_usercopy failed"
else
	mkdir -p "$TMP/uc-work"
	expect "libFuzzer fuzz_usercopy: 20000 inputs from the seeds, no false alarm" 0 \
		"Done 20000 runs" build/fuzz/libfuzzer/fuzz_usercopy -runs=20000 -max_len=64 -seed=1 \
		-artifact_prefix="$TMP/" "$TMP/uc-work" corpus/usercopy
	expect "libFuzzer fuzz_usercopy finds the unlisted store" 77 \
		"signature: bad_copy_to_user_tail_unlisted unhandled-fault" \
		build/fuzz/libfuzzer/fuzz_usercopy --variant=bad_copy_to_user_tail_unlisted \
		-runs=20000 -seed=1 -artifact_prefix="$TMP/" corpus/usercopy
fi
