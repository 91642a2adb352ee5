# Placements (docs/placements.md): each self-test wrong only at a spot is
# caught with its class by verify (and by the gate, in tests/run.d/gate.sh),
# passes where guard-page placement puts its buffers, and a correct routine
# passes at the spot.
# Sourced by tests/run (uses expect, usage_error, pass, fail, skip, $MG, $TMP).

echo "== placements: page straddles, page-diff, far buffers, mid-size lengths"

# spot_case NAME CLASS SPOT RUN-FLAGS...: the self-test fails there with its
# class, passes at the guard pages with the same flags, and memcpy_libc
# passes at the spot.
spot_case() {
	local name=$1 class=$2 spot=$3
	shift 3
	expect "$name: wrong at $spot ($class)" 1 "^verdict: $class: " \
		$MG run --variant="$name" "$@" --spot="$spot"
	expect "$name: right at the guard pages (what the sweep alone saw)" 0 "^verdict: ok$" \
		$MG run --variant="$name" "$@"
	expect "$name: memcpy_libc is right at $spot" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_libc "$@" --spot="$spot"
}
spot_case bad_memcpy_page_split wrong-result straddle-src:5 --len=17
spot_case bad_memcpy_4k_alias wrong-result page-diff:2050 --len=4160
spot_case bad_memcpy_dist32 out-of-bounds-write far:0 --len=100 --src-above
spot_case bad_memcpy_wrap32 wrong-result span-4gib:7 --len=100
expect "memmove_libc is right with its one buffer across a multiple of 4 GiB" 0 "^verdict: ok$" \
	$MG run --variant=memmove_libc --len=4000 --overlap=-64 --spot=span-4gib:2000
expect "memset_libc is right with dst across a multiple of 4 GiB" 0 "^verdict: ok$" \
	$MG run --variant=memset_libc --len=100 --spot=span-4gib:100

expect_all "verify catches the placement self-tests with their classes, in the placements stage" 0 \
	"^bad_memcpy_page_split .*FAIL \(expected\) .* wrong-result: " \
	"^bad_memcpy_4k_alias .*FAIL \(expected\) .* wrong-result: " \
	"^bad_memcpy_dist32 .*FAIL \(expected\) .* out-of-bounds-write: " \
	"^bad_memcpy_midsize .*FAIL \(expected\) .* wrong-result: " \
	"^bad_memcpy_wrap32 .*FAIL \(expected\) .* wrong-result: " \
	", 0 unexpected$" -- \
	$MG verify --set=selftest --timeout-ms=200 --findings="$TMP/findings-spots" \
	--variant=bad_memcpy_page_split,bad_memcpy_4k_alias,bad_memcpy_dist32,bad_memcpy_midsize,bad_memcpy_wrap32
# The 2 GiB moves get a long watchdog: on a loaded machine (the tests run
# under nice) a 2 GiB move can wait seconds for the CPU.
expect "verify catches bad_memmove_int_len in the 2 GiB+ one-buffer cases (--huge=on)" 0 \
	"^bad_memmove_int_len .*FAIL \(expected\) .* wrong-result: " \
	$MG verify --set=selftest --timeout-ms=30000 --findings="$TMP/findings-spots" \
	--variant=bad_memmove_int_len
expect "a placement finding record names its stage and spot" 0 \
	'"spot":"straddle-[a-z]+","spot_arg":[0-9]+,"interrupt":false,"threads":0[,}].*"stage":"placements"' \
	$MG verify --set=selftest --timeout-ms=200 --findings="$TMP/findings-spots" \
	--variant=bad_memcpy_page_split --format=jsonl
expect "the correct memcpy and memmove pass the placements" 0 ", 0 unexpected$" \
	$MG verify --huge=off --variant=memcpy_libc,memmove_libc --findings="$TMP/findings-spots"

usage_error "run: an unknown spot" "unknown spot 'sideways'" \
	$MG run --variant=memcpy_libc --len=17 --spot=sideways:3
usage_error "run: a straddle split outside the length" "a straddle split of 17 is not within" \
	$MG run --variant=memcpy_libc --len=17 --spot=straddle-src:17
usage_error "run: a 2 GiB spot on a 64-bit build" "split-2gib is for 32-bit address spaces" \
	$MG run --variant=memcpy_libc --len=17 --spot=split-2gib
usage_error "run: a span-4gib split outside the length" "span-4gib: 1..17 bytes below" \
	$MG run --variant=memcpy_libc --len=17 --spot=span-4gib:18
# Without 4 GiB of address space (ulimit -v) span-4gib cannot be mapped:
# run cannot judge (exit 2, the reason named); verify leaves its cases out
# and says so, so a self-test only it finds is no pass.
expect "run: span-4gib without the address space could not judge, with the reason" 2 \
	"^could not judge: spot span-4gib cannot run here: cannot map around 0x4000000000" \
	bash -c "ulimit -v 2000000; $MG run --variant=memcpy_libc --len=100 --spot=span-4gib:7"
# The sweep's own buffers sit where mmap puts them: now and then one of its
# 8 MiB cases crosses a multiple of 4 GiB by chance and finds the bug there
# (exit 0, failed as expected, at a spot other than span-4gib). Either way
# the n/a is said and the variant is not passed.
nomap_verify() {
	local name="verify: span-4gib n/a without the address space, and bad_memcpy_wrap32 is not passed"
	local out rc
	out=$(bash -c "ulimit -v 2000000; $MG verify --huge=off --set=selftest --variant=bad_memcpy_wrap32 --findings=$TMP/findings-nomap" 2>&1)
	rc=$?
	if ! grep -qE "^memgate: placements: span-4gib n/a here: cannot map around" <<<"$out"; then
		fail "$name" "no n/a line for span-4gib in: $out"
	elif [ "$rc" -eq 1 ] && grep -qE "^bad_memcpy_wrap32 .*PASS \(known-bad: expected FAIL\)" <<<"$out"; then
		pass "$name"
	elif [ "$rc" -eq 0 ] && grep -q "failed as expected" <<<"$out" &&
		! grep -q -- "--spot=span-4gib" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "exit $rc; output ends: $(tail -n 3 <<<"$out")"
	fi
}
nomap_verify
usage_error "run: an overlapping move over 16 MiB takes short distances" "takes distances 1..16384" \
	$MG run --variant=memmove_libc --len=2147483713 --overlap=20000

# The overlapping move of 2 GiB and more in one mapping (huge.c).
expect "a signed 32-bit length goes wrong in an overlapping move of 2 GiB + 65" 1 \
	"^verdict: wrong-result: dst\[64\] " \
	$MG run --variant=bad_memmove_int_len --len=2147483713 --overlap=1 --timeout-ms=30000
expect "memmove_libc is right in an overlapping move of 2 GiB + 65 (dst above src)" 0 "^verdict: ok$" \
	$MG run --variant=memmove_libc --len=2147483713 --overlap=1 --timeout-ms=30000

# Fuzz inputs: a straddle is a decoded field; a 24-byte input from before it
# still decodes to its old case.
expect "a straddle case encodes as a fuzz input and replays" 0 "" \
	$MG encode --output="$TMP/straddle.in" --variant=bad_memcpy_page_split --len=9 \
	--src-align=0 --dst-align=0 --spot=straddle-src:3
expect "the straddle input replays its finding" 1 "wrong-result" \
	build/replay --variant=bad_memcpy_page_split "$TMP/straddle.in"
# A long spot case keeps its length under the cost-aware rule (decode.c):
# encode sets the spare dist over all 29 bytes (here it has to: 4160 bytes
# at page-diff 2048 would draw a short length with dist 0).
expect "a long page-diff case encodes with its length kept" 0 "" \
	$MG encode --output="$TMP/page-diff.in" --variant=bad_memcpy_4k_alias --len=4160 \
	--src-align=0 --dst-align=0 --spot=page-diff:2048
expect "the page-diff input replays its finding at 4160 bytes" 1 "of 4160 bytes wrong" \
	build/replay --variant=bad_memcpy_4k_alias "$TMP/page-diff.in"
expect "a 24-byte input (before the spot fields) replays as it did: guard pages" 0 \
	"^[0-9]+ passed, 0 failed" build/replay --variant=bad_memcpy_page_split corpus/memcpy

# The gate: the same self-tests submitted as files are gated, each
# rejected with its class, by tests/run.d/gate.sh's loop over both tables.

# i386: the signed pointer compare at 2 GiB (how i386 runs here:
# scripts/arch-probe).
if ! i386_run=$(scripts/arch-probe i386) || ! make -s ARCH=i386 all >/dev/null 2>&1; then
	skip "placements on i386" "${i386_run:-make ARCH=i386 failed}"
else
	mg32="$i386_run build/i386/memgate"
	for d in 30 -30; do
		expect "i386: the signed pointer compare goes wrong across 2 GiB (dist $d)" 1 \
			"^verdict: wrong-result: " \
			$mg32 run --variant=bad_memmove_signed_pointers --len=100 --overlap=$d --spot=span-2gib:10
		expect "i386: ... and is right at the guard pages (dist $d)" 0 "^verdict: ok$" \
			$mg32 run --variant=bad_memmove_signed_pointers --len=100 --overlap=$d
	done
	expect "i386: memmove_libc is right across 2 GiB" 0 "^verdict: ok$" \
		$mg32 run --variant=memmove_libc --len=4096 --overlap=-3000 --spot=span-2gib:100
	expect "i386: buffers on both sides of 2 GiB" 0 "dst below 0x80000000, src above it" \
		$mg32 run --variant=memcpy_libc --len=100 --spot=split-2gib --src-above
	expect "i386: verify catches bad_memmove_signed_pointers as wrong-result" 0 \
		"^bad_memmove_signed_pointers .*FAIL \(expected\) .* wrong-result: " \
		$mg32 verify --set=selftest --timeout-ms=200 --findings="$TMP/findings-spots32" \
		--variant=bad_memmove_signed_pointers
	expect "i386: far buffers need a 64-bit address space" 2 "far needs a 64-bit address space" \
		$mg32 run --variant=memcpy_libc --len=17 --spot=far
	expect "i386: span-4gib needs a 64-bit address space" 2 "span-4gib needs a 64-bit address space" \
		$mg32 run --variant=memcpy_libc --len=17 --spot=span-4gib:3

	# Lengths of 2 GiB and more: an overlapping move in one mapping.
	for d in 1 -64; do
		expect "i386: memmove_libc is right in an overlapping move of 2 GiB + 65 (dist $d)" 0 \
			"^verdict: ok$" $mg32 run --variant=memmove_libc --len=2147483713 --overlap=$d \
			--timeout-ms=30000
	done
	expect "i386: a signed 32-bit length goes wrong at 2 GiB + 65" 1 "^verdict: wrong-result: dst\[64\] " \
		$mg32 run --variant=bad_memmove_int_len --len=2147483713 --overlap=1 --timeout-ms=30000
	expect_all "i386: verify (--huge=oracle, as under qemu) catches bad_memmove_int_len in its 2 GiB+ stage" 0 \
		"^bad_memmove_int_len .*FAIL \(expected\) .* wrong-result: " \
		"^the 2 GiB\+ memmove check: [0-9]+ cases" -- \
		$mg32 verify --set=selftest --huge=oracle --timeout-ms=30000 \
		--findings="$TMP/findings-spots32" --variant=bad_memmove_int_len
	expect_all "i386: the gate rejects bad_memmove_int_len with wrong-result in its huge check" 1 \
		"^huge +FAIL " "^[0-9]+\. \[huge\] wrong-result: " -- \
		scripts/gate --arch=i386 --op=memmove --quick --skip=fuzz,valgrind,regressions --no-bench \
		--symbol=mg_generic_bad_memmove_int_len tests/bad/generic/bad_memmove_int_len.c
	# Natively, a smaller address space (ulimit -v) has no 2 GiB in one
	# piece: n/a with the reason, never a pass. (qemu-user needs the room
	# for itself, so only where i386 runs natively.)
	if [ -z "$i386_run" ]; then
		expect "i386: without 2 GiB of address space in one piece, the move is n/a (SKIP) with the reason" 0 \
			"^SKIP .*no free [0-9]+ MiB in one piece" \
			bash -c "ulimit -v 1000000; build/i386/memgate run --variant=memmove_libc --len=2147483713 --overlap=1"
		expect "i386: ... and verify's huge record says n/a with the reason" 0 \
			'"stage":"huge","status":"n/a".*"reason":"this address space has no free' \
			bash -c "ulimit -v 1000000; build/i386/memgate verify --variant=memmove_libc --format=jsonl --findings=$TMP/findings-spots32"
	fi
fi
