# tier: fast
# The armhf port (issue 41): 32-bit Arm, hard float, cross-built with
# clang (linked by lld), run under qemu-arm. The seed variants get one
# budgeted sweep under each of make verify's CPU models, each AAPCS rule's
# self-test one diagnosed case, the 2 GiB+ memmove its one-buffer case,
# interworking its Thumb return, and the models without NEON or without
# d16-d31 their SKIPs and SIGILL. The ISA audit's armhf tests are in
# isa.sh, the gate's in gate_arch.sh. Not yet here: the zoo (docs/arches.md,
# "armhf").
# Sourced by tests/run (uses expect, expect_all, pass, fail, skip, $tier,
# $TMP).

# $ah_run is a command line here (qemu-arm -L ...), split on purpose.
# shellcheck disable=SC2086

echo "== armhf"
ah_mg=
if ! arch_usable armhf "armhf build and checks" ah_run; then
	:
elif ! ah_out=$(make -s ARCH=armhf all 2>&1); then
	fail "make ARCH=armhf all" "$(tail -n 3 <<<"$ah_out")"
else
	pass "make ARCH=armhf all"
	ah_mg="$ah_run -cpu cortex-a15 build/armhf/memgate"
fi
# Debian's baseline CPU, VFPv3-D16 without NEON: a qemu-arm with vfp-d32
# (bookworm-backports'; scripts/arch-probe --cpu finds it).
ah_d16_model=cortex-a9,neon=off,vfp-d32=off
ah_d16=
if [ -n "$ah_mg" ]; then
	if ah_d16_run=$(scripts/arch-probe --cpu "$ah_d16_model" armhf); then
		ah_d16="$ah_d16_run -cpu $ah_d16_model build/armhf/memgate"
	else
		skip "armhf: the VFPv3-D16 model" "$ah_d16_run"
	fi
fi
# The tables' budgeted sweeps and the 2 GiB+ check in check-all (45 CPU s
# under qemu-arm); the fast tier has each rule's one diagnosed case below.
if [ "$tier" = all ] && [ -n "$ah_mg" ]; then
	ah_seeds=memcpy_byte,memcpy_ldm,memcpy_neon,memcpy_thumb,memmove_byte,memset_byte,memset_word
	expect "armhf: the seed variants pass a budgeted sweep (cortex-a15)" 0 \
		"^7 variants: 7 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
		$ah_mg verify --variant="$ah_seeds" --sweep-seconds=2 --huge=off --findings="$TMP/ah-findings"
	ah_bad=bad_memcpy_clobbers_r4,bad_memcpy_clobbers_d8,memcpy_saves_d8,memcpy_clobbers_q0
	ah_bad=$ah_bad,bad_memcpy_changes_fpscr,memcpy_restores_fpscr,bad_memcpy_moves_sp,bad_memcpy_writes_above_sp
	ah_bad=$ah_bad,bad_memcpy_thumb_mov_pc,bad_memcpy_fpscr_qc,memcpy_fpscr_qc
	ah_bad=$ah_bad,bad_memcpy_ldrd_unaligned,memcpy_ldr_unaligned,bad_memcpy_stack_align16,memcpy_stack_align16
	expect "armhf: every AAPCS self-test fails as declared, its twins pass" 0 \
		"^15 variants: 6 passed, 9 failed as expected, 0 skipped, 0 unexpected$" \
		$ah_mg verify --set=selftest --variant="$ah_bad" --sweep-seconds=2 --huge=off --timeout-ms=200 \
		--findings="$TMP/ah-findings-bad"
	# make verify's other models: the seeds, and the self-tests there.
	expect "armhf: the seed variants pass a budgeted sweep (cortex-a9: no VFPv4, no divide)" 0 \
		"^7 variants: 7 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
		$ah_run -cpu cortex-a9 build/armhf/memgate verify --variant="$ah_seeds" --sweep-seconds=2 --huge=off \
		--findings="$TMP/ah-findings-a9"
	expect "armhf: every AAPCS self-test fails as declared there too, its twins pass" 0 \
		"^15 variants: 6 passed, 9 failed as expected, 0 skipped, 0 unexpected$" \
		$ah_run -cpu cortex-a9 build/armhf/memgate verify --set=selftest --variant="$ah_bad" --sweep-seconds=2 \
		--huge=off --timeout-ms=200 --findings="$TMP/ah-findings-a9-bad"
	if [ -n "$ah_d16" ]; then
		expect "armhf: under VFPv3-D16 the seeds pass, NEON's n/a" 0 \
			"^7 variants: 6 passed, 0 failed as expected, 1 skipped, 0 unexpected$" \
			$ah_d16 verify --variant="$ah_seeds" --sweep-seconds=2 --huge=off --findings="$TMP/ah-findings-d16"
		expect "armhf: under VFPv3-D16 the self-tests fail as declared, d16 undeclared too" 0 \
			"^16 variants: 3 passed, 8 failed as expected, 5 skipped, 0 unexpected$" \
			$ah_d16 verify --set=selftest --variant="$ah_bad,bad_memcpy_undeclared_d16" --sweep-seconds=2 \
			--huge=off --timeout-ms=200 --findings="$TMP/ah-findings-d16-bad"
	fi
	echo "== armhf: 2 GiB and more (CVE-2020-6096)"
	expect_all "armhf: a memmove that tests its length as signed fails the 2 GiB+ check" 0 \
		"^bad_memmove_signed_len .* FAIL \(expected\)" \
		"^1 variants: 0 passed, 1 failed as expected, 0 skipped, 0 unexpected$" -- \
		$ah_mg verify --set=selftest --variant=bad_memmove_signed_len --sweep-seconds=2 --timeout-ms=200 \
		--findings="$TMP/ah-findings-huge"
	expect "armhf: its replay line reproduces it" 1 "^verdict: wrong-result: dst\[0\]" \
		bash -c "eval \"\$(grep -m1 'replay: ' '$TMP/ah-findings-huge/bad_memmove_signed_len-4gib.txt' | sed 's/^ *replay: //')\""
fi
if [ -n "$ah_mg" ]; then
	echo "== armhf: AAPCS's rules, one diagnosis each"
	ah_abi() { # ah_abi VARIANT DIAGNOSIS: one case, its abi-violation
		expect "armhf: $1 is an abi-violation" 1 "^verdict: abi-violation: $2$" \
			$ah_mg run --variant="$1" --len=40
	}
	ah_abi bad_memcpy_clobbers_r4 "r4 clobbered \(0x04040404 -> 0x[0-9a-f]{8}\)"
	ah_abi bad_memcpy_clobbers_d8 "d8 clobbered \(0xd8d8d8d8d8d8d8d8 -> 0x[0-9a-f]{16}\)"
	ah_abi bad_memcpy_changes_fpscr "FPSCR control bits changed \(0x00000000 -> 0x00c00000\): .*"
	ah_abi bad_memcpy_moves_sp "stack pointer moved by -8 bytes"
	ah_abi bad_memcpy_writes_above_sp "the caller.s stack frame above sp was overwritten"
	for v in memcpy_saves_d8 memcpy_clobbers_q0 memcpy_restores_fpscr; do
		expect "armhf: $v uses only what AAPCS lets it" 0 "^verdict: ok$" $ah_mg run --variant="$v" --len=200
	done
	# Interworking (H8): blx enters a Thumb routine in Thumb state; one
	# that returns with mov pc, lr resumes the ARM trampoline as Thumb.
	expect "armhf: a Thumb routine that returns with bx lr passes" 0 "^verdict: ok$" \
		$ah_mg run --variant=memcpy_thumb --len=40
	expect "armhf: one that returns with mov pc, lr is named: no interworking" 1 \
		"^verdict: crash: SIGILL \(the routine returned to its ARM caller in Thumb state: a return must interwork, bx lr or pop \{\.\.\., pc\}, and Thumb.s mov pc, lr does not; AAPCS 5\.6\) at pc " \
		$ah_mg run --variant=bad_memcpy_thumb_mov_pc --len=40
	# The floating-point environment at entry (C17): FPSCR's flags may be set.
	expect "armhf: a routine that reads FPSCR.QC without clearing it depends on the caller's flags" 1 \
		"^verdict: abi-violation: depends on the floating-point environment at entry, which is the caller.s \(with flags-set \(FPSCR 0x0800009f\) it fails, wrong-result: .*; with the default it passes\)$" \
		$ah_mg run --variant=bad_memcpy_fpscr_qc --len=40 --fpenv=flags-set
	expect "armhf: its twin clears QC first and passes there" 0 "^verdict: ok$" \
		$ah_mg run --variant=memcpy_fpscr_qc --len=40 --fpenv=fz-flags-set
	# Pointers across 0x80000000 (H7, as i386's I8; CVE-2017-18269).
	expect "armhf: a memmove that compares its pointers as signed fails across 0x80000000" 1 \
		"^verdict: wrong-result: " \
		$ah_mg run --variant=bad_memmove_signed_pointers --len=3 --src-align=63 --overlap=1 --spot=span-2gib:1
	expect "armhf: the seed memmove passes there" 0 "^verdict: ok$" \
		$ah_mg run --variant=memmove_byte --len=3 --src-align=63 --overlap=1 --spot=span-2gib:1
	# Alignment (H10): LDRD needs a word-aligned address, LDR does not.
	expect "armhf: an unaligned ldrd is an alignment fault, named" 1 \
		"^verdict: crash: SIGBUS \(alignment fault: LDM, LDRD, VLDR, LDREX and kin need word alignment, .*; ARM ARM A3\.2\.1\) at pc mg_armhf_bad_memcpy_ldrd_unaligned\+0x10," \
		$ah_mg run --variant=bad_memcpy_ldrd_unaligned --len=40 --src-align=1
	expect "armhf: the same blocks with ldr pass at any address" 0 "^verdict: ok$" \
		$ah_mg run --variant=memcpy_ldr_unaligned --len=40 --src-align=1 --dst-align=3
	expect "armhf: a routine that assumes sp 16-byte aligned fails at sp mod 64 = 8, named so" 1 \
		"^verdict: crash: SIGBUS \(alignment fault: .*\) at pc mg_armhf_bad_memcpy_stack_align16\+0x1c, .*; with sp mod 64 = 8 at entry it fails, with 0 it passes: it assumes more alignment of the stack than the ABI promises: a multiple of 8 for sp at a public interface \(AAPCS 5\.2\.1\.2\)$" \
		$ah_mg run --variant=bad_memcpy_stack_align16 --len=40 --stack-offset=8
	expect "armhf: its twin aligns its own sp and passes there" 0 "^verdict: ok$" \
		$ah_mg run --variant=memcpy_stack_align16 --len=40 --stack-offset=8
	expect "armhf: the stack offset at entry is a multiple of 8 (AAPCS)" 0 "^verdict: ok$" \
		$ah_mg run --variant=memcpy_ldm --len=100 --stack-offset=8
	# The fault decoder reads the instruction (qemu-arm gives no FSR).
	expect "armhf: an over-read (compiled C) is a read" 1 \
		"^verdict: out-of-bounds-read: src, 1 byte past the end \(at src\+17, len 17\)$" \
		$ah_mg run --variant=bad_memcpy_overread_src --len=17 --src-align=47
	expect "armhf: a write before dst is a write" 1 \
		"^verdict: out-of-bounds-write: dst, 1 byte before it \(at dst-1\)" \
		$ah_mg run --variant=bad_memcpy_write_before_dst --len=17 --dst-align=0

	echo "== armhf: CPU models (NEON, VFPv3-D16)"
	expect "armhf: without NEON the NEON variants are n/a, not run" 0 \
		"^SKIP \(needs neon\): memcpy_neon cannot run on this CPU$" \
		$ah_run -cpu cortex-a15,neon=off build/armhf/memgate run --variant=memcpy_neon --len=40
	if [ -n "$ah_d16" ]; then
		expect "armhf: d16 used without --requires vfpd32 dies under VFPv3-D16, named" 1 \
			"^verdict: crash: SIGILL \(a VFP instruction on d16-d31, on a CPU with only 16 double registers \(VFPv3-D16\): --requires vfpd32\) at pc mg_armhf_bad_memcpy_undeclared_d16\+0x10," \
			$ah_d16 run --variant=bad_memcpy_undeclared_d16 --len=40
	fi
	expect "armhf: the variant table says what each needs" 0 \
		"^memcpy_clobbers_q0	memcpy	armhf	mg_armhf_memcpy_clobbers_q0	neon,vfpd32	runs	pass	-	user$" \
		$ah_mg list --set=selftest --tsv
fi
