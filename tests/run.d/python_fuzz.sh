# The orchestration's unit tests (python3 -m unittest discover -s tests/py),
# in a tree where no other group runs them: tests/run.d/python.sh, once
# there, runs every tests/py/test_*.py, these included.
# Sourced by tests/run (uses pass, fail, $TMP).

echo "== the orchestration's unit tests (tests/py, scripts/fuzz's among them)"
if [ -e tests/run.d/python.sh ]; then
	echo "(run by tests/run.d/python.sh)"
elif ! command -v python3 >/dev/null 2>&1; then
	fail "unit tests" "python3 is not installed"
elif python3 -W ignore -m unittest discover -s tests/py -p 'test_*.py' >"$TMP/py-units.out" 2>&1; then
	pass "unit tests: $(grep -E '^Ran [0-9]+ tests' "$TMP/py-units.out")"
else
	fail "unit tests" "$(grep -E '^(FAIL|ERROR):' "$TMP/py-units.out" | head -n 5 | tr '\n' ' ')$(tail -n 1 "$TMP/py-units.out")"
fi
