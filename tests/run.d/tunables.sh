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
# - glibc's own i686 SSE2 memset (Debian's libc.a) under i386's model: the
#   same, rejected under 2.34 and accepted with the warning under 2.36;
# - gate.json lists what it reads and the values of every run; the table
#   lists an --extern datum read with its value per run.
# About three minutes (seven gates of ten value sets each, the sweep smoke).
# Sourced by tests/run (uses expect, expect_all, usage_error, caught, skip, $MG, $TMP).

echo "== tunables: glibc's producer model"
if [ "$(uname -m)" != x86_64 ]; then
	skip "tunables" "these tests gate x86-64 routines, and this machine is $(uname -m)"
	return 0
fi
# Every value set runs, in turn under the one deadline. The smoke sweep:
# what is tested is which sets run and what each finds (each set is a
# build of its own, which is most of what the group costs).
tu_gate() {
	scripts/gate --profile=smoke --skip=fuzz,valgrind,bench,huge "$@"
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
	"^  copy_threshold=16$" "^  copy_threshold=0x100000$" -- \
	scripts/gate --op memcpy --profile=smoke --skip=fuzz,valgrind,bench,huge \
	--extern copy_threshold=16,0x100000 tests/gate/extern_threshold.c
# Lengths around the thresholds (item 3): a path that starts at a value the
# routine reads is entered by the lengths next to it, which the profile's
# powers of two miss unless the value is next to one.
# The fuzzers start from inputs at those lengths: the seeds' screening finds
# it as well, whatever the fuzzers then do in their seconds.
expect_all "gate: a tail wrong from its threshold to 63 past it is rejected at the threshold's length" 1 \
	"^sweep +FAIL .*; lengths around the values it reads: 0xc350$" \
	"^1\. \[sweep\] wrong-result: dst\[4999[0-9]\] .* of 500[0-6][0-9] bytes wrong" \
	"^fuzz +FAIL .*; seeded at the lengths next to the values it reads$" \
	"^[0-9]+\. \[fuzz\] wrong-result: " "^REJECTED: threshold_window" -- \
	scripts/gate --op memcpy --quick --skip=valgrind,bench,huge --report="$TMP/window.json" \
	--extern copy_threshold=50000 tests/gate/threshold_window.c
tu_build=$(jq -r '.findings[0].repro | capture("MEMGATE_BUILD=(?<b>[^ ]+)").b' "$TMP/window.json" 2>/dev/null)
expect "gate: the profile's own lengths miss it: the same build passes without --thresholds" 0 \
	"^1 variants: 1 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
	"${tu_build:-build/gate/no-such-build}/memgate" verify --variant=threshold_window --huge=off --expect=pass \
	--findings="$TMP/window-verify"
# The random driver (the fuzz check where no fuzzer runs) moves one case in
# four next to a threshold: seeded, the same 4000 cases find it with them
# and not without.
expect "random: --thresholds moves cases next to the threshold, and finds it" 1 \
	"^random: 4000 cases .*: 1 finding " "${tu_build:-build/gate/no-such-build}/random" \
	--variant=threshold_window --cases=4000 --seed=1 --findings="$TMP/window-random" --thresholds=50000
expect "random: the same cases without --thresholds find nothing" 0 "^random: 4000 cases .*: 0 findings " \
	"${tu_build:-build/gate/no-such-build}/random" --variant=threshold_window --cases=4000 --seed=1 \
	--findings="$TMP/window-random0"
usage_error "memgate verify: a threshold that is not a number is bad usage" \
	"^memgate verify: bad value 'x' for --thresholds" $MG verify --thresholds=1,x
# Other numbers (item 4): a range declared with --extern NAME=LO..HI runs
# its ends, the values next to them and the powers of two between; the
# 64-byte-block path is wrong for a threshold below 64 only.
expect_all "gate: --extern NAME=LO..HI runs its ends and between: rejected at 32 and 33, accepted from 64" 1 \
	"^bad_nt_threshold over its declared range 32..128: its ends, the values next to them and powers of two between \(32, 33, 64, 127, 128\)$" \
	"^  bad_nt_threshold=32: REJECTED" "^  bad_nt_threshold=33: REJECTED" "^  bad_nt_threshold=64: ACCEPTED" \
	"^  bad_nt_threshold=128: ACCEPTED" "^REJECTED: mg_generic_bad_memcpy_nt_threshold" -- \
	scripts/gate --op memcpy --profile=smoke --skip=fuzz,huge,valgrind,regressions --no-bench \
	--extern bad_nt_threshold=32..128 --symbol=mg_generic_bad_memcpy_nt_threshold \
	tests/bad/generic/bad_memcpy_nt_threshold.c
usage_error "gate: a range whose ends are the wrong way round is bad usage" \
	"^gate: --extern copy_threshold=9..8: a range LO..HI needs LO below HI$" \
	scripts/gate --op memcpy --extern copy_threshold=9..8 tests/gate/extern_threshold.c
# i386's model (a 32-bit `long`): Debian's own i686 SSE2 memset, from
# libc6-dev-i386's libc.a, clears in blocks sized from the shared cache and
# assumes 128 bytes of it (BZ 28784): glibc 2.34 hands it 0 on QEMU/TCG,
# Debian 12's glibc keeps its 1 MiB default there.
tu_libc32=/usr/lib32/libc.a
if ! arch_usable i386 "tunables: i386's model" tu_why; then
	:
elif [ ! -f "$tu_libc32" ]; then
	skip "tunables: i386's model" "$tu_libc32 is missing (libc6-dev-i386)"
else
	expect_all "gate: Debian's i686 SSE2 memset under glibc 2.34's i386 model: rejected, naming QEMU/TCG" 1 \
		"^glibc 2.34's producer model \(i386\): " \
		"^  qemu-tcg, hypervisor-zero-cache: __x86_data_cache_size=0, __x86_shared_cache_size=0$" \
		"^[0-9]+\. \[sweep\] out-of-bounds-write: dst, .*\(qemu-tcg, hypervisor-zero-cache\)$" \
		"^REJECTED: __memset_sse2, 1 finding" -- \
		tu_gate --arch i386 --op memset --requires sse2 --glibc-version 2.34 --symbol __memset_sse2 \
		"$tu_libc32(memset-sse2.o)"
	expect_all "gate: the same under Debian 12's glibc: accepted, fragile-tunable at 0" 0 \
		"^glibc 2.36-deb12's producer model \(i386\): " \
		"^warning \[sweep\] fragile-tunable: fails with __x86_data_cache_size=0, __x86_shared_cache_size=0, " \
		"^ACCEPTED \(smoke sweep; [a-z, ]*interrupts[a-z, ]* n/a in boundary 0, .*fragile-tunable.*\): __memset_sse2" -- \
		tu_gate --arch i386 --op memset --requires sse2 --glibc-version 2.36-deb12 --symbol __memset_sse2 \
		"$tu_libc32(memset-sse2.o)"
fi
usage_error "gate: a glibc the model does not know is bad usage" \
	"^gate: --glibc-version: glibc version '2.32': the model knows 2.33 to 2.41 and 2.36-deb12" \
	scripts/gate --op memset --glibc-version 2.32 tests/bad/x86_64/bad_memset_cache128.c
