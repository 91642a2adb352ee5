# memgate as its users have it (issue 23): `make install` into a scratch
# prefix made read-only, then from an unrelated directory the installed
# memgate gates routines given by relative paths, its results land there
# and the printed repro line works from there; the action's script
# (scripts/action) gates a sample routine and writes SARIF; the Debian
# package builds (once), passes lintian, and its memgate (from dpkg -x)
# gates a routine. The gates are quick ones (--quick, fuzzing left out):
# what is tested here is where things are, not the checks.
# Sourced by tests/run (uses pass, fail, skip, ran, $TMP).

echo "== memgate installed and run from anywhere (make install, action.yml, debian/)"

in_prefix=$TMP/install-prefix
in_user=$TMP/install-user
in_quick=(--quick --skip=fuzz,huge --no-bench)
mkdir -p "$in_user"
cp tests/gate/bytecopy.c "$in_user/good.c"
cp tests/bad/generic/bad_memcpy_tail_overwrite.c "$in_user/bad.c"

# in_unchanged NAME DIR LISTING: DIR's files and times are as LISTING says.
in_listing() { find "$1" -printf '%p %T@ %s\n' | sort; }

if ! out=$(make --no-print-directory -s install PREFIX="$in_prefix" 2>&1); then
	fail "make install PREFIX=scratch" "$(tail -n 3 <<<"$out")"
else
	if [ -L "$in_prefix/bin/memgate" ] && [ -f "$in_prefix/share/man/man1/memgate-gate.1.gz" ] &&
		[ -f "$in_prefix/share/doc/memgate/install.md" ] && [ -f "$in_prefix/lib/memgate/Makefile" ] &&
		zcat "$in_prefix/share/man/man1/memgate-gate.1.gz" | grep -q 'out DIR'; then
		pass "make install: bin/memgate, the tree it builds with, docs, man pages from --help"
	else
		fail "make install: bin/memgate, the tree it builds with, docs, man pages from --help" \
			"missing in $in_prefix: $(cd "$in_prefix" && find . -maxdepth 3 | sort | tr '\n' ' ' | cut -c1-300)"
	fi
	chmod -R a-w "$in_prefix"
	in_before=$(in_listing "$in_prefix")
	in_mg=$in_prefix/bin/memgate
	out=$(cd "$in_user" && env -u MEMGATE_OUT -u MEMGATE_GATE_RESULTS "$in_mg" gate --op memcpy \
		--symbol mg_generic_bad_memcpy_tail_overwrite "${in_quick[@]}" bad.c 2>&1)
	rc=$?
	repro=$(sed -n 's/^   repro: //p' <<<"$out" | head -n 1)
	results=$(sed -n 's/^results: //p' <<<"$out")
	if [ $rc -eq 1 ] && grep -q '^REJECTED: ' <<<"$out" && [ -n "$repro" ] &&
		[[ $results == memgate-results/findings/gate/* ]] && [ -f "$in_user/$results/gate.json" ]; then
		pass "installed memgate gate, relative path from another directory: REJECTED, results in ./memgate-results"
	else
		fail "installed memgate gate, relative path from another directory: REJECTED, results in ./memgate-results" \
			"exit $rc, results '$results': $(tail -n 3 <<<"$out")"
	fi
	if [ -n "$repro" ]; then
		out=$(cd "$in_user" && env -u MEMGATE_OUT bash -c "$repro" 2>&1)
		rc=$?
		if [ $rc -eq 1 ] && grep -q '^REPRODUCED: ' <<<"$out"; then
			pass "the printed repro line works from where the gate was started"
		else
			fail "the printed repro line works from where the gate was started" "exit $rc: $(tail -n 2 <<<"$out")"
			echo "     ran: (in $in_user) $repro"
		fi
		# Its standalone program: the build and run lines repro prints
		# work from there too (issue 44).
		out=$(cd "$in_user" && env -u MEMGATE_OUT bash -c "${repro%)} --emit-c case.c)" 2>&1)
		in_build=$(sed -n 's/^  (cd /(cd /p' <<<"$out" | sed -n 1p)
		in_run=$(sed -n 's/^  (cd /(cd /p' <<<"$out" | sed -n 2p)
		if [ -n "$in_build" ] && (cd "$in_user" && bash -c "$in_build" && bash -c "$in_run" |
			grep -q '^verdict: ') 2>/dev/null; then
			pass "repro --emit-c's build and run lines work from where the gate was started"
		else
			fail "repro --emit-c's build and run lines work from where the gate was started" \
				"$(tail -n 3 <<<"$out")"
		fi
	fi
	# The action's steps, on a correct routine: exit 0, its outputs, SARIF.
	# 10+: the outputs are under test, not the budget (gate_budget.sh's),
	# and at make check's load a plain 10 was refused (bytecopy 7.6x slower).
	out=$(cd "$in_user" && env -u MEMGATE_OUT -u MEMGATE_GATE_RESULTS INPUT_FILES=good.c INPUT_OP=memcpy \
		INPUT_SECONDS=10+ INPUT_FLAGS="--symbol bytecopy --quick --skip=fuzz,huge --no-bench" \
		MEMGATE_ACTION_NO_DEPS=1 GITHUB_OUTPUT="$TMP/install-gh-out" "$in_mg" action 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -qx 'verdict=accepted' "$TMP/install-gh-out" &&
		grep -qx 'sarif=memgate-results/gate.sarif' "$TMP/install-gh-out" &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == "2.1.0"' \
			"$in_user/memgate-results/gate.sarif" 2>/dev/null; then
		pass "scripts/action: a correct routine is accepted, exit 0, outputs and SARIF written"
	else
		fail "scripts/action: a correct routine is accepted, exit 0, outputs and SARIF written" \
			"exit $rc: $(tail -n 2 <<<"$out"); outputs: $(tr '\n' ' ' <"$TMP/install-gh-out" 2>/dev/null)"
	fi
	# And on a wrong one: exit 1 (the job fails), SARIF naming the user's file.
	out=$(cd "$in_user" && env -u MEMGATE_OUT -u MEMGATE_GATE_RESULTS INPUT_FILES=bad.c INPUT_OP=memcpy \
		INPUT_SECONDS=10+ INPUT_FLAGS="--symbol mg_generic_bad_memcpy_tail_overwrite --quick --skip=fuzz,huge --no-bench" \
		MEMGATE_ACTION_NO_DEPS=1 GITHUB_OUTPUT="$TMP/install-gh-out2" "$in_mg" action 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && grep -qx 'verdict=rejected' "$TMP/install-gh-out2" &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]["results"]
assert r and r[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.c"' \
			"$in_user/memgate-results/gate.sarif" 2>/dev/null; then
		pass "scripts/action: a wrong routine fails the job (exit 1), its SARIF names bad.c"
	else
		fail "scripts/action: a wrong routine fails the job (exit 1), its SARIF names bad.c" \
			"exit $rc: $(tail -n 2 <<<"$out")"
	fi
	if [ "$(in_listing "$in_prefix")" = "$in_before" ]; then
		pass "the read-only install tree is left as it was"
	else
		fail "the read-only install tree is left as it was" \
			"$(diff <(echo "$in_before") <(in_listing "$in_prefix") | head -n 3 | tr '\n' ' ')"
	fi
	chmod -R u+w "$in_prefix"
fi

# The Debian package, where the packaging tools are (install-deps --tests).
in_missing=
for in_tool in dpkg-buildpackage dh lintian fakeroot help2man; do
	command -v "$in_tool" >/dev/null 2>&1 || in_missing="$in_missing $in_tool"
done
if [ -n "$in_missing" ]; then
	skip "the Debian package" "not installed:$in_missing (scripts/install-deps --tests installs them)"
else
	out=$(scripts/build-deb "$TMP/install-deb" 2>&1)
	rc=$?
	deb=$(tail -n 1 <<<"$out")
	if [ $rc -eq 0 ] && [[ $deb == */memgate_$(cat VERSION)_$(dpkg --print-architecture).deb ]] && [ -f "$deb" ] &&
		dpkg-deb -f "$deb" Depends | grep -q 'afl++' ; then
		pass "scripts/build-deb: memgate_VERSION_ARCH.deb with its Debian dependencies, lintian without errors"
		dpkg -x "$deb" "$TMP/install-x"
		mkdir -p "$TMP/install-deb-user"
		cp "$in_user/bad.c" "$TMP/install-deb-user/"
		out=$(cd "$TMP/install-deb-user" && env -u MEMGATE_OUT -u MEMGATE_GATE_RESULTS "$TMP/install-x/usr/bin/memgate" \
			gate --op memcpy --symbol mg_generic_bad_memcpy_tail_overwrite "${in_quick[@]}" --out res bad.c 2>&1)
		rc=$?
		if [ $rc -eq 1 ] && grep -q '^REJECTED: ' <<<"$out" && grep -q '^results: res/findings/gate/' <<<"$out"; then
			pass "the .deb's memgate (dpkg -x) gates a routine, results under --out"
		else
			fail "the .deb's memgate (dpkg -x) gates a routine, results under --out" "exit $rc: $(tail -n 3 <<<"$out")"
		fi
	else
		fail "scripts/build-deb: memgate_VERSION_ARCH.deb with its Debian dependencies, lintian without errors" \
			"exit $rc: $(tail -n 3 <<<"$out")"
	fi
fi
