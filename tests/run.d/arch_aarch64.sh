# The aarch64 port: cross-built with clang, run under qemu-user (or
# natively on an arm64 host). The main table passes as declared, every
# aarch64 self-test is caught with its class and diagnosis, and the
# platform-register rule (x18) follows the variant's contract and
# --platform-register.
# Sourced by tests/run (uses expect, caught, pass, fail, skip, $MG, $TMP).

# $MG is a command line here (qemu-aarch64 -L ... memgate), split on purpose.
# shellcheck disable=SC2086

echo "== aarch64"
if ! arch_wanted aarch64; then
	:
elif ! a64_run=$(scripts/arch-probe aarch64); then
	skip "aarch64 build and checks" "$a64_run"
elif ! a64_out=$(make -s ARCH=aarch64 all 2>&1); then
	fail "make ARCH=aarch64 all" "$(tail -n 3 <<<"$a64_out")"
else
	pass "make ARCH=aarch64 all"
	host_mg=$MG
	MG="$a64_run build/aarch64/memgate" # word-split on purpose, as tests/run does

	# The sweep alone: the 4 GiB+ check copies gigabytes, minutes under qemu
	# (make verify runs its guard-oracle cases there; see below).
	expect "aarch64: the main table passes and fails as declared" 0 \
		"^[0-9]+ variants: [0-9]+ passed, 1 failed as expected, 0 skipped, 0 unexpected$" \
		$MG verify --huge=off --findings="$TMP/findings"

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
	MG=$host_mg
fi
