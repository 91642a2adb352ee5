# CPU parameters, tunables and the kernel contract (issue 14, items 4-6):
# the self-tests of tests/bad caught by the sweep and by scripts/gate.
# - x86-64: a kernel copy_page using SSE registers without declaring it is
#   an abi-violation (rule fpu-state); declared (--requires fpu) or as user
#   code (--contract=user) it is accepted.
# - a threshold read from an --extern symbol: scripts/gate runs once per
#   value and rejects only the value that shows the bug.
# - aarch64 (under qemu-user): a memset wrong only with a 64-byte DC ZVA
#   block is caught under -cpu cortex-a57 and named so; facts no model has
#   are a SKIP, exit 2; x18 in a page routine is rejected by the gate's
#   default kernel contract and accepted with --contract=user.
# About two minutes (the aarch64 gates run under three CPU models).
# Sourced by tests/run (uses expect, expect_all, usage_error, caught, $MG, $TMP).

echo "== CPU parameters, tunables, the kernel contract"
if [ "$(uname -m)" = x86_64 ]; then
	caught bad_copy_page_uses_sse abi-violation \
		"kernel contract: touches xmm0 without declaring it" --len=4096
	expect_all "gate: a kernel copy_page using xmm registers is rejected (fpu-state)" 1 \
		"^abi +FAIL .*no vector or x87 state \(kernel\)" \
		"^1\. \[abi\] abi-violation: kernel contract: touches xmm0 without declaring it" -- \
		scripts/gate --op copy_page --skip=fuzz,valgrind,bench --report="$TMP/pfpu.json" \
		--symbol=mg_x86_64_bad_copy_page_uses_sse tests/bad/x86_64/bad_copy_page_uses_sse.S
	expect "the finding record names the rule fpu-state" 0 '"rule":"fpu-state"' \
		bash -c "$MG run --variant=bad_copy_page_uses_sse --len=4096 --format=jsonl; true"
	expect "gate: the same copy_page declaring --requires fpu is accepted" 0 "^ACCEPTED" \
		scripts/gate --op copy_page --skip=fuzz,valgrind,bench --requires=fpu \
		--symbol=mg_x86_64_bad_copy_page_uses_sse tests/bad/x86_64/bad_copy_page_uses_sse.S
	expect "gate: the same copy_page as user code (--contract=user) is accepted" 0 "^ACCEPTED" \
		scripts/gate --op copy_page --skip=fuzz,valgrind,bench --contract=user \
		--symbol=mg_x86_64_bad_copy_page_uses_sse tests/bad/x86_64/bad_copy_page_uses_sse.S
fi
caught bad_memcpy_nt_threshold out-of-bounds-write "dst, 48 bytes before it" --len=16
expect_all "gate: --extern V1,V2 runs once per value and rejects only the low threshold" 1 \
	"^  bad_nt_threshold=0x100000: ACCEPTED$" "^  bad_nt_threshold=16: REJECTED" \
	"^1\. \[sweep\] out-of-bounds-(read|write): .*\(bad_nt_threshold=16\)$" \
	"^REJECTED: mg_generic_bad_memcpy_nt_threshold" -- \
	scripts/gate --op memcpy --quick --skip=fuzz,valgrind,bench,huge \
	--extern bad_nt_threshold=0x100000,16 --symbol=mg_generic_bad_memcpy_nt_threshold \
	tests/bad/generic/bad_memcpy_nt_threshold.c
usage_error "gate: --extern with a value twice is bad usage" \
	"^gate: --extern t: a value is given twice$" \
	scripts/gate --op memcpy --extern t=1,0x1 tests/bad/generic/bad_memcpy_nt_threshold.c
usage_error "gate: --contract takes kernel or user" "^gate: --contract must be kernel or user, not 'both'$" \
	scripts/gate --op memcpy --contract=both tests/bad/generic/bad_memcpy_nt_threshold.c
usage_error "gate: an aarch64 CPU fact for an x86 routine is bad usage" \
	"^gate: --requires zva64: aarch64 CPU facts, and this routine is for " \
	scripts/gate --op memcpy --requires=zva64 tests/bad/generic/bad_memcpy_nt_threshold.c

if ! arch_usable aarch64 "CPU models (aarch64)" pa_why; then
	:
else
	pa_run="$pa_why"
	expect "only -cpu cortex-a57 (of max, cortex-a57, a64fx) has a 64-byte DC ZVA block" 0 \
		"^max=SKIP \(needs zva64\) cortex-a57=runs a64fx=SKIP \(needs zva64\)$" \
		bash -c "for m in max cortex-a57 a64fx; do QEMU_CPU=\$m $pa_run build/aarch64/memgate list --tsv \
		--set=selftest | awk -F'\t' -v m=\$m '\$1 == \"bad_memset_zva64_stride\" {printf \"%s=%s \", m, \$6}'; \
		done | sed 's/ \$//'"
	expect "sweep under -cpu cortex-a57 catches bad_memset_zva64_stride as wrong-result, naming the model" 0 \
		"^bad_memset_zva64_stride .*FAIL \(expected\) .* wrong-result: " \
		env QEMU_CPU=cortex-a57 MEMGATE_CPU_MODEL=cortex-a57 $pa_run build/aarch64/memgate verify \
		--variant=bad_memset_zva64_stride --profile=quick --timeout-ms=2000 --findings="$TMP/pzva"
	expect "sweep under qemu's default CPU (512-byte blocks) skips it: it needs zva64" 0 \
		"^bad_memset_zva64_stride .*SKIP \(needs zva64\)" \
		$pa_run build/aarch64/memgate verify --variant=bad_memset_zva64_stride --profile=quick
	expect "a finding record names the CPU model" 0 '"cpu_model":"cortex-a57"' \
		bash -c "QEMU_CPU=cortex-a57 MEMGATE_CPU_MODEL=cortex-a57 $pa_run build/aarch64/memgate run \
		--variant=bad_memset_zva64_stride --len=256 --value=0 --format=jsonl; true"
	expect_all "gate: a memset wrong only with 64-byte ZVA blocks is rejected under cortex-a57 only" 1 \
		"^  cpu max: ACCEPTED$" "^  cpu cortex-a57: REJECTED" "^  cpu a64fx: ACCEPTED$" \
		"^1\. \[sweep\] wrong-result: .*\(cpu cortex-a57\)$" "^   repro: QEMU_CPU=cortex-a57 " -- \
		scripts/gate --op memset --profile=smoke --skip=fuzz,huge --report="$TMP/pzva.json" \
		--symbol=mg_aarch64_bad_memset_zva64_stride tests/bad/aarch64/bad_memset_zva64_stride.c
	expect "gate: the finding's cpu_model is in the report" 0 "^cortex-a57$" \
		jq -r '.findings[0].cpu_model' "$TMP/pzva.json"
	expect "gate: the repro command of the cortex-a57 finding reproduces it" 1 \
		"REPRODUCED: mg_aarch64_bad_memset_zva64_stride fails this case \(wrong-result\)" \
		bash -c "eval \"\$(jq -r '.findings[0].repro' $TMP/pzva.json)\""
	expect_all "gate: --requires zva64 runs only under cortex-a57" 1 \
		"^sweep +FAIL .*cpu cortex-a57" "^REJECTED: mg_aarch64_bad_memset_zva64_stride, 1 finding" -- \
		scripts/gate --op memset --profile=smoke --skip=fuzz,huge,regressions --requires=zva64 \
		--symbol=mg_aarch64_bad_memset_zva64_stride tests/bad/aarch64/bad_memset_zva64_stride.c
	expect "gate: facts no model has are a SKIP naming them, exit 2" 2 \
		"^SKIP \(needs sve,zva64: no qemu model here has both sve and a 64-byte ZVA block\)" \
		scripts/gate --op memset --requires=sve,zva64 --symbol=mg_aarch64_bad_memset_zva64_stride \
		tests/bad/aarch64/bad_memset_zva64_stride.c
	expect "gate: mops (no qemu 7.2 model has it) is a SKIP, exit 2" 2 \
		"^SKIP \(needs mops: no qemu model here has mops\)" \
		scripts/gate --op memset --requires=mops --symbol=mg_aarch64_bad_memset_zva64_stride \
		tests/bad/aarch64/bad_memset_zva64_stride.c
	expect "gate: x18 in an aarch64 copy_page breaks the default kernel contract" 1 \
		"^1\. \[abi\] abi-violation: x18 \(the platform register\) changed .*\(cpu max\)$" \
		scripts/gate --op copy_page --arch=aarch64 --cpu=max --profile=smoke --skip=fuzz,regressions \
		--symbol=mg_aarch64_copy_page_pipelined impls/aarch64/copy_page_pipelined.S
	expect "gate: the same copy_page as user code (--contract=user) is accepted" 0 "^ACCEPTED" \
		scripts/gate --op copy_page --arch=aarch64 --cpu=max --profile=smoke --skip=fuzz --contract=user \
		--symbol=mg_aarch64_copy_page_pipelined impls/aarch64/copy_page_pipelined.S
fi
