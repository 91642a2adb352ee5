# scripts/gate: every known-bad and broken variant, submitted as a new file,
# is rejected with its class; every correct variant is accepted, except the
# C library's, which call out of the submission and are refused at build
# time; bad invocations get one line and exit 2.
# Sourced by tests/run (uses expect, usage_error, pass, fail, $MG, $TMP).

echo "== the submission gate (scripts/gate)"
make --no-print-directory -s fuzz-build >/dev/null 2>&1

# The file that defines a symbol, under impls/ or tests/bad/ (a label, an
# asmdefs.h ENTRY, a C definition, or the name a shared body is built under
# there, as bad_memcpy_shared_bounce.c's).
source_of() {
	local x86=${1#mg_x86_64_}
	x86=tests/bad/x86/${x86#mg_i386_}.S
	# Written once for x86-64 and i386, it names its entry by UC_NAME().
	case $1 in mg_x86_64_* | mg_i386_*) [ -f "$x86" ] && { echo "$x86"; return; } ;; esac
	grep -rlE "^$1:|[ *]$1\(|ENTRY\($1\)|define [A-Z_]+ +$1\$" impls tests/bad \
		--include='*.c' --include='*.S' | head -n1
}

# gate_case VARIANT OP SYMBOL FEATURES EXPECT: one submission and its verdict.
# The smoke sweep stands in for the full one and fuzzing is left out, to
# keep this under a few minutes: the gate's way from a file to a verdict
# is what is tested here, and the smoke sweep catches every broken
# variant of the tables with its class (`memgate verify --set=all
# --profile=smoke`: 57 of 57), while core.sh and main.sh sweep each
# variant at quick; what only the full sweep or the 4 GiB+ check can see
# gets those (the 4 GiB+ ones beside the smoke sweep, which they pass). A correct twin of the self-test table gets valgrind too (no
# false alarm under memcheck); the main table's correct variants do not, as
# `make valgrind` (tests/run.d/valgrind.sh) replays the seeds on each of them
# under memcheck already, and a broken one is rejected by the sweep, so
# valgrind (a fifth to a third of a gate's CPU) is left out there: the whole
# run below and gate_closed.sh test the gate's valgrind check.
# gate_said OUT: what a failed gate case shows of the gate's output: its
# first findings and last line, and a traceback's frames when there is one
# (an internal error, exit 2, must be diagnosable from the log).
gate_said() {
	echo "$(grep -m3 '^[0-9]*\. \[' <<<"$1") $(sed -n '/^Traceback/,$p' <<<"$1" | tail -n 12) $(tail -n1 <<<"$1")"
}
gate_case() {
	local v=$1 op=$2 sym=$3 needs=$4 expect=$5 conv=$6 file flags=(--profile=smoke --skip=fuzz,huge --no-bench)
	# Right at run time (the table's expectation is the run-time checks'),
	# wrong by a rule only the gate's static uaccess and store-order rows
	# see (contract.md U9, U11, M1).
	[ "$v" != bad_copy_to_user_stores_after_clac ] || expect="FAIL: smap-unbracketed"
	[ "$v" != bad_copy_to_user_fault_leaves_stac ] || expect="FAIL: smap-left-open"
	case $v in bad_*_nt_unfenced) expect="FAIL: unfenced-nt-store" ;; esac
	[ "$expect" = pass ] && ! grep -qx "$v" "$TMP/gate-main-variants" || flags=(--profile=smoke --skip=fuzz,huge,valgrind --no-bench)
	file=$(source_of "$sym")
	[ -n "$file" ] || { fail "gate: $v" "no source file defines $sym"; return; }
	[ "$needs" = - ] || flags+=(--requires="$needs")
	# A threshold read from data: the gate defines it (the table's value).
	[ "$v" != bad_memcpy_nt_threshold ] || flags+=(--extern bad_nt_threshold=16)
	# glibc's variables at the table's 0 (tests/run.d/tunables.sh runs them
	# under the producer model instead).
	[ "$v" != bad_memset_cache128 ] || flags+=(--extern __x86_shared_cache_size=0)
	[ "$v" != bad_memcpy_nt16448 ] || flags+=(--extern __x86_shared_non_temporal_threshold=0)
	# Kernel code that declares its FPU use (MG_KERNEL_USES_FPU in the table).
	case $v in *copy_page_stack_*) flags+=(--requires=fpu) ;; esac
	case $expect in
	# The 4 GiB+ check of a routine wrong at mid-size lengths took 62 s at a
	# load of 20: room for it (a failing sweep ends early, so it costs
	# nothing where the machine is less busy).
	"FAIL at 4 GiB+"*) flags=(--profile=smoke --skip=fuzz,valgrind,regressions --no-bench) ;;
	"FAIL in the full sweep"*) flags=(--skip=fuzz,huge,valgrind --no-bench) ;;
	esac
	# A register convention of its own (MG_VARIANT_CONV), declared as the
	# table declares it (docs/conventions.md).
	[ "$conv" = - ] || flags+=(--convention="$conv")
	local out rc files=("$file") helper
	out=$(scripts/gate "${flags[@]}" --op="$op" --symbol="$sym" "${files[@]}" 2>&1)
	rc=$?
	# A routine that jumps into a helper of the tree (memmove's forward
	# half) is submitted with the helper's file, as its author would.
	if [ $rc -eq 2 ] && grep -q "references symbols it does not define: mg_" <<<"$out"; then
		for helper in $(sed -n 's/.*references symbols it does not define: \([^(]*\) (.*/\1/p' <<<"$out" | tr -d ,); do
			files+=("$(source_of "$helper")")
		done
		out=$(scripts/gate "${flags[@]}" --op="$op" --symbol="$sym" "${files[@]}" 2>&1)
		rc=$?
	fi
	# A routine that calls into the C library (the libc variants) is
	# rejected at build time, naming what it calls. abort, a failure
	# function that never returns, goes to the harness's stub instead, so
	# bad_memcpy_aborts is a crash finding ("called abort") like any other.
	# memcpy_sets_errno reaches errno through __errno_location, which a
	# submission cannot (docs/contract.md, C19).
	case $v in
	memcpy_libc | mempcpy_libc | memmove_libc | memset_libc | bad_memcpy_exits_midway | \
		bad_memcpy_unprotects_src | bad_memcpy_shared_bounce | memcpy_thread_bounce | \
		bad_memcpy_static_blocks | memcpy_thread_blocks | memcpy_sets_errno)
		if [ $rc -eq 2 ] && grep -qE "^gate: .* references symbols it does not define: (memcpy|memmove|memset|_exit|mprotect|sched_yield|__errno_location)[ ,]" <<<"$out"; then
			pass "gate refuses $v at build time: it calls into the C library ($file)"
		else
			fail "gate refuses $v at build time" "exit $rc: $(tail -n 2 <<<"$out")"
		fi
		return ;;
	# One that makes a system call itself (arch_prctl, to change fs as a
	# routine may not) is refused at build time too, naming the call.
	bad_memcpy_clears_fs | bad_memcpy_clears_gs | bad_memcpy_moves_gs_base | bad_memcpy_borrows_gs)
		if [ $rc -eq 2 ] && grep -qE "^gate: .* makes system calls: (syscall|int 0x80|sysenter) at " <<<"$out"; then
			pass "gate refuses $v at build time: it makes system calls ($file)"
		else
			fail "gate refuses $v at build time: it makes system calls" "exit $rc: $(tail -n 2 <<<"$out")"
		fi
		return ;;
	esac
	file=${files[*]}
	if [ "$expect" = pass ]; then
		if [ $rc -eq 0 ] && grep -qE "^ACCEPTED( \(.*\))?: " <<<"$out"; then
			pass "gate accepts $v ($file)"
		else
			fail "gate accepts $v ($file)" "exit $rc: $(gate_said "$out")"
		fi
		return
	fi
	local classes=${expect#*: } hit=
	for c in ${classes//,/ }; do
		grep -qE "^[0-9]+\. \[[a-z-]+\] $c: " <<<"$out" && hit=$c
	done
	if [ $rc -eq 1 ] && [ -n "$hit" ]; then
		pass "gate rejects $v with $hit ($file)"
	else
		fail "gate rejects $v with $classes ($file)" "exit $rc: $(gate_said "$out")"
	fi
}

# Every variant of both tables that runs here, two submissions at a time.
$MG list --set=all --tsv | awk -F'\t' '$6 == "runs"' >"$TMP/gate-variants"
$MG list --set=main --tsv | cut -f1 >"$TMP/gate-main-variants"
while IFS=$'\t' read -r v op _ sym needs _ expect conv _; do
	gate_case "$v" "$op" "$sym" "$needs" "$expect" "$conv" >"$TMP/gate-$v.out" &
	[ "$(jobs -r | wc -l)" -lt 2 ] || wait -n
done <"$TMP/gate-variants"
wait
cat "$TMP"/gate-*.out
passed=$((passed + $(cat "$TMP"/gate-*.out | grep -c '^PASS')))
failed=$((failed + $(cat "$TMP"/gate-*.out | grep -c '^FAIL')))

echo "== the gate: a whole run with fuzzing, reports and the speed comparison"
cp tests/bad/generic/bad_memcpy_returns_end.c "$TMP/my_copy.c"
sed -i 's/mg_generic_bad_memcpy_returns_end/my_copy/' "$TMP/my_copy.c"
expect "a submitted file is rejected with its class, by every check that can see it" 1 \
	"^REJECTED: my_copy, " scripts/gate --op memcpy --quick --skip=huge --no-bench \
	--report="$TMP/r.json" --sarif="$TMP/r.sarif" --junit="$TMP/r.xml" "$TMP/my_copy.c"
expect "the JSON report names the verdict and a wrong-return finding from the fuzzer" 0 "^rejected true$" \
	jq -r '"\(.verdict) \(any(.findings[]; .check == "fuzz" and .kind == "wrong-return"))"' "$TMP/r.json"
expect "the gate's valgrind check finds it too: the seeds under memcheck" 0 "^true$" \
	jq -r 'any(.findings[]; .check == "valgrind" and .kind == "wrong-return")' "$TMP/r.json"
expect "the SARIF report has one result per finding, at (a copy of) the submitted file" 0 "^2.1.0 true$" \
	jq -r --slurpfile j "$TMP/r.json" \
	'"\(.version) \((.runs[0].results | length) == ($j[0].findings | length) and all(.runs[0].results[]; .locations[0].physicalLocation.artifactLocation.uri | endswith("my_copy.c")))"' \
	"$TMP/r.sarif"
expect "the JUnit report has a test case per check" 0 'name="fuzz"' cat "$TMP/r.xml"
expect "the replay command a finding names reproduces it" 1 "REPRODUCED: my_copy fails this case \(wrong-return\)" \
	bash -c "eval \"\$(jq -r '.findings[] | select(.check == \"fuzz\") | .repro' $TMP/r.json | head -n1)\""
expect_all "a correct file is accepted, with a speed table against the incumbents and its plot's line" 0 \
	"^ACCEPTED \(skipped: huge, fuzz, valgrind\): mg_generic_memset_word " \
	"^speed plot: $TMP/mg_generic_memset_word-speed.svg$" -- scripts/gate --op memset --quick --skip=fuzz,huge,valgrind \
	--symbol=mg_generic_memset_word --report="$TMP/ok.json" impls/generic/memset_word.c
expect "the speed comparison is plotted next to the report" 0 "<svg" \
	bash -c "head -c 2000 $TMP/mg_generic_memset_word-speed.svg"
# Against one incumbent (--baseline), its sweep at what the plan needs:
# 10 CPU s, not 28 (every memmove of the table timed, the whole sweep of a
# byte loop); the table above is timed against them all.
expect "--max-slowdown rejects a routine slower than the best incumbent" 1 "\] slowdown: up to" \
	scripts/gate --op memmove --quick --skip=fuzz,huge,valgrind,regressions --max-slowdown=1.0 \
	--baseline=memmove_libc --symbol=mg_x86_64_memmove_bytewise impls/x86_64/memmove_bytewise.S impls/x86_64/forward_copy.S
expect "a rejected routine's speed is not timed: bench is n/a with the reason" 1 \
	"^bench +N/A .*already rejected: a wrong routine's speed is not judged" \
	scripts/gate --op memcpy --quick --skip=fuzz,huge,valgrind \
	--symbol=mg_generic_bad_memcpy_tail_overwrite tests/bad/generic/bad_memcpy_tail_overwrite.c

echo "== the gate: bad invocations, one line and exit 2"
usage_error "gate: unknown op" "unknown op 'memfrob'" scripts/gate --op memfrob "$TMP/my_copy.c"
usage_error "gate: no op" "--op is required" scripts/gate "$TMP/my_copy.c"
usage_error "gate: missing file" "$TMP/nope.c: no such file" scripts/gate --op memcpy "$TMP/nope.c"
usage_error "gate: a symbol the file does not define" \
	"symbol 'nope' is not defined in $TMP/my_copy.c \(it defines: my_copy\)" \
	scripts/gate --op memcpy --symbol=nope "$TMP/my_copy.c"
usage_error "gate: unknown option" "unknown option '--fast'" scripts/gate --fast --op memcpy "$TMP/my_copy.c"
usage_error "gate: bad alignment" "--src-align 3 is not a power of two" \
	scripts/gate --op memcpy --src-align=3 "$TMP/my_copy.c"
usage_error "gate: unknown feature" "unknown feature 'avx9'" scripts/gate --op memcpy --requires=avx9 "$TMP/my_copy.c"
usage_error "gate: a page routine returning dst" "page routines return void" \
	scripts/gate --op copy_page --returns=dst "$TMP/my_copy.c"
usage_error "gate: a baseline of another op" "--baseline memset_libc is a memset, not a memcpy" \
	scripts/gate --op memcpy --baseline=memset_libc "$TMP/my_copy.c"
printf 'void *broken(void *d, const void *s, unsigned long n) { return d + ; }\n' >"$TMP/broken.c"
expect_all "gate: a file that does not build: one line saying what to do, then the compiler's message, exit 2" 2 \
	"^gate: $TMP/broken.c does not build, so nothing was judged: fix what the compiler says below and run the gate again$" \
	"broken.c:1:.*error: " -- scripts/gate --op memcpy "$TMP/broken.c"
expect "gate: ... without make's own lines, which name memgate's build" 0 "^0$" \
	sh -c "scripts/gate --op memcpy '$TMP/broken.c' 2>&1 | grep -c '^make'; exit 0"
# The function to gate: named after the file, else the file's one function;
# of several, one line says to name it (issue 44).
sed 's/bytecopy/my_other_name/g' tests/gate/bytecopy.c >"$TMP/my_named_file.c"
expect_all "gate: a file defining one function under another name is gated as that function" 0 \
	"^gate: .*my_named_file.c defines one function, my_other_name, not my_named_file: gating my_other_name" \
	"^ACCEPTED.*: my_other_name passed" -- \
	scripts/gate --op memcpy --profile=smoke --skip=huge,fuzz,valgrind,regressions --no-bench "$TMP/my_named_file.c"
printf 'void *a(void *d, const void *s, unsigned long n) { (void)s; (void)n; return d; }\nvoid *b(void *d, const void *s, unsigned long n) { (void)s; (void)n; return d; }\n' >"$TMP/two_fns.c"
usage_error "gate: a file of several functions, none named after it: one line says to name one" \
	"symbol 'two_fns' is not defined in .*two_fns.c \(it defines: a, b\); name the one to gate with --symbol NAME$" \
	scripts/gate --op memcpy "$TMP/two_fns.c"
# A submitter's warnings are theirs to read, not a refusal (issue 44).
sed 's/bytecopy/my_spare/g; s/^{$/{\n\tint spare;/' tests/gate/bytecopy.c >"$TMP/my_spare.c"
expect_all "gate: a routine with an unused local is judged, its warning shown" 0 \
	"^gate: the compiler warns \(not a verdict\): .*my_spare.c:.*unused variable" "^ACCEPTED.*: my_spare passed" -- \
	scripts/gate --op memcpy --profile=smoke --skip=huge,fuzz,valgrind,regressions --no-bench "$TMP/my_spare.c"
# memcpy(&w, p, 8) in C: refused, and the refusal says what to write.
printf '#include <string.h>\nvoid *my_word(void *d, const void *s, unsigned long n)\n{ unsigned long w; for (; n >= 8; n -= 8, d = (char *)d + 8, s = (const char *)s + 8) { memcpy(&w, s, 8); memcpy(d, &w, 8); } return d; }\n' >"$TMP/my_word.c"
usage_error "gate: memcpy(&w, p, 8) is refused with what to write instead" \
	"references symbols it does not define: memcpy .*__builtin_memcpy\(&w, p, 8\) for an unaligned word" \
	scripts/gate --op memcpy "$TMP/my_word.c"
# ... and what it says to write is accepted.
printf 'void *my_word_builtin(void *dst, const void *src, unsigned long n)\n{\n\tunsigned char *d = dst;\n\tconst unsigned char *s = src;\n\tunsigned long w;\n\n\tfor (; n >= 8; n -= 8, d += 8, s += 8) {\n\t\t__builtin_memcpy(&w, s, 8);\n\t\t__builtin_memcpy(d, &w, 8);\n\t}\n\twhile (n--)\n\t\t*d++ = *s++;\n\treturn dst;\n}\n' >"$TMP/my_word_builtin.c"
expect "gate: the unaligned word through __builtin_memcpy is accepted" 0 "^ACCEPTED.*: my_word_builtin passed" \
	scripts/gate --op memcpy --profile=smoke --skip=huge,fuzz,valgrind,regressions --no-bench "$TMP/my_word_builtin.c"

echo "== the gate: what it prints works as printed (issue 44)"
# gp_gate OUT ARGS...: a gate whose output (stdout and stderr) is also kept
# in OUT, for the lines it printed to be run as printed.
gp_gate() {
	local out=$1
	shift
	scripts/gate "$@" >"$out" 2>&1
	local rc=$?
	cat "$out"
	return $rc
}
if [ "$(uname -m)" = x86_64 ]; then
	# An accepted run with warnings (glibc 2.36's boundary values 0 and 1):
	# each fragile-tunable warning prints its repro line, naming the build
	# of its value set, which the run keeps (the others go), so that the
	# line, run as printed, reproduces the case.
	expect_all "gate: an accepted run's fragile-tunable warnings each print a repro line" 0 \
		"^warning \[sweep\] fragile-tunable: fails with __x86_shared_cache_size=0, a boundary value" \
		"^   repro: MEMGATE_BUILD=build/gate/mg_x86_64_bad_memset_cache128-[^ ]+ scripts/repro --target=memset " \
		"^ACCEPTED \(.*fragile-tunable \(x2\)\): mg_x86_64_bad_memset_cache128" -- \
		gp_gate "$TMP/gp-fragile.out" --profile=smoke --skip=fuzz,valgrind,bench,huge,regressions --op memset \
		--glibc-version 2.36 --symbol mg_x86_64_bad_memset_cache128 tests/bad/x86_64/bad_memset_cache128.c
	# A warning is not a finding: the checks its failures stopped say so,
	# and nothing on an accepted run says it "found something".
	gp_stop="the sweep stopped at this boundary value's failures, the fragile-tunable warning"
	expect_all "gate: at a boundary value the sweep stops at its warning, and the checks it stopped say so" 0 \
		"^sweep +PASS .* boundary 0 +fragile-tunable \(a warning: .*\); smoke sweep and placements: stopped at this boundary value's first failures, after [0-9]+ of [0-9]+ cases" \
		"^interrupts +N/A .* boundary 0 +n/a \($gp_stop\)$" \
		"^ACCEPTED \(smoke sweep; abi, interrupts, threads n/a in boundary 0, boundary 1: $gp_stop; " -- \
		cat "$TMP/gp-fragile.out"
	expect "gate: ... and no line of it says the sweep found something" 0 "^0$" \
		bash -c "grep -c 'found something' '$TMP/gp-fragile.out'; exit 0"
	gp_n=0
	while IFS= read -r gp_line; do
		gp_n=$((gp_n + 1))
		expect "gate: the warning's repro line $gp_n, run as printed, reproduces the case" 1 \
			"^REPRODUCED: mg_x86_64_bad_memset_cache128 fails this case \(crash\)" bash -c "$gp_line"
	done < <(sed -n 's/^   repro: //p' "$TMP/gp-fragile.out")
	[ "$gp_n" -eq 2 ] || fail "gate: two repro lines, one per warning" "$gp_n in $TMP/gp-fragile.out"
	# A finding of one row stops the sweep: the row it stopped is n/a naming
	# it, never a PASS "stopped at the first findings".
	expect_all "gate: the abi check's findings stop the sweep, whose row says so" 1 \
		"^abi +FAIL " \
		"^sweep +N/A +[0-9]+ .*n/a \(the abi check found something first: stopped after [0-9]+ of [0-9]+ cases, with none of its own\)$" \
		"^1\. \[abi\] abi-violation: r8 clobbered" "^REJECTED: movs_style" -- \
		scripts/gate --op copy_from_user --kernel -DCLOBBER_R8 --profile=smoke --skip=fuzz --no-bench \
		--convention 'args=rdi,rsi,rcx ret=rcx clobbers=rax' tests/gate/conv/movs_style.S
fi
# Every value of an --extern list runs every check of the profile, the
# second as the first (a further value set of glibc's model runs the quick
# sweep and the regressions only: docs/gate.md, "Profiles").
expect_all "gate: the second value of an --extern list runs every check, as the first" 0 \
	"^sweep +PASS .* copy_threshold=0x100000 +smoke profile and placements" \
	"^fuzz +SKIP .* copy_threshold=0x100000 +--skip$" "^bench +SKIP .* copy_threshold=0x100000 +--no-bench$" \
	"^  copy_threshold=0x100000: ACCEPTED$" "^  copy_threshold=16$" -- \
	scripts/gate --op memcpy --profile=smoke --skip=fuzz,valgrind,huge --no-bench \
	--extern copy_threshold=16,0x100000 tests/gate/extern_threshold.c
# A file whose one function is not named after it: the run's folders are
# named after that function, as its variant and repro lines are.
expect_all "gate: the function a file defines names the run's build and results folders" 1 \
	"^   repro: MEMGATE_BUILD=build/gate/mg_generic_bad_memcpy_returns_end-[^ ]+ scripts/repro .*/mg_generic_bad_memcpy_returns_end-[0-9]{8}-[0-9]{6}-[^/]+/sweep-1\.in$" \
	"^results: .*/mg_generic_bad_memcpy_returns_end-[0-9]{8}-[0-9]{6}-[^/ ]+$" -- \
	scripts/gate --op memcpy --profile=smoke --skip=huge,fuzz,valgrind,regressions --no-bench \
	tests/bad/generic/bad_memcpy_returns_end.c
