# tier: fast
# The orchestration's unit tests (tests/py/test_*.py, python3 -m unittest):
# one PASS or FAIL line per test, counted with the rest.
# Sourced by tests/run (uses pass, fail, skip, $TMP).

echo "== the orchestration's unit tests (tests/py)"
if ! command -v python3 >/dev/null 2>&1; then
	fail "unit tests" "python3 is not installed"
else
	python3 -W ignore tests/py/run.py >"$TMP/py.out" 2>&1
	py_rc=$?
	cat "$TMP/py.out"
	passed=$((passed + $(grep -c '^PASS' "$TMP/py.out")))
	failed=$((failed + $(grep -c '^FAIL' "$TMP/py.out")))
	skipped=$((skipped + $(grep -c '^SKIP' "$TMP/py.out")))
	if [ "$py_rc" -ne 0 ] && ! grep -q '^FAIL' "$TMP/py.out"; then
		fail "unit tests" "tests/py/run.py exited with status $py_rc: $(tail -n 3 "$TMP/py.out")"
	fi
fi
