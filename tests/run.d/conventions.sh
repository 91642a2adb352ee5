# Register conventions of a routine's own (docs/conventions.md): the kernel
# calls rep_movs_alternative and __clear_pages_unrolled from inline
# assembly with the arguments in registers of its choosing. A variant that
# declares its convention is called that way and every register outside it
# must come back; its broken twin, which clobbers one the convention does
# not list, is an abi-violation naming the register and the convention.
# x86-64 and i386. Sourced by tests/run (uses expect, expect_all, caught,
# usage_error, skip, $MG, $TMP).

echo "== register conventions of their own"
if [ "$(uname -m)" != x86_64 ]; then
	skip "register conventions" "these tests run x86-64 variants, and this is $(uname -m)"
	return 0
fi

MOVS='args=rdi,rsi,rcx ret=rcx clobbers=rax'
CLEAR='args=rdi,rcx zero=rax'

# The table's variants: the correct ones pass (a fault at each end and
# inside for the copy), the broken twins fail with their class alone.
for k in 0 13 20; do
	expect "copy_from_user_movs_alt resumes a fault at byte $k of 21" 0 "^verdict: ok$" \
		$MG run --variant=copy_from_user_movs_alt --len=21 --fault-at=$k --dst-align=5 --src-align=5
done
expect "clear_pages_unrolled clears its page with rax = 0 and rcx = 4096" 0 "^verdict: ok$" \
	$MG run --variant=clear_pages_unrolled --len=4096
caught bad_copy_from_user_movs_alt_r8 abi-violation \
	"r8 clobbered \(0xc9c9c9c9c9c9c9c9 -> 0x0000000000000000\), which the declared convention '$MOVS' does not let it change$" \
	--len=21
caught bad_clear_pages_unrolled_rdx abi-violation \
	"rdx clobbered \(0xc3c3c3c3c3c3c3c3 -> 0x0000000000000000\), which the declared convention '$CLEAR' does not let it change$" \
	--len=4096
$MG verify --variant=copy_from_user_movs_alt,clear_pages_unrolled --sweep-seconds=2 --jobs=1 \
	--findings="$TMP/findings" >"$TMP/conv-verify.out" 2>&1
expect "both pass their (budgeted) sweep" 0 \
	"^2 variants: 2 passed, 0 failed as expected, 0 skipped, 0 unexpected$" cat "$TMP/conv-verify.out"

# The motivating false alarm: __clear_pages_unrolled called with the C
# convention stores whatever rax holds (the trampoline's call target): its
# bytes that are 0 (the top two; the low ones too, with how the build lays
# the harness out) are right, so the first wrong byte and the count vary.
expect "with the C convention, clear_pages_unrolled fills the page with rax" 1 \
	"^verdict: wrong-result: dst\[[0-7]\] got 0x[0-9a-f]{2} want 0x00 \([0-9]+ of 4096 bytes wrong\)" \
	$MG run --variant=clear_pages_unrolled --len=4096 --convention=c
expect "the replay line of a case under another convention carries it" 1 \
	'"replay":\["build/memgate","run","--variant=clear_pages_unrolled","--convention=c",' \
	$MG run --variant=clear_pages_unrolled --len=4096 --convention=c --format=jsonl
expect "a C routine passes under a convention that fits it" 0 "^verdict: ok$" \
	$MG run --variant=clear_page_rep_stosq --len=4096 --convention="args=rdi clobbers=rax,rcx"
# zero= is an input: a register that enters holding 0 must come back 0
# unless clobbers= lists it too (copy_page_unrolled8 uses rax as scratch).
expect "a zero= register the routine changes is an abi-violation" 1 \
	"^verdict: abi-violation: rax clobbered \(0x0000000000000000 -> 0x[0-9a-f]{16}\), which the declared convention 'args=rdi,rsi zero=rax clobbers=rcx,rdx,r8,r9,r10,r11' does not let it change$" \
	$MG run --variant=copy_page_unrolled8 --len=4096 --convention='args=rdi,rsi zero=rax clobbers=rcx,rdx,r8,r9,r10,r11'
expect "the same routine passes once clobbers= lists the zero= register" 0 "^verdict: ok$" \
	$MG run --variant=copy_page_unrolled8 --len=4096 --convention='args=rdi,rsi zero=rax clobbers=rax,rcx,rdx,r8,r9,r10,r11'
# Every op: the C convention written out as a convention of its own
# passes its C routines; a narrower one catches a C scratch register.
C3='args=rdi,rsi,rdx ret=rax clobbers=rcx,r8,r9,r10,r11'
for v in memcpy_unrolled64 memmove_bytewise memset_word mempcpy_libc copy_from_user_bytes; do
	expect "$v passes under the C convention written out" 0 "^verdict: ok$" \
		$MG run --variant=$v --len=100 --convention="$C3"
done
expect "copy_page_rep_movsq passes under the C convention written out" 0 "^verdict: ok$" \
	$MG run --variant=copy_page_rep_movsq --len=4096 --convention='args=rdi,rsi clobbers=rax,rcx,rdx,r8,r9,r10,r11'
expect "clear_user_bytes passes under the C convention written out" 0 "^verdict: ok$" \
	$MG run --variant=clear_user_bytes --len=100 --convention='args=rdi,rsi ret=rax clobbers=rcx,rdx,r8,r9,r10,r11'
expect "a convention narrower than the C one catches a C scratch register" 1 \
	"^verdict: abi-violation: rcx clobbered \(0xc2c2c2c2c2c2c2c2 -> 0x[0-9a-f]{16}\), which the declared convention 'args=rdi,rsi,rdx ret=rax' does not let it change$" \
	$MG run --variant=memset_word --len=100 --convention='args=rdi,rsi,rdx ret=rax'
expect "the records name a declared convention" 1 "\"convention\":\"$CLEAR\"" \
	$MG run --variant=bad_clear_pages_unrolled_rdx --len=4096 --format=jsonl
# The standalone reproducer calls it in its convention, from inline
# assembly (a plain C call would leave rax, the page's fill, as it was).
emit_and_reproduce "clear_pages_unrolled in its convention" 0 "$TMP/conv.c" corpus/page/clear-after.in \
	--variant=clear_pages_unrolled --target=page
expect "the emitted program binds each register of the convention" 0 \
	'^[[:blank:]]+: "\+r"\(r_rax\), "\+r"\(r_rcx\), "\+r"\(r_rdi\)$' cat "$TMP/conv.c"
emit_and_reproduce "copy_from_user_movs_alt in its convention, with a fault" 0 "$TMP/conv-uc.c" \
	corpus/usercopy/copy_from_user_bytes-len100-fault50.in --variant=copy_from_user_movs_alt

# The fuzz inputs, the random driver, replay.
expect "the page seeds pass on clear_pages_unrolled" 0 "^[0-9]+ passed, 0 failed$" \
	build/replay --variant=clear_pages_unrolled --target=page corpus/page
expect "the usercopy seeds pass on copy_from_user_movs_alt" 0 "^[0-9]+ passed, 0 failed$" \
	build/replay --variant=copy_from_user_movs_alt --target=usercopy corpus/usercopy
expect "random finds the r8 clobber" 1 \
	"signature: bad_copy_from_user_movs_alt_r8 abi-violation r8 clobbered" \
	build/random --variant=bad_copy_from_user_movs_alt_r8 --seconds=5 --seed=1 --max-findings=1 \
	--findings="$TMP/random"

if ! command -v clang >/dev/null; then
	skip "fuzz_usercopy with a convention" "clang is not installed (scripts/install-deps installs it)"
elif ! make --no-print-directory -s build/fuzz/libfuzzer/fuzz_usercopy >/dev/null 2>&1; then
	fail "fuzz_usercopy builds" "make build/fuzz/libfuzzer/fuzz_usercopy failed"
else
	expect "libFuzzer fuzz_usercopy finds the r8 clobber" 77 \
		"signature: bad_copy_from_user_movs_alt_r8 abi-violation r8 clobbered" \
		build/fuzz/libfuzzer/fuzz_usercopy --variant=bad_copy_from_user_movs_alt_r8 \
		-runs=2000 -seed=1 -artifact_prefix="$TMP/" corpus/usercopy
fi

# Bad conventions: one line, exit 2, naming the bad token.
usage_error "memgate run: an unknown register is named" "--convention 'args=rdi,rcz': unknown register 'rcz' \(valid: rax, " \
	$MG run --variant=clear_pages_unrolled --len=4096 --convention='args=rdi,rcz'
usage_error "memgate run: a convention must fit the op" "clear_page returns nothing: no ret=" \
	$MG run --variant=clear_pages_unrolled --len=4096 --convention='args=rdi ret=rax'

# The gate, on kernel-style files (tests/gate/conv/), with its shim.
GATE="scripts/gate --kernel --quick --skip=huge,fuzz,valgrind,regressions,bench"
expect "the gate rejects __clear_pages_unrolled's style under the C convention: the false alarm" 1 \
	"wrong-result: dst\[[0-7]\] got 0x[0-9a-f]{2} want 0x00 \([0-9]+ of 4096 bytes wrong\)" \
	$GATE --op clear_page tests/gate/conv/clear_pages_style.S
expect_all "the gate accepts it with its convention declared, and says so" 0 \
	"^memgate gate: clear_pages_style \(clear_page, x86_64, kernel contract, convention '$CLEAR'\)" \
	"^ACCEPTED .*: clear_pages_style passed" -- \
	$GATE --op clear_page --convention "$CLEAR" --report="$TMP/conv.json" --sarif="$TMP/conv.sarif" \
	--junit="$TMP/conv.xml" tests/gate/conv/clear_pages_style.S
expect_all "its report, SARIF and JUnit name the convention" 0 "\"convention\": \"$CLEAR\"" \
	"<property name=\"convention\" value=\"$CLEAR\"/>" -- \
	cat "$TMP/conv.json" "$TMP/conv.sarif" "$TMP/conv.xml"
expect "the gate rejects its twin that counts in rdx" 1 \
	"\[abi\] abi-violation: rdx clobbered \(0x[0-9a-f]+ -> 0x[0-9a-f]+\), which the declared convention '$CLEAR' does not let it change" \
	$GATE --op clear_page --convention "$CLEAR" -DCLOBBER_RDX tests/gate/conv/clear_pages_style.S
expect "the gate accepts rep_movs_alternative's style with its convention" 0 "^ACCEPTED .*: movs_style passed" \
	$GATE --op copy_from_user --convention "$MOVS" tests/gate/conv/movs_style.S
expect "the gate rejects its twin that counts in r8" 1 \
	"\[abi\] abi-violation: r8 clobbered \(0x[0-9a-f]+ -> 0x[0-9a-f]+\), which the declared convention '$MOVS' does not let it change" \
	$GATE --op copy_from_user --convention "$MOVS" -DCLOBBER_R8 tests/gate/conv/movs_style.S
usage_error "the gate: an unknown register, before the build" \
	"^gate: --convention 'args=rdi,rsi,rcz ret=rcx': unknown register 'rcz'" \
	$GATE --op copy_from_user --convention 'args=rdi,rsi,rcz ret=rcx' tests/gate/conv/movs_style.S
usage_error "the gate: a convention must fit the op" \
	"^gate: --convention 'args=rdi,rsi ret=rcx': copy_from_user takes 3 arguments, and args= names 2$" \
	$GATE --op copy_from_user --convention 'args=rdi,rsi ret=rcx' tests/gate/conv/movs_style.S
usage_error "the gate: the stack pointer is no clobber" "'rsp' is the stack pointer" \
	$GATE --op clear_page --convention 'args=rdi clobbers=rsp' tests/gate/conv/clear_pages_style.S
usage_error "the gate: not for aarch64 yet" "implemented for x86-64 and i386 only, not aarch64" \
	$GATE --op clear_page --arch=aarch64 --convention "$CLEAR" tests/gate/conv/clear_pages_style.S
usage_error "the gate: an i386 convention names i386's registers" \
	"^gate: --convention 'args=rdi,rcx zero=rax': unknown register 'rdi' \(valid: eax, ecx, edx, ebx, ebp, esi, edi\)" \
	$GATE --op clear_page --arch=i386 --convention "$CLEAR" tests/gate/conv/clear_pages_style.S

# i386: the kernel's own C functions take their arguments in eax, edx and
# ecx (-mregparm=3), which a declared convention says.
REGPARM='args=eax,edx,ecx ret=eax'
if ! arch_usable i386 "register conventions on i386" cv_why; then
	:
else
	expect_all "the gate accepts an i386 user copy in -mregparm=3's convention, declared" 0 \
		"^memgate gate: regparm_style \(copy_from_user, i386, (under qemu-i386, )?kernel contract, convention '$REGPARM'\)" \
		"^ACCEPTED .*: regparm_style passed" -- \
		$GATE --arch=i386 --op copy_from_user --convention "$REGPARM" tests/gate/conv/regparm_style.S
	expect "the gate rejects its twin that holds its bytes in bl without saving ebx" 1 \
		"\[abi\] abi-violation: ebx clobbered \(0xc4c4c4c4 -> 0x[0-9a-f]{8}\), which the declared convention '$REGPARM' does not let it change" \
		$GATE --arch=i386 --op copy_from_user --convention "$REGPARM" -DCLOBBER_EBX tests/gate/conv/regparm_style.S
	expect "the gate rejects it under the C convention (its arguments are not on the stack)" 1 \
		"^REJECTED: regparm_style" \
		$GATE --arch=i386 --op copy_from_user tests/gate/conv/regparm_style.S
	expect_all "an i386 memcpy in that convention passes every situation, interrupted and in threads" 0 \
		"^abi +PASS .*every register the convention '$REGPARM' does not name, esp" \
		"^interrupts +PASS .*the routine called from the handler" "^threads +PASS " \
		"^ACCEPTED .*: regparm_memcpy passed" -- \
		$GATE --arch=i386 --op memcpy --convention "$REGPARM" tests/gate/conv/regparm_memcpy.S
fi
