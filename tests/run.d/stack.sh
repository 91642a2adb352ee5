# tier: fast
# The stack pointer's alignment at entry (docs/contract.md, X9, XK4, I5,
# IK2, A11): the trampoline sets it from the case's stack offset, the
# sweep and the fuzzers vary it. Each self-test is right at offset 0 (the
# one alignment the harness had before) and caught at another, with a
# diagnosis that names both; each twin aligns its own frame and passes;
# the offset is in the replay line, the records and the fuzz input; gdb
# still unwinds through the realigned trampoline; i386 and aarch64 too.
# About 6 s. Sourced by tests/run (uses expect, expect_all, usage_error,
# caught, pass, fail, skip, $MG, $TMP).

echo "== the stack's alignment at entry"
st_why="it assumes more alignment of the stack than the ABI promises"
if [ "$(uname -m)" = x86_64 ]; then
	caught bad_memcpy_stack_vmovaps crash \
		"SIGSEGV \(general-protection fault, .*\) at pc mg_x86_64_bad_memcpy_stack_vmovaps\+0x[0-9a-f]+, address .*; with \(rsp \+ 8\) mod 64 = 16 at entry it fails, with 0 it passes: $st_why: a multiple of 16 for \(rsp \+ 8\) at entry \(psABI-64 3\.2\.2\)$" \
		--len=100 --stack-offset=16
	expect "at the harness's old alignment bad_memcpy_stack_vmovaps passes" 0 "^verdict: ok$" \
		$MG run --variant=bad_memcpy_stack_vmovaps --len=100
	expect "its twin, which aligns its own frame, passes its sweep" 0 "^memcpy_stack_aligned .* PASS " \
		$MG verify --variant=memcpy_stack_aligned --huge=off --findings="$TMP/findings"
	caught bad_copy_page_stack_movaps crash \
		"SIGSEGV \(general-protection fault, .*\); with \(rsp \+ 8\) mod 64 = 8 at entry it fails, with 0 it passes: $st_why: a multiple of 8 for rsp at entry \(the kernel's -mpreferred-stack-boundary=3\)$" \
		--len=4096 --stack-offset=8
	expect "kernel: its twin passes its sweep at every offset of 8" 0 "^copy_page_stack_aligned .* PASS " \
		$MG verify --variant=copy_page_stack_aligned --huge=off --findings="$TMP/findings"
	expect "the sweep's finding replays with its --stack-offset" 0 \
		"replay: .* --stack-offset=(16|48)$" \
		$MG verify --variant=bad_memcpy_stack_vmovaps --huge=off --findings="$TMP/findings"
	expect "the case record carries the offset" 0 '"stack_offset":16,' \
		bash -c "$MG run --variant=bad_memcpy_stack_vmovaps --len=100 --stack-offset=16 --format=jsonl; true"
	usage_error "user code: offsets are multiples of 16" \
		"^memgate run: invalid case for memcpy_libc: --stack-offset is \(rsp \+ 8\) mod 64 at entry: a multiple of 16 below 64 under the user contract, not 8$" \
		$MG run --variant=memcpy_libc --len=8 --stack-offset=8
	usage_error "an offset is below 64" "^memgate run: --stack-offset=64 is out of range" \
		$MG run --variant=memcpy_libc --len=8 --stack-offset=64

	# The stack's other checks look at the realigned frame.
	expect "at an offset, the caller-frame canaries still see a write above the return address" 1 \
		"^verdict: abi-violation: the caller's stack frame above the return address was overwritten$" \
		$MG run --variant=bad_memcpy_writes_caller_frame --len=100 --stack-offset=48
	expect "at an offset, the stack balance still sees ret \$8" 1 \
		"^verdict: abi-violation: stack pointer moved by \+8 bytes$" \
		$MG run --variant=bad_memcpy_unbalanced_stack --len=100 --stack-offset=16
	expect "at an offset, the interrupts stage still sees a write below the red zone" 1 \
		"^verdict: abi-violation: wrote sp-200 .*below the 128-byte red zone" \
		$MG run --variant=bad_memcpy_below_red_zone --len=20 --interrupt=step --stack-offset=32
	expect "at an offset, a routine that uses its red zone passes interrupted" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_uses_red_zone --len=20 --interrupt=step --stack-offset=32

	# The fuzz input carries the offset: 32 bytes, replayed at it.
	st_in="$TMP/stack.in"
	if $MG encode --variant=bad_memcpy_stack_vmovaps --len=100 --seed=7 --stack-offset=16 \
		--output="$st_in" >/dev/null 2>&1 && [ "$(wc -c <"$st_in")" -eq 32 ]; then
		pass "a case with a stack offset encodes to a 32-byte input"
	else
		fail "a case with a stack offset encodes to a 32-byte input" "memgate encode failed or wrote $(wc -c <"$st_in" 2>/dev/null) bytes"
	fi
	expect_all "build/replay replays the input at its offset, and fails it" 1 \
		"replay: .* --stack-offset=16$" "^0 passed, 1 failed$" -- \
		build/replay --variant=bad_memcpy_stack_vmovaps "$st_in"
	expect "its last 31 bytes alone are the same case at offset 0, which passes" 0 "^1 passed, 0 failed$" \
		bash -c "tail -c 31 '$st_in' >'$TMP/stack0.in' && build/replay --variant=bad_memcpy_stack_vmovaps '$TMP/stack0.in'"
	# The standalone program calls at the case's offset (issue 44): the
	# crash, and at offset 0 in the same program, none.
	emit_shows "x86_64's crash at (rsp + 8) mod 64 = 16" 1 \
		"^verdict: crash: SIGSEGV \(general-protection fault\) at pc mg_x86_64_bad_memcpy_stack_vmovaps\+0x[0-9a-f]+" \
		"$TMP/st-x86_64.c" "$st_in" --target=memcpy --variant=bad_memcpy_stack_vmovaps
	expect "it calls through at_stack_offset at the case's offset" 0 "^#define STACK_OFFSET 16$" cat "$TMP/st-x86_64.c"
	expect "the same program at STACK_OFFSET 0 passes" 0 "^verdict: ok$" \
		emitted_rerun 's/^#define STACK_OFFSET .*/#define STACK_OFFSET 0/' "$TMP/st-x86_64.c"
	# The trampoline's CFI finds its caller through the word it keeps
	# above the realigned frame: gdb unwinds from the fault to C.
	if command -v gdb >/dev/null; then
		expect "repro --gdb-batch unwinds from a realigned call to the C caller" 1 \
			"^  #2 +0x[0-9a-f]+ in mg_[a-z_]+ \(" \
			scripts/repro --gdb-batch --target=memcpy --variant=bad_memcpy_stack_vmovaps "$st_in"
	else
		skip "repro --gdb-batch through a realigned call" "gdb is not installed"
	fi
fi

# The other arches: the same self-tests and twins, where their builds run.
if st_run=$(scripts/arch-probe i386 2>&1) && [ -x build/i386/memgate ]; then
	expect "i386: bad_memcpy_stack_vmovaps is caught at (esp + 4) mod 64 = 48" 1 \
		"^verdict: crash: SIGSEGV .*; with \(esp \+ 4\) mod 64 = 48 at entry it fails, with 0 it passes: $st_why: a multiple of 16 for \(esp \+ 4\) at entry \(psABI-32 2\.2\.2\)$" \
		$st_run build/i386/memgate run --variant=bad_memcpy_stack_vmovaps --len=100 --stack-offset=48
	mkdir -p "$TMP/st386/memcpy/bad_memcpy_stack_vmovaps"
	$st_run build/i386/memgate encode --variant=bad_memcpy_stack_vmovaps --len=100 --stack-offset=48 \
		--output="$TMP/st386/memcpy/bad_memcpy_stack_vmovaps/s48.in" >/dev/null
	emit_shows "i386's crash at (esp + 4) mod 64 = 48" 1 \
		"^verdict: crash: SIGSEGV \(general-protection fault\) at pc mg_i386_bad_memcpy_stack_vmovaps\+0x[0-9a-f]+" \
		"$TMP/st-i386.c" "$TMP/st386/memcpy/bad_memcpy_stack_vmovaps/s48.in" --arch=i386
	expect "i386: the same program at STACK_OFFSET 0 passes" 0 "^verdict: ok$" \
		emitted_rerun 's/^#define STACK_OFFSET .*/#define STACK_OFFSET 0/' "$TMP/st-i386.c"
	expect "i386: its twin passes at 48" 0 "^verdict: ok$" \
		$st_run build/i386/memgate run --variant=memcpy_stack_aligned --len=100 --stack-offset=48
	expect "i386 kernel: bad_copy_page_stack_movaps is caught at esp 4 bytes off" 1 \
		"^verdict: crash: SIGSEGV .*; with \(esp \+ 4\) mod 64 = 4 at entry it fails, with 0 it passes: $st_why: a multiple of 4 for esp \(the kernel's cc_stack_align4\)$" \
		$st_run build/i386/memgate run --variant=bad_copy_page_stack_movaps --len=4096 --stack-offset=4
	expect "i386 kernel: its twin passes at 4" 0 "^verdict: ok$" \
		$st_run build/i386/memgate run --variant=copy_page_stack_aligned --len=4096 --stack-offset=4
else
	skip "i386: the stack's alignment at entry" "${st_run:-build/i386/memgate not built}"
fi
if st_run=$(scripts/arch-probe aarch64 2>&1) && [ -x build/aarch64/memgate ]; then
	expect "aarch64: bad_memcpy_stack_block is caught at sp mod 64 = 32" 1 \
		"^verdict: abi-violation: x19 clobbered .*; with sp mod 64 = 32 at entry it fails, with 0 it passes: $st_why: a multiple of 16 for sp at a public interface \(AAPCS64 6\.4\.5\.2\)$" \
		$st_run build/aarch64/memgate run --variant=bad_memcpy_stack_block --len=100 --stack-offset=32
	expect "aarch64: at sp mod 64 = 0 it passes" 0 "^verdict: ok$" \
		$st_run build/aarch64/memgate run --variant=bad_memcpy_stack_block --len=100
	# Its finding is an abi-violation, which a program's plain call cannot
	# show; the program still makes the call at sp mod 64 = 32, and returns.
	mkdir -p "$TMP/sta64/memcpy/bad_memcpy_stack_block"
	$st_run build/aarch64/memgate encode --variant=bad_memcpy_stack_block --len=100 --stack-offset=32 \
		--output="$TMP/sta64/memcpy/bad_memcpy_stack_block/s32.in" >/dev/null
	emit_shows "aarch64 at sp mod 64 = 32" 0 "^verdict: ok$" "$TMP/st-aarch64.c" \
		"$TMP/sta64/memcpy/bad_memcpy_stack_block/s32.in" --arch=aarch64
	expect "aarch64: it calls through at_stack_offset at the case's offset" 0 "^#define STACK_OFFSET 32$" \
		cat "$TMP/st-aarch64.c"
	expect "aarch64: its twin passes at 16" 0 "^verdict: ok$" \
		$st_run build/aarch64/memgate run --variant=memcpy_stack_block --len=100 --stack-offset=16
else
	skip "aarch64: the stack's alignment at entry" "${st_run:-build/aarch64/memgate not built}"
fi
