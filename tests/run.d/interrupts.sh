# tier: fast
# The interrupt situation (docs/contract.md, S1; docs/design.md, "The
# interrupt situation"): each self-test is right in every uninterrupted
# call and caught, with its class and diagnosis, only when the routine is
# stopped at every instruction; the correct twin passes; the case replays
# from its line and from its fuzz input; a machine that delivers no trap is
# could not judge. About 40 s (two gates).
# Sourced by tests/run (uses expect, expect_all, usage_error, caught, pass,
# fail, skip, $MG, $TMP).

echo "== the interrupt situation"
if [ "$(uname -m)" != x86_64 ]; then
	skip "the interrupt situation" "its self-tests are x86's, and this is $(uname -m)"
	return 0
fi
caught bad_memcpy_below_red_zone abi-violation \
	"wrote sp-200 at pc mg_x86_64_bad_memcpy_below_red_zone\+0x[0-9a-f]+, below the 128-byte red zone, where the next signal or interrupt frame goes; uninterrupted, the same case passes$" \
	--len=37 --interrupt=step
caught bad_copy_page_red_zone abi-violation \
	"wrote sp-8 at pc mg_x86_64_bad_copy_page_red_zone\+0x[0-9a-f]+, below the stack pointer, " \
	--len=4096 --interrupt=step
caught bad_memset_merges_tail out-of-bounds-write \
	"dst, 1 byte past the end \(at dst\+13, len 13\) at pc mg_generic_bad_memset_merges_tail\+0x[0-9a-f]+: wrote 0x[0-9a-f]{2} over 0x[0-9a-f]{2}, stored there during the call as another thread may" \
	--len=13 --value=90 --interrupt=step
caught bad_memcpy_static_scratch wrong-result \
	"dst\[[0-9]+\] got .*: it is not reentrant \(POSIX makes it async-signal-safe\)$" \
	--len=300 --interrupt=step
# The handler's call is a case of its own (docs/contract.md, C15): its
# length, alignments and overlap are drawn, and named; one that fails
# alone too is a plain bug that call met first, not reentrancy.
expect "the handler's call is named, and one that fails alone too is said so" 1 \
	"^verdict: wrong-result: a call from a signal handler \(memcpy len [0-9]+, src%64 [0-9]+, dst%64 [0-9]+\), made while the routine was stopped at pc mg_generic_bad_memcpy_tail_overwrite\+0x[0-9a-f]+, wrote dst\+[0-9]+ 0x00, want 0x[0-9a-f]+; that call fails alone too, uninterrupted$" \
	$MG run --variant=bad_memcpy_tail_overwrite --len=64 --interrupt=step
# Not reentrant only on a path some calls take (issue 42): its long path
# stages through a thread-local buffer, so threads pass it, and only a
# handler's call long enough to stage too breaks it.
caught bad_memcpy_tls_bounce wrong-result \
	"dst\[[0-9]+\] got .*: it is not reentrant \(POSIX makes it async-signal-safe\)$" \
	--len=2000 --interrupt=step
expect "bad_memcpy_tls_bounce's short path is reentrant: it passes interrupted at 300 bytes" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_tls_bounce --len=300 --interrupt=step
expect "bad_memcpy_tls_bounce is thread-safe: it passes in 4 threads at 2000 bytes" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_tls_bounce --len=2000 --threads=4
expect "its twin, which stages on its own stack, passes interrupted" 0 "^verdict: ok$" \
	$MG run --variant=memcpy_stack_bounce --len=2000 --interrupt=step
expect "a routine reentrant across lengths passes interrupted (bad_memcpy_static_blocks)" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_static_blocks --len=300 --interrupt=step
for it_v in bad_memcpy_below_red_zone bad_memset_merges_tail bad_memcpy_static_scratch; do
	expect "uninterrupted, $it_v passes the same case" 0 "^verdict: ok$" \
		$MG run --variant=$it_v --len=300 --value=90
done
expect "the twin that keeps its byte in the red zone passes, interrupted" 0 "^verdict: ok$" \
	$MG run --variant=memcpy_uses_red_zone --len=300 --interrupt=step
expect "the twin passes its whole sweep and interrupts stage" 0 \
	"^memcpy_uses_red_zone .* PASS " \
	$MG verify --variant=memcpy_uses_red_zone --huge=off --findings="$TMP/findings"
expect "the sweep's record says the interrupts stage ran and passed" 0 \
	'"stage":"sweep".*"interrupts":"pass","interrupted_cases":[1-9][0-9]*,"interrupted_seconds":[0-9.]+,"interrupts_reason":null' \
	$MG verify --variant=memcpy_libc --huge=off --findings="$TMP/findings" --format=jsonl
expect "a variant the sweep rejects is not interrupted, and the record says why" 0 \
	'"interrupts":"not run","interrupted_cases":0,"interrupted_seconds":0(\.0+)?,"interrupts_reason":"the sweep or the placements found something' \
	$MG verify --variant=bad_memcpy_tail_overwrite --huge=off --findings="$TMP/findings" --format=jsonl
expect "the finding's case record says it was interrupted" 0 '"interrupt":true,"threads":0[,}].*"stage":"interrupts"' \
	$MG verify --variant=bad_memcpy_below_red_zone --huge=off --findings="$TMP/findings" --format=jsonl
expect "no trap delivered is could not judge, never a pass" 2 \
	"^could not judge: no single-step trap stopped the routine: the interrupt situation was not made here$" \
	env MEMGATE_TEST_NO_TRAPS=1 $MG run --variant=memcpy_libc --len=64 --interrupt=step
usage_error "--interrupt takes none or step" "^memgate run: unknown --interrupt 'yes' \(valid: none, step\)$" \
	$MG run --variant=memcpy_libc --len=8 --interrupt=yes
usage_error "the interrupt situation is for the sandbox's lengths" \
	"--interrupt=step is for lengths up to [0-9]+ at the guard pages and the straddles" \
	$MG run --variant=memcpy_libc --len=4294967296 --oracle --interrupt=step

# The fuzz input carries the situation: 31 bytes, replayed as interrupted.
it_in="$TMP/interrupted.in"
if $MG encode --variant=bad_memcpy_static_scratch --len=300 --seed=7 --interrupt=step \
	--output="$it_in" >/dev/null 2>&1 && [ "$(wc -c <"$it_in")" -eq 31 ]; then
	pass "an interrupted case encodes to a 31-byte input"
else
	fail "an interrupted case encodes to a 31-byte input" "memgate encode failed or wrote $(wc -c <"$it_in" 2>/dev/null) bytes"
fi
expect_all "build/replay replays the input interrupted, and fails it as the sweep did" 1 \
	"replay: .* --interrupt=step$" "^0 passed, 1 failed$" -- \
	build/replay --variant=bad_memcpy_static_scratch "$it_in"
expect "its last 29 bytes alone are the same case, uninterrupted, which passes" 0 "^1 passed, 0 failed$" \
	bash -c "tail -c 29 '$it_in' >'$TMP/plain.in' && build/replay --variant=bad_memcpy_static_scratch '$TMP/plain.in'"

if it_why=$(scripts/arch-probe aarch64 2>&1) && [ -x build/aarch64/memgate ]; then
	# Word-split on purpose: the runner prefix, then the program.
	usage_error "aarch64: the interrupt situation is refused with the reason" \
		"--interrupt=step cannot run here: aarch64 user code cannot single-step itself" \
		$it_why build/aarch64/memgate run --variant=memcpy_libc --len=8 --interrupt=step
else
	skip "aarch64: the interrupt situation is refused with the reason" "${it_why:-build/aarch64/memgate not built}"
fi

# The gate's interrupts check: two gates of the quick profile.
full_tier_only || return 0
expect_all "gate: a routine that keeps scratch below the red zone is rejected by the interrupts check" 1 \
	"^interrupts +FAIL +[0-9]+ " \
	"^1\. \[interrupts\] abi-violation: wrote sp-200 at pc " "^REJECTED: " -- \
	scripts/gate --op memcpy --quick --skip=fuzz,valgrind,bench,huge \
	--symbol=mg_x86_64_bad_memcpy_below_red_zone tests/bad/x86_64/bad_memcpy_below_red_zone.S
expect_all "gate: its twin, scratch in the red zone, is accepted with the interrupts and threads checks passed" 0 \
	"^interrupts +PASS +[0-9]+ .* stopped at every instruction" \
	"^threads +PASS +[0-9]+ .* in 2 and in 4 threads at once" "^ACCEPTED" -- \
	scripts/gate --op memcpy --quick --skip=fuzz,valgrind,bench,huge \
	--symbol=mg_x86_64_memcpy_uses_red_zone tests/bad/x86_64/memcpy_uses_red_zone.S
