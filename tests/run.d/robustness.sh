# tier: fast
# Robustness (issue 12, items 7 and 9): the routine cannot change the verdict
# through its source, and every odd input or environment is one line and
# exit 2 (or a failure), never a hang, a silent wrap or a false "saved".
# Sourced by tests/run (uses expect, expect_all, usage_error, caught, pass,
# fail, skip, $MG and $TMP). About 3 s.

echo "== the source cannot change the verdict"
# The source view's memfd is sealed: the mprotect fails, the write faults.
caught bad_memcpy_unprotects_src src-modified \
	"wrote src\+0 \(len 17\); the source is read-only during the call$" --len=17
expect "a tampered source is src-modified with the source above dst too" 1 \
	"^verdict: src-modified: wrote src\+0 \(len 4096\)" \
	$MG run --variant=bad_memcpy_unprotects_src --len=4096 --src-above
# Unsealed, the mprotect works: the source compared after the call says so.
expect "unsealed, a source made writable and changed is src-modified" 1 \
	"^verdict: src-modified: wrote src\+0 \(len 17\): changed 0x[0-9a-f]{2} -> 0x[0-9a-f]{2}; the source is read-only" \
	env MEMGATE_TEST_UNSEALED=1 $MG run --variant=bad_memcpy_unprotects_src --len=17
expect "unsealed, the sweep catches it as src-modified only" 0 \
	"^bad_memcpy_unprotects_src .*FAIL \(expected\) .* src-modified: " \
	env MEMGATE_TEST_UNSEALED=1 $MG verify --variant=bad_memcpy_unprotects_src --huge=off \
	--timeout-ms=200 --findings="$TMP/findings"
expect "unsealed, a correct variant still passes its sweep" 0 ", 0 unexpected$" \
	env MEMGATE_TEST_UNSEALED=1 $MG verify --variant=memcpy_erms --huge=off --findings="$TMP/findings"
expect "a correct variant passes that case" 0 "^verdict: ok$" \
	$MG run --variant=memcpy_libc --len=4096 --src-above
for rb_arch in i386 aarch64; do
	if ! rb_run=$(scripts/arch-probe "$rb_arch" 2>&1); then
		skip "$rb_arch: the source cannot change the verdict" "$rb_run"
	elif [ ! -x "build/$rb_arch/memgate" ]; then
		skip "$rb_arch: the source cannot change the verdict" "build/$rb_arch/memgate not built (make ARCH=$rb_arch)"
	else
		# Word-split on purpose: the runner prefix, if any, then the program.
		expect "$rb_arch: bad_memcpy_unprotects_src is src-modified" 1 \
			"^verdict: src-modified: wrote src\+0 \(len 17\); the source is read-only" \
			$rb_run "build/$rb_arch/memgate" run --variant=bad_memcpy_unprotects_src --len=17
		expect "$rb_arch: unsealed, it is src-modified too" 1 \
			"^verdict: src-modified: wrote src\+0 \(len 17\): changed" \
			env MEMGATE_TEST_UNSEALED=1 $rb_run "build/$rb_arch/memgate" run \
			--variant=bad_memcpy_unprotects_src --len=17
	fi
done

echo "== a call its watchdog cannot stop is killed by its parent: a timeout, never a hung run"
# MEMGATE_TEST_DEAF_CALLS blocks the watchdog's signal in every call, as a
# routine that broke the signal path would (engine/fault.c).
expect "run: a call deaf to the watchdog is killed after its limit and 5 s more of CPU" 1 \
	"^verdict: timeout: no return within 5200 ms of CPU time, and the watchdog's signal did not stop the call: the process was killed" \
	env MEMGATE_TEST_DEAF_CALLS=1 $MG run --variant=bad_memcpy_hangs_at_7 --len=7 --timeout-ms=200
expect "verify: the same in a stage's child, the row failing as expected" 0 \
	"^bad_memcpy_hangs_at_7 .*FAIL \(expected\) .* timeout: no return within 5200 ms of CPU time, and the watchdog" \
	env MEMGATE_TEST_DEAF_CALLS=1 $MG verify --variant=bad_memcpy_hangs_at_7 --timeout-ms=200 \
	--findings="$TMP/deaf"

echo "== a FIFO or device is refused, not waited on"
mkfifo "$TMP/rb.fifo"
usage_error "replay: a FIFO is one line, exit 2" "^replay: $TMP/rb\.fifo is a FIFO, not a memgate fuzz input$" \
	timeout 20 build/replay "$TMP/rb.fifo"
usage_error "replay: a character device is one line, exit 2" \
	"^replay: /dev/zero is a character device, not a memgate fuzz input$" \
	timeout 20 build/replay --target=memcpy /dev/zero
usage_error "repro: a FIFO is one line, exit 2" "^repro: $TMP/rb\.fifo is a FIFO, not a memgate fuzz input$" \
	timeout 20 scripts/repro --target=memcpy "$TMP/rb.fifo"
usage_error "repro: a device is one line, exit 2" "^repro: /dev/null is not a regular file" \
	timeout 20 scripts/repro --target=memcpy /dev/null

echo "== numbers out of range are refused, not wrapped"
usage_error "run --src-align=2^32" "^memgate run: --src-align=4294967296 is out of range" \
	$MG run --variant=memcpy_libc --len=5 --src-align=4294967296
usage_error "run --dst-align=2^32" "^memgate run: --dst-align=4294967296 is out of range" \
	$MG run --variant=memcpy_libc --len=5 --dst-align=4294967296
usage_error "run --timeout-ms=2^32" "^memgate run: --timeout-ms=4294967296 is out of range \(want 1 to 86400000\)$" \
	$MG run --variant=memcpy_libc --len=5 --timeout-ms=4294967296
usage_error "verify --timeout-ms=2^32" "^memgate verify: --timeout-ms=4294967296 is out of range" \
	$MG verify --variant=memcpy_libc --timeout-ms=4294967296
usage_error "verify --jobs=2^32+1" "^memgate verify: --jobs=4294967297 is out of range" \
	$MG verify --variant=memcpy_libc --jobs=4294967297
usage_error "run --len past 64 bits" "^memgate run: --len=99999999999999999999 is out of range" \
	$MG run --variant=memcpy_libc --len=99999999999999999999
usage_error "random --seconds past 64 bits" "^memgate random: --seconds=99999999999999999999 is out of range" \
	build/random --seconds=99999999999999999999
usage_error "random --max-findings=2^32" "^memgate random: --max-findings=4294967296 is out of range" \
	build/random --max-findings=4294967296
usage_error "bench --seconds=inf is refused" "^memgate bench: bad value 'inf' for --seconds" \
	$MG bench --seconds=inf
usage_error "bench --seconds=5x is refused" "^memgate bench: bad value '5x' for --seconds" \
	$MG bench --seconds=5x

echo "== empty values are refused"
usage_error "verify --findings= (empty)" "^memgate verify: --findings= names no directory$" \
	$MG verify --findings= --variant=memcpy_libc
usage_error "verify --variant= (empty)" "^memgate verify: --variant='' names no variant$" \
	$MG verify --variant=
usage_error "verify --variant=, (no name)" "^memgate verify: --variant=',' names no variant$" \
	$MG verify --variant=,
usage_error "random --findings= (empty)" "^memgate random: --findings= names no directory$" \
	build/random --findings=

echo "== findings that cannot be written are never \"saved\""
# Not a folder: unwritable even for root.
: >"$TMP/rb.file"
# An unwritable findings folder is found before the sweep, in one line.
usage_error "verify: an unwritable findings folder is one line, exit 2, before the sweep" \
	"^memgate verify: cannot write findings in $TMP/rb\.file/x: Not a directory$" \
	$MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off --findings="$TMP/rb.file/x"
# A findings file that cannot be written once the sweep runs (here a folder
# in its place) is could not judge, and said once.
mkdir -p "$TMP/rb-late/bad_memcpy_returns_end.txt"
expect_all "verify: a finding that cannot be written later is could-not-judge, exit 2" 2 \
	"; NOT saved: could not write $TMP/rb-late/bad_memcpy_returns_end\.txt$" \
	"^could not judge: 1 variant, the first bad_memcpy_returns_end: a finding could not be saved$" -- \
	$MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off --findings="$TMP/rb-late"
n=$($MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off --findings="$TMP/rb-late" 2>&1 >/dev/null |
	grep -c "cannot write")
if [ "$n" = 1 ]; then
	pass "verify: a findings file that cannot be written is said once"
else
	fail "verify: a findings file that cannot be written is said once" "said $n times"
fi
if $MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off \
	--findings="$TMP/rb.file/x" 2>&1 | grep -q "saved in"; then
	fail "verify: no \"saved in\" for unwritable findings" "it says saved"
else
	pass "verify: no \"saved in\" for unwritable findings"
fi
usage_error "random: an unwritable findings folder is one line, exit 2, before the run" \
	"^memgate random: cannot write findings in $TMP/rb\.file/x: Not a directory$" \
	build/random --variant=bad_memcpy_returns_end --cases=200 --seed=1 --findings="$TMP/rb.file/x"
mkdir -p "$TMP/rb-late-random" && : >"$TMP/rb-late-random/memcpy"
expect_all "random: a finding that cannot be written later is could-not-judge, exit 2" 2 \
	"^could not judge: a finding could not be written to $TMP/rb-late-random$" -- \
	build/random --variant=bad_memcpy_returns_end --cases=200 --seed=1 --findings="$TMP/rb-late-random"
if build/random --variant=bad_memcpy_returns_end --cases=200 --seed=1 \
	--findings="$TMP/rb.file/x" 2>&1 | grep -q "saved in"; then
	fail "random: no \"saved in\" for unwritable findings" "it says saved"
else
	pass "random: no \"saved in\" for unwritable findings"
fi
expect "random: writable findings are saved" 1 ", saved in $TMP/rb-found$" \
	build/random --variant=bad_memcpy_returns_end --cases=200 --seed=1 --findings="$TMP/rb-found"

echo "== saved is saved: verify appends each run, and marks an interrupted one partial"
sv=$TMP/rb-saved
$MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off --findings="$sv" >/dev/null 2>&1
cp "$sv/bad_memcpy_returns_end.txt" "$TMP/rb-saved-1st"
$MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off --findings="$sv" >/dev/null 2>&1
if cmp -s -n "$(stat -c %s "$TMP/rb-saved-1st")" "$TMP/rb-saved-1st" "$sv/bad_memcpy_returns_end.txt" &&
	[ "$(grep -c '^== memgate verify run of ' "$sv/bad_memcpy_returns_end.txt")" = 2 ] &&
	[ "$(grep -c '^== end of run: complete$' "$sv/bad_memcpy_returns_end.txt")" = 2 ]; then
	pass "verify: a second run appends after the first, each with its header and end"
else
	fail "verify: a second run appends after the first, each with its header and end" \
		"$(grep '^==' "$sv/bad_memcpy_returns_end.txt")"
fi
# Stopped while it saves finding after finding: the earlier runs stay byte
# for byte, its own part ends with the partial mark, nothing stays running.
cp "$sv/bad_memcpy_returns_end.txt" "$sv/bad_memcpy_overread_src.txt"
cp "$sv/bad_memcpy_overread_src.txt" "$TMP/rb-saved-before"
$MG verify --set=selftest --variant=bad_memcpy_overread_src --huge=off --max-failures=1000000 \
	--findings="$sv" >"$TMP/rb-saved.out" 2>&1 &
sv_pid=$!
sleep 1
kill -TERM "$sv_pid"
wait "$sv_pid"
sv_rc=$?
sleep 0.5
if [ "$sv_rc" = 143 ] &&
	cmp -s -n "$(stat -c %s "$TMP/rb-saved-before")" "$TMP/rb-saved-before" "$sv/bad_memcpy_overread_src.txt" &&
	tail -n 1 "$sv/bad_memcpy_overread_src.txt" |
	grep -q '^== end of run: interrupted by SIGTERM: the findings of this run above are partial$' &&
	grep -q "^memgate verify: interrupted by SIGTERM; 0 of 1 variants done; findings so far are in $sv/ (partial)$" "$TMP/rb-saved.out" &&
	! pgrep -f -- "--findings=$sv" >/dev/null; then
	pass "verify: SIGTERM keeps the earlier findings, marks its own partial, exits 143, leaves nothing running"
else
	fail "verify: SIGTERM keeps the earlier findings, marks its own partial, exits 143, leaves nothing running" \
		"exit $sv_rc; $(tail -n 1 "$sv/bad_memcpy_overread_src.txt"); $(tail -n 1 "$TMP/rb-saved.out")"
	kill -KILL "$sv_pid" 2>/dev/null
fi

echo "== a finding report is not an input"
mkdir -p "$TMP/rb-rep/memcpy"
$MG verify --set=selftest --variant=bad_memcpy_returns_end --huge=off --findings="$TMP/rb-rep/v" >/dev/null 2>&1
cp "$TMP/rb-rep/v/bad_memcpy_returns_end.txt" "$TMP/rb-rep/memcpy/report.txt"
usage_error "repro: verify's .txt report is one line, exit 2" \
	"^repro: $TMP/rb-rep/memcpy/report\.txt is a finding report, not an input" \
	scripts/repro "$TMP/rb-rep/memcpy/report.txt"
cp "$TMP/rb-rep/v/bad_memcpy_returns_end.txt" "$TMP/rb-rep/memcpy/renamed.in"
usage_error "repro: a report under another name is still refused" \
	"^repro: $TMP/rb-rep/memcpy/renamed\.in is a finding report, not an input" \
	scripts/repro "$TMP/rb-rep/memcpy/renamed.in"

echo "== an unwritable TMPDIR is named, and make verify fails"
expect "arch-probe names an unwritable TMPDIR (exit 3)" 3 \
	"^cannot make a temporary folder in $TMP/rb\.file/t \(is TMPDIR writable\?\)$" \
	env TMPDIR="$TMP/rb.file/t" scripts/arch-probe aarch64
expect "make verify with TMPDIR unwritable fails, no arch SKIPped" 2 \
	"^make verify: x86_64 could not judge, i386 could not judge, aarch64 could not judge$" \
	env TMPDIR="$TMP/rb.file/t" scripts/each-arch verify-arch x86_64 i386 aarch64
if env TMPDIR="$TMP/rb.file/t" make -s verify >"$TMP/rb-verify.out" 2>&1; then
	fail "make verify exits non-zero with TMPDIR unwritable" "exit 0: $(tail -n 2 "$TMP/rb-verify.out")"
elif grep -q SKIP "$TMP/rb-verify.out"; then
	fail "make verify exits non-zero with TMPDIR unwritable" "an arch was SKIPped: $(grep SKIP "$TMP/rb-verify.out")"
else
	pass "make verify exits non-zero with TMPDIR unwritable"
fi

echo "== every saved input replays its case"
usage_error "encode: a length replay would fold (8 MiB) is refused" \
	"^memgate encode: fuzz inputs go up to 4194304 bytes \(replay folds longer ones\); length 8388608 is for memgate run$" \
	$MG encode --variant=memcpy_libc --len=8388608 --output="$TMP/rb-8m.in"
if [ -e "$TMP/rb-8m.in" ]; then
	fail "encode: nothing written for a refused case" "$TMP/rb-8m.in exists"
else
	pass "encode: nothing written for a refused case"
fi
$MG encode --variant=memcpy_libc --len=4194304 --src-align=3 --output="$TMP/rb-4m.in" >/dev/null
expect "encode: the longest input length replays exactly" 0 \
	"^  case: +memcpy_libc \(memcpy, generic\): len 4194304, src%64 = 3," \
	build/replay --verbose --target=memcpy --variant=memcpy_libc "$TMP/rb-4m.in"

echo "== help texts as printed (issue 44)"
# The installed command's tools name themselves as typed; the tree's keep
# their own names; and a help text is not a format string.
expect "memgate gate --help names memgate gate" 0 "^memgate gate --op OP " scripts/memgate gate --help
expect "memgate repro --help names memgate repro" 0 "^usage: memgate repro \[OPTIONS\]" scripts/memgate repro --help
expect "scripts/gate --help names scripts/gate" 0 "^scripts/gate --op OP " scripts/gate --help
if $MG verify --help | grep -q '%%'; then
	fail "memgate verify --help prints no doubled %" "$($MG verify --help | grep '%%')"
else
	pass "memgate verify --help prints no doubled %"
fi
expect "scripts/verify --help prints memgate verify's options, setting nothing up" 0 \
	"^usage: memgate verify \[OPTIONS\]" scripts/verify --help
# From another directory too: no results directory made, nothing built
# (issue 44: it set up ./memgate-results and copied the build there).
mkdir -p "$TMP/verify-help"
expect "scripts/verify --help from elsewhere makes no results directory" 0 "^usage: memgate verify .*; none made$" \
	bash -c "cd '$TMP/verify-help' && out=\$('$PWD/scripts/verify' --help | head -1) && [ ! -e memgate-results ] && echo \"\$out; none made\""
