# tier: fast
# The house rules of the tree (issue 13): the harness's layers include only
# themselves and the layers before them; no circle among the harness's
# units (by their objects' symbols) or the Python modules (by their
# imports): tests/known-circles, a list that only shrinks, is empty; and the test catalogue (docs/tests.md) is the one
# scripts/test-catalogue writes from tests/bad/bad.def. Sourced by
# tests/run (uses expect, fail, $TMP).

echo "== the tree: layers and the generated test catalogue"
expect "no harness include runs back up a layer, and no circle among the harness's units" 0 \
	"^0 known circle\(s\) among the harness units$" \
	tests/check-layers --objects build/obj/harness --known tests/known-circles
# A circle of Python imports, one of them inside a function.
mkdir -p "$TMP/circle/harness/engine" "$TMP/circle/scripts/orchestration" "$TMP/circle/obj/engine" \
	"$TMP/circle/obj/run"
printf 'def f():\n    import beta\n' >"$TMP/circle/scripts/orchestration/alpha.py"
printf 'from alpha import f\n' >"$TMP/circle/scripts/orchestration/beta.py"
: >"$TMP/circle/harness/engine/x.c"
expect "the layer check catches a new circle of Python imports" 1 \
	"^a new circle among the Python modules: orchestration/alpha orchestration/beta$" \
	tests/check-layers --known tests/known-circles "$TMP/circle"
# And of C objects, by their symbols: engine/x uses run/y's and back.
printf 'int y(void);\nint x(void) { return y(); }\n' >"$TMP/circle/x.c"
printf 'int x(void);\nint y(void) { return x(); }\n' >"$TMP/circle/y.c"
if cc -c -o "$TMP/circle/obj/engine/x.o" "$TMP/circle/x.c" && cc -c -o "$TMP/circle/obj/run/y.o" "$TMP/circle/y.c"; then
	expect "the layer check catches a new circle of harness objects" 1 \
		"^a new circle among the harness units: engine/x run/y$" \
		tests/check-layers --objects "$TMP/circle/obj" "$TMP/circle"
else
	fail "the layer check catches a new circle of harness objects" "cc could not build its two objects"
fi
printf 'engine/gone run/gone\n' >"$TMP/circle/known"
expect "a known circle that is gone must leave the list" 1 \
	"^a known circle among the harness units is gone \(take it out of the list\): engine/gone run/gone$" \
	tests/check-layers --objects "$TMP/circle/obj" --known "$TMP/circle/known" "$TMP/circle"
mkdir -p "$TMP/layers/harness/engine" "$TMP/layers/harness/run"
echo '#include "verify.h"' >"$TMP/layers/harness/engine/case.c"
: >"$TMP/layers/harness/run/verify.h"
expect "the layer check catches the engine including the runner" 1 \
	"engine/ includes verify.h of run/, a later layer$" tests/check-layers "$TMP/layers"
expect "docs/tests.md is up to date with tests/bad/bad.def" 0 "is up to date$" \
	scripts/test-catalogue --check docs/tests.md
sed '$d' docs/tests.md >"$TMP/tests-stale.md"
expect "a stale catalogue is caught" 1 "is out of date \(line [0-9]+ differs\)" \
	scripts/test-catalogue --check "$TMP/tests-stale.md"
