# The numbers a machine hands the routine (issue 27; docs/tunables.md): the
# data symbols a submission reads, found from its relocations, and glibc's
# producer model choosing the value sets it runs under, by release.
# - a memset assuming 128 bytes of shared cache is rejected under glibc
#   2.34, naming the machine without cache leaves (QEMU/TCG) that gives 0,
#   and accepted with the warning fragile-tunable under 2.36 (which keeps
#   its 1 MiB default there): no --extern;
# - a memcpy needing a non-temporal threshold of 16448 is rejected only
#   where a release and machine give less (2.36's, not 2.38's or Debian
#   12's);
# - gate.json lists what it reads and the values of every run; the table
#   lists an --extern datum read with its value per run.
# About three and a half minutes (five gates of ten value sets each, the sweep quick).
# Sourced by tests/run (uses expect, expect_all, usage_error, caught, skip, $MG, $TMP).

echo "== tunables: glibc's producer model"
if [ "$(uname -m)" != x86_64 ]; then
	skip "tunables" "the glibc producer model is x86-64's, and this machine is $(uname -m)"
	return 0
fi
# Each further value set gets 1 part of --seconds, the first 4, and a set
# whose part would be under 6 s is left out: 80 s holds the eleven sets of
# these routines (6.1 s each).
tu_gate() {
	scripts/gate --quick --seconds=80 --skip=fuzz,valgrind,bench,huge "$@"
}
caught bad_memset_cache128 crash "SIGFPE" --len=1
caught bad_memcpy_nt16448 out-of-bounds-read "src, 1 byte past the end" --len=0
expect_all "gate: 128 bytes of shared cache assumed: rejected under glibc 2.34, naming QEMU/TCG" 1 \
	"^data symbols read \(from its relocations\): __x86_shared_cache_size$" \
	"^  qemu-tcg, hypervisor-zero-cache.*: __x86_shared_cache_size=0$" \
	"^1\. \[sweep\] crash: SIGFPE .*\(qemu-tcg, hypervisor-zero-cache" \
	"^REJECTED: mg_x86_64_bad_memset_cache128" -- \
	tu_gate --op memset --glibc-version 2.34 --symbol mg_x86_64_bad_memset_cache128 \
	tests/bad/x86_64/bad_memset_cache128.c
expect_all "gate: the same under glibc 2.36: accepted, fragile-tunable at 0" 0 \
	"^warning \[sweep\] fragile-tunable: fails with __x86_shared_cache_size=0, a boundary value no modelled producer gives" \
	"^ACCEPTED \(.*fragile-tunable.*\): mg_x86_64_bad_memset_cache128" -- \
	tu_gate --op memset --glibc-version 2.36 --report="$TMP/tun.json" --symbol mg_x86_64_bad_memset_cache128 \
	tests/bad/x86_64/bad_memset_cache128.c
expect "gate.json: what it reads, the release, the values of each run" 0 "^ok$" \
	jq -r 'if .data_symbols.reads == ["__x86_shared_cache_size"] and .data_symbols.glibc_version == "2.36"
		and ([.data_symbols.sets[] | select(.kind == "boundary") | .values.__x86_shared_cache_size] | index(0)) != null
		and ([.data_symbols.sets[] | select(.kind == "produced") | .values.__x86_shared_cache_size] | min) >= 128
		and ([.warnings[] | select(.name == "fragile-tunable")] | length) >= 1
		then "ok" else . end' "$TMP/tun.json"
expect_all "gate: a 16448-byte non-temporal threshold needed: rejected under glibc 2.36" 1 \
	"^[0-9]+\. \[sweep\] out-of-bounds-(read|write): .*\(qemu-tcg, hypervisor-zero-cache\)$" \
	"^REJECTED: mg_x86_64_bad_memcpy_nt16448" -- \
	tu_gate --op memcpy --glibc-version 2.36 --symbol mg_x86_64_bad_memcpy_nt16448 \
	tests/bad/x86_64/bad_memcpy_nt16448.c
for tu_v in 2.38 2.36-deb12; do
	expect "gate: the same under glibc $tu_v (which clamps it to 16448): accepted, fragile-tunable" 0 \
		"^ACCEPTED \(.*fragile-tunable.*\): mg_x86_64_bad_memcpy_nt16448" \
		tu_gate --op memcpy --glibc-version "$tu_v" --symbol mg_x86_64_bad_memcpy_nt16448 \
		tests/bad/x86_64/bad_memcpy_nt16448.c
done
expect_all "gate: an --extern datum read is listed with its value in each run" 0 \
	"^data symbols read \(from its relocations\): copy_threshold$" \
	"^  copy_threshold=16: copy_threshold=16$" "^  copy_threshold=0x100000: copy_threshold=0x100000$" -- \
	scripts/gate --op memcpy --quick --seconds=20 --skip=fuzz,valgrind,bench,huge \
	--extern copy_threshold=16,0x100000 tests/gate/extern_threshold.c
usage_error "gate: a glibc the model does not know is bad usage" \
	"^gate: --glibc-version: glibc version '2.32': the model knows 2.33 to 2.41 and 2.36-deb12" \
	scripts/gate --op memset --glibc-version 2.32 tests/bad/x86_64/bad_memset_cache128.c
