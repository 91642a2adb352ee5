# scripts/gate fails closed (issue 12): every way a wrong routine was once
# ACCEPTED, or a correct one blamed for the machine, ends as it should: a
# full disk, a missing tool, too little address space and a deadline are
# "could not judge" (exit 2, never 0); two gates at once never share a file;
# what the routine may not do is refused at build time, naming it; the DF
# routine's three reports are written. The submissions are tests/gate/.
# Sourced by tests/run (uses expect, expect_all, usage_error, pass, fail, skip, $TMP).

echo "== the gate fails closed (tests/gate)"
# The quick sweep alone, where the point is elsewhere.
GC_FAST=(--quick --skip=fuzz,huge,valgrind,regressions --no-bench)

# gc_never_accepted NAME STATUS PATTERN COMMAND...: like expect, and the
# output has no ACCEPTED line.
gc_never_accepted() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ] || grep -q "^ACCEPTED" <<<"$out" || ! grep -qE -- "$pattern" <<<"$out"; then
		fail "$name" "exit $rc, want $want and /$pattern/ without ACCEPTED; output ends: $(tail -n 3 <<<"$out")"
	else
		pass "$name"
	fi
}

# gc_refused WHAT FILE PATTERN: the gate refuses tests/gate/FILE at build
# time, with one line matching PATTERN and exit 2.
gc_refused() {
	usage_error "gate: $1" "$3" scripts/gate --op memcpy "${GC_FAST[@]}" "tests/gate/$2"
}

# gc_ended_within WHAT BOUND: the gate started at $gc_start ended within
# BOUND seconds.
gc_ended_within() {
	local took=$(($(date +%s) - gc_start))
	if [ "$took" -le "$2" ]; then
		pass "gate: $1 in $took s (bound $2)"
	else
		fail "gate: $1 within $2 s" "it took $took s"
	fi
}

# gc_concurrent NAME RC WANT PATTERN OUT: one of the two concurrent gates
# exited WANT and printed a line matching PATTERN into OUT.
gc_concurrent() {
	if [ "$2" -eq "$3" ] && grep -q "$4" "$5"; then
		pass "gate: $1"
	else
		fail "gate: $1" "exit $2: $(tail -n 2 "$5")"
	fi
}

echo "-- build-time rules"
gc_refused "an extern write into a harness global is refused, naming it" writes_harness_global.c \
	"^gate: tests/gate/writes_harness_global.c references symbols it does not define: mg_check_timeout_ms "
gc_refused "a call to mprotect is refused, naming it" calls_mprotect.c \
	"^gate: tests/gate/calls_mprotect.c references symbols it does not define: mprotect "
gc_refused "a call to _exit is refused, naming it" calls_exit.c \
	"^gate: tests/gate/calls_exit.c references symbols it does not define: _exit "
gc_refused "a routine that hides its over-read with a SIGSEGV handler is refused, naming the calls" \
	hides_overread.c "^gate: tests/gate/hides_overread.c references symbols it does not define: .*signal "
if [ "$(uname -m)" = x86_64 ]; then
	gc_refused "a syscall instruction is refused: makes system calls" raw_syscall.S \
		"^gate: tests/gate/raw_syscall.S makes system calls: syscall at raw_syscall\+0x"
fi
gc_refused "a data symbol not given with --extern is refused" extern_threshold.c \
	"references symbols it does not define: copy_threshold "
# A value given alone is all it runs at, and the table says that is not the
# whole range (docs/tunables.md, "Other numbers").
expect_all "gate: --extern NAME=VALUE defines the data symbol; the routine is accepted" 0 "^ACCEPTED .*: extern_threshold " \
	"^copy_threshold only at 64, as given: not its whole range \(declare it with --extern copy_threshold=LO..HI" -- \
	scripts/gate --op memcpy "${GC_FAST[@]}" --extern copy_threshold=64 tests/gate/extern_threshold.c
expect "gate: a weak entry point and a hidden helper build and pass" 0 "^ACCEPTED .*: weak_hidden " \
	scripts/gate --op memcpy "${GC_FAST[@]}" tests/gate/weak_hidden.c
mkdir -p "$TMP/a dir with spaces"
cp tests/gate/bytecopy.c "$TMP/a dir with spaces/bytecöpy.c"
expect "gate: a source path with a space and a non-ASCII letter builds" 0 "^ACCEPTED .*: bytecopy " \
	scripts/gate --op memcpy "${GC_FAST[@]}" --symbol=bytecopy "$TMP/a dir with spaces/bytecöpy.c"

echo "-- isolation: two gates at once on same-named files"
mkdir -p "$TMP/gc-wrong" "$TMP/gc-right"
sed 's/nocopy/my_copy/g' tests/gate/nocopy.c >"$TMP/gc-wrong/my_copy.c"
sed 's/bytecopy/my_copy/g' tests/gate/bytecopy.c >"$TMP/gc-right/my_copy.c"
scripts/gate --op memcpy "${GC_FAST[@]}" "$TMP/gc-wrong/my_copy.c" >"$TMP/gc-wrong.out" 2>&1 &
gc_wrong=$!
scripts/gate --op memcpy "${GC_FAST[@]}" "$TMP/gc-right/my_copy.c" >"$TMP/gc-right.out" 2>&1 &
gc_right=$!
wait "$gc_wrong"
gc_wrong_rc=$?
wait "$gc_right"
gc_right_rc=$?
gc_concurrent "of two concurrent gates on my_copy.c, the one that copies nothing is REJECTED" \
	"$gc_wrong_rc" 1 "^REJECTED: my_copy, " "$TMP/gc-wrong.out"
gc_concurrent "of two concurrent gates on my_copy.c, the correct one is ACCEPTED" \
	"$gc_right_rc" 0 "^ACCEPTED .*: my_copy " "$TMP/gc-right.out"
gc_dirs=$(grep -h "^results: " "$TMP/gc-wrong.out" "$TMP/gc-right.out" | sort -u | wc -l)
if [ "$gc_dirs" -eq 2 ]; then
	pass "gate: the two runs have results directories of their own"
else
	fail "gate: the two runs have results directories of their own" "$(grep -h '^results: ' "$TMP"/gc-*.out)"
fi

echo "-- could not judge: the machine, not the routine"
# A 256 KiB tmpfs, filled, as the results directory: mounted as root, else
# in a user namespace of our own (unshare -rm). A file size limit (ulimit
# -f) cannot stand in: the run's own build would hit it first.
gc_full='mount -t tmpfs -o size=256k tmpfs "$0" && dd if=/dev/zero of="$0/filler" bs=4k 2>/dev/null;
	MEMGATE_GATE_RESULTS="$0" scripts/gate --op memcpy "${@}"'
mkdir -p "$TMP/full"
if [ "$(id -u)" -eq 0 ]; then
	gc_never_accepted "gate: a full results disk is could not judge (tmpfs), never ACCEPTED" 2 "could not judge" \
		unshare -m sh -c "$gc_full" "$TMP/full" "${GC_FAST[@]}" tests/gate/nocopy.c
elif unshare -rm true 2>/dev/null; then
	gc_never_accepted "gate: a full results disk is could not judge (tmpfs in a user namespace), never ACCEPTED" 2 \
		"could not judge" unshare -rm sh -c "$gc_full" "$TMP/full" "${GC_FAST[@]}" tests/gate/nocopy.c
else
	skip "gate: a full results disk" "needs root or user namespaces (unshare -rm) to mount a small tmpfs"
fi
mkdir -p "$TMP/readonly" && chmod 0555 "$TMP/readonly"
if [ "$(id -u)" -ne 0 ]; then
	gc_never_accepted "gate: an unwritable results directory is could not judge" 2 "could not judge" \
		env MEMGATE_GATE_RESULTS="$TMP/readonly/x" scripts/gate --op memcpy "${GC_FAST[@]}" tests/gate/bytecopy.c
fi
if [ "$(uname -m)" = x86_64 ]; then
	# Every tool the gate needs, but not valgrind.
	mkdir -p "$TMP/no-valgrind"
	for gc_tool in /usr/bin/* /usr/local/bin/*; do
		case ${gc_tool##*/} in valgrind*) continue ;; esac
		[ -e "$TMP/no-valgrind/${gc_tool##*/}" ] || ln -s "$gc_tool" "$TMP/no-valgrind/"
	done
	gc_never_accepted "gate: valgrind missing from PATH is could not judge for an x86-64 routine" 2 \
		"could not judge: .*valgrind.*not on PATH" \
		env PATH="$TMP/no-valgrind" scripts/gate --op memcpy --quick --skip=fuzz,huge,regressions --no-bench \
		tests/gate/bytecopy.c
	gc_never_accepted "gate: without the address space for 4 GiB+ (ulimit -v), bad_memcpy_count32 is could not judge" 2 \
		"could not judge: .*huge" bash -c "ulimit -v 4000000 && scripts/gate --op memcpy --quick \
		--skip=fuzz,valgrind,regressions --no-bench --symbol=mg_x86_64_bad_memcpy_count32 \
		tests/bad/x86_64/bad_memcpy_count32.S"
fi

echo "-- the deadline"
# A valgrind that blocks every signal and forks a child holding its output:
# the gate ends by --seconds plus the documented grace, could not judge.
mkdir -p "$TMP/stubborn"
ln -sf "$PWD/tests/gate/stubborn-valgrind" "$TMP/stubborn/valgrind"
gc_start=$(date +%s)
gc_never_accepted "gate: a child that blocks signals and forks is killed at the deadline: could not judge" 2 \
	"could not judge: .*valgrind.*deadline" env PATH="$TMP/stubborn:$PATH" scripts/gate --op memcpy --quick \
	--skip=fuzz,huge,regressions --no-bench --seconds=8 --report="$TMP/stubborn.json" tests/gate/bytecopy.c
# The bound, from the report's budget: its seconds, the 2 s between SIGTERM
# and SIGKILL, and 40 s for the (warm) build at a loaded machine's pace
# (CI's ran bytecopy 5x slower than here).
gc_bound=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["budget"]["seconds"] + 2 + 40)' "$TMP/stubborn.json" 2>/dev/null) || gc_bound=0
gc_ended_within "with --seconds=8 it ended (its deadline, the grace and the build)" "$gc_bound"
gc_start=$(date +%s)
gc_never_accepted "gate: a routine that never returns at one length is a timeout finding" 1 \
	"^[0-9]+\. \[sweep\] timeout: " scripts/gate --op memcpy "${GC_FAST[@]}" tests/gate/spins_forever.c
gc_ended_within "the routine that spins ended with its gate" 70

if [ "$(uname -m)" = x86_64 ]; then
	echo "-- the DF routine's reports"
	expect_all "gate: a routine that leaves DF set is REJECTED with its three reports" 1 \
		"^[0-9]+\. \[abi\] abi-violation: direction flag left set" "^reports: " "^REJECTED: " -- \
		bash -c 'scripts/gate "$@" | tee "$0"; exit "${PIPESTATUS[0]}"' "$TMP/df.out" \
		--op memmove --quick --skip=huge,fuzz,valgrind,regressions --no-bench \
		--symbol=mg_x86_64_bad_memmove_leaves_df_set --report="$TMP/df.json" --sarif="$TMP/df.sarif" \
		--junit="$TMP/df.xml" tests/bad/x86_64/bad_memmove_leaves_df_set.S
	expect "gate: the DF routine's JSON report is rejected with its abi-violation" 0 "^rejected True$" \
		python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["verdict"], any(f["kind"] == "abi-violation" for f in r["findings"]))' "$TMP/df.json"
	expect "gate: the DF routine's SARIF has a result per finding" 0 "^2.1.0 True$" \
		python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
print(s["version"], len(s["runs"][0]["results"]) >= len(r["findings"]) > 0)' "$TMP/df.sarif" "$TMP/df.json"
	expect "gate: the DF routine's JUnit XML is well-formed, with a failure" 0 "^abi-violation" \
		python3 -c 'import sys, xml.etree.ElementTree as E
print(E.parse(sys.argv[1]).find(".//testcase[@name=\"abi\"]/failure").get("type"))' "$TMP/df.xml"
	gc_df=$(sed -n 's/^results: //p' "$TMP/df.out")
	expect "gate-report makes the DF routine's reports again from its results directory (gate.json)" 0 "^$" \
		scripts/gate-report "$gc_df" --json "$TMP/df2.json" --sarif "$TMP/df2.sarif" --junit "$TMP/df2.xml"
	expect "gate-report: the same JSON report as the gate's" 0 "^$" cmp "$TMP/df.json" "$TMP/df2.json"
fi
