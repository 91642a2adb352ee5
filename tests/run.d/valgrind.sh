# tier: fast
# Valgrind mode (harness/engine/memcheck.c, make valgrind): under memcheck the bytes
# around each buffer are no-access during the call, so an over-read that
# stops short of a guard page is caught too, and named as the engine names
# one that reaches it. Sourced by tests/run (uses expect, caught, $MG, $TMP).

if ! command -v valgrind >/dev/null 2>&1; then
	echo "== valgrind mode: not tested, valgrind is not installed (apt-get install valgrind)"
	return 0
fi
# As `make valgrind` runs it.
VG=(valgrind -q --partial-loads-ok=no --vex-iropt-level=0 --error-limit=no --leak-check=no)

echo "== valgrind mode: over-reads that stop short of the guard page"
x86=$([ "$(uname -m)" = x86_64 ] && echo 1)
if [ -n "$x86" ]; then
	caught bad_memcpy_overread_vector out-of-bounds-read \
		"src, 1 byte past the end \(at src\+17, len 17\)$" --len=17 --src-align=47
	expect "the guard page misses a vector tail over-read 47 bytes short of it" 0 "^verdict: ok$" \
		$MG run --variant=bad_memcpy_overread_vector --len=17 --src-align=0
	# Within the aligned block that holds the last byte: a warning by
	# default, a failure with --overread=strict (see "Over-reads, classified").
	expect "valgrind mode names it: buffer, side, distance, and how far it reads" 1 \
		"^verdict: aligned-over-read: src, 1 byte past the end \(at src\+17, len 17\) \(memcheck: reads up to 15 bytes past the end\)" \
		"${VG[@]}" $MG run --variant=bad_memcpy_overread_vector --len=17 --src-align=0 --overread=strict
	# Naming it calls the routine again with those bytes undefined; what it
	# loads stays in its vector registers, and memcheck (at
	# --vex-iropt-level=0) took the harness's own zeroing of a struct, and
	# vsnprintf's, for a use of them: errors in memgate's code, not the
	# routine's (cpu.h, mg_cpu_define_vectors).
	vg_out=$("${VG[@]}" $MG run --variant=bad_memcpy_overread_vector --len=17 --src-align=0 --overread=strict 2>&1)
	# Only a run that reached its verdict says anything: one that did not
	# is no pass.
	if ! grep -q "^verdict: aligned-over-read: " <<<"$vg_out"; then
		fail "valgrind mode: memcheck reports only the routine's reads, nothing of memgate's own code" \
			"no verdict: $(tail -n 2 <<<"$vg_out" | tr '\n' ' ')"
	elif grep -q "uninitialised" <<<"$vg_out"; then
		fail "valgrind mode: memcheck reports only the routine's reads, nothing of memgate's own code" \
			"$(grep -m1 -A2 "uninitialised" <<<"$vg_out" | tr '\n' ' ')"
	else
		pass "valgrind mode: memcheck reports only the routine's reads, nothing of memgate's own code"
	fi
fi
expect "the guard page misses a one-byte over-read in C 47 bytes short of it" 0 "^verdict: ok$" \
	$MG run --variant=bad_memcpy_overread_src --len=17 --src-align=0
expect "valgrind mode catches the one-byte over-read" 1 \
	"^verdict: aligned-over-read: src, 1 byte past the end \(at src\+17, len 17\) \(memcheck\)" \
	"${VG[@]}" $MG run --variant=bad_memcpy_overread_src --len=17 --src-align=0 --overread=strict
expect "valgrind mode catches a one-byte under-read off the guard page" 1 \
	"^verdict: aligned-over-read: src, 1 byte before it \(at src-1\) \(memcheck\)" \
	"${VG[@]}" $MG run --variant=bad_memcpy_underread_src --len=17 --src-align=5 --place=before --overread=strict

# Inputs with the buffers off their guard pages, where only the fences see
# a stray access: memcpy and memset at odd alignments, both placements;
# memmove apart and overlapping both ways, and zero lengths.
mkdir -p "$TMP/vg/memcpy" "$TMP/vg/memmove" "$TMP/vg/memset" "$TMP/vg/over"
vg_input() {
	$MG encode --output="$TMP/vg/$1/$2.in" --variant="$3" "${@:4}" >/dev/null ||
		fail "encode $1/$2" "memgate encode ${*:3} failed"
}
for args in "0" "17 --src-align=0" "100 --src-align=7 --dst-align=9 --place=before" \
	"4097 --src-align=63 --dst-align=1 --src-above" "333 --src-align=31 --dst-align=17"; do
	n=${args%% *} && rest=${args#"$n"}
	vg_input memcpy "len$n" memcpy_libc --len="$n" $rest
	vg_input memset "len$n" memset_libc --len="$n" --dst-align=$((n % 64)) --value=$((n + 1))
	vg_input memmove "len$n" memmove_libc --len="$n" $rest
	for d in 1 -3 17 -64; do
		vg_input memmove "len$n-d$d" memmove_libc --len="$n" --src-align=$((n % 64)) --overlap="$d"
	done
done

vg_input over overread33 bad_memcpy_overread_src --len=33 --src-align=3 --dst-align=5
expect "replay under valgrind prints the finding with a replay line under valgrind" 1 \
	"replay: +valgrind -q --partial-loads-ok=no --vex-iropt-level=0 build/memgate run --variant=bad_memcpy_overread_src --len=33 --src-align=3 --dst-align=5" \
	env MEMGATE_OVERREAD=strict "${VG[@]}" build/replay --in-process --variant=bad_memcpy_overread_src "$TMP/vg/over/overread33.in"
clean=memcpy:memcpy_libc,memmove:memmove_libc,memset:memset_libc
[ -n "$x86" ] && clean=$clean,memcpy:memcpy_unrolled64,memcpy:memcpy_fast_string,memmove:memmove_bytewise,memset:memset_rep_stosb
for v in ${clean//,/ }; do
	expect "${v#*:} is clean under valgrind mode (no memcheck error)" 0 "^[0-9]+ passed, 0 failed$" \
		"${VG[@]}" --error-exitcode=99 build/replay --in-process --variant="${v#*:}" "$TMP/vg/${v%%:*}"
done
expect "make valgrind: seeds clean on every correct variant, regressions fail" 0 \
	"^[0-9]+ passed, 0 failed$" make --no-print-directory valgrind
