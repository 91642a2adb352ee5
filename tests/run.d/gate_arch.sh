# scripts/gate for another arch: a submission for aarch64 or i386 is built
# for that arch (build/gate/ARCH/NAME) and judged where it runs, natively or
# under qemu-user. A correct aarch64 routine is accepted; broken ones are
# rejected with their class; the replay command of a random-case finding
# reproduces it. The gates run at the default deadline: the profile decides
# their cases, so a busier machine makes them slower, never different
# (the 4 GiB+ guard-oracle cases, which params.sh runs, left out where
# they are not what is tested). Every gate here sweeps the smoke profile
# (--profile=smoke): what is tested is the gate on another arch, not the
# sweep's depth, which make verify ARCH=... and arch_*.sh give (the
# group: 242 CPU s with quick, 141 with smoke, in a make check).
# Sourced by tests/run (uses expect, expect_all, arch_wanted, skip, $TMP).

echo "== the gate on other arches (scripts/gate --arch)"
if ! arch_usable aarch64 "gate --arch=aarch64" ga_why; then
	:
else
	sed 's/mg_aarch64_memcpy_ldp/my_ldp/g' impls/aarch64/memcpy_ldp.S >"$TMP/my_ldp.S"
	expect_all "gate: a correct aarch64 routine, named by --arch, is accepted" 0 \
		"^memgate gate: my_ldp \(memcpy, aarch64" "^fuzz +PASS .*random cases \(not coverage-guided" \
		"^bench +N/A .*n/a \(memgate speed under qemu-aarch64 measures qemu, not the hardware\)" \
		"^ACCEPTED \(smoke sweep; interrupts n/a: aarch64 user code cannot single-step itself .*; valgrind n/a: valgrind runs on the host's build only; bench n/a: .*\): my_ldp " -- \
		scripts/gate --arch=aarch64 --op memcpy --profile=smoke --skip=huge --report="$TMP/ga64.json" \
		--sarif="$TMP/ga64.sarif" --junit="$TMP/ga64.xml" "$TMP/my_ldp.S"
	expect "gate: the aarch64 reports name the arch" 0 "^aarch64 accepted 2.1.0 aarch64$" \
		jq -r --slurpfile s "$TMP/ga64.sarif" \
		'"\(.arch) \(.verdict) \($s[0].version) \($s[0].runs[0].properties.arch)"' \
		"$TMP/ga64.json"
	# The arch from the file's directory (tests/bad/aarch64/); the first of
	# the three CPU models runs the random cases whose finding the replay
	# test below needs.
	expect "gate: aarch64 bad_memcpy_clobbers_x19 is rejected with abi-violation" 1 \
		"^[0-9]+\. \[abi\] abi-violation: x19 clobbered" \
		scripts/gate --op memcpy --cpu=max --profile=smoke --skip=regressions \
		--symbol=mg_aarch64_bad_memcpy_clobbers_x19 --report="$TMP/gax19.json" \
		tests/bad/aarch64/bad_memcpy_clobbers_x19.S
	# The failure-function stub traps with brk (SIGTRAP) on aarch64: the
	# finding still names the call.
	expect "gate: an aarch64 routine that calls __chk_fail is rejected, the finding names the call" 1 \
		"^1\. \[sweep\] crash: called __chk_fail, a failure function that does not return \(cpu max\)" \
		scripts/gate --arch=aarch64 --cpu=max --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench \
		tests/gate/calls_chk_fail.c
	usage_error "gate: --cpu names a model the routine does not run under: one line with the valid ones" \
		"^gate: --cpu cortex-a57: not a model this routine runs under \(valid: max, a64fx\)$" \
		scripts/gate --arch=aarch64 --cpu=cortex-a57 --requires=sve --op memcpy tests/gate/isa/sve_copy.S
	usage_error "gate: --cpu for code that runs natively is one line" \
		"^gate: --cpu max: x86_64 code runs natively here; --cpu picks among the qemu models of aarch64, riscv64 and armhf code$" \
		scripts/gate --arch=x86_64 --cpu=max --op memcpy tests/gate/bytecopy.c
	usage_error "gate: an aarch64 svc instruction is refused at build time" \
		"^gate: tests/gate/svc_aarch64.S makes system calls: svc at svc_aarch64\+0x8$" \
		scripts/gate --arch=aarch64 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench tests/gate/svc_aarch64.S
	expect "gate: the replay command of an aarch64 random-case finding reproduces it" 1 \
		"REPRODUCED: mg_aarch64_bad_memcpy_clobbers_x19 fails this case \(abi-violation\)" \
		bash -c "eval \"\$(jq -r '.findings[] | select(.check == \"fuzz\") | .repro' $TMP/gax19.json | head -n1)\""
fi

if ! arch_usable i386 "gate --arch=i386" ga_why; then
	:
else
	expect_all "gate: i386 bad_memcpy_tail_off_by_one is rejected with out-of-bounds-read or -write" 1 \
		"^memgate gate: mg_i386_bad_memcpy_tail_off_by_one \(memcpy, i386" \
		"^[0-9]+\. \[sweep\] out-of-bounds-(read|write): " \
		"^huge +N/A .*need a 64-bit size_t" "^valgrind +N/A .*the host's build only" -- \
		scripts/gate --arch=i386 --op memcpy --profile=smoke --skip=regressions,fuzz --no-bench \
		--symbol=mg_i386_bad_memcpy_tail_off_by_one tests/bad/i386/bad_memcpy_tail_off_by_one.S
	usage_error "gate: an i386 int \$0x80 is refused at build time" \
		"^gate: tests/gate/int80_i386.S makes system calls: int \\\$0x80 at int80_i386\+0x7$" \
		scripts/gate --arch=i386 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench tests/gate/int80_i386.S	# A fresh clone has no build/i386: the gate builds memgate for the
	# submission's arch itself. A copy of the tree's files (no build/) is
	# the fresh clone; the same copy with the i386 trampoline broken is a
	# foreign build that fails, which is one line naming make ARCH=i386.
	# The copy is a tree of its own: MEMGATE_OUT (this tree, tests/run's)
	# is not its results directory.
	fresh=$TMP/fresh-tree
	rm -rf "$fresh" && mkdir -p "$fresh"
	git ls-files -z | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$fresh"
	expect_all "gate: a fresh tree without build/i386 builds it, then judges" 0 \
		"^memgate gate: bytecopy \(memcpy, i386" "^ACCEPTED.*: bytecopy passed" -- \
		bash -c "cd '$fresh' && [ ! -e build/i386 ] && env -u MEMGATE_OUT scripts/gate --arch=i386 --op memcpy --profile=smoke \
			--skip=huge,fuzz,regressions --no-bench tests/gate/bytecopy.c && test -x build/i386/memgate"
	rm -rf "$fresh/build/i386"
	echo '#error broken on purpose by tests/run.d/gate_arch.sh' >>"$fresh/harness/arch/x86/trampoline_i386.S"
	usage_error "gate: a foreign build that fails is one line naming make ARCH=i386" \
		"^gate: memgate itself does not build for i386: run make ARCH=i386 to see why$" \
		bash -c "cd '$fresh' && env -u MEMGATE_OUT scripts/gate --arch=i386 --op memcpy --profile=smoke tests/gate/bytecopy.c"
	rm -rf "$fresh"
fi

# riscv64: a vector routine runs under V at VLEN 128, 256, 512 and 1024
# (the wider ones only because it requires v), a scalar one under VLEN 128
# and RV64GC, each at the default deadline: its smoke profile, whole.
if ! arch_usable riscv64 "gate --arch=riscv64" ga_why; then
	:
else
	sed 's/mg_riscv64_memset_rvv/my_rvv/g' impls/riscv64/memset_rvv.S >"$TMP/my_rvv.S"
	expect_all "gate: a correct riscv64 vector memset is accepted under V at every VLEN" 0 \
		"^memgate gate: my_rvv \(memset, riscv64, under qemu-riscv64" \
		"^  cpu rv64,v=true,vlen=128,vext_spec=v1.0: ACCEPTED" "^  cpu rv64,v=true,vlen=1024,vext_spec=v1.0: ACCEPTED" \
		"^isa +PASS .*the RISC-V opcode map; minimal --requires: v" "^ACCEPTED .*: my_rvv passed" -- \
		scripts/gate --arch=riscv64 --op memset --requires v --profile=smoke --skip=huge,fuzz,regressions --no-bench \
		--report="$TMP/garvv.json" "$TMP/my_rvv.S"
	# It requires v: RV64GC, which has none, does not run it.
	expect "gate: a riscv64 routine that requires v runs under the four VLENs only" 0 \
		'^riscv64 \["cpu rv64,v=true,vlen=1024,vext_spec=v1.0","cpu rv64,v=true,vlen=128,vext_spec=v1.0","cpu rv64,v=true,vlen=256,vext_spec=v1.0","cpu rv64,v=true,vlen=512,vext_spec=v1.0"\]$' \
		jq -r '"\(.arch) \([.checks[].run | select(.)] | unique | tojson)"' "$TMP/garvv.json"
	# The arch from the file's directory. Right at VLEN 128, past the end above.
	expect_all "gate: riscv64 bad_memset_vlen128 is rejected under VLEN 256, 512 and 1024, accepted at 128" 1 \
		"^  cpu rv64,v=true,vlen=128,vext_spec=v1.0: ACCEPTED" \
		"^  cpu rv64,v=true,vlen=256,vext_spec=v1.0: REJECTED" "^  cpu rv64,v=true,vlen=1024,vext_spec=v1.0: REJECTED" \
		"^[0-9]+\. \[sweep\] out-of-bounds-write: dst, [0-9]+ bytes past the end .*\(cpu rv64,v=true,vlen=256" -- \
		scripts/gate --op memset --requires v --profile=smoke --skip=huge,fuzz,regressions --no-bench \
		--symbol=mg_riscv64_bad_memset_vlen128 --report="$TMP/garv.json" tests/bad/riscv64/bad_memset_vlen128.S
	expect "gate: the replay command of a riscv64 finding under a VLEN model reproduces it" 1 \
		"REPRODUCED: mg_riscv64_bad_memset_vlen128 fails this case \(out-of-bounds-write\)" \
		bash -c "eval \"\$(jq -r '.findings[] | select(.cpu_model == \"rv64,v=true,vlen=512,vext_spec=v1.0\") | .repro' \
			$TMP/garv.json | head -n1)\""
	expect_all "gate: a riscv64 C routine is built for RV64GC and accepted under VLEN 128 and RV64GC" 0 \
		"^  cpu rv64,v=true,vlen=128,vext_spec=v1.0: ACCEPTED" \
		"^  cpu rv64,v=false,zba=false,zbb=false,zbc=false,zbs=false: ACCEPTED" "^ACCEPTED .*: bytecopy passed" -- \
		scripts/gate --arch=riscv64 --op memcpy --profile=smoke --skip=huge,fuzz,regressions --no-bench \
		tests/gate/bytecopy.c
	# What the tests below judge shows under one model (--cpu).
	rv_gc=rv64,v=false,zba=false,zbb=false,zbc=false,zbs=false
	rv_v128=rv64,v=true,vlen=128,vext_spec=v1.0
	expect_all "gate: riscv64 code that uses V without --requires v is the ISA audit's undeclared-feature v; RV64GC does not run it" 1 \
		"^1\. \[isa\] undeclared-feature: v: vsetvli \(.insn 0x0c367357\) at rvv_undeclared\+0x2 \(and 2 more\) needs v, which is not declared \(no --requires\); --requires v covers it" \
		"^sweep +N/A .*n/a \(qemu-riscv64 -cpu rv64,v=false,.* cannot run v\)" "^REJECTED: rvv_undeclared, 1 finding" -- \
		scripts/gate --arch=riscv64 --cpu="$rv_gc" --op memcpy --profile=smoke --skip=huge,fuzz,regressions --no-bench \
		tests/gate/rvv_undeclared.S
	# Where the audit cannot read the code, the RV64GC model is its backstop.
	expect_all "gate: the same V behind 48 bits the audit cannot read: isa could not judge, SIGILL under RV64GC" 1 \
		"^isa +ERROR .*could not judge: an instruction longer than 32 bits \(0x001f\) at rvv_past_the_audit\+0x4" \
		"^1\. \[sweep\] crash: SIGILL \(a vector instruction, on a CPU without V: a routine that uses V requires it, --requires v\) at pc mg_gate_rvv_past_the_audit\+0xa, .*\(cpu rv64,v=false," -- \
		scripts/gate --arch=riscv64 --cpu="$rv_gc" --op memcpy --profile=smoke --skip=huge,fuzz,regressions --no-bench \
		tests/gate/rvv_past_the_audit.S
	expect_all "gate: a riscv64 vector routine without --requires v does not assemble (built for RV64GC)" 2 \
		"^gate: .*my_rvv.S does not build, so nothing was judged: fix what the compiler says below and run the gate again$" "instruction requires the following: 'V'" -- \
		scripts/gate --arch=riscv64 --op memset --profile=smoke "$TMP/my_rvv.S"
	usage_error "gate: a riscv64 ecall is refused at build time" \
		"^gate: tests/gate/ecall_riscv64.S makes system calls: ecall at ecall_riscv64\+0x6$" \
		scripts/gate --arch=riscv64 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench tests/gate/ecall_riscv64.S
	# Misaligned loads and stores, as qemu's plugin sees them in the sweep.
	mis=tests/gate/misaligned/words_any_alignment.S
	rv_smoke=(--arch=riscv64 --cpu="$rv_gc" --op memcpy --profile=smoke --skip=huge,fuzz,regressions --no-bench)
	expect_all "gate: a riscv64 word loop that ignores alignment is rejected under the kernel contract" 1 \
		"^misaligned +FAIL .*2 instructions made misaligned accesses" \
		"^[12]\. \[misaligned\] misaligned-access: misaligned access: a 8-byte load at 0x[0-9a-f]+ \(address % 8 = [1-7]\) by mg_gate_words_any_alignment\+0x8: kernel and firmware code must not" \
		"^[12]\. \[misaligned\] misaligned-access: misaligned access: a 8-byte store .* by mg_gate_words_any_alignment\+0xc:" -- \
		scripts/gate "${rv_smoke[@]}" --contract=kernel --report="$TMP/gamis.json" "$mis"
	expect "gate: the replay of a misaligned access shows it again" 0 \
		'"symbol":"mg_gate_words_any_alignment","address":"0x[0-9a-f]+","width":8,"access":"load"' \
		bash -c "eval \"\$(jq -r '.findings[0].repro' $TMP/gamis.json)\""
	expect_all "gate: under the user contract the same word loop is accepted with a warning" 0 \
		"^warning \[misaligned\] misaligned-access: 2 instructions made misaligned accesses, first a 8-byte (load|store) .* by mg_gate_words_any_alignment\+0x[8c]:" \
		"^ACCEPTED \(.*1 warning: misaligned-access\): words_any_alignment" -- \
		scripts/gate "${rv_smoke[@]}" "$mis"
	expect_all "gate: --requires misaligned_fast allows them, even in kernel code" 0 \
		"^misaligned +PASS .*2 instructions made misaligned accesses, which --requires misaligned_fast allows" \
		"^ACCEPTED .*: words_any_alignment passed" -- \
		scripts/gate "${rv_smoke[@]}" --contract=kernel --requires=misaligned_fast "$mis"
	# A vector access is watched element by element.
	expect "gate: a riscv64 vector copy of 64-bit elements from any alignment is rejected in kernel code" 1 \
		"^[0-9]+\. \[misaligned\] misaligned-access: misaligned access: a 8-byte load .* by mg_gate_rvv_e64_any_alignment\+0xe: .*\(cpu rv64,v=true,vlen=" \
		scripts/gate --arch=riscv64 --cpu="$rv_v128" --op memcpy --requires v,fpu --profile=smoke --skip=huge,fuzz,regressions --no-bench \
		--contract=kernel tests/gate/misaligned/rvv_e64_any_alignment.S
	sed 's/mg_riscv64_memcpy_word/my_word/g' impls/riscv64/memcpy_word.S >"$TMP/my_word.S"
	expect_all "gate: its twin, words only where src and dst share their alignment, is accepted in kernel code" 0 \
		"^misaligned +PASS .*no misaligned load or store in the sweep" "^ACCEPTED .*: my_word passed" -- \
		scripts/gate "${rv_smoke[@]}" --contract=kernel "$TMP/my_word.S"
	usage_error "gate: riscv64's misaligned_fast is refused for an x86-64 routine" \
		"^gate: --requires misaligned_fast: riscv64's declaration, and this routine is for x86_64$" \
		scripts/gate --arch=x86_64 --op memcpy --requires misaligned_fast --profile=smoke tests/gate/bytecopy.c
	usage_error "gate: an aarch64 fact is refused for a riscv64 routine" \
		"^gate: --requires sve: aarch64 CPU facts, and this routine is for riscv64$" \
		scripts/gate --arch=riscv64 --op memcpy --requires sve --profile=smoke tests/gate/bytecopy.c
fi

# armhf (issue 41's done-when): the gate rejects a routine that clobbers
# d8, one that takes the length as signed (CVE-2020-6096) and one that
# returns to its caller in the wrong state, and accepts their twins, each
# under the Cortex-A15 and the VFPv3-D16 model (a newer qemu's: the
# replay of a finding there runs under it).
if ! arch_usable armhf "gate --arch=armhf" ga_why; then
	:
else
	ah_gate=(--arch=armhf --profile=smoke --no-bench)
	expect_all "gate: an armhf routine that clobbers d8 is rejected under both models" 1 \
		"^  cpu cortex-a15: REJECTED" "^  cpu cortex-a9,neon=off,vfp-d32=off: REJECTED" \
		"^1\. \[abi\] abi-violation: d8 clobbered \(0xd8d8d8d8d8d8d8d8 -> 0x[0-9a-f]{16}\) \(cpu cortex-a15\)" -- \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --symbol=mg_armhf_bad_memcpy_clobbers_d8 \
		--report="$TMP/gah-d8.json" tests/bad/armhf/bad_memcpy_clobbers_d8.S
	expect "gate: its replay under the VFPv3-D16 model runs under the qemu that has it" 1 \
		"REPRODUCED: mg_armhf_bad_memcpy_clobbers_d8 fails this case \(abi-violation\)" \
		bash -c "eval \"\$(jq -r '.findings[] | select(.cpu_model == \"cortex-a9,neon=off,vfp-d32=off\") | .repro' $TMP/gah-d8.json | head -1)\""
	expect_all "gate: its twin, which saves d8, is accepted" 0 \
		"^abi +PASS .* r4-r11, d8-d15, sp, nothing written above sp, FPSCR's control bits, an interworking return" \
		"^ACCEPTED .*: mg_armhf_memcpy_saves_d8 passed" -- \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --symbol=mg_armhf_memcpy_saves_d8 tests/bad/armhf/memcpy_saves_d8.S
	expect_all "gate: an armhf memmove that takes its length as signed fails the 2 GiB+ move" 1 \
		"^huge +FAIL .*an overlapping move of 2\^31\+65 \(dst = src \+-1\) in one mapping: all a 32-bit size_t holds" \
		"^1\. \[huge\] wrong-result: .* for a length of 2147483713 \(cpu cortex-a15\)" -- \
		scripts/gate "${ah_gate[@]}" --skip=fuzz,regressions --op memmove --symbol=mg_armhf_bad_memmove_signed_len tests/bad/armhf/bad_memmove_signed_len.S
	sed 's/mg_armhf_memmove_byte/my_move/g' impls/armhf/memmove_byte.S >"$TMP/my_move.S"
	expect_all "gate: a memmove that takes it unsigned passes it" 0 \
		"^huge +PASS .*an overlapping move of 2\^31\+65" "^ACCEPTED .*: my_move passed" -- \
		scripts/gate "${ah_gate[@]}" --skip=fuzz,regressions --op memmove "$TMP/my_move.S"
	expect_all "gate: a Thumb routine that returns with mov pc, lr is rejected: no interworking" 1 \
		"^1\. \[sweep\] crash: SIGILL \(the routine returned to its ARM caller in Thumb state: a return must interwork, bx lr or pop \{\.\.\., pc\}, and Thumb.s mov pc, lr does not; AAPCS 5\.6\)" -- \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --symbol=mg_armhf_bad_memcpy_thumb_mov_pc \
		tests/bad/armhf/bad_memcpy_thumb_mov_pc.S
	expect "gate: a Thumb routine that returns with bx lr is accepted" 0 "^ACCEPTED .*: mg_armhf_memcpy_thumb passed" \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --symbol=mg_armhf_memcpy_thumb impls/armhf/memcpy_thumb.S
	expect_all "gate: d16 without --requires vfpd32 is the ISA audit's finding; the VFPv3-D16 model does not run it" 1 \
		"^1\. \[isa\] undeclared-feature: vfpd32: vmov\.32 d16\[0\], r3 at mg_armhf_bad_memcpy_undeclared_d16\+0x10" \
		"^sweep +N/A .*cpu cortex-a9,neon=off,vfp-d32=off +n/a \(.*qemu-arm -cpu cortex-a9,neon=off,vfp-d32=off cannot run vfpd32\)" -- \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --symbol=mg_armhf_bad_memcpy_undeclared_d16 \
		tests/bad/armhf/bad_memcpy_undeclared_d16.S
	expect "gate: an armhf NEON routine (--requires neon) is accepted" 0 "^ACCEPTED .*: mg_armhf_memcpy_neon passed" \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --requires neon --symbol=mg_armhf_memcpy_neon \
		--report="$TMP/gah-neon.json" impls/armhf/memcpy_neon.S
	expect "gate: it runs under the Cortex-A15 alone (the baseline has no NEON)" 0 '^armhf \["cpu cortex-a15"\]$' \
		jq -r '"\(.arch) \([.checks[].run | select(.)] | unique | tojson)"' "$TMP/gah-neon.json"
	# A target without unaligned access (H10; docs/arches.md): words at any
	# alignment are right on Debian's armhf and wrong there.
	expect_all "gate: armhf words at any alignment, for a target without unaligned access, are rejected" 1 \
		"^misaligned +FAIL .*cpu cortex-a15 .* made misaligned accesses" \
		"^1\. \[misaligned\] misaligned-access: misaligned access: a 4-byte (load|store) .* by mg_gate_mg_armhf_memcpy_ldr_unaligned\+0x1[0-9a-f]: the routine is for a target without unaligned access \(--requires no_unaligned" -- \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --requires no_unaligned \
		--symbol=mg_armhf_memcpy_ldr_unaligned tests/bad/armhf/memcpy_ldr_unaligned.S
	expect_all "gate: words only where both pointers are aligned pass there" 0 \
		"^misaligned +PASS .*no misaligned load or store in the sweep" "^ACCEPTED .*: mg_armhf_memcpy_ldm passed" -- \
		scripts/gate "${ah_gate[@]}" --skip=huge,fuzz,regressions --op memcpy --requires no_unaligned \
		--symbol=mg_armhf_memcpy_ldm impls/armhf/memcpy_ldm.S
	# Without the qemu that has the VFPv3-D16 model: one line before
	# anything builds, could not judge (exit 2), and how to leave it out
	# (a verdict cached from a run that had it would stand: --no-cache).
	usage_error "gate: a model no qemu here has is one line, before the build" \
		"^gate: --arch armhf: no CPU model cortex-a9,neon=off,vfp-d32=off here, so the routine cannot be judged under it: no qemu-arm here has .* \(--cpu picks the models to run\)$" \
		env MEMGATE_QEMU_DIR=/nonexistent scripts/gate --arch=armhf --op memcpy --profile=smoke --no-cache \
		--symbol=mg_armhf_memcpy_byte impls/armhf/memcpy_byte.S
	# No emulation of arm's exception table: a user copy's fault could not
	# be resumed, so a right one could not pass. Refused before the build.
	usage_error "gate: a user copy for armhf is one line, exit 2: its exception table is not emulated" \
		"^gate: copy_from_user: the kernel's exception table is emulated for x86_64, i386 and aarch64 \(docs/usercopy\.md\), not armhf: " \
		scripts/gate --arch=armhf --op copy_from_user --profile=smoke --no-cache --symbol=mg_armhf_memcpy_byte \
		impls/armhf/memcpy_byte.S
	usage_error "gate: armhf's no_unaligned is refused for an x86-64 routine" \
		"^gate: --requires no_unaligned: armhf's declaration, and this routine is for x86_64$" \
		scripts/gate --arch=x86_64 --op memcpy --requires no_unaligned --profile=smoke tests/gate/bytecopy.c
fi
