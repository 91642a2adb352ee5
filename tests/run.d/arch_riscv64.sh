# tier: fast
# The riscv64 port: cross-built with clang (linked with binutils' ld), run
# under qemu-riscv64, once per CPU model where the model matters (V or
# not, and VLEN). Kept small, qemu is slow: the seed variants and the
# self-tests get one budgeted sweep (--sweep-seconds) under one V model,
# each psABI rule's self-test one diagnosed case, VLEN a case per model;
# make verify ARCH=riscv64 runs the whole quick sweep under every model.
# Sourced by tests/run (uses expect, pass, fail, skip, $MG, $TMP).

# $MG is a command line here (qemu-riscv64 -L ... memgate), split on purpose.
# shellcheck disable=SC2086

echo "== riscv64"
if ! arch_usable riscv64 "riscv64 build and checks" rv_run; then
	:
elif ! rv_out=$(make -s ARCH=riscv64 all 2>&1); then
	fail "make ARCH=riscv64 all" "$(tail -n 3 <<<"$rv_out")"
else
	pass "make ARCH=riscv64 all"
	host_mg=$MG
	rv_model() { echo "rv64,v=true,vlen=$1,vext_spec=v1.0"; }
	# Word-split on purpose, as tests/run does: the runner, the model, memgate.
	MG="$rv_run -cpu $(rv_model 256) build/riscv64/memgate"
	rv_novec="$rv_run -cpu rv64 build/riscv64/memgate"

	# Budgeted sweeps (every length, then what fits): a whole quick sweep
	# of one variant takes minutes under qemu; make verify runs those.
	rv_seeds=memcpy_byte,memcpy_word,memcpy_rvv,memmove_byte,memmove_word,memmove_rvv
	rv_seeds=$rv_seeds,memset_byte,memset_word,memset_rvv,memcpy_zb
	expect "riscv64: the seed variants pass a budgeted sweep under V (VLEN 256)" 0 \
		"^10 variants: 10 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
		$MG verify --variant="$rv_seeds" --sweep-seconds=3 --huge=off --findings="$TMP/findings"
	expect "riscv64: without V the vector variants are n/a, not run" 0 \
		"^3 variants: 0 passed, 0 failed as expected, 3 skipped, 0 unexpected$" \
		$rv_novec verify --variant=memcpy_rvv,memmove_rvv,memset_rvv --huge=off \
		--findings="$TMP/findings-novec"

	rv_bad=bad_memcpy_clobbers_s1,bad_memcpy_clobbers_fs0,bad_memcpy_moves_sp,bad_memcpy_writes_above_sp
	rv_bad=$rv_bad,bad_memcpy_changes_gp,bad_memcpy_changes_tp,bad_memcpy_changes_frm
	rv_bad=$rv_bad,bad_memcpy_leaves_vstart,bad_memcpy_tail_off_by_one,bad_memmove_signed_compare
	rv_bad=$rv_bad,bad_memset_vlen128,bad_memcpy_assumes_vtype,bad_memcpy_stack_block
	rv_bad=$rv_bad,memcpy_clobbers_ft0,memcpy_changes_vxrm,memcpy_stack_block,bad_memcpy_kernel_uses_ft0,bad_memcpy_kernel_sets_fflags
	rv_bad=$rv_bad,bad_memcpy_kernel_uses_v,bad_memcpy_kernel_whole_regs,memcpy_whole_regs,memcpy_kernel_vector_declared
	rv_bad=$rv_bad,bad_memcpy_clears_fflags,bad_memcpy_assumes_vxrm,memcpy_sets_vxrm
	# Under the model's name, as make verify runs it: replay lines carry it.
	MEMGATE_CPU_MODEL=$(rv_model 256) $MG verify --set=selftest --sweep-seconds=3 --timeout-ms=200 \
		--huge=off --variant="$rv_bad" --findings="$TMP/findings-bad" >"$TMP/rv-bad.out" 2>&1
	expect "riscv64: every self-test fails as declared, its twins pass (VLEN 256)" 0 \
		"^25 variants: 6 passed, 19 failed as expected, 0 skipped, 0 unexpected$" \
		cat "$TMP/rv-bad.out"
	expect "riscv64: a finding's replay line names its CPU model" 0 \
		"replay: $rv_run -cpu rv64,v=true,vlen=256,vext_spec=v1.0 build/riscv64/memgate run --variant=bad_memcpy_clobbers_s1 " \
		cat "$TMP/rv-bad.out"

	echo "== riscv64: the psABI's register rules, one diagnosis each"
	rv_abi() { # rv_abi VARIANT DIAGNOSIS: one case, its abi-violation
		expect "riscv64: $1 is an abi-violation" 1 "^verdict: abi-violation: $2$" \
			$MG run --variant="$1" --len=40
	}
	rv_abi bad_memcpy_clobbers_s1 "s1 clobbered \(0x5555555555555501 -> 0x0000000000000007\)"
	rv_abi bad_memcpy_clobbers_fs0 "fs0 clobbered \(0xf5f5f5f5f5f5f500 -> 0x0000000000000007\)"
	rv_abi bad_memcpy_moves_sp "stack pointer moved by \+16 bytes"
	rv_abi bad_memcpy_writes_above_sp "the caller.s stack frame above sp was overwritten"
	rv_abi bad_memcpy_changes_gp "gp changed \(0x[0-9a-f]{16} -> 0x[0-9a-f]{16}\): procedures should not modify gp and tp, because signal handlers may rely upon their values \(RISC-V psABI\)"
	rv_abi bad_memcpy_changes_tp "tp changed \(0x[0-9a-f]{16} -> 0x0000000000000000\): procedures should not modify gp and tp, .*"
	rv_abi bad_memcpy_changes_frm "frm \(fcsr.s rounding mode\) changed \(0 -> 1\): fcsr has thread storage duration \(C11 7\.6\), a call leaves its caller.s modes"
	rv_abi bad_memcpy_leaves_vstart "vstart is 1 on return: procedures may assume it is zero upon return \(RISC-V psABI, Vector Register Convention\)"
	expect "riscv64: a vector instruction before any vsetvl traps (the call enters with vtype.vill)" 1 \
		"^verdict: crash: SIGILL \(a vector instruction with vtype\.vill set: the call enters with vtype invalid, as nothing is promised of vtype at entry, and this ran before any vsetvl\) at pc mg_riscv64_bad_memcpy_assumes_vtype\+0x4," \
		$MG run --variant=bad_memcpy_assumes_vtype --len=40
	expect "riscv64: a routine that assumes sp 64-byte aligned fails at sp mod 64 = 32" 1 \
		"^verdict: abi-violation: s0 clobbered \(0x5555555555555500 -> 0x[0-9a-f]{16}\); with sp mod 64 = 32 at entry it fails, with 0 it passes: it assumes more alignment of the stack than the ABI promises: a multiple of 16 at procedure entry \(RISC-V psABI, Integer Calling Convention\)$" \
		$MG run --variant=bad_memcpy_stack_block --len=100 --stack-offset=32
	expect "riscv64: the finding names the rule (the register)" 1 '"rule":"s1"' \
		$MG run --variant=bad_memcpy_clobbers_s1 --len=40 --format=jsonl
	# Kernel code has no FP state (RK1): memcpy_clobbers_ft0's code, which
	# passes as user code just below, under the kernel contract.
	rv_abi bad_memcpy_kernel_uses_ft0 "kernel contract: touches ft0 \(the kernel is built without the F and D extensions: no FP state in kernel code; declare it with --requires fpu\)"
	rv_abi bad_memcpy_kernel_sets_fflags "kernel contract: touches fflags \(the kernel is built without the F and D extensions: no FP state in kernel code; declare it with --requires fpu\)"
	# ... and no vector state (RK2): the call enters with v0-v31 poisoned
	# and vtype.vill set; a vsetvl, or a whole-register load, shows.
	rv_abi bad_memcpy_kernel_uses_v "kernel contract: touches the vector unit \(a vsetvl set vtype\) \(the kernel has no vector state of its own: 6\.1 has no kernel_vector_begin; declare it with --requires fpu\)"
	rv_abi bad_memcpy_kernel_whole_regs "kernel contract: touches v8 \(the kernel has no vector state of its own: .*\)"
	# The floating-point environment at entry (R7, R9): the caller's flags
	# stay raised, and vxrm may be any mode.
	expect "riscv64: a routine that clears its caller's fflags is an abi-violation" 1 \
		"^verdict: abi-violation: fflags cleared \(0x1f -> 0x00\): a function does not clear its caller.s floating-point status flags \(C11 7\.6\)$" \
		$MG run --variant=bad_memcpy_clears_fflags --len=40 --fpenv=flags-set
	expect "riscv64: a routine that assumes vxrm rnu fails entering with rdn" 1 \
		"^verdict: abi-violation: depends on the floating-point environment at entry, which is the caller.s \(with round-down \(frm 2, fflags 0x00, vxrm 2, vxsat 0\) it fails, wrong-result: " \
		$MG run --variant=bad_memcpy_assumes_vxrm --len=40 --fpenv=round-down
	expect "riscv64: its twin, which sets vxrm itself, passes there" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_sets_vxrm --len=40 --fpenv=round-down
	for v in memcpy_clobbers_ft0 memcpy_changes_vxrm memcpy_whole_regs memcpy_kernel_vector_declared; do
		expect "riscv64: $v uses only what is not preserved" 0 "^verdict: ok$" \
			$MG run --variant="$v" --len=40
	done
	# sh for sb: the fault decoder must call it a write (qemu gives no cause).
	expect "riscv64: an sh past the end is a write" 1 \
		"^verdict: out-of-bounds-write: dst, 1 byte past the end \(at dst\+17, len 17\)$" \
		$MG run --variant=bad_memcpy_tail_off_by_one --len=17 --dst-align=47
	expect "riscv64: an over-read (compiled C) is a read" 1 \
		"^verdict: out-of-bounds-read: src, 1 byte past the end \(at src\+17, len 17\)$" \
		$MG run --variant=bad_memcpy_overread_src --len=17 --src-align=47
	expect "riscv64: memset's int arrives sign-extended, as the psABI has it" 0 "^verdict: ok$" \
		$MG run --variant=memset_word --len=40 --value=200

	echo "== riscv64: CPU models (V, VLEN)"
	expect "riscv64: without V a vector routine is n/a, not run" 0 \
		"^SKIP \(needs v\): memset_rvv cannot run on this CPU$" \
		$rv_novec run --variant=memset_rvv --len=40
	expect "riscv64: the VLEN-128 memset is right at VLEN 128" 0 "^verdict: ok$" \
		$rv_run -cpu "$(rv_model 128)" build/riscv64/memgate run --variant=bad_memset_vlen128 --len=40
	for n in 512 1024; do
		expect "riscv64: the VLEN-128 memset writes past the end at VLEN $n" 1 \
			"^verdict: out-of-bounds-write: dst, 25 bytes past the end \(at dst\+64, len 40\)" \
			$rv_run -cpu "$(rv_model $n)" build/riscv64/memgate run --variant=bad_memset_vlen128 --len=40
		expect "riscv64: memset_rvv is right at VLEN $n" 0 "^verdict: ok$" \
			$rv_run -cpu "$(rv_model $n)" build/riscv64/memgate run --variant=memset_rvv --len=300
	done
	# Zba and Zbb (R13): qemu's rv64 has them, a model may leave them out.
	expect "riscv64: without Zba and Zbb a routine that declares them is n/a, not run" 0 \
		"^SKIP \(needs zba,zbb\): memcpy_zb cannot run on this CPU$" \
		$rv_run -cpu rv64,zba=false,zbb=false build/riscv64/memgate run --variant=memcpy_zb --len=40
	expect "riscv64: with them it runs (VLEN 256's model has them)" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_zb --len=43 --src-align=3 --dst-align=3
	expect "riscv64: the variant table says where V is missing" 0 \
		"^memcpy_rvv	memcpy	riscv64	mg_riscv64_memcpy_rvv	v	SKIP \(needs v\)	pass	-	user$" \
		$rv_novec list --tsv

	# make verify's misaligned watch (R14, RK3; scripts/watch-misaligned):
	# qemu's plugin under a qemu that loads plugins (Debian's). In
	# check-all (its judging is tests/py/test_misaligned.py's).
	echo "== riscv64: the misaligned watch around memgate verify"
	if [ "$tier" != all ]; then
		:
	elif ! rv_watch=$(scripts/arch-probe --plugins riscv64) || [ ! -f build/riscv64/qemu-misaligned.so ]; then
		fail "riscv64: the misaligned watch" "no build/riscv64/qemu-misaligned.so, or no qemu-riscv64 to load it"
	else
		expect_all "riscv64: kernel code with misaligned ld/sd is caught by the watch, its twin passes" 0 \
			"^bad_memcpy_kernel_misaligned +memcpy +riscv64 PASS \(the watch fails it\)" \
			"^misaligned watch \(qemu's plugin\): 2 variants watched, 0 failed, 0 warnings; records in $TMP/watch/misaligned.json$" \
			"^  caught: bad_memcpy_kernel_misaligned \(misaligned-access, as expected\): [0-9]+ instruction\(s\), first a 8-byte (load|store) at 0x[0-9a-f]+ \(address % 8 = [1-7]\) by mg_riscv64_bad_memcpy_kernel_misaligned\+0x" -- \
			scripts/watch-misaligned --findings="$TMP/watch" -- $rv_watch -cpu rv64 build/riscv64/memgate verify \
			--set=selftest --variant=bad_memcpy_kernel_misaligned,memcpy_kernel_word --sweep-seconds=2 --huge=off
		expect "riscv64: the watch's records say which variant did what" 0 "^bad_memcpy_kernel_misaligned caught 8,memcpy_kernel_word pass$" \
			jq -r '[.variants[] | "\(.variant) \(.verdict)\(if .first then " \(.first.width)" else "" end)"] | join(",")' "$TMP/watch/misaligned.json"
	fi
	MG=$host_mg
fi
