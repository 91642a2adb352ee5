# The README's quick start as a new user meets it (issue 44): its commands
# are read from the README's section "Quick start" and run as printed, from
# a new directory outside the tree, with ~/memgate this tree; what they
# print is held against what the README shows (the finding, its input and
# repro lines, the verdict), then the repro line is run as printed, again
# with --emit-c, and the standalone program is built and run with the lines
# it prints; the correct twin the section names is ACCEPTED. The docs
# cannot drift from what memgate does without this group failing.
# Sourced by tests/run (uses expect, expect_all, pass, fail, $TMP).

echo "== the README's quick start, as printed, from a user's directory"

# qs_block N: the Nth fenced block of the README's "Quick start" section.
qs_block() {
	python3 - "$1" <<'EOF'
import re, sys
text = open("README.md", encoding="utf-8").read()
section = text.split("\n## Quick start", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"^```[a-z]*\n(.*?)^```", section, re.S | re.M)
sys.stdout.write(blocks[int(sys.argv[1])])
EOF
}
# qs_patterns: the shown output as one regex a line: "..." stands for what
# differs from run to run (a directory's suffix, the lines between), the
# seconds in the verdict line for any.
qs_patterns() {
	python3 -c '
import re, sys
ere = lambda text: re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", text)
for line in sys.stdin.read().splitlines():
    if line.strip() in ("", "..."):
        continue
    line, seconds = re.subn(r" \(\d+\.\d+ s\)$", "", line)
    pattern = ".*".join(ere(part) for part in line.split("..."))
    print("^" + pattern + (" \\([0-9.]+ s\\)" if seconds else "") + "$")
'
}

qs_home=$TMP/qs-home qs_user=$TMP/qs-user
mkdir -p "$qs_home" "$qs_user"
ln -sfn "$PWD" "$qs_home/memgate"
# As a user's shell runs it: their HOME, their directory, none of the
# test run's settings of where results go.
qs_run() {
	(cd "$qs_user" && env -u MEMGATE_OUT -u MEMGATE_GATE_RESULTS HOME="$qs_home" bash -c "$1")
}

qs_commands=$(qs_block 0)
mapfile -t qs_want < <(qs_block 1 | qs_patterns)
if [ -z "$qs_commands" ] || [ "${#qs_want[@]}" -lt 3 ]; then
	fail "README: the quick start has its commands and what they print" \
		"$(printf '%s\n' "$qs_commands" | head -n 3)"
else
	pass "README: the quick start has its commands and what they print"
	qs_rc=0
	while IFS= read -r qs_line; do
		[ -n "$qs_line" ] || continue
		qs_run "$qs_line" >"$TMP/qs.out" 2>&1
		qs_rc=$?
	done <<<"$qs_commands"
	expect_all "README's quick start: the gate rejects the routine with the finding shown" 1 \
		"${qs_want[@]}" -- sh -c "cat '$TMP/qs.out'; exit $qs_rc"

	# The repro line as printed, from the directory the gate ran in.
	qs_repro=$(sed -n 's/^   repro: //p' "$TMP/qs.out" | head -n 1)
	expect "README's quick start: the repro line reproduces the finding where it is printed" 1 \
		"^REPRODUCED: word_memmove_dist3 fails this case \(wrong-result\)$" qs_run "$qs_repro"
	# --emit-c CASE.c added to the command in the parentheses.
	qs_run "${qs_repro%)} --emit-c case.c)" >"$TMP/qs-emit.out" 2>&1
	qs_build=$(grep -A2 '^emitted: ' "$TMP/qs-emit.out" | sed -n '2p')
	qs_exec=$(grep -A2 '^emitted: ' "$TMP/qs-emit.out" | sed -n '3p')
	# From the user's own file, compiled as the gate compiled it and its
	# symbol renamed as the gate renamed it, not the gate's object (issue 44).
	expect "README's quick start: --emit-c's program is built from the routine's source" 0 \
		"-c -o case\.0\.o .*/qs-user/word_memmove_dist3\.c && objcopy --redefine-syms=.* case\.0\.o && cc .* -o case case\.c case\.0\.o" \
		echo "$qs_build"
	if [ -n "$qs_build" ] && qs_run "$qs_build" >"$TMP/qs-build.out" 2>&1; then
		pass "README's quick start: --emit-c's program builds with the line it prints"
		expect "README's quick start: the standalone program shows the finding" 1 \
			"^verdict: wrong-result: dst\[3\] got 0x6c want 0xe8 " qs_run "$qs_exec"
	else
		fail "README's quick start: --emit-c's program builds with the line it prints" \
			"$(tail -n 3 "$TMP/qs-emit.out" "$TMP/qs-build.out" 2>/dev/null)"
	fi
fi

# The twin the section names, with the same command.
qs_twin=$(grep -o 'Its correct twin, `[^`]*`' README.md | sed 's/.*`\(.*\)`/\1/')
expect "README's quick start: the correct twin ($qs_twin) is ACCEPTED" 0 \
	"^ACCEPTED: word_memmove passed every check" \
	qs_run "cp ~/memgate/$qs_twin . && ~/memgate/scripts/gate --op memmove ${qs_twin##*/}"

# Every path memgate prints is valid where it is printed (issue 44): the
# replay line the repro prints, run from the user's directory, not only
# from the results directory repro ran in.
qs_replay=$(qs_run "$qs_repro" 2>&1 | sed -n 's/^replay: *//p' | head -n 1)
expect "from the user's directory: the replay line repro prints runs as printed" 1 \
	"^verdict: wrong-result: dst\[3\] got 0x6c want 0xe8 " qs_run "$qs_replay"
# scripts/fuzz from there: its repro line, and that one's replay line.
qs_run "~/memgate/scripts/fuzz --variant=bad_memcpy_tail_overwrite --runs=2000" >"$TMP/qs-fuzz.out" 2>&1
qs_fuzz_repro=$(sed -n 's/^  repro: *//p' "$TMP/qs-fuzz.out" | head -n 1)
expect "from the user's directory: scripts/fuzz's repro line runs as printed" 1 \
	"^REPRODUCED: bad_memcpy_tail_overwrite fails this case \(out-of-bounds-write\)$" qs_run "$qs_fuzz_repro"
qs_fuzz_replay=$(qs_run "$qs_fuzz_repro" 2>&1 | sed -n 's/^replay: *//p' | head -n 1)
expect "from the user's directory: the replay line of fuzz's repro runs as printed" 1 \
	"^verdict: out-of-bounds-write: dst" qs_run "$qs_fuzz_replay"
