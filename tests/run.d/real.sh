# Real code as it lives in its tree (issue 16): libc.a members with several
# entry points, objects, a tree's -I/-D flags, mempcpy, local symbols.
# Sourced by tests/run (uses expect, expect_all, usage_error, $MG, $TMP).

echo "== real code: objects, archive members, tree flags, several entry points"
LIBC_A=/usr/lib/x86_64-linux-gnu/libc.a
REAL_FLAGS=(--quick --skip=huge,fuzz --no-bench --seconds=120)

expect "mempcpy: an op of its own, its broken variant caught as wrong-return" 0 \
	"^bad_mempcpy_returns_dst .*FAIL \(expected\) .* wrong-return: " \
	$MG verify --variant=mempcpy_libc,bad_mempcpy_returns_dst --profile=quick --huge=off --timeout-ms=200
expect "mempcpy: the diagnosis says dst + n" 1 "^verdict: wrong-return: returned dst\+0, want dst\+255" \
	$MG run --variant=bad_mempcpy_returns_dst --len=255

# A tree's file: its header through -I, its name and return through -D.
expect_all "gate: -I and -D reach a tree's .S; a mempcpy is accepted" 0 \
	"^ACCEPTED.*: tree_mempcpy passed" -- \
	scripts/gate "${REAL_FLAGS[@]}" --op mempcpy --symbol tree_mempcpy -I tests/gate/tree/include \
	-D COPY_NAME=tree_mempcpy -DRETURN_END=1 tests/gate/tree/tree_copy.S
expect "gate: the same file returning dst is a wrong-return mempcpy" 1 \
	"wrong-return: returned dst\+0, want dst\+" \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind,regressions --op mempcpy --symbol tree_mempcpy \
	--cflags "-Itests/gate/tree/include -DCOPY_NAME=tree_mempcpy -DRETURN_END=0" tests/gate/tree/tree_copy.S
expect "gate: without -I the tree's file does not build" 2 "tree_linkage.h" \
	scripts/gate "${REAL_FLAGS[@]}" --op mempcpy --symbol tree_mempcpy -DCOPY_NAME=tree_mempcpy \
	tests/gate/tree/tree_copy.S
usage_error "gate: a local symbol is named in the error" \
	"symbol 'copy_bytes' is local in tests/gate/tree/tree_copy.S \(a static function" \
	scripts/gate --op memcpy --symbol copy_bytes -Itests/gate/tree/include -DCOPY_NAME=tree_copy \
	-DRETURN_END=0 tests/gate/tree/tree_copy.S
usage_error "gate: --entry with --op" "--entry OP=SYMBOL names each entry point" \
	scripts/gate --op memcpy --entry memcpy=x tests/gate/bytecopy.c
usage_error "gate: --entry without OP=" "--entry 'memfrob=x' is not OP=SYMBOL" \
	scripts/gate --entry memfrob=x tests/gate/bytecopy.c
usage_error "gate: an archive without that member" "has no member nope.o" \
	scripts/gate --op memcpy "$LIBC_A(nope.o)"

# An object file, as it is.
cc -O2 -c -o "$TMP/bytecopy.o" tests/gate/bytecopy.c
expect "gate: an object file is taken as it is" 0 "^ACCEPTED.*: bytecopy passed" \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind --op memcpy "$TMP/bytecopy.o"

# glibc's own member, three entry points, glibc's tuning data by default.
if [ -r "$LIBC_A" ] && ar t "$LIBC_A" | grep -qx memmove-avx-unaligned-erms.o && grep -qw avx /proc/cpuinfo; then
	expect_all "gate: libc.a's memmove-avx-unaligned-erms.o, three entry points, one verdict each" 0 \
		"^memmove=__memmove_avx_unaligned_erms: ACCEPTED" "^memcpy=__memcpy_avx_unaligned_erms: ACCEPTED" \
		"^mempcpy=__mempcpy_avx_unaligned_erms: ACCEPTED" "^ACCEPTED: all 3 entry points" -- \
		scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind --requires=avx \
		--entry memmove=__memmove_avx_unaligned_erms --entry memcpy=__memcpy_avx_unaligned_erms \
		--entry mempcpy=__mempcpy_avx_unaligned_erms --report "$TMP/real.json" --junit "$TMP/real.xml" \
		"$LIBC_A(memmove-avx-unaligned-erms.o)"
	expect "gate: the report of several entries holds each one's" 0 "^3 accepted$" \
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="memgate-gate-run/1"; print(sum(e["verdict"]=="accepted" for e in d["entries"]), d["verdict"])' "$TMP/real.json"
	usage_error "gate: a datum not in the table is refused with its name" \
		"references symbols it does not define: mg_unknown_datum \(" \
		bash -c "printf 'extern long __x86_shared_non_temporal_threshold; extern long mg_unknown_datum;\nvoid *c(void *d, const void *s, unsigned long n) { (void)n; return __x86_shared_non_temporal_threshold == mg_unknown_datum ? (void *)s : d; }\n' >'$TMP/datum.c'; scripts/gate --op memcpy --symbol c '$TMP/datum.c'"
else
	skip "gate: libc.a members" "no x86-64 libc.a with memmove-avx-unaligned-erms.o, or no AVX"
fi
