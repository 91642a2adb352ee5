# .clusterfuzzlite/build.sh, the ClusterFuzzLite/OSS-Fuzz build, run with
# the environment OSS-Fuzz's compile step would give it, once per engine
# (no Docker here); then each target it built replays its seed corpus.
# Sourced by tests/run (uses expect, pass, fail, $TMP).

echo "== ClusterFuzzLite build (.clusterfuzzlite/build.sh), one per engine"

CFL=$TMP/cflite
CFL_BASE="-O1 -fno-omit-frame-pointer -gline-tables-only"
CFL_ASAN="-fsanitize=address -fsanitize-address-use-after-scope"
# OSS-Fuzz's SANITIZER_FLAGS_undefined: unsigned overflow is checked but
# recoverable, and UBSAN_OPTIONS=silence_unsigned_overflow=1 hides it (the
# harness's RNG, fill seeds and alignment arithmetic wrap on purpose).
CFL_UB_CHECKS=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr
CFL_UBSAN="-fsanitize=$CFL_UB_CHECKS,unsigned-integer-overflow -fno-sanitize-recover=$CFL_UB_CHECKS"
CFL_UBSAN_OPTIONS=print_stacktrace=1:print_summary=1:silence_unsigned_overflow=1:halt_on_error=1

# cflite_build NAME CC CXX CFLAGS LIB_FUZZING_ENGINE SANITIZER FUZZING_ENGINE:
# build.sh into $CFL/NAME/out, then check what it left there. build.sh
# does not use $SRC (it builds the current directory) but OSS-Fuzz sets it.
cflite_build() {
	local name=$1 out=$CFL/$1/out family
	env CC="$2" CXX="$3" CFLAGS="$4" CXXFLAGS="$4" LIB_FUZZING_ENGINE="$5" \
		SANITIZER="$6" FUZZING_ENGINE="$7" ARCHITECTURE=x86_64 \
		SRC="$PWD" OUT="$out" WORK="$CFL/$name/work" \
		bash .clusterfuzzlite/build.sh || return
	for family in memcpy memmove memset page; do
		[ -x "$out/fuzz_$family" ] || { echo "no $out/fuzz_$family"; return 1; }
		grep -qx 'max_len = 64' "$out/fuzz_$family.options" ||
			{ echo "no max_len in fuzz_$family.options"; return 1; }
		mkdir -p "$CFL/$name/seeds/$family"
		unzip -qo "$out/fuzz_${family}_seed_corpus.zip" -d "$CFL/$name/seeds/$family" ||
			return 1
	done
	echo "built 4 targets with seeds and options"
}

# cflite_expect_build NAME DESCRIPTION BUILD-ARGS...: the build passes; the
# seconds it took are printed, as they depend on the engine and the load.
cflite_expect_build() {
	local name=$1 what=$2 start=$SECONDS
	shift 2
	expect "cflite build: $what" 0 "^built 4 targets" cflite_build "$name" "$@"
	echo "   ($name: build.sh took $((SECONDS - start)) s)"
}

# cflite_replay NAME PATTERN HOW [ENV-ARGS...]: each target of the NAME
# build runs its seeds, under `env ENV-ARGS`, and exits 0 (a finding
# aborts) printing PATTERN. HOW is libfuzzer (-runs=0 on the directory) or
# files (the seed files as arguments, for the other drivers).
cflite_replay() {
	local name=$1 pattern=$2 how=$3 family target seeds
	shift 3
	for family in memcpy memmove memset page; do
		target=$CFL/$name/out/fuzz_$family
		seeds=$CFL/$name/seeds/$family
		if [ "$how" = libfuzzer ]; then
			expect "cflite $name fuzz_$family replays its seed corpus clean" 0 "$pattern" \
				env "$@" "$target" -runs=0 "$seeds"
		else
			expect "cflite $name fuzz_$family replays its seed corpus clean" 0 "$pattern" \
				env "$@" find "$seeds" -type f -exec "$target" {} +
		fi
	done
}

# A standalone engine: runs each file argument once, no fuzzing, as
# OSS-Fuzz's FUZZING_ENGINE=none build does. Each input goes in a buffer
# of its exact size, so a read past its end is a real overread.
cflite_standalone_driver() {
	mkdir -p "$CFL/driver"
	cat >"$CFL/driver/main.c" <<-'EOF'
		#include <stdint.h>
		#include <stdio.h>
		#include <stdlib.h>

		int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
		__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

		int main(int argc, char **argv)
		{
			if (LLVMFuzzerInitialize)
				LLVMFuzzerInitialize(&argc, &argv);
			for (int i = 1; i < argc; i++) {
				FILE *in = fopen(argv[i], "rb");
				long size;
				uint8_t *data;

				if (!in || fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0) {
					perror(argv[i]);
					return 1;
				}
				rewind(in);
				data = malloc(size ? (size_t)size : 1);
				if (!data || fread(data, 1, (size_t)size, in) != (size_t)size) {
					perror(argv[i]);
					return 1;
				}
				fclose(in);
				LLVMFuzzerTestOneInput(data, (size_t)size);
				free(data);
			}
			printf("standalone: ran %d inputs\n", argc - 1);
			return 0;
		}
	EOF
	clang -O1 -c -o "$CFL/driver/main.o" "$CFL/driver/main.c" &&
		ar rcs "$CFL/driver/libstandalone.a" "$CFL/driver/main.o"
}

# Four full builds: about 70 s of CPU on an idle 2-core machine, several
# minutes on a loaded one. MEMGATE_SKIP_CFLITE=1 leaves them out.
if [ "${MEMGATE_SKIP_CFLITE:-0}" = 1 ]; then
	echo "SKIP ClusterFuzzLite build: MEMGATE_SKIP_CFLITE=1"
	return 0
fi
if ! command -v clang >/dev/null || ! command -v zip >/dev/null || ! command -v unzip >/dev/null; then
	echo "SKIP ClusterFuzzLite build: needs clang, zip and unzip"
	return 0
fi

cflite_expect_build libfuzzer-address "libFuzzer + ASan" clang clang++ \
	"$CFL_BASE $CFL_ASAN -fsanitize=fuzzer-no-link" -fsanitize=fuzzer address libfuzzer
# ASAN_OPTIONS left at the defaults.
cflite_replay libfuzzer-address "^Done [0-9]+ runs" libfuzzer -u ASAN_OPTIONS
if [ -f "$CFL/libfuzzer-address/seeds/memcpy/len4096.in" ] &&
	compgen -G "$CFL/libfuzzer-address/seeds/memcpy/bad_memcpy_tail_overwrite-*" >/dev/null; then
	pass "cflite seed corpus holds the seeds and the regression inputs"
else
	fail "cflite seed corpus holds the seeds and the regression inputs" \
		"len4096.in or bad_memcpy_tail_overwrite-* missing from fuzz_memcpy_seed_corpus.zip"
fi

cflite_expect_build libfuzzer-undefined "libFuzzer + UBSan (OSS-Fuzz's checks)" clang clang++ \
	"$CFL_BASE $CFL_UBSAN -fsanitize=fuzzer-no-link" -fsanitize=fuzzer undefined libfuzzer
cflite_replay libfuzzer-undefined "^Done [0-9]+ runs" libfuzzer UBSAN_OPTIONS=$CFL_UBSAN_OPTIONS

if command -v afl-clang-fast >/dev/null && [ -f /usr/lib/afl/libAFLDriver.a ]; then
	cflite_expect_build afl-address "AFL++ + ASan" afl-clang-fast afl-clang-fast++ "$CFL_BASE $CFL_ASAN" \
		/usr/lib/afl/libAFLDriver.a address afl
	# Outside afl-fuzz, AFL++'s driver runs the files it is given.
	cflite_replay afl-address "Reading [0-9]+ bytes from" files -u ASAN_OPTIONS
else
	echo "SKIP cflite AFL++ build: afl-clang-fast or /usr/lib/afl/libAFLDriver.a is missing"
fi

if cflite_standalone_driver; then
	cflite_expect_build standalone "standalone driver, no sanitizer" clang clang++ "$CFL_BASE" \
		"$CFL/driver/libstandalone.a" none none
	cflite_replay standalone "^standalone: ran [0-9]+ inputs$" files
else
	fail "cflite standalone driver" "does not compile"
fi
