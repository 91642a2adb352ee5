# tier: fast
# The threads situation (docs/contract.md, S2; docs/design.md, "The
# threads situation"): the self-test is right in one thread and reentrant
# (the interrupt situation passes it), and caught, with its class and
# diagnosis, only when threads are in it at once; its thread-local twin
# passes; the case replays from its line and from its fuzz input; a
# process that cannot start threads is could not judge; aarch64 and i386
# catch it too. The gate's threads row: interrupts.sh's gate of
# memcpy_uses_red_zone (pass) and tests/py/test_checks.py (fail, n/a,
# could not judge); the self-test calls sched_yield, which the gate
# refuses in a submission. About 20 s.
# Sourced by tests/run (uses expect, expect_all, usage_error, caught, pass,
# fail, skip, $MG, $TMP).

echo "== the threads situation"
th_why="in one thread, (the same case|that call) passes: the routine is not thread-safe \(POSIX XSH 2\.9\.1\)$"
caught bad_memcpy_shared_bounce wrong-result \
	"dst\[[0-9]+\] got .*; $th_why" --len=16384 --threads=4
expect "in one thread, bad_memcpy_shared_bounce passes the same case" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_shared_bounce --len=16384
if [ "$(uname -m)" = x86_64 ]; then
	expect "interrupted, bad_memcpy_shared_bounce passes: it is reentrant" 0 "^verdict: ok$" \
		$MG run --variant=bad_memcpy_shared_bounce --len=1000 --interrupt=step
fi
expect "the thread-local twin passes in 4 threads" 0 "^verdict: ok$" \
	$MG run --variant=memcpy_thread_bounce --len=16384 --threads=4
# Each worker's call is a case of its own (docs/contract.md, C14): a
# routine whose race needs calls of different lengths (a per-call count in
# a static) is caught, in a worker's call, which the verdict describes;
# that call alone passes, and so does the thread-local twin.
caught bad_memcpy_static_blocks wrong-result \
	"dst\[[0-9]+\] got .* in thread [2-4] of 4, called at the same time as the others on buffers of its own \(its call [0-9]+: memcpy len [0-9]+, src%64 [0-9]+, dst%64 [0-9]+, guard page (before|after)\); in one thread, that call passes: the routine is not thread-safe" \
	--len=0 --threads=4
expect "in one thread, bad_memcpy_static_blocks passes the same case" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_static_blocks --len=0
expect "its thread-local twin passes in 4 threads" 0 "^verdict: ok$" \
	$MG run --variant=memcpy_thread_blocks --len=0 --threads=4
expect "a worker's call that fails alone too is said so, not blamed on threads" 1 \
	"in thread [2-4] of 4, .*\(its call [0-9]+: memcpy len [0-9]+.*\); in one thread, that call fails too$" \
	$MG run --variant=bad_memcpy_tail_overwrite --len=0 --threads=4
# A call that never returns is a timeout, in whichever thread, and the
# run goes on: the watchdog times each call, not a worker's rounds. In
# threads a call's limit is the plain one per thread, plus 2 s (the
# threads take turns on a loaded machine): 2 x 300 + 2000 ms.
expect "a routine that hangs in threads is a timeout" 1 "^verdict: timeout: no return within 2600 ms" \
	$MG run --variant=bad_memcpy_hangs_at_7 --len=7 --threads=2 --timeout-ms=300
expect "the sweep's record says the threads stage ran and passed" 0 \
	'"stage":"sweep".*"threads":"pass","threads_cases":[1-9][0-9]*,"threads_seconds":[0-9.]+,"threads_reason":null' \
	$MG verify --set=selftest --variant=memcpy_thread_bounce --huge=off --findings="$TMP/findings" --format=jsonl
expect "the finding's case record says how many threads" 0 '"threads":[2-4][,}].*"stage":"threads"' \
	$MG verify --set=selftest --variant=bad_memcpy_shared_bounce --huge=off --findings="$TMP/findings" --format=jsonl
expect "no thread started is could not judge, never a pass" 2 \
	"^could not judge: the threads situation was not made: cannot start a thread \(thread 2 of 2\)$" \
	env MEMGATE_TEST_NO_THREADS=1 $MG run --variant=memcpy_libc --len=64 --threads=2
usage_error "--threads takes 1 to 4" "^memgate run: --threads=5 is out of range \(want 1 to 4\)$" \
	$MG run --variant=memcpy_libc --len=8 --threads=5
usage_error "the threads situation is for the workers' lengths" \
	"--threads is for lengths up to [0-9]+ at the guard pages" \
	$MG run --variant=memcpy_libc --len=100000 --threads=2
# A case asks for one situation (harness/engine/situations.def) at most.
usage_error "a case in two situations is refused" \
	"invalid case for memcpy_libc: --threads and --interrupt=step are separate situations$" \
	$MG run --variant=memcpy_libc --len=8 --threads=2 --interrupt=step

# The fuzz input carries the situation: 31 bytes, replayed in threads.
th_in="$TMP/threads.in"
if $MG encode --variant=bad_memcpy_shared_bounce --len=16384 --seed=7 --threads=4 \
	--output="$th_in" >/dev/null 2>&1 && [ "$(wc -c <"$th_in")" -eq 31 ]; then
	pass "a case in threads encodes to a 31-byte input"
else
	fail "a case in threads encodes to a 31-byte input" "memgate encode failed or wrote $(wc -c <"$th_in" 2>/dev/null) bytes"
fi
expect_all "build/replay replays the input in threads, and fails it as the stage did" 1 \
	"replay: .* --threads=4$" "^0 passed, 1 failed$" -- \
	build/replay --variant=bad_memcpy_shared_bounce "$th_in"
expect "its last 29 bytes alone are the same case in one thread, which passes" 0 "^1 passed, 0 failed$" \
	bash -c "tail -c 29 '$th_in' >'$TMP/plain.in' && build/replay --variant=bad_memcpy_shared_bounce '$TMP/plain.in'"

# The other arches: the same self-test and twin, where their builds run.
for th_arch in i386 aarch64; do
	if th_run=$(scripts/arch-probe $th_arch 2>&1) && [ -x build/$th_arch/memgate ]; then
		# Word-split on purpose: the runner prefix, then the program.
		expect "$th_arch: bad_memcpy_shared_bounce is caught in 4 threads" 1 \
			"^verdict: wrong-result: .*; $th_why" \
			$th_run build/$th_arch/memgate run --variant=bad_memcpy_shared_bounce --len=16384 --threads=4
		expect "$th_arch: the thread-local twin passes in 4 threads" 0 "^verdict: ok$" \
			$th_run build/$th_arch/memgate run --variant=memcpy_thread_bounce --len=16384 --threads=4
	else
		skip "$th_arch: the threads situation" "${th_run:-build/$th_arch/memgate not built}"
	fi
done
