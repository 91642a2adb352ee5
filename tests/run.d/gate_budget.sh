# scripts/gate's deadline and cache: the profile decides the cases, so the
# verdict and every check's case count are the same whatever --seconds
# says; a deadline reached is could not judge naming what did not finish
# or run, never a pass on fewer cases; a verdict is reused only while
# code, options, memgate and machine are the same, never when it could not
# be judged, and every report says so.
# Sourced by tests/run (uses expect, expect_all, usage_error, pass, fail,
# arch_wanted, $TMP; the gates' results are $MEMGATE_GATE_RESULTS).

echo "== the gate's deadline and cache (scripts/gate --seconds, --no-cache)"

# --- the deadline ---------------------------------------------------------
usage_error "gate: --seconds 2x is one line" "^gate: --seconds '2x' is not a positive whole number$" \
	scripts/gate --op memcpy --seconds=2x tests/gate/bytecopy.c
# What each check ran, from the JSON report: "name status cases", one per
# line (the fuzz engines' inputs are a count from a fixed seed; libFuzzer
# runs exactly that many, AFL++ about as many, so fuzz is left out).
gb_cases() {
	jq -r '.checks[] | select(.name != "fuzz" and .name != "build") | "\(.name) \(.status) \(.cases)"' "$1"
}
sed 's/word_memmove/gbsame/g' tests/gate/word_memmove.c >"$TMP/gbsame.c"
GB_SAME=(--op memmove --quick --skip=huge --no-bench --no-cache)
scripts/gate "${GB_SAME[@]}" --seconds=600 --report="$TMP/gb-600.json" "$TMP/gbsame.c" >"$TMP/gb-600.out" 2>&1
gb_rc1=$?
scripts/gate "${GB_SAME[@]}" --report="$TMP/gb-default.json" "$TMP/gbsame.c" >"$TMP/gb-default.out" 2>&1
gb_rc2=$?
if [ "$gb_rc1" -eq 0 ] && [ "$gb_rc2" -eq 0 ] && [ -n "$(gb_cases "$TMP/gb-600.json")" ] &&
	[ "$(gb_cases "$TMP/gb-600.json")" = "$(gb_cases "$TMP/gb-default.json")" ]; then
	pass "gate: --seconds 600 and the default deadline run the same cases, to the same verdict"
else
	fail "gate: --seconds 600 and the default deadline run the same cases" \
		"exit $gb_rc1 and $gb_rc2: $(diff <(gb_cases "$TMP/gb-600.json") <(gb_cases "$TMP/gb-default.json") | head -n 4)"
fi
expect "gate: the fuzz check names its inputs and their seed" 0 \
	"^libfuzzer [0-9]+( and afl [0-9]+)? inputs from seed 1" \
	jq -r '.checks[] | select(.name == "fuzz") | .note' "$TMP/gb-600.json"
# A deadline the checks cannot meet: could not judge, naming the check
# the deadline stopped and those it left unrun; no check passed on a part.
sed 's/word_memmove/gbshort/g' tests/gate/word_memmove.c >"$TMP/gbshort.c"
expect_all "gate: a deadline reached is could not judge, naming what did not finish and what did not run" 2 \
	"^COULD NOT JUDGE: gbshort: could not judge: .*did not finish before the gate's deadline \(--seconds\): stopped after [0-9]+ s" \
	"did not run: the gate's deadline \(--seconds 1\) had passed" -- \
	scripts/gate --op memmove --no-bench --no-cache --seconds=1 "$TMP/gbshort.c"
# The twin that copies forward at one overlap distance: the sweep itself
# finds it (no fuzzer), at the same case on every machine.
expect_all "gate: a memmove wrong at one overlap distance is rejected by the sweep itself" 1 \
	"^[0-9]+\. \[sweep\] wrong-result: " "^REJECTED: word_memmove_dist3, " \
	"stopped at the first findings, after [0-9]+ of [0-9]+ cases" -- \
	scripts/gate --op memmove --skip=fuzz,huge,valgrind,regressions --no-bench --no-cache \
	tests/gate/word_memmove_dist3.c

# --- the cache ------------------------------------------------------------
GB_FLAGS=(--op memcpy --quick --skip=fuzz,huge --no-bench)
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
# Its lines are the judged run's (the minimal --requires under the table
# too), and its time says it is the reuse's, and how long judging took.
expect_all "gate: the same code, options, memgate and machine: the verdict is reused, the table says whence" 0 \
	"^cached: from $gb_first, 20[0-9-]+T[0-9:]+Z " "^sweep +PASS" "^minimal --requires: none \(declared: none\)$" \
	"^ACCEPTED(.*): gbcopy passed every .* \([0-9.]+ s to reuse the verdict; cached: from $gb_first, 20[0-9-]+T[0-9:]+Z, judged in [0-9.]+ s\)$" -- \
	gb_gate "$TMP/gbcopy.c"
expect "gate: a reused verdict's JSON report says cached" 0 "^accepted $gb_first" \
	jq -r '"\(.verdict) \(.cached.from)"' "$TMP/gb.json"
expect "gate: ... and keeps the ISA audit's minimal --requires" 0 '^\[\]$' jq -c '.isa.minimal_requires' "$TMP/gb.json"
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
