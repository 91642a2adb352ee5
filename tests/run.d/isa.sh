# The ISA audit (issue 22, item 4; docs/isa-audit.md): scripts/isa-audit
# and the gate's isa check. Each broken routine in tests/gate/isa/ is
# correct in bytes and caught by the audit alone (undeclared-feature); the
# same file with the feature declared passes. Data in code (an aarch64
# literal pool, an x86 table) is not audited as code.
# Sourced by tests/run (uses expect, expect_all, usage_error, arch_wanted,
# skip, pass, fail, $TMP).
# The python and bash programs name their own variables in single quotes,
# and --skip takes a comma-separated list, on purpose:
# shellcheck disable=SC2016,SC2054

echo "== the ISA audit (scripts/isa-audit, the gate's isa check)"
ISA=$TMP/isa
mkdir -p "$ISA"
# isa_has FEATURE: this CPU lists it in /proc/cpuinfo (a test that runs the
# code asks; no test depends on one CPU).
isa_has() { grep -qw "$1" /proc/cpuinfo; }

gcc -c tests/gate/isa/avx2_bzhi.S -o "$ISA/avx2_bzhi.o"
if scripts/isa-audit "$ISA/avx2_bzhi.o" 2>&1 | grep -q "Capstone is not installed"; then
	fail "isa-audit" "Capstone is not installed (python3-capstone; scripts/install-deps installs it)"
	return 0
fi
gcc -c tests/gate/isa/jump_table.S -o "$ISA/jump_table.o"
expect_all "isa-audit: an avx2 routine that uses bzhi is undeclared-feature bmi2, with its instruction and cover" 1 \
	"undeclared-feature: bmi2: bzhi r8, rdx, rcx at avx2_bzhi\+0xc needs bmi2, which --requires avx2 does not cover; --requires avx2,bmi2 covers it" \
	"minimal --requires: avx,bmi2 \(declared: avx2\)" -- \
	scripts/isa-audit --requires=avx2 "$ISA/avx2_bzhi.o"
expect "isa-audit: the same routine with --requires avx2,bmi2 passes" 0 "minimal --requires: avx,bmi2" \
	scripts/isa-audit --requires=avx2,bmi2 "$ISA/avx2_bzhi.o"
expect "isa-audit: rep movsb, endbr64 and a sized data object in .text need nothing" 0 \
	"jump_table.o: x86_64, 4 instructions; minimal --requires: none" \
	scripts/isa-audit "$ISA/jump_table.o"
expect "isa-audit: --format json carries the minimal --requires and the finding" 0 "^\[\"bmi2\"\] bmi2 rejected$" \
	bash -c 'scripts/isa-audit --format=json --requires=avx2 "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps(d[\"undeclared\"]), d[\"findings\"][0][\"feature\"], d[\"verdict\"])"' _ "$ISA/avx2_bzhi.o"
usage_error "isa-audit: an unknown feature is one line" "unknown feature 'avx9' in --requires" \
	scripts/isa-audit --requires=avx9 "$ISA/avx2_bzhi.o"
expect "isa-audit: a file that is no ELF object could not be judged" 2 "not an ELF file" \
	scripts/isa-audit tests/gate/isa/avx2_bzhi.S

if arch_wanted i386 && gcc -m32 -c tests/gate/isa/i386_sse2.S -o "$ISA/i386_sse2.o" 2>/dev/null; then
	expect "isa-audit: i386's baseline has no SSE2 (movdqu is undeclared-feature sse2; cmov is baseline)" 1 \
		"undeclared-feature: sse2: movdqu xmm0, xmmword ptr \[esi\] at i386_sse2\+0x" \
		scripts/isa-audit "$ISA/i386_sse2.o"
	expect "isa-audit: the i386 routine with --requires sse2 passes" 0 "minimal --requires: sse2 \(declared: sse2\)" \
		scripts/isa-audit --requires=sse2 "$ISA/i386_sse2.o"
fi

if arch_wanted aarch64 && clang --target=aarch64-linux-gnu -c tests/gate/isa/sve_copy.S -o "$ISA/sve_copy.o" 2>/dev/null &&
	clang --target=aarch64-linux-gnu -c tests/gate/isa/literal_pool.S -o "$ISA/literal_pool.o" 2>/dev/null; then
	expect "isa-audit: SVE, which Capstone 4.0.2 cannot decode, is named by the SVE encoding rule" 1 \
		"undeclared-feature: sve: .inst 0x25221c60 at sve_copy\+0x4 \(and 4 more\) needs sve" \
		scripts/isa-audit "$ISA/sve_copy.o"
	expect "isa-audit: a literal pool of SVE, MOPS and LSE words after \$d is data, not code" 0 \
		"literal_pool.o: aarch64, 10 instructions; minimal --requires: none" \
		scripts/isa-audit "$ISA/literal_pool.o"
fi

# riscv64, which Capstone 4.0.2 cannot decode: riscv_decode's opcode map
# (docs/isa-audit.md, "riscv64"). An extension beyond what --requires
# knows, as an instruction it cannot read, could not be judged.
if arch_wanted riscv64 && clang --target=riscv64-linux-gnu -c tests/gate/isa/rv_minu_copy.S -o "$ISA/rv_minu.o" 2>/dev/null &&
	clang --target=riscv64-linux-gnu -DBEYOND -c tests/gate/isa/rv_minu_copy.S -o "$ISA/rv_beyond.o" 2>/dev/null; then
	expect "isa-audit: a riscv64 copy with Zbb's minu, undeclared, is undeclared-feature zbb" 1 \
		"undeclared-feature: zbb: minu \(.insn 0x0bc65333\) at rv_minu_copy\+0x6 needs zbb, which is not declared \(no --requires\); --requires zbb covers it" \
		scripts/isa-audit "$ISA/rv_minu.o"
	expect "isa-audit: the riscv64 copy with --requires zbb passes" 0 "rv_minu.o: riscv64, 13 instructions; minimal --requires: zbb \(declared: zbb\)" \
		scripts/isa-audit --requires=zbb "$ISA/rv_minu.o"
	expect_all "isa-audit: Zbc and Zicboz, which --requires cannot declare, could not be judged" 2 \
		"could not judge: clmul \(.insn 0x0ac59533\) at rv_minu_copy\+0x24 needs zbc, which --requires cannot declare" \
		"could not judge: cbo.zero \(.insn 0x0045200f\) at rv_minu_copy\+0x28 needs zicboz" -- \
		scripts/isa-audit --requires=zbb "$ISA/rv_beyond.o"
fi

# armhf (Capstone's ARM decoder, ARM and Thumb by the mapping symbols):
# NEON by its group, d16-d31 by the operands (vfpd32; NEON brings them).
if arch_wanted armhf && clang --target=arm-linux-gnueabihf -c tests/gate/isa/armhf_d16_copy.S -o "$ISA/armhf_d16.o" 2>/dev/null; then
	expect "isa-audit: a Thumb-2 armhf copy through d16 is undeclared-feature vfpd32" 1 \
		"undeclared-feature: vfpd32: vldr d16, \[r1\] at armhf_d16_copy\+0x10 \(and 1 more\) needs vfpd32, which is not declared \(no --requires\); --requires vfpd32 covers it" \
		scripts/isa-audit "$ISA/armhf_d16.o"
	expect "isa-audit: with --requires neon (which brings d16-d31) it passes" 0 "minimal --requires: vfpd32 \(declared: neon\)" \
		scripts/isa-audit --requires=neon "$ISA/armhf_d16.o"
	if [ -f /usr/arm-linux-gnueabihf/lib/libc.a ]; then
		expect "isa-audit: glibc's armhf __memcpy_neon needs neon" 1 \
			"undeclared-feature: neon: vld1.8 \{d0\}, \[r1\]! at __memcpy_neon\+0x18 " \
			scripts/isa-audit '/usr/arm-linux-gnueabihf/lib/libc.a(memcpy_neon.o)'
		expect "isa-audit: glibc's armhf __memcpy_vfp needs nothing past VFPv3-D16" 0 "minimal --requires: none" \
			scripts/isa-audit '/usr/arm-linux-gnueabihf/lib/libc.a(memcpy_vfp.o)'
	fi
fi

# The gate: the audit's finding, the minimal --requires in the table and
# in every report.
ISA_FLAGS=(--profile=smoke --skip=fuzz,huge --no-bench)
expect_all "gate: an avx2 routine that uses bzhi is rejected by the isa check alone" 1 \
	"^isa +FAIL .*minimal --requires: avx,bmi2" "^sweep +(PASS|N/A) " "^minimal --requires: avx,bmi2 \(declared: avx2\)" \
	"^1\. \[isa\] undeclared-feature: bmi2: bzhi " "^REJECTED: avx2_bzhi, 1 finding\(s\)" -- \
	scripts/gate "${ISA_FLAGS[@]}" --op memcpy --requires=avx2 --report="$ISA/r.json" --sarif="$ISA/r.sarif" \
	--junit="$ISA/r.xml" tests/gate/isa/avx2_bzhi.S
expect "gate: the reports carry the minimal --requires (JSON, SARIF, JUnit)" 0 "^avx,bmi2 avx,bmi2 avx,bmi2 undeclared-feature$" \
	python3 -c 'import json, sys, xml.etree.ElementTree as E
r = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2])); x = E.parse(sys.argv[3]).getroot()
junit = [p.get("value") for p in x.iter("property") if p.get("name") == "minimal_requires"][0]
print(",".join(r["isa"]["minimal_requires"]), s["runs"][0]["properties"]["minimal_requires"], junit,
      s["runs"][0]["results"][0]["ruleId"])' "$ISA/r.json" "$ISA/r.sarif" "$ISA/r.xml"
if isa_has bmi2 && isa_has avx2; then
	expect_all "gate: the same routine with --requires avx2,bmi2 is accepted" 0 \
		"^isa +PASS " "^ACCEPTED.*: avx2_bzhi passed every" -- \
		scripts/gate "${ISA_FLAGS[@]}" --op memcpy --requires=avx2,bmi2 tests/gate/isa/avx2_bzhi.S
else
	skip "gate: avx2_bzhi with --requires avx2,bmi2" "this CPU lacks avx2 or bmi2"
fi

# The landing-pad rule (docs/contract.md, X17): an object marked for IBT
# whose entry lacks endbr64 is rejected by the isa check; its twin with
# endbr64 is accepted.
expect_all "gate: an IBT-marked object whose entry lacks endbr64 is rejected (landing-pad)" 1 \
	"^isa +FAIL .*marked for IBT: each entry must start with endbr64" \
	"^1\. \[isa\] landing-pad: ibt_no_endbr starts with 48 89 f8 48, not endbr64, in an object marked for IBT" \
	"^REJECTED: ibt_no_endbr, 1 finding\(s\)" -- \
	scripts/gate "${ISA_FLAGS[@]}" --op memcpy --sarif="$ISA/ibt.sarif" tests/gate/isa/ibt_no_endbr.S
expect "gate: the SARIF result's rule is landing-pad" 0 "^landing-pad$" \
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["results"][0]["ruleId"])' "$ISA/ibt.sarif"
expect_all "gate: the same object with endbr64 at its entry is accepted" 0 \
	"^isa +PASS .*marked for IBT: each entry must start with endbr64; marked for SHSTK \(not checked" \
	"^ACCEPTED.*: ibt_endbr passed every" -- \
	scripts/gate "${ISA_FLAGS[@]}" --op memcpy tests/gate/isa/ibt_endbr.S

# glibc's __mempcpy_avx512_no_vzeroupper without --requires: the audit's
# avx512f, and valgrind n/a (it has no AVX-512), not six SIGILL findings.
ISA_MEMBER='/usr/lib/x86_64-linux-gnu/libc.a(memmove-avx512-no-vzeroupper.o)'
# Its one glibc variable given a value: the audit is under test, not the
# producer model's ten value sets (tunables.sh), which would run ten sweeps.
ISA_PIN=(--extern __x86_shared_cache_size_half=0x100000)
if [ ! -f /usr/lib/x86_64-linux-gnu/libc.a ]; then
	fail "gate: glibc's avx512 mempcpy" "no /usr/lib/x86_64-linux-gnu/libc.a (libc6-dev)"
elif ! isa_has avx512f; then
	expect_all "gate: glibc's avx512 mempcpy, undeclared, is undeclared-feature avx512f (this CPU cannot run it)" 1 \
		"^\[isa\]|^1\. \[isa\] undeclared-feature: avx512f: " "^sweep +N/A .*this CPU cannot run avx512f" -- \
		scripts/gate "${ISA_FLAGS[@]}" "${ISA_PIN[@]}" --entry mempcpy=__mempcpy_avx512_no_vzeroupper "$ISA_MEMBER"
else
	ISA_OUT=$(scripts/gate "${ISA_FLAGS[@]}" "${ISA_PIN[@]}" --entry mempcpy=__mempcpy_avx512_no_vzeroupper "$ISA_MEMBER" 2>&1)
	ISA_RC=$?
	if [ $ISA_RC -eq 1 ] && grep -qE "^1\. \[isa\] undeclared-feature: avx512f: vmovups zmm0" <<<"$ISA_OUT" &&
		grep -qE "^valgrind +N/A .*n/a \(valgrind cannot run avx512f\)" <<<"$ISA_OUT" &&
		grep -qE "^REJECTED: __mempcpy_avx512_no_vzeroupper, 1 finding\(s\)" <<<"$ISA_OUT" &&
		! grep -q "\[valgrind\] crash" <<<"$ISA_OUT"; then
		pass "gate: glibc's avx512 mempcpy, undeclared, is the audit's avx512f alone; valgrind n/a"
	else
		fail "gate: glibc's avx512 mempcpy, undeclared" "exit $ISA_RC: $(grep -E '^(isa|valgrind) |^[0-9]+\. |^REJECTED|^ACCEPTED' <<<"$ISA_OUT" | head -n 6)"
	fi
	expect_all "gate: glibc's avx512 mempcpy with --requires avx512f is accepted, valgrind n/a" 0 \
		"^valgrind +N/A .*n/a \(valgrind cannot run avx512f\)" \
		"^ACCEPTED \(smoke sweep; valgrind n/a: valgrind cannot run avx512f.*\): __mempcpy_avx512_no_vzeroupper passed every other" -- \
		scripts/gate "${ISA_FLAGS[@]}" "${ISA_PIN[@]}" --requires=avx512f --entry mempcpy=__mempcpy_avx512_no_vzeroupper "$ISA_MEMBER"
fi

# riscv64 under qemu: the Zbb routine without --requires is the audit's
# finding (RV64GC, which has no Zbb, does not run it); with --requires zbb
# it is accepted. In check-all (12 s of qemu); the fast tier has the
# audit's own tests above, and gate_arch's rvv_undeclared.
if [ "$tier" = all ] && arch_wanted riscv64 && scripts/arch-probe riscv64 >/dev/null 2>&1; then
	expect_all "gate: a riscv64 Zbb routine without --requires zbb is undeclared-feature zbb, RV64GC n/a" 1 \
		"^1\. \[isa\] undeclared-feature: zbb: minu " "^sweep +N/A .*cannot run zbb" \
		"^REJECTED: rv_minu_copy, 1 finding\(s\)" -- \
		scripts/gate --arch=riscv64 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench tests/gate/isa/rv_minu_copy.S
	expect_all "gate: the riscv64 Zbb routine with --requires zbb is accepted" 0 \
		"^isa +PASS .*the RISC-V opcode map; minimal --requires: zbb" "^ACCEPTED.*: rv_minu_copy passed every" -- \
		scripts/gate --arch=riscv64 --op memcpy --requires=zbb --profile=smoke --skip=fuzz,huge,regressions --no-bench \
		tests/gate/isa/rv_minu_copy.S
fi

# aarch64 under qemu: the SVE routine without --requires is the audit's
# finding; the models without SVE do not run it (n/a), so no SIGILL there
# is blamed on it. With --requires sve it is accepted.
if arch_wanted aarch64 && ga_why=$(scripts/arch-probe aarch64); then
	expect_all "gate: an aarch64 SVE routine without --requires sve is undeclared-feature sve, cortex-a57 n/a" 1 \
		"^1\. \[isa\] undeclared-feature: sve: " "^sweep +N/A .*cpu cortex-a57 +n/a \(qemu-aarch64 -cpu cortex-a57 cannot run sve" \
		"^REJECTED: sve_copy, 1 finding\(s\)" -- \
		scripts/gate --arch=aarch64 --op memcpy --profile=smoke --skip=fuzz,huge,regressions tests/gate/isa/sve_copy.S
	# Its run is also the unmarked object's below (BTI): one gate, two rows.
	expect_all "gate: the SVE routine with --requires sve is accepted (qemu max and a64fx)" 0 \
		"^isa +PASS .*minimal --requires: sve" "^ACCEPTED.*: sve_copy passed every" -- \
		bash -c "scripts/gate --arch=aarch64 --op memcpy --requires=sve --profile=smoke --skip=fuzz,huge,regressions \
		tests/gate/isa/sve_copy.S 2>&1 | tee '$TMP/sve-accepted.out'; exit \${PIPESTATUS[0]}"
	# BTI (docs/contract.md, A16), aarch64's row of the landing-pad rule: a
	# BTI-marked object whose entry has no landing pad is the isa check's
	# landing-pad finding, whatever the sweep says; its twin's row passes;
	# an unmarked object asks for none.
	expect_all "gate: a BTI-marked routine without bti c is rejected (landing-pad)" 1 \
		"^isa +FAIL .*marked for BTI: each entry must start with bti c or bti jc or paciasp or pacibsp" \
		"^1\. \[isa\] landing-pad: no_landing_pad starts with 03 00 80 d2, not bti c or bti jc or paciasp or pacibsp, in an object marked for BTI" \
		"^REJECTED: no_landing_pad" -- \
		scripts/gate --arch=aarch64 --cpu=cortex-a57 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench \
		tests/gate/bti/no_landing_pad.S
	expect "gate: its twin, bti c first, passes the landing-pad rule" 0 \
		"^isa +PASS .*marked for BTI: each entry must start with bti c" \
		bash -c 'scripts/gate --arch=aarch64 --cpu=cortex-a57 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench tests/gate/bti/landing_pad.S; true'
	expect "gate: an object without the BTI property owes no landing pads" 0 \
		"^isa +PASS .*not marked for BTI \(no landing pad asked\)" cat "$TMP/sve-accepted.out"
	# Below sp (docs/contract.md, A4, AK4): scratch at [sp, #-16] is the
	# below-sp check's abi-violation; its twin, with a frame, passes.
	expect_all "gate: a routine that keeps scratch below sp is the below-sp check's abi-violation" 1 \
		"^below-sp +FAIL .*3 of 10 instructions reach below sp" \
		"^1\. \[below-sp\] abi-violation: stur xzr, \[sp, #-0x10\] at below_sp\+0x0 \(and 2 more\) writes below sp without moving it" \
		"^REJECTED: below_sp" -- \
		scripts/gate --arch=aarch64 --cpu=cortex-a57 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench \
		tests/gate/stack/below_sp.S
	# (Under one CPU model, --cpu: these rules are static; the verdict line
	# names the models left out.)
	expect_all "gate: its twin, scratch in its own frame, passes the below-sp check" 0 \
		"^below-sp +PASS .*none reaching below sp" \
		"^ACCEPTED \(smoke sweep; not run under cpu max, a64fx \(--cpu\); .*\): below_sp_frame passed every other check" -- \
		scripts/gate --arch=aarch64 --cpu=cortex-a57 --op memcpy --profile=smoke --skip=fuzz,huge,regressions --no-bench \
		--report="$TMP/below-sp-frame.json" tests/gate/stack/below_sp_frame.S
	expect "gate: the report names the models --cpu left out" 0 '^\["max","a64fx"\]$' \
		jq -c '.cpu_models_not_run' "$TMP/below-sp-frame.json"
elif arch_wanted aarch64; then
	skip "gate: the aarch64 SVE routine" "$ga_why"
fi
