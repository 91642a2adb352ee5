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
# There is no .dict: an input is 24 bytes of binary fields (harness/decode.h),
# with no tokens or keywords a dictionary could offer.
#
# It mirrors the Makefile's fuzz-build, without make and without -Werror
# (the compilers OSS-Fuzz uses vary), and with OSS-Fuzz's flags instead of
# the Makefile's.
set -eu

: "${CC:?}" "${CXX:?}" "${OUT:?}" "${LIB_FUZZING_ENGINE?}"
CFLAGS=${CFLAGS-}
CXXFLAGS=${CXXFLAGS-}
FUZZING_ENGINE=${FUZZING_ENGINE:-libfuzzer}
WORK=${WORK:-$(mktemp -d)}
# Absolute, as the compiles and the zips run in other directories.
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)

FAMILIES="memcpy memmove memset page"
ARCH=$(uname -m)
OBJ=$WORK/memgate-obj
DEFINES="-std=c11 -D_GNU_SOURCE -pthread"
REPO=$PWD
# Absolute: the compiler runs in the object directories.
INCLUDES="-I$REPO/harness -I$REPO/reference -I$REPO/tests/bad -I$REPO/targets"
JOBS=$(nproc 2>/dev/null || echo 2)
BATCH=8

if [ ! -f harness/decode.h ]; then
	echo "build.sh: run me from the memgate repository (the Dockerfile's WORKDIR)" >&2
	exit 1
fi
if [ ! -f "harness/abi_$ARCH.S" ]; then
	echo "build.sh: memgate has no harness for $ARCH" >&2
	exit 1
fi

# The engine without the memgate command line (the Makefile's ENGINE_SRC):
# the portable harness files plus this architecture's parts.
engine_sources() {
	local f
	for f in harness/*.c; do
		case $f in
		harness/main.c | harness/cmd_*.c | harness/cpu_*.c | harness/fault_*.c | harness/abi_*.c) ;;
		*) echo "$f" ;;
		esac
	done
	echo harness/cpu_x86.c harness/fault_x86.c harness/abi_x86.c "harness/abi_$ARCH.S"
	echo targets/fuzz_entry.c
}

# What the harness checks: references, variants and the known-bad variants
# (a target leaves those out unless pinned to one).
checked_sources() {
	ls reference/*.c impls/generic/*.c tests/bad/generic/*.c 2>/dev/null || true
	ls "impls/$ARCH"/*.c "impls/$ARCH"/*.S 2>/dev/null || true
	ls "tests/bad/$ARCH"/*.c "tests/bad/$ARCH"/*.S 2>/dev/null || true
}

# The flags for one source file. The harness's own compares tell libFuzzer
# nothing about the variants and cost time on every input, so only the
# decoder keeps trace-cmp (as in the Makefile). References and variants get
# -fno-builtin so that their byte loops stay loops, not calls to what they
# are checked against.
flags_for() {
	case $1 in
	*.S) ;; # assembled as is: no sanitizer or coverage flags apply
	harness/decode.c | targets/*.c) echo "$CFLAGS $DEFINES $INCLUDES" ;;
	harness/*.c)
		echo "$CFLAGS $DEFINES $INCLUDES"
		[ "$FUZZING_ENGINE" != libfuzzer ] || echo -fno-sanitize-coverage=trace-cmp
		;;
	*.c) echo "$CFLAGS $DEFINES $INCLUDES -fno-builtin" ;;
	esac
}

# Starting the compiler is most of the cost of these small files, so each
# run compiles a batch of up to $BATCH files that share a directory and
# flags, inside that directory's object directory (where `-c` leaves the
# objects). Batches run in the background, at most $JOBS at once; a failed
# one fails the build at the next wait.
pids=()
# throttle PID: note a background job; wait for the oldest when $JOBS run.
throttle() {
	pids+=("$1")
	if [ "${#pids[@]}" -ge "$JOBS" ]; then
		wait "${pids[0]}"
		pids=("${pids[@]:1}")
	fi
}
compile_batch() {
	local dir=$1 first=$2
	shift
	mkdir -p "$OBJ/$dir"
	# shellcheck disable=SC2046 # the flags are meant to split into words
	(cd "$OBJ/$dir" && $CC $(flags_for "$first") -c "${@/#/$REPO/}") &
	throttle $!
}
wait_all() {
	local pid
	for pid in "${pids[@]}"; do wait "$pid"; done
	pids=()
}

# compile_all FILE...: every file, in batches of consecutive files with the
# same directory and flags.
compile_all() {
	local f key last='' batch=()
	for f in "$@"; do
		key="$(dirname "$f") $(flags_for "$f")"
		if [ "${#batch[@]}" -gt 0 ] && { [ "$key" != "$last" ] || [ "${#batch[@]}" -ge "$BATCH" ]; }; then
			compile_batch "$(dirname "${batch[0]}")" "${batch[@]}"
			batch=()
		fi
		batch+=("$f")
		last=$key
	done
	[ "${#batch[@]}" -eq 0 ] || compile_batch "$(dirname "${batch[0]}")" "${batch[@]}"
	wait_all
}

objects_of() {
	local f
	for f in "$@"; do echo "$OBJ/${f%.*}.o"; done
}

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

# link FAMILY: the target, linked by the C++ driver as OSS-Fuzz does (the
# engines are C++), in the background like the compiles.
link() {
	local family=$1
	# shellcheck disable=SC2046,SC2086 # lists and flags split into words
	$CXX $CXXFLAGS -pthread -o "$OUT/fuzz_$family" \
		$(objects_of $ENGINE_SRC $CHECKED_SRC "targets/fuzz_$family.c") $LIB_FUZZING_ENGINE &
	throttle $!
}

main() {
	local family
	ENGINE_SRC=$(engine_sources)
	CHECKED_SRC=$(checked_sources)
	mkdir -p "$OBJ"

	# shellcheck disable=SC2046,SC2086 # file lists split on whitespace; no names have spaces
	compile_all $ENGINE_SRC $CHECKED_SRC $(printf 'targets/fuzz_%s.c\n' $FAMILIES)
	for family in $FAMILIES; do
		link "$family"
		seed_zip "$family"
		options_file "$family"
	done
	wait_all
}

main
