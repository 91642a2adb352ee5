# Real code as it lives in its tree (issue 16): libc.a members with several
# entry points, objects, a tree's -I/-D flags, mempcpy, local symbols.
# Sourced by tests/run (uses expect, expect_all, usage_error, $MG, $TMP).

echo "== real code: objects, archive members, tree flags, several entry points"
LIBC_A=/usr/lib/x86_64-linux-gnu/libc.a
# --skip is each test's own: the gate takes a flag once. 120+: these test
# what a real object is judged, not the budget (gate_budget.sh does), and
# at make check's load a program got 30% of a core and the three-entry
# member's needs grew to 144 s: 120 alone was refused.
REAL_FLAGS=(--quick --no-bench)

expect "mempcpy: an op of its own, its broken variant caught as wrong-return" 0 \
	"^bad_mempcpy_returns_dst .*FAIL \(expected\) .* wrong-return: " \
	$MG verify --variant=mempcpy_libc,bad_mempcpy_returns_dst --profile=quick --huge=off --timeout-ms=200
expect "mempcpy: the diagnosis says dst + n" 1 "^verdict: wrong-return: returned dst\+0, want dst\+255" \
	$MG run --variant=bad_mempcpy_returns_dst --len=255

# A tree's file: its header through -I, its name and return through -D.
expect_all "gate: -I and -D reach a tree's .S; a mempcpy is accepted" 0 \
	"^ACCEPTED.*: tree_mempcpy passed" -- \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz --op mempcpy --symbol tree_mempcpy -I tests/gate/tree/include \
	-D COPY_NAME=tree_mempcpy -DRETURN_END=1 tests/gate/tree/tree_copy.S
expect "gate: the same file returning dst is a wrong-return mempcpy" 1 \
	"wrong-return: returned dst\+0, want dst\+" \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind,regressions --op mempcpy --symbol tree_mempcpy \
	--cflags "-Itests/gate/tree/include -DCOPY_NAME=tree_mempcpy -DRETURN_END=0" tests/gate/tree/tree_copy.S
expect "gate: without -I the tree's file does not build" 2 "tree_linkage.h" \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz --op mempcpy --symbol tree_mempcpy -DCOPY_NAME=tree_mempcpy \
	tests/gate/tree/tree_copy.S
# The kernel's memcpy_orig is a local label: the gate takes it, and says so.
expect_all "gate: a local symbol (the kernel's memcpy_orig) is an entry point, and the report says so" 0 \
	"^build .*entry point memcpy_orig \(a local symbol, made global for the harness\)" \
	"^ACCEPTED.*: memcpy_orig passed" -- \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind --op memcpy --symbol memcpy_orig \
	--report "$TMP/local.json" tests/gate/kernel_local.S
expect "gate: the JSON report names the entry's binding" 0 "^local$" \
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["symbol_binding"])' "$TMP/local.json"
sed 's/kmemcpy/kmemcpy2/g' tests/gate/kernel_local.S >"$TMP/kernel_local2.S"
usage_error "gate: a local symbol defined in two files is named in the error" \
	"symbol 'memcpy_orig' is local in .* and defined 2 times .*ambiguous" \
	scripts/gate --op memcpy --symbol memcpy_orig tests/gate/kernel_local.S "$TMP/kernel_local2.S"
usage_error "gate: --entry with --op" "--entry OP=SYMBOL names each entry point" \
	scripts/gate --op memcpy --entry memcpy=x tests/gate/bytecopy.c
usage_error "gate: --entry without OP=" "--entry 'memfrob=x' is not OP=SYMBOL" \
	scripts/gate --entry memfrob=x tests/gate/bytecopy.c
usage_error "gate: an archive without that member" "has no member nope.o" \
	scripts/gate --op memcpy "$LIBC_A(nope.o)"

# A failure function that never returns (glibc's _chk entries call
# __chk_fail): linked to the harness's stub, so reaching it is a finding
# that names it, and the JSON has the name as data.
expect_all "gate: a routine that calls __chk_fail is rejected, the finding names the call" 1 \
	"^1\. \[sweep\] crash: called __chk_fail, a failure function that does not return" \
	"^REJECTED: calls_chk_fail" -- \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind,regressions --op memcpy \
	--report "$TMP/chk.json" tests/gate/calls_chk_fail.c
expect "gate: the finding's record says which function was called" 0 "^__chk_fail called __chk_fail$" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["findings"][0].get("called"), d["findings"][0].get("site"))' "$TMP/chk.json"

# An object file, as it is.
cc -O2 -c -o "$TMP/bytecopy.o" tests/gate/bytecopy.c
expect "gate: an object file is taken as it is" 0 "^ACCEPTED.*: bytecopy passed" \
	scripts/gate "${REAL_FLAGS[@]}" --skip=huge,fuzz,valgrind --op memcpy "$TMP/bytecopy.o"

# glibc's own member, three entry points, glibc's tuning data by default:
# every value set runs, and its boundary sets 0 and 1 (which no producer
# gives) may find something: fragile-tunable warnings, not findings. The
# smoke sweep: what is tested is the entries, the sets and the reports.
if [ -r "$LIBC_A" ] && ar t "$LIBC_A" | grep -qx memmove-avx-unaligned-erms.o && grep -qw avx /proc/cpuinfo; then
	expect_all "gate: libc.a's memmove-avx-unaligned-erms.o, three entry points, one verdict each" 0 \
		"^memmove=__memmove_avx_unaligned_erms: ACCEPTED" "^memcpy=__memcpy_avx_unaligned_erms: ACCEPTED" \
		"^mempcpy=__mempcpy_avx_unaligned_erms: ACCEPTED" "^ACCEPTED( \([0-9]+ warnings: fragile-tunable\))?: all 3 entry points" -- \
		scripts/gate --profile=smoke --no-bench --skip=huge,fuzz,valgrind --requires=avx \
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

echo "== real code: over-reads classified, warnings that reach the user"
VG=(valgrind -q --partial-loads-ok=no --vex-iropt-level=0)
if command -v valgrind >/dev/null; then
	# glibc ssse3's tail read: the aligned 16-byte block of the last byte.
	expect_all "memcheck: a read within the aligned block of the last byte is a warning, with its width" 0 \
		"^verdict: ok" "^warning: aligned-over-read: src, 8 bytes past the end, within an aligned 16-byte block" -- \
		"${VG[@]}" $MG run --variant=bad_memcpy_reads_aligned_block --len=5 --src-align=3
	expect "memcheck: --overread=strict makes it a failure" 1 \
		"^verdict: aligned-over-read: src, 1 byte past the end .*within an aligned 16-byte block" \
		"${VG[@]}" $MG run --overread=strict --variant=bad_memcpy_reads_aligned_block --len=5 --src-align=3
	expect "memcheck: MEMGATE_OVERREAD=strict does the same (scripts/repro's replays)" 1 "^verdict: aligned-over-read: " \
		env MEMGATE_OVERREAD=strict "${VG[@]}" $MG run --variant=bad_memcpy_reads_aligned_block --len=5 --src-align=3
	expect "memcheck: the warning is in the case record, with buffer, side, distance and width" 0 \
		'"name":"aligned-over-read".*"buffer":"src","side":"past-end","distance":8,"width":16' \
		"${VG[@]}" $MG run --format=jsonl --variant=bad_memcpy_reads_aligned_block --len=5 --src-align=3
	# An unaligned 16-byte tail load: inside the cache line a warning (a
	# 32-byte block here), across it a read that can fault.
	expect "memcheck: a tail load that stays in the line is a warning" 0 \
		"^warning: aligned-over-read: src, 15 bytes past the end, within an aligned 32-byte block" \
		"${VG[@]}" $MG run --variant=bad_memcpy_overread_vector --len=17 --src-align=24 --place=before
	expect "memcheck: a tail load that crosses the aligned block is out-of-bounds-read" 1 \
		"^verdict: out-of-bounds-read: src, 1 byte past the end" \
		"${VG[@]}" $MG run --variant=bad_memcpy_overread_vector --len=17 --src-align=40 --place=before
	usage_error "memgate: --overread takes classify or strict" "--overread must be classify or strict, not 'lax'" \
		$MG run --overread=lax --variant=memcpy_libc --len=1
	RB=(--op memcpy --symbol=mg_x86_64_bad_memcpy_reads_aligned_block --quick --skip=huge,fuzz --no-bench
		--requires=sse2 tests/bad/x86_64/bad_memcpy_reads_aligned_block.S)
	expect_all "gate: an aligned over-read is ACCEPTED with the warning on the verdict line and in every report" 0 \
		"^warning \[valgrind\] aligned-over-read: src, [0-9]+ bytes past the end, within an aligned 16-byte block" \
		"^ACCEPTED \(.*1 warning: aligned-over-read \(16-byte block\)\): mg_x86_64_bad_memcpy_reads_aligned_block " -- \
		scripts/gate "${RB[@]}" --report "$TMP/warn.json" --sarif "$TMP/warn.sarif" --junit "$TMP/warn.xml"
	expect "gate: the warning in JSON (width), SARIF (level warning) and JUnit" 0 "^ok$" python3 -c '
import json, sys, xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1])); w = [x for x in d["warnings"] if x["name"] == "aligned-over-read"]
s = json.load(open(sys.argv[2])); levels = [r["level"] for r in s["runs"][0]["results"]]
j = open(sys.argv[3]).read(); ET.fromstring(j)
assert w and w[0]["width"] == 16 and levels == ["warning"] and "aligned-over-read" in j, (w, levels)
print("ok")' "$TMP/warn.json" "$TMP/warn.sarif" "$TMP/warn.xml"
	expect "gate: --overread=strict rejects it as aligned-over-read" 1 "^1\. \[valgrind\] aligned-over-read: src" \
		scripts/gate "${RB[@]}" --overread=strict
else
	skip "memcheck over-read classes" "valgrind is not installed"
fi
if grep -qw avx2 /proc/cpuinfo; then
	expect "gate: an AVX routine without vzeroupper is ACCEPTED with its warning named" 0 \
		"^ACCEPTED \(.*1 warning: dirty-upper\): mg_x86_64_bad_memcpy_no_vzeroupper " \
		scripts/gate --op memcpy --symbol=mg_x86_64_bad_memcpy_no_vzeroupper --quick --skip=huge,fuzz,valgrind \
		--no-bench --requires=avx2 tests/bad/x86_64/bad_memcpy_no_vzeroupper.S
fi
usage_error "gate: --requires knows the features real routines need" "unknown feature 'avx9'.*ssse3, sse4_1.*avx512vl.*bmi2, rtm" \
	scripts/gate --op memcpy --requires=ssse3,sse4_1,avx512vl,bmi2,rtm,avx9 tests/gate/bytecopy.c
