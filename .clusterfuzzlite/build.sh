#!/bin/bash
# ClusterFuzzLite / OSS-Fuzz build of memgate's fuzz targets.
#
# Runs in the repository (the Dockerfile's WORKDIR) with the environment the
# OSS-Fuzz `compile` step provides: CC, CXX, CFLAGS, CXXFLAGS (sanitizer and
# coverage flags included), LIB_FUZZING_ENGINE, FUZZING_ENGINE, SANITIZER,
# OUT and WORK. The same script serves libFuzzer, AFL++ and a standalone
# driver: only those variables change. It writes to $OUT, for each family:
#   fuzz_FAMILY                  the target (targets/fuzz_entry.c + fuzz_FAMILY.c)
#   fuzz_FAMILY_seed_corpus.zip  corpus/FAMILY/ and corpus/regressions/FAMILY/
#   fuzz_FAMILY.options          libFuzzer settings
# There is no .dict: an input is 24 bytes of binary fields
# (harness/fuzz/decode.h), with no tokens or keywords a dictionary could offer.
#
# The targets are the Makefile's `oss` fuzz flavor (`make oss-fuzz-build`):
# the same sources as every other build, with OSS-Fuzz's compilers and flags.
set -eu

: "${CC:?}" "${CXX:?}" "${OUT:?}" "${LIB_FUZZING_ENGINE?}"
FUZZING_ENGINE=${FUZZING_ENGINE:-libfuzzer}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$OUT" "$WORK"
# Absolute, as the zips run in other directories.
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)
FAMILIES="memcpy memmove memset page"

if [ ! -f harness/fuzz/decode.h ]; then
	echo "build.sh: run me from the memgate repository (the Dockerfile's WORKDIR)" >&2
	exit 1
fi

# The seed corpus of FAMILY: its seeds, and the regression inputs filed
# under it. Unpinned, a regression input is an ordinary case the correct
# variants pass (make check replays them so), and each one reached an edge
# some variant got wrong. Regression files are renamed VARIANT-FILE, as two
# variants may have inputs of the same name.
seed_zip() {
	local family=$1 stage=$WORK/seeds/$1 zip=$OUT/fuzz_$1_seed_corpus.zip f variant
	rm -rf "$stage" "$zip"
	mkdir -p "$stage"
	cp "corpus/$family"/* "$stage/"
	for f in "corpus/regressions/$family"/*/*; do
		[ -f "$f" ] || continue
		variant=$(basename "$(dirname "$f")")
		cp "$f" "$stage/$variant-$(basename "$f")"
	done
	(cd "$stage" && zip -q -X "$zip" ./*)
}

# libFuzzer settings. An input is 24 bytes (decode.h ignores what comes
# before them), so 64 leaves room. The harness's own watchdog stops a
# variant after about 1 s (plus 1 ms per 4 KiB) and reports a timeout
# finding; 25 s is well above it, for the slowest sanitizer builds.
options_file() {
	cat >"$OUT/fuzz_$1.options" <<-EOF
		[libfuzzer]
		max_len = 64
		timeout = 25
	EOF
}

main() {
	local family
	make -j"$(nproc 2>/dev/null || echo 2)" --no-print-directory oss-fuzz-build \
		OSS_DIR="$WORK/memgate" CC="$CC" CXX="$CXX" CFLAGS="${CFLAGS-}" \
		CXXFLAGS="${CXXFLAGS-}" LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
		FUZZING_ENGINE="$FUZZING_ENGINE"
	for family in $FAMILIES; do
		cp "$WORK/memgate/fuzz_$family" "$OUT/"
		seed_zip "$family"
		options_file "$family"
	done
}

main
