# Two memgate commands building in one tree at once (issue 44): in a copy
# of the tree's sources with no build, two `make all` (what scripts/verify,
# the gate and make verify build first) a second apart. Both must end
# well, leave nothing half made (make -q: nothing to remake) and no part
# file behind. Before the Makefile's recipes wrote under names of their
# own and renamed (PART, KEEP), one of the two often linked an object the
# other was still writing ("undefined reference").
# Sourced by tests/run (uses expect, pass, fail, $TMP).

echo "== two builds in one tree at once"

bu_tree=$TMP/builds-tree
rm -rf "$bu_tree" && mkdir -p "$bu_tree"
# The sources as they are now (changed and new files too), without build/.
if ! git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$bu_tree" 2>"$TMP/builds-copy.err"; then
	fail "builds: a copy of the tree's sources" "$(tail -n 2 "$TMP/builds-copy.err")"
	return 0
fi
# bu_round DELAY: a make all, and DELAY seconds later a second one, when
# the first is writing objects the second then reads (started together
# they raced less often here); each must end well.
bu_round() {
	rm -rf "$bu_tree/build"
	(cd "$bu_tree" && make -s --no-print-directory all) >"$TMP/builds-1.out" 2>&1 &
	local first=$! first_rc second_rc
	sleep "$1"
	(cd "$bu_tree" && make -s --no-print-directory all) >"$TMP/builds-2.out" 2>&1
	second_rc=$?
	wait "$first"
	first_rc=$?
	expect "builds: make all ends well while a second starts $1 s later" 0 "" \
		sh -c "tail -n 5 '$TMP/builds-1.out'; exit $first_rc"
	expect "builds: a make all started $1 s after another ends well" 0 "" \
		sh -c "tail -n 5 '$TMP/builds-2.out'; exit $second_rc"
}
# One race each: with the old recipes a round failed about one time in
# three, at either delay.
bu_round 1
bu_round 2
expect "builds: nothing is left half made (make -q all: nothing to remake)" 0 "" \
	make -q -C "$bu_tree" all
bu_parts=$(find "$bu_tree/build" -name '*.part*' | head -n 3)
if [ -z "$bu_parts" ]; then
	pass "builds: no part file is left behind"
else
	fail "builds: no part file is left behind" "$bu_parts"
fi
rm -rf "$bu_tree"
