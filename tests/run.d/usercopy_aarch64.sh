# The user copies on aarch64 (docs/usercopy.md): the routines' own
# exception tables in arm64's Linux 6.1 format (UACCESS_ERR_ZERO entries
# from MG_USER), resumed as arch/arm64/mm/extable.c resumes them; each
# rule's broken variant fails with its class and diagnosis, the correct
# ones pass, and verify, the random driver, replay (the printed line) and
# the gate take them. Few cases: everything runs under qemu-user.
# Sourced by tests/run (uses expect, expect_all, caught, arch_wanted, skip,
# $MG, $TMP).

# $MG is a command line here (qemu-aarch64 -L ... memgate), split on purpose.
# shellcheck disable=SC2086

echo "== the user copies on aarch64"
if ! arch_usable aarch64 "aarch64 user copies" uc64_run; then
	:
elif ! uc64_out=$(make -s ARCH=aarch64 all 2>&1); then
	fail "make ARCH=aarch64 all" "$(tail -n 3 <<<"$uc64_out")"
else
	MG="$uc64_run build/aarch64/memgate" # word-split on purpose, as tests/run does

	# One sweep of the six self-tests (each stops at its first findings),
	# then each one's diagnosis.
	$MG verify --set=selftest --timeout-ms=200 --findings="$TMP/findings" \
		--variant=bad_copy_from_user_count_off_by_one,bad_copy_from_user_words_left,bad_copy_to_user_tail_unlisted,bad_copy_from_user_pads_one,bad_copy_to_user_reads_past_src,bad_copy_from_user_probes_end \
		>"$TMP/uc64-bad.out" 2>&1
	expect "aarch64: each user-copy self-test fails its sweep as expected" 0 \
		"^6 variants: 0 passed, 6 failed as expected, 0 skipped, 0 unexpected$" cat "$TMP/uc64-bad.out"
	uc64_diag() { # NAME CLASS DIAGNOSIS RUN-ARGS...
		local name=$1 class=$2 diagnosis=$3
		shift 3
		expect "aarch64: diagnosis of $name" 1 "^verdict: $class: $diagnosis" \
			$MG run --variant="$name" "$@"
	}
	uc64_diag bad_copy_from_user_count_off_by_one wrong-count \
		"returned 11 of n = 17, so 6 bytes copied, but the user buffer faults from byte 5: at most 5 could be$" \
		--len=17 --fault-at=5
	uc64_diag bad_copy_from_user_words_left wrong-count \
		"returned 4 of n = 40, so 36 bytes copied, but the user buffer faults from byte 12: at most 12 could be$" \
		--len=40 --fault-at=12
	uc64_diag bad_copy_to_user_tail_unlisted unhandled-fault \
		"dst, inside it \(at dst\+9\); the user buffer faulted at pc mg_aarch64_bad_copy_to_user_tail_unlisted\+0x[0-9a-f]+, which the exception table does not list: the kernel would oops$" \
		--len=17 --fault-at=9
	uc64_diag bad_copy_from_user_pads_one write-past-count \
		"dst\[5\] changed 0x[0-9a-f]{2} -> 0x00, past the 5 bytes the count says were copied \(returned 12 of n = 17\)" \
		--len=17 --fault-at=5
	uc64_diag bad_copy_to_user_reads_past_src kernel-fault \
		"src, 1 byte past the end \(at src\+16, len 16\); the kernel buffer faulted at pc mg_aarch64_bad_copy_to_user_reads_past_src\+0x4" \
		--len=16 --src-align=48 --dst-align=0
	uc64_diag bad_copy_from_user_probes_end nothing-copied \
		"returned n = 17 \(nothing copied\), but the first 5 bytes could be" \
		--len=17 --fault-at=5
	# The printed replay line reproduces the sweep's finding.
	uc64_replay=$(grep -m1 -o "replay: .*" "$TMP/findings/bad_copy_to_user_tail_unlisted.txt")
	expect "aarch64: the replay line of a user-copy finding reproduces it" 1 \
		"^verdict: unhandled-fault: " ${uc64_replay#replay: }

	# The correct ones: a fault at the start, inside a word (the stores
	# and loads that straddle it) and in the tail; then a budgeted sweep
	# of each (the whole quick sweep is make verify's).
	for v in copy_from_user_bytes copy_to_user_bytes clear_user_bytes copy_from_user_words \
		copy_to_user_words clear_user_words; do
		for k in 0 5 20; do
			expect "aarch64: $v resumes a fault at byte $k of 21" 0 "^verdict: ok$" \
				$MG run --variant=$v --len=21 --fault-at=$k --dst-align=5 --src-align=5
		done
	done
	# The handler's register effects: this one's fixup returns n + 1 unless
	# the entry's err register holds -EFAULT and its zero register 0.
	expect "aarch64: UACCESS_ERR_ZERO writes -EFAULT and 0 to the registers its entry names" 0 \
		"^verdict: ok$" $MG run --variant=copy_from_user_err_zero --len=17 --fault-at=5
	$MG verify --op=copy_from_user,copy_to_user,clear_user --sweep-seconds=1 \
		--findings="$TMP/findings" >"$TMP/uc64-verify.out" 2>&1
	expect "aarch64: every correct user copy passes its (budgeted) sweep" 0 \
		"^6 variants: 6 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
		cat "$TMP/uc64-verify.out"
	expect_all "aarch64: a finding's record has the class, the pc and the fault byte" 1 \
		'"class":"unhandled-fault"' '"pc":"mg_aarch64_bad_copy_to_user_tail_unlisted\+0x' \
		'"fault_at":9' -- \
		$MG run --variant=bad_copy_to_user_tail_unlisted --len=17 --fault-at=9 --format=jsonl

	# The fuzz inputs and the random driver.
	expect "aarch64: the usercopy seeds pass on every correct user copy" 0 "^[0-9]+ passed, 0 failed$" \
		$uc64_run build/aarch64/replay --each-variant corpus/usercopy
	expect "aarch64: the user copies' regressions fail as they were recorded" 0 "^5 passed, 0 failed$" \
		$uc64_run build/aarch64/replay --expect=fail corpus/regressions/usercopy/bad_copy_from_user_count_off_by_one \
		corpus/regressions/usercopy/bad_copy_from_user_pads_one corpus/regressions/usercopy/bad_copy_from_user_probes_end \
		corpus/regressions/usercopy/bad_copy_to_user_reads_past_src corpus/regressions/usercopy/bad_copy_to_user_tail_unlisted
	expect "aarch64: random finds the unlisted store, as unhandled-fault" 1 \
		"signature: bad_copy_to_user_tail_unlisted unhandled-fault SIGSEGV at mg_aarch64_bad_copy_to_user_tail_unlisted\+0x" \
		$uc64_run build/aarch64/random --variant=bad_copy_to_user_tail_unlisted --seconds=10 --seed=1 \
		--max-findings=1 --findings="$TMP/random"

	# The standalone reproducer, built with clang for aarch64 and run under
	# qemu-user as its header says.
	for v in bad_copy_to_user_tail_unlisted bad_copy_from_user_count_off_by_one bad_copy_to_user_reads_past_src; do
		emit_and_reproduce "aarch64 $v" 1 "$TMP/emit-aarch64-$v.c" \
			"$(find corpus/regressions/usercopy/$v -name '*.in' | sort | head -n 1)" --arch=aarch64 --variant=$v
	done

	# The gate: a broken routine is rejected with its class under every
	# CPU model (a finding needs no sweep floor; an accepted user copy
	# needs minutes of qemu, docs/usercopy.md).
	expect_all "gate: aarch64 bad_copy_to_user_tail_unlisted is rejected with unhandled-fault" 1 \
		"^REJECTED: mg_aarch64_bad_copy_to_user_tail_unlisted" \
		"\[sweep\] unhandled-fault: dst, .*the user buffer faulted at pc mg_gate_mg_aarch64_bad_copy_to_user_tail_unlisted\+0x[0-9a-f]+, which the exception table does not list" -- \
		scripts/gate --arch=aarch64 --op copy_to_user --profile=smoke --skip=fuzz,regressions \
		--no-bench --symbol=mg_aarch64_bad_copy_to_user_tail_unlisted --report="$TMP/uc64-gate.json" \
		tests/bad/aarch64/bad_copy_to_user_tail_unlisted.S

	# PAN (docs/contract.md AK6): a listed plain strb does at EL0 what
	# sttrb does, so it passes at run time; the gate's static uaccess
	# check alone rejects it (the unit tests pass its twin,
	# copy_to_user_bytes's sttrb; the tree file below, ldtr and user_ldst,
	# passes it through the gate).
	expect "aarch64: bad_copy_to_user_plain_store passes at run time" 0 "^verdict: ok$" \
		$MG run --variant=bad_copy_to_user_plain_store --len=21 --fault-at=13
	expect_all "gate: aarch64 bad_copy_to_user_plain_store is the uaccess check's pan-privileged-access" 1 \
		"^uaccess +FAIL .*1 listed user accesses, 1 privileged" \
		"^1\. \[uaccess\] pan-privileged-access: strb w4, \[x0\] at mg_aarch64_bad_copy_to_user_plain_store\+0x10, listed in the exception table as a user access, is a privileged access" \
		"^REJECTED: mg_aarch64_bad_copy_to_user_plain_store" -- \
		scripts/gate --arch=aarch64 --cpu=max --op copy_to_user --profile=smoke --skip=fuzz,regressions \
		--no-bench --symbol=mg_aarch64_bad_copy_to_user_plain_store tests/bad/aarch64/bad_copy_to_user_plain_store.S

	# An entry of a type the emulation does not have (BPF) makes the case
	# an error naming it, never a verdict.
	mkdir -p "$TMP/bpf"
	cat >"$TMP/bpf/cfu_bpf.S" <<'EOS'
#include "asmdefs.h"
	.text
ENTRY(cfu_bpf)
	add	x3, x0, x2
	cbz	x2, 2f
1:	ldtrb	w4, [x1]
	strb	w4, [x0], #1
	add	x1, x1, #1
	cmp	x0, x3
	b.ne	1b
2:	sub	x0, x3, x0
	ret
END(cfu_bpf)
	MG_EXTABLE(1b, 2b, MG_EX_TYPE_BPF, 0)
EOS
	expect_all "gate: an exception-table type not emulated is could-not-judge, naming it" 2 \
		"^sweep +ERROR .*could not judge: exception-table type BPF \(1\) is not emulated \(only UACCESS_ERR_ZERO and KACCESS_ERR_ZERO are\)" \
		"^COULD NOT JUDGE: cfu_bpf" -- \
		scripts/gate --arch=aarch64 --op copy_from_user --profile=smoke --skip=fuzz,regressions \
		--no-bench --report="$TMP/uc64-bpf.json" "$TMP/bpf/cfu_bpf.S"

	# A kernel file as it lives in its tree (6.1's style: USER() and
	# user_ldst from asm-uaccess.h, which the shim gives real entries),
	# with the second load of each 16-byte block left out of the table.
	mkdir -p "$TMP/tree/arch/arm64/lib"
	cat >"$TMP/tree/arch/arm64/lib/tcfu.S" <<'EOS'
#include <linux/linkage.h>
#include <asm/asm-uaccess.h>
SYM_FUNC_START(__tcfu)
	add	x5, x0, x2
	cmp	x2, #16
	b.lo	2f
1:
USER(2f, ldtr	x3, [x1])
	ldtr	x4, [x1, #8]
	add	x1, x1, #16
	stp	x3, x4, [x0], #16
	sub	x6, x5, x0
	cmp	x6, #16
	b.hs	1b
2:	cmp	x0, x5
	b.eq	9998f
3:	user_ldst 9998f, ldtrb, w3, x1, #1
	strb	w3, [x0], #1
	cmp	x0, x5
	b.ne	3b
9998:	sub	x0, x5, x0
	ret
SYM_FUNC_END(__tcfu)
EXPORT_SYMBOL(__tcfu)
EOS
	expect_all "gate --kernel: an arm64 tree's copy_from_user with a load left out of its table is rejected" 1 \
		"^memgate gate: __tcfu \(copy_from_user, aarch64, under qemu-aarch64, kernel contract\)" \
		"\[sweep\] unhandled-fault: src, .*the user buffer faulted at pc mg_gate___tcfu\+0x10, which the exception table does not list" \
		"^uaccess +PASS .*__tcfu: 2 listed user accesses, 0 privileged" -- \
		scripts/gate --kernel --arch=aarch64 --op copy_from_user --symbol __tcfu --profile=smoke \
		--skip=fuzz,regressions --no-bench --report="$TMP/uc64-tcfu.json" "$TMP/tree/arch/arm64/lib/tcfu.S"
fi
