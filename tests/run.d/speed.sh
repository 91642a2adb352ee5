# memgate speed and scripts/speed-plot: the gate's speed comparison. What is
# printed and written, never how fast: this machine is shared and noisy, so
# no figure is compared with anything. Sourced by tests/run (uses expect,
# usage_error, pass, fail, $MG and $TMP).

# speed_run NAME ARGS...: runs memgate speed ARGS once, for speed_has.
speed_run() {
	SPEED_NAME=$1
	shift
	SPEED_OUT=$("$MG" speed "$@" 2>&1)
	SPEED_RC=$?
}

# speed_has WHAT PATTERN...: the last speed_run exited 0 and printed a line
# matching each extended regex PATTERN.
speed_has() {
	local what=$1 p
	shift
	if [ "$SPEED_RC" -ne 0 ]; then
		fail "$SPEED_NAME: $what" "exit $SPEED_RC: $(tail -n 3 <<<"$SPEED_OUT")"
		return
	fi
	for p in "$@"; do
		if ! grep -qE -- "$p" <<<"$SPEED_OUT"; then
			fail "$SPEED_NAME: $what" "no line matches /$p/ in: $SPEED_OUT"
			return
		fi
	done
	pass "$SPEED_NAME: $what"
}

echo "== speed comparison (memgate speed, scripts/speed-plot)"
SPEED_TSV=$TMP/speed.tsv
speed_run "speed --quick" --quick --variant=memset_word,memset_libc --data="$SPEED_TSV"
speed_has "a column per variant, then the ratio" \
	'^ +len +src/dst +memset_word +memset_libc +vs best incumbent$'
speed_has "hot and cold tables, a row per length and alignment" \
	'^hot cache: ' '^cold cache: ' '^ +8 +-/0 ' '^ +256 +-/3 ' '^ +4K +-/60 ' '^ +64K +-/0 '
speed_has "each row: cycles per variant, the ratio and the best incumbent" \
	'^ +8 +-/0 +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{2} memset_libc$'
speed_has "a summary per cache over every case" \
	'^memset_word, hot cache: faster than the best incumbent in [0-9]+ of 12 cases; worst [0-9.]+ at ' \
	'^memset_word, cold cache: faster than the best incumbent in [0-9]+ of 12 cases'
# 2 variants x 2 caches x 4 lengths x 3 alignments.
speed_rows='^memset_(word|libc)	(hot|cold)	-/(0|3|60)	(8|256|4096|65536)	[0-9]+\.[0-9]	[0-9]+\.[0-9]{2}$'
if [ "$(grep -cE "$speed_rows" "$SPEED_TSV" 2>/dev/null)" -eq 48 ] &&
	[ "$(grep -vc '^#' "$SPEED_TSV")" -eq 48 ] &&
	head -n 1 "$SPEED_TSV" | grep -qE '^# variant	cache	align	len	(cycles|ns)	ns$'; then
	pass "speed --data: a header, then one row per variant, cache, alignment and length"
else
	fail "speed --data: a header, then one row per variant, cache, alignment and length" \
		"$(head -n 5 "$SPEED_TSV" 2>&1)"
fi
speed_run "speed --lengths --rounds, one variant" --variant=memcpy_libc --lengths=100,3K --rounds=2
speed_has "the lengths asked for, and no ratio without an incumbent" \
	'^ +100 +0/0 +[0-9.]+  -$' '^ +3K +7/60 +[0-9.]+  -$' 'best of 2 rounds'
if [ "$(uname -m)" = x86_64 ]; then
	speed_run "speed, a page operation" --quick \
		--variant=copy_page_interleaved4,copy_page_unrolled8,copy_page_rep_movsq
	speed_has "4096 bytes, page aligned, one row per cache" \
		'^ +4K +0/0 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{2} copy_page_(unrolled8|rep_movsq)$'
	speed_run "speed, memmove" --quick --lengths=64 --variant=memmove_bwd_unrolled,memmove_bytewise
	speed_has "adds overlapping moves in both directions" '^ +64 +1/3 ovl ' '^ +64 +3/1 ovl '
	speed_run "speed, a feature hidden" --quick --hide-feature=avx2 \
		--variant=memcpy_avx2,memcpy_unrolled64
	speed_has "SKIP with the reason, in its column, and no ratio" \
		'^SKIP memcpy_avx2: needs avx2$' '^ +8 +0/0 +SKIP +[0-9.]+  -$'
	usage_error "speed: a page operation takes 4096 bytes only" \
		"^memgate speed: copy_page takes 4096 bytes only; --lengths=8 does not apply$" \
		"$MG" speed --variant=copy_page_rep_movsq --lengths=8
fi
usage_error "speed: variants of different operations" \
	"^memgate speed: memset_libc is a memset and memcpy_libc a memcpy: all variants must have the same operation$" \
	"$MG" speed --variant=memcpy_libc,memset_libc
usage_error "speed: an unknown variant" "^memgate speed: unknown variant 'no_such_variant' \(valid: " \
	"$MG" speed --variant=memcpy_libc,no_such_variant
usage_error "speed: --variant is required" "^memgate speed: --variant is required" "$MG" speed --quick
usage_error "speed: a bad length" "^memgate speed: bad length '4X' in --lengths" \
	"$MG" speed --variant=memcpy_libc --lengths=8,4X
usage_error "speed: a known-bad variant is not timed" "^memgate speed: bad_memcpy_aborts is known-bad" \
	"$MG" speed --variant=memcpy_libc,bad_memcpy_aborts
usage_error "speed: an unwritable --data, before anything is measured" \
	"^memgate speed: cannot write --data=$TMP/no/such/dir/x.tsv: " \
	"$MG" speed --variant=memcpy_libc --data="$TMP/no/such/dir/x.tsv"

if command -v gnuplot >/dev/null 2>&1; then
	expect "speed-plot: draws the data" 0 "^speed-plot: wrote $TMP/speed.svg$" \
		scripts/speed-plot "$SPEED_TSV" "$TMP/speed.svg" "memset_word vs memset_libc"
	if { head -c 200 "$TMP/speed.svg" | grep -q '^<?xml' || grep -q '<svg' "$TMP/speed.svg"; } &&
		grep -q '</svg>' "$TMP/speed.svg" && grep -q 'memset_word' "$TMP/speed.svg"; then
		pass "speed-plot: a whole SVG, with the variants in its key"
	else
		fail "speed-plot: a whole SVG, with the variants in its key" "$(head -c 300 "$TMP/speed.svg" 2>&1)"
	fi
else
	echo "   speed-plot's SVG: not tested, gnuplot is not installed (apt-get install gnuplot-nox)"
fi
# Exit 3 is how callers (scripts/gate) tell a skipped plot from a failed one.
speed_out=$(GNUPLOT=$TMP/no-gnuplot scripts/speed-plot "$SPEED_TSV" "$TMP/none.svg" 2>&1)
speed_rc=$?
if [ "$speed_rc" -eq 3 ] && [ "$(wc -l <<<"$speed_out")" -eq 1 ] &&
	grep -q '^speed-plot: gnuplot is not installed' <<<"$speed_out" && [ ! -e "$TMP/none.svg" ]; then
	pass "speed-plot: without gnuplot, one line, no file and exit 3"
else
	fail "speed-plot: without gnuplot, one line, no file and exit 3" "exit $speed_rc: $speed_out"
fi
: >"$TMP/empty.tsv"
usage_error "speed-plot: a file with no rows" "^speed-plot: no rows in " \
	scripts/speed-plot "$TMP/empty.tsv" "$TMP/none.svg"
usage_error "speed-plot: a missing file" "^speed-plot: cannot read " \
	scripts/speed-plot "$TMP/no-such.tsv" "$TMP/none.svg"
