# tier: fast
# The house rules of the tree (issue 13): the harness's layers include only
# themselves and the layers before them, and the test catalogue
# (docs/tests.md) is the one scripts/test-catalogue writes from
# tests/bad/bad.def. Sourced by tests/run (uses expect, $TMP).

echo "== the tree: layers and the generated test catalogue"
expect "no harness include runs back up a layer" 0 "none runs back up$" tests/check-layers
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
