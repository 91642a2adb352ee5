# tier: fast
# The aarch64 port: cross-built with clang, run under qemu-user (or
# natively on an arm64 host). The main table passes as declared, every
# aarch64 self-test is caught with its class and diagnosis, and the
# platform-register rule (x18) follows the variant's contract and
# --platform-register.
# Sourced by tests/run (uses expect, caught, pass, fail, skip, $MG, $TMP).

# $MG is a command line here (qemu-aarch64 -L ... memgate), split on purpose.
# shellcheck disable=SC2086

echo "== aarch64"
if ! arch_usable aarch64 "aarch64 build and checks" a64_run; then
	:
elif ! a64_out=$(make -s ARCH=aarch64 all 2>&1); then
	fail "make ARCH=aarch64 all" "$(tail -n 3 <<<"$a64_out")"
else
	pass "make ARCH=aarch64 all"
	host_mg=$MG
	MG="$a64_run build/aarch64/memgate" # word-split on purpose, as tests/run does

	# The sweep alone: the 4 GiB+ check copies gigabytes, minutes under qemu
	# (make verify runs its guard-oracle cases there; see below). The user
	# copies' fault sweeps are minutes more under qemu: usercopy_aarch64.sh
	# runs them with a budget (make verify, whole). The smoke profile
	# (every length, fewer alignment pairs): the quick one is make verify's,
	# 124 CPU s under qemu against 27 (docs/testing.md).
	expect "aarch64: the main table passes and fails as declared" 0 \
		"^[0-9]+ variants: [0-9]+ passed, 1 failed as expected, 0 skipped, 0 unexpected$" \
		$MG verify --profile=smoke --huge=off --op=memcpy,mempcpy,memmove,memset,copy_page,clear_page \
		--findings="$TMP/findings"

	caught bad_memcpy_clobbers_x19 abi-violation "x19 clobbered \(0x1919191919191919 -> 0x" --len=40
	caught bad_memcpy_clobbers_d8 abi-violation \
		"d8 \(low 64 bits\) clobbered \(0xd8d8d8d8d8d8d8d8 -> 0x0000000000000007\)$" --len=40
	caught bad_memcpy_moves_sp abi-violation "stack pointer moved by \+16 bytes$" --len=40
	caught bad_memcpy_writes_above_sp abi-violation "the caller.s stack frame above sp was overwritten$" \
		--len=40
	caught bad_memcpy_changes_fpcr abi-violation "FPCR control bits changed \(0x00000000 -> 0x01000000\)$" \
		--len=40
	# strh for strb: the fault decoder must call it a write (qemu gives no ESR).
	caught bad_memcpy_tail_off_by_one out-of-bounds-write "dst, 1 byte past the end \(at dst\+17, len 17\)$" \
		--len=17 --dst-align=47
	caught bad_memmove_signed_compare wrong-result "dst\[0\] got 0x[0-9a-f]+ want 0x[0-9a-f]+ \(" \
		--len=16 --overlap=-1
	expect "aarch64: a length compared as a signed int fails the 4 GiB+ oracle cases" 0 \
		"^bad_memset_signed_count .* FAIL \(expected\) .* FAIL +wrong-result: returned normally from a length of 2147483664" \
		$MG verify --set=selftest --variant=bad_memset_signed_count --huge=oracle \
		--findings="$TMP/findings"
	expect "aarch64: the upper 64 bits of v8 are not callee-saved" 0 "^verdict: ok$" \
		$MG run --variant=bad_memcpy_clobbers_v8_upper --len=40
	# The generic tests/bad cases need the decoder too: reads and writes.
	expect "aarch64: an over-read is a read" 1 \
		"^verdict: out-of-bounds-read: src, 1 byte past the end \(at src\+17, len 17\)$" \
		$MG run --variant=bad_memcpy_overread_src --len=17 --src-align=47
	expect "aarch64: a write before dst is a write" 1 \
		"^verdict: out-of-bounds-write: dst, 1 byte before it \(at dst-1\)$" \
		$MG run --variant=bad_memcpy_write_before_dst --len=17 --dst-align=0 --place=before

	echo "== aarch64: the platform register x18"
	expect "pipelined copy_page (x18 as its counter) fails as kernel code" 1 \
		"^verdict: abi-violation: x18 \(the platform register\) changed \(0x1818181818181818 -> 0x0000000000000000\): reserved in kernel code \(shadow call stack\)$" \
		$MG run --variant=copy_page_pipelined --len=4096
	expect "pipelined copy_page passes under user-space rules" 0 "^verdict: ok$" \
		$MG run --variant=copy_page_pipelined --len=4096 --platform-register=free
	expect "pipelined copy_page passes a whole sweep under user-space rules" 0 \
		"^copy_page_pipelined .* PASS " \
		$MG verify --variant=copy_page_pipelined --platform-register=free --expect=pass \
		--huge=off --findings="$TMP/findings"
	for v in copy_page_orig copy_page_cwg128; do
		expect "$v leaves x18 alone" 0 "^verdict: ok$" \
			$MG run --variant="$v" --len=4096 --platform-register=reserved
	done
	expect "a user-space routine keeps x18 when held to it" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_ldp --len=200 --platform-register=reserved

	echo "== aarch64: the floating-point environment at entry (A7, C17)"
	# Each self-test is right in the default environment, as the harness
	# had it; its twin uses the same freedom and passes. The freedoms of
	# this section and the next ones are drawn per case, so the smoke
	# profile meets each of them thousands of times, at every length (a
	# quick sweep of a twin is a minute of CPU under qemu, smoke's 5 s).
	$MG verify --set=selftest --profile=smoke --timeout-ms=200 --huge=off --findings="$TMP/findings-fp" \
		--variant=bad_memcpy_fpsr_qc,memcpy_fpsr_qc,bad_memcpy_frinti_blocks,memcpy_frintn_blocks,bad_memcpy_fz_zero_words,memcpy_fz_own_fpcr \
		>"$TMP/a64-fp.out" 2>&1
	expect "aarch64: the fp-environment self-tests fail, their twins pass" 0 \
		"^6 variants: 3 passed, 3 failed as expected, 0 skipped, 0 unexpected$" cat "$TMP/a64-fp.out"
	expect "aarch64: a finding's replay line names its environment" 0 \
		"replay: .* run --variant=bad_memcpy_fpsr_qc .*--fpenv=[a-z-]+( |$)" cat "$TMP/a64-fp.out"
	fp_why="depends on the floating-point environment at entry, which is the caller.s"
	expect "aarch64: QC read without clearing it: the flags at entry are blamed" 1 \
		"^verdict: abi-violation: $fp_why \(with flags-set \(FPCR 0x[0-9a-f]{8}, FPSR 0x0800009f\) it fails, wrong-result: .*; with the default it passes\)$" \
		$MG run --variant=bad_memcpy_fpsr_qc --len=40 --fpenv=flags-set
	expect "aarch64: frinti in FPCR's rounding mode: toward +inf is blamed" 1 \
		"^verdict: abi-violation: $fp_why \(with round-up \(FPCR 0x[0-9a-f]*4[0-9a-f]{5}, FPSR 0x00000000\) it fails, out-of-bounds-write: .*; with the default it passes\)$" \
		$MG run --variant=bad_memcpy_frinti_blocks --len=40 --fpenv=round-up
	expect "aarch64: an FP compare under FZ: FZ is blamed" 1 \
		"^verdict: abi-violation: $fp_why \(with fz \(FPCR 0x[0-9a-f]*1[0-9a-f]{6}, FPSR 0x00000000\) it fails, wrong-result: .*; with the default it passes\)$" \
		$MG run --variant=bad_memcpy_fz_zero_words --len=4096 --fpenv=fz
	expect "aarch64: in the default environment the same case passes" 0 "^verdict: ok$" \
		$MG run --variant=bad_memcpy_fz_zero_words --len=4096
	expect "aarch64: the case record carries the environment by name, the rule entry-fpenv" 1 \
		'"fpenv":"fz-flags-set".*"rule":"entry-fpenv"' \
		bash -c "$MG run --variant=bad_memcpy_fz_zero_words --len=4096 --fpenv=fz-flags-set --format=jsonl | tr -d '\\n'; exit \${PIPESTATUS[0]}"
	# A6's n/a: the trap enables cannot be set here, so no case sets them.
	if clang --target=aarch64-linux-gnu -o "$TMP/fpcr-traps" tests/probe_aarch64_fpcr_traps.c 2>/dev/null; then
		expect "aarch64: FPCR's trap enables read back as zero (no trapped FP exceptions)" 0 \
			"^fpcr trap bits read back: 0x0000$" $a64_run "$TMP/fpcr-traps"
		# A6's other n/a: qemu 7.2 has no FEAT_AFP, so no caller runs with AH or FIZ.
		expect "aarch64: FPCR's AH and FIZ read back as zero (no FEAT_AFP)" 0 \
			"^fpcr AH and FIZ read back: 0x0$" $a64_run "$TMP/fpcr-traps"
	else
		fail "aarch64: build the FPCR trap probe" "clang --target=aarch64-linux-gnu failed"
	fi
	expect "aarch64: an environment the arch lacks is a usage error, naming its own" 2 \
		"^memgate run: unknown --fpenv 'ftz-daz' \(valid: default, flags-set, fz, round-up, round-down, round-zero, fz-flags-set\)$" \
		$MG run --variant=memcpy_ldp --len=8 --fpenv=ftz-daz

	echo "== aarch64: the SVE vector length is the thread's (A12)"
	if ! $MG run --variant=memcpy_sve_vla --len=8 --vl=16 >/dev/null 2>&1; then
		skip "aarch64: SVE vector lengths" "this qemu's default CPU cannot set a 16-byte SVE vector length"
	else
		$MG verify --set=selftest --profile=smoke --huge=off --findings="$TMP/findings-vl" \
			--variant=bad_memcpy_sve_vl64,memcpy_sve_vla >"$TMP/a64-vl.out" 2>&1
		expect "aarch64: the 64-byte-vector SVE copy fails, the length-agnostic one passes" 0 \
			"^2 variants: 1 passed, 1 failed as expected, 0 skipped, 0 unexpected$" \
			cat "$TMP/a64-vl.out"
		expect "aarch64: a finding's replay line names its vector length" 0 \
			"replay: .* run --variant=bad_memcpy_sve_vl64 .*--vl=(16|32|128|256)( |$)" cat "$TMP/a64-vl.out"
		vl_why="it assumes a vector length, which is the thread.s, any the CPU supports \(Linux, Documentation/arm64/sve\.rst\)$"
		expect "aarch64: at 16 bytes it copies a part of each step" 1 \
			"^verdict: wrong-result: .*; with a vector length of 16 bytes it fails, with 64 it passes: $vl_why" \
			$MG run --variant=bad_memcpy_sve_vl64 --len=200 --vl=16
		expect "aarch64: at 256 bytes its whole vectors read past the source (an SVE load decoded)" 1 \
			"^verdict: out-of-bounds-read: src, .*; with a vector length of 256 bytes it fails, with 64 it passes: $vl_why" \
			$MG run --variant=bad_memcpy_sve_vl64 --len=200 --vl=256
		for vl in 16 32 128 256; do
			expect "aarch64: the length-agnostic copy passes at $vl bytes" 0 "^verdict: ok$" \
				$MG run --variant=memcpy_sve_vla --len=200 --vl=$vl
		done
		expect "aarch64: the case record carries the vector length" 1 '"vl":32,' \
			$MG run --variant=bad_memcpy_sve_vl64 --len=200 --vl=32 --format=jsonl
		expect "aarch64: a length the CPU lacks is a usage error" 2 \
			"--vl=48: this CPU.s vector lengths are 16, 32, 64, 128, 256 bytes$" \
			$MG run --variant=memcpy_sve_vla --len=8 --vl=48
		expect "aarch64: without SVE (cortex-a57) no length is there to choose" 2 \
			"--vl=16: this CPU has no vector length to choose \(no SVE\)$" \
			$a64_run -cpu cortex-a57 build/aarch64/memgate run --variant=memcpy_ldp --len=8 --vl=16
	fi

	echo "== aarch64: tagged pointers (A14, AK3)"
	# Both are byte loops, whose long cases take minutes under qemu: the
	# sweep within 4 s (every length's own cases first, the broken one's
	# failures among them, then as many of the rest as fit; 42 CPU s for
	# the whole smoke sweep, 4.8 with the budget).
	$MG verify --set=selftest --profile=smoke --huge=off --sweep-seconds=4 --findings="$TMP/findings-tag" \
		--variant=bad_memmove_untags_src,memmove_untags_both >"$TMP/a64-tag.out" 2>&1
	expect "aarch64: a memmove that untags one pointer fails, its twin passes" 0 \
		"^2 variants: 1 passed, 1 failed as expected, 0 skipped, 0 unexpected$" cat "$TMP/a64-tag.out"
	expect "aarch64: a finding's replay line names its tag" 0 \
		"replay: .* run --variant=bad_memmove_untags_src .*--tag=[0-9]+$" cat "$TMP/a64-tag.out"
	expect "aarch64: tagged, the one-object memmove copies forward over its source" 1 \
		"^verdict: wrong-result: .*; with its pointers tagged \(top byte 0x5a dst, 0x5a src\) it fails, untagged it passes: the top byte of an address is ignored, and a caller may set it \(AAPCS64 6\.4\.1, Linux tagged-pointers\.rst\)$" \
		$MG run --variant=bad_memmove_untags_src --len=100 --overlap=5 --tag=90
	expect "aarch64: separate buffers get another tag for src" 0 \
		"pointers tagged 0xff \(dst\), 0xa5 \(src\)" $MG run --variant=memcpy_ldp --len=100 --tag=255
	expect "aarch64: a tagged call's return is dst with its tag" 1 \
		"^verdict: wrong-return: returned dst\+10, want dst\+0$" \
		$MG run --variant=bad_memcpy_returns_end --len=10 --tag=3
	expect "aarch64: a tagged over-read is still an over-read (si_addr has no tag)" 1 \
		"^verdict: out-of-bounds-read: src, 1 byte past the end \(at src\+17, len 17\)$" \
		$MG run --variant=bad_memcpy_overread_src --len=17 --src-align=47 --tag=3
	expect "aarch64: the case record carries the tag" 0 '"tag":7[,}]' \
		$MG run --variant=memcpy_ldp --len=10 --tag=7 --format=jsonl

	echo "== aarch64: SME state on return (A15)"
	if ! $MG run --variant=memcpy_smstart_smstop --len=8 >/dev/null 2>&1; then
		skip "aarch64: SME state on return" "this qemu's default CPU has no SME (HWCAP2_SME)"
	else
		expect "aarch64: a copy left in streaming mode with ZA on is an abi-violation" 1 \
			"^verdict: abi-violation: returned with streaming mode and ZA on \(SVCR 0x3\): a non-streaming function with a private ZA interface returns with PSTATE.SM and PSTATE.ZA as on entry, both off \(AAPCS64 6\.2\)$" \
			$MG run --variant=bad_memcpy_leaves_streaming --len=40
		expect "aarch64: the finding names the rule sme-state" 1 '"rule":"sme-state"' \
			$MG run --variant=bad_memcpy_leaves_streaming --len=40 --format=jsonl
		expect "aarch64: its twin, smstop before ret, passes its sweep" 0 "^memcpy_smstart_smstop .* PASS " \
			$MG verify --set=selftest --profile=smoke --huge=off --variant=memcpy_smstart_smstop \
			--findings="$TMP/findings-sme"
		expect "aarch64: without SME (cortex-a57) the SME self-test is skipped, not run" 0 \
			"^SKIP \(needs sme\): bad_memcpy_leaves_streaming cannot run on this CPU$" \
			$a64_run -cpu cortex-a57 build/aarch64/memgate run --variant=bad_memcpy_leaves_streaming --len=40
	fi
	MG=$host_mg
fi
