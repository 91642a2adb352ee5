# The main job, last: every registered variant, quick profile, as
# `make verify` runs it. Sourced by tests/run (uses expect, $MG and $TMP).

echo "== the main job: every registered variant, quick profile"
expect "make verify: correct variants pass, known-bad ones fail as expected" 0 \
	"^[0-9]+ variants: [0-9]+ passed, [0-9]+ failed as expected, [0-9]+ skipped, 0 unexpected$" \
	$MG verify --findings="$TMP/findings"
