# scripts/gate's plan and cache: a --seconds too small for the required
# checks here is refused at once, naming the least that works, and leaves
# nothing behind; a budget that fits is kept and the verdict line names
# the sweep's cut; a cut below the floor is refused; a verdict is reused
# only while code, options, memgate and machine are the same, never when it
# could not be judged, and every report says so.
# Sourced by tests/run (uses expect, expect_all, usage_error, pass, fail,
# arch_wanted, $TMP; the gates' results are $MEMGATE_GATE_RESULTS).

echo "== the gate's plan and cache (scripts/gate --seconds, --no-cache)"
gb_results() { find "${MEMGATE_GATE_RESULTS:-findings/gate}" -mindepth 1 -maxdepth 1 -name "$1-*" 2>/dev/null | wc -l; }

# --- the plan -------------------------------------------------------------
# A name of this group's own, so that what a refusal leaves can be counted.
sed 's/bytecopy/gbrefused/g' tests/gate/bytecopy.c >"$TMP/gbrefused.c"
# The first refusal may calibrate (progress lines on stderr); the verdict
# is the last line. What the calibration had not measured when the gate
# refused (REFUSE_BY in gate_plan.py) is counted at its least, and the
# refusal says its figure is a lower bound.
GB_LOWER='\(; a lower bound: .* not calibrated yet (what was is kept: run it again for the whole figure)\)\?'
gb_out=$(scripts/gate --op memcpy --seconds=2 "$TMP/gbrefused.c" 2>&1)
gb_rc=$?
gb_least=$(sed -n "s/^gate: --seconds 2 is too small here: the required checks need at least \([0-9][0-9]*\) s (sweep [0-9][0-9]*, huge [0-9][0-9]*, fuzz [0-9][0-9]*, valgrind [0-9][0-9]*, regressions [0-9][0-9]*\(, bench [0-9][0-9]*\)\?), with the sweep at 5% of its cases or more$GB_LOWER\$/\1/p" <<<"$gb_out")
if [ "$gb_rc" -eq 2 ] && [ -n "$gb_least" ] && [ "$gb_least" -gt 2 ]; then
	pass "gate: --seconds 2 is refused with the least that works here ($gb_least s) and what each check needs"
else
	fail "gate: --seconds 2 is refused with the least that works here" "exit $gb_rc: $(tail -n 2 <<<"$gb_out")"
fi
# N+ takes what the required checks need when N cannot hold them (the
# zoo's rows): the same budget raised, not refused, and said so.
sed 's/bytecopy/gbraised/g' tests/gate/bytecopy.c >"$TMP/gbraised.c"
expect_all "gate: --seconds 2+ is raised to what the checks need, and judged" 0 \
	'^\[gate gbraised\] --seconds 2\+ is raised to [0-9]+ s: the required checks need that here \(' \
	'^ACCEPTED( \(.*\))?: gbraised passed' -- \
	scripts/gate --op memcpy --quick --skip=fuzz,huge --no-bench --seconds=2+ "$TMP/gbraised.c"
usage_error "gate: --seconds 2x is one line" "^gate: --seconds '2x' is not a positive whole number$" \
	scripts/gate --op memcpy --seconds=2x "$TMP/gbrefused.c"
# Again: what the first measured is kept, so the figure is the same or
# (more of it measured) larger.
gb_out=$(scripts/gate --op memcpy --seconds=2 "$TMP/gbrefused.c" 2>&1)
gb_rc=$?
gb_again=$(sed -n 's/^gate: --seconds 2 is too small here: the required checks need at least \([0-9][0-9]*\) s .*/\1/p' <<<"$gb_out")
if [ "$gb_rc" -eq 2 ] && [ -n "$gb_again" ] && [ "$gb_again" -ge "${gb_least:-0}" ] &&
	[ "$(grep -cv '^\[gate ' <<<"$gb_out")" -eq 1 ]; then
	pass "gate: calibrated, the refusal is one line, before any check runs, its figure no smaller ($gb_again s)"
	gb_least=$gb_again
else
	fail "gate: calibrated, the refusal is one line, before any check runs" "exit $gb_rc: $(tail -n 2 <<<"$gb_out")"
fi
if [ "$(gb_results gbrefused)" -eq 0 ] && ! ls -d build/gate/gbrefused-* >/dev/null 2>&1; then
	pass "gate: a refused budget leaves no results folder and no build behind"
else
	fail "gate: a refused budget leaves nothing behind" "$(ls -d "$MEMGATE_GATE_RESULTS"/gbrefused-* build/gate/gbrefused-* 2>&1 | tail -n 3)"
fi
# (The calibration's progress lines come first while some of it is still
# to be measured.)
gb_out=$(scripts/gate --op memcpy --seconds=$((gb_least - 1)) "$TMP/gbrefused.c" 2>&1)
gb_rc=$?
if [ "$gb_rc" -eq 2 ] && [ "$(grep -cv '^\[gate ' <<<"$gb_out")" -eq 1 ] &&
	grep -q "^gate: --seconds $((gb_least - 1)) is too small here" <<<"$gb_out"; then
	pass "gate: the least that works less one is refused as well"
else
	fail "gate: the least that works less one is refused as well" "exit $gb_rc: $(tail -n 2 <<<"$gb_out")"
fi
# Skipped checks need nothing: the least is smaller without them.
expect "gate: checks left out are left out of the plan" 2 \
	"^gate: --seconds 1 is too small here: the required checks need at least [0-9]+ s \(sweep [0-9]+, valgrind [0-9]+, regressions [0-9]+\), with the sweep at 5% of its cases or more" \
	scripts/gate --op memcpy --quick --skip=fuzz,huge --no-bench --seconds=1 "$TMP/gbrefused.c"
# --seconds least, where 1 is refused: the least the plan says holds the
# same checks here, never refused, and a verdict (a name of its own, so
# that the counts of gbrefused's results below stay its own). The least
# has no room for a machine far busier than planned: then the verdict
# says which check ran out, as below.
sed 's/bytecopy/gbleast/g' tests/gate/bytecopy.c >"$TMP/gbleast.c"
gb_out=$(scripts/gate --op memcpy --quick --skip=fuzz,huge --no-bench --no-cache --seconds=least "$TMP/gbleast.c" 2>&1)
gb_rc=$? gb_line=$(tail -n 1 <<<"$gb_out")
gb_took=$(sed -n 's/^\[gate gbleast[^]]*\] --seconds least is \([0-9][0-9]*\) s: the required checks need that here (sweep [0-9][0-9]*, valgrind [0-9][0-9]*, regressions [0-9][0-9]*) .*/\1/p' <<<"$gb_out")
if [ -n "$gb_took" ] && { { [ "$gb_rc" -eq 0 ] && grep -qE "^ACCEPTED.*: gbleast " <<<"$gb_line"; } ||
	{ [ "$gb_rc" -eq 2 ] && grep -qE "^COULD NOT JUDGE: gbleast: .*(s more than the [0-9]+ s planned|s past the [0-9]+ s the plan gave it|before the gate's deadline|below the floor of 5%)" <<<"$gb_line"; }; }; then
	pass "gate: --seconds least takes the least that holds the required checks here ($gb_took s), never refused: a verdict"
else
	fail "gate: --seconds least takes the least that holds the required checks here" "exit $gb_rc: $(tail -n 2 <<<"$gb_out")"
fi

if [ "$(uname -m)" = x86_64 ]; then
	# A fast correct routine (the needs are the plan's, the same for every
	# memcpy here) at the least plus 10 s for a machine others share: kept,
	# and the verdict line names the sweep's cut when there is one. The
	# quick sweep, whose cut a machine much busier than planned cannot push
	# below the floor.
	gb_q=$(scripts/gate --op memcpy --quick --seconds=2 "$TMP/gbrefused.c" 2>&1 |
		sed -n 's/^gate: --seconds 2 is too small here: the required checks need at least \([0-9][0-9]*\) s .*/\1/p')
	# A figure that was a lower bound can be refused again, with the
	# figure the rest of the calibration gives: then that plus 10 s.
	# (The plan measures this routine and the machine's load again each
	# time: on a busy machine a figure can move between runs.)
	for gb_try in 1 2 3 4; do
		gb_t0=$(date +%s)
		gb_out=$(scripts/gate --op memcpy --quick --symbol=mg_x86_64_memcpy_unrolled64 --seconds=$((${gb_q:-1} + 10)) \
			impls/x86_64/memcpy_unrolled64.S 2>&1)
		gb_rc=$? gb_took=$(($(date +%s) - gb_t0))
		gb_more=$(sed -n 's/^gate: --seconds [0-9]* is too small here: the required checks need at least \([0-9][0-9]*\) s .*/\1/p' <<<"$gb_out")
		[ "$gb_rc" -eq 2 ] && [ -n "$gb_more" ] || break
		gb_q=$gb_more
	done
	gb_line=$(tail -n 1 <<<"$gb_out")
	gb_least=$gb_q
	# On a machine far busier than two gates at once the plan cannot hold:
	# then the verdict says which check ran out, and by how much.
	gb_over="s more than the [0-9]+ s planned|s past the [0-9]+ s the plan gave it|below the floor of 5%"
	if [ "$gb_rc" -eq 2 ] && grep -qE "^COULD NOT JUDGE: .*($gb_over)" <<<"$gb_line"; then
		pass "gate: a budget the plan could not hold on a busy machine says which check ran out and by how much"
	elif [ -z "$gb_q" ] || [ "$gb_rc" -ne 0 ] || ! grep -qE "^ACCEPTED" <<<"$gb_line"; then
		fail "gate: a budget the plan holds is kept ($((${gb_q:-1} + 10)) s)" "exit $gb_rc: $gb_line"
	elif grep -qE "^sweep +PASS .*% of cases" <<<"$gb_out" && ! grep -qE "sweep cut to [0-9.]+% of its cases" <<<"$gb_line"; then
		fail "gate: the verdict line names the sweep's cut" "$gb_line"
	else
		pass "gate: a budget the plan holds is kept: accepted in $gb_took s of --seconds $((gb_least + 10)), the cut named"
	fi
fi

if [ "$(uname -m)" = x86_64 ]; then
	# The plan measures the submission itself (gate_probe): a byte loop at
	# the least the calibration's routine needs is refused before any
	# check runs, for its 4 MiB moves (the 4 GiB+ check) slower than the
	# C library's, and the refusal says what was measured. (Before, it ran
	# and its 4 GiB+ check took the fuzzing's time: could not judge at
	# the end.)
	# (The calibration's figure may come as a lower bound first: each
	# refusal's figure is tried until the calibration is whole.)
	gb_cal=2
	for gb_try in 1 2 3 4 5; do
		gb_t0=$(date +%s)
		gb_out=$(scripts/gate --op memcpy --seconds="$gb_cal" "$TMP/gbrefused.c" 2>&1)
		gb_rc=$? gb_took=$(($(date +%s) - gb_t0))
		grep -q "; as measured for it here now: " <<<"$gb_out" && break
		gb_new=$(sed -n 's/^gate: --seconds [0-9]* is too small here: the required checks need at least \([0-9][0-9]*\) s .*/\1/p' <<<"$gb_out")
		[ -n "$gb_new" ] || break
		gb_cal=$gb_new
	done
	if [ -n "$gb_cal" ] && [ "$gb_rc" -eq 2 ] && [ "$(grep -cv '^\[gate ' <<<"$gb_out")" -eq 1 ] &&
		grep -qE "^gate: --seconds $gb_cal is too small here: the required checks need at least [0-9]+ s \(sweep [0-9]+, huge [0-9]+, .*; as measured for it here now: (.*; )?its 4M moves [0-9.]+x slower" <<<"$gb_out" &&
		[ "$(gb_results gbrefused)" -eq 0 ]; then
		pass "gate: a byte loop at the least the calibration's routine needs ($gb_cal s) is refused for what its own moves take, in $gb_took s, nothing left behind"
	else
		fail "gate: a budget the calibration's routine fits but the submission does not is refused at once" \
			"exit $gb_rc after $gb_took s: $(tail -n 1 <<<"$gb_out")"
	fi
fi

if arch_wanted aarch64 && scripts/arch-probe aarch64 >/dev/null 2>&1; then
	# Two entries under qemu's three CPU models: before the plan this ran 1%
	# of the sweep and was accepted; now the floor refuses it.
	sed 's/mg_aarch64_memcpy_ldp/my_ldp/g' impls/aarch64/memcpy_ldp.S >"$TMP/my_ldp.S"
	expect "gate: a budget that would run the sweep below its floor is refused (aarch64 under qemu)" 2 \
		"^gate: --seconds 6 is too small here: the required checks need at least [0-9]+ s \(sweep [0-9]+.*; divided over 3 CPU models\), with the sweep at 5% of its cases or more" \
		scripts/gate --arch=aarch64 --op memcpy --symbol=my_ldp --skip=fuzz,huge,regressions --seconds=6 "$TMP/my_ldp.S"
fi

# --- the cache ------------------------------------------------------------
GB_FLAGS=(--op memcpy --quick --skip=fuzz,huge --no-bench --seconds=30)
gb_gate() { scripts/gate "${GB_FLAGS[@]}" --report="$TMP/gb.json" --sarif="$TMP/gb.sarif" --junit="$TMP/gb.xml" "$@"; }
cp tests/gate/bytecopy.c "$TMP/gbcopy.c"
sed -i 's/bytecopy/gbcopy/g' "$TMP/gbcopy.c"
gb_out=$(gb_gate "$TMP/gbcopy.c" 2>&1)
if [ $? -eq 0 ] && ! grep -q "cached" <<<"$gb_out" && ! grep -q '"cached"' "$TMP/gb.json"; then
	pass "gate: the first run is judged afresh"
else
	fail "gate: the first run is judged afresh" "$(tail -n 1 <<<"$gb_out")"
fi
gb_first=$(sed -n 's/^results: //p' <<<"$gb_out")
expect_all "gate: the same code, options, memgate and machine: the verdict is reused, the table says whence" 0 \
	"^cached: from $gb_first, 20[0-9-]+T[0-9:]+Z " "^sweep +PASS" \
	"^ACCEPTED(.*): gbcopy passed every .*; cached: from $gb_first, " -- gb_gate "$TMP/gbcopy.c"
expect "gate: a reused verdict's JSON report says cached" 0 "^accepted $gb_first" \
	jq -r '"\(.verdict) \(.cached.from)"' "$TMP/gb.json"
expect "gate: its SARIF says cached" 0 "^from $gb_first, " jq -r '.runs[0].properties.cached' "$TMP/gb.sarif"
expect "gate: its JUnit XML says cached" 0 "<property name=\"cached\" value=\"from $gb_first, " cat "$TMP/gb.xml"
gb_fresh() {
	local name=$1
	shift
	local out
	out=$("$@" 2>&1)
	if [ $? -eq 0 ] && grep -q "^ACCEPTED" <<<"$out" && ! grep -q "cached" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(tail -n 1 <<<"$out")"
	fi
}
gb_fresh "gate: --no-cache runs every check again" gb_gate --no-cache "$TMP/gbcopy.c"
gb_fresh "gate: a changed option is gated afresh" gb_gate --src-align=2 "$TMP/gbcopy.c"
# The same copy loop written another way (backwards: the buffers of a
# memcpy do not overlap) is other code.
sed -i 's/for (size_t i = 0; i < n; i++)/for (size_t i = n; i-- > 0;)/' "$TMP/gbcopy.c"
if grep -q 'i-- > 0' "$TMP/gbcopy.c"; then
	gb_fresh "gate: a changed routine is gated afresh" gb_gate "$TMP/gbcopy.c"
else
	fail "gate: a changed routine is gated afresh" "tests/gate/bytecopy.c's loop is not the one this test rewrites"
fi
# Could not judge (valgrind missing) is never kept: the second run judges again.
mkdir -p "$TMP/gb-no-valgrind"
for gb_tool in /usr/bin/* /usr/local/bin/*; do
	case ${gb_tool##*/} in valgrind*) continue ;; esac
	[ -e "$TMP/gb-no-valgrind/${gb_tool##*/}" ] || ln -s "$gb_tool" "$TMP/gb-no-valgrind/"
done
env PATH="$TMP/gb-no-valgrind" scripts/gate "${GB_FLAGS[@]}" tests/gate/bytecopy.c >/dev/null 2>&1
expect "gate: a could-not-judge verdict is never reused" 2 "^COULD NOT JUDGE: bytecopy: could not judge: valgrind: .* \([0-9.]+ s\)$" \
	env PATH="$TMP/gb-no-valgrind" scripts/gate "${GB_FLAGS[@]}" tests/gate/bytecopy.c
