# tier: fast
# scripts/repro: an input in words, its verdict, and the standalone program
# of --emit-c. Sourced by tests/run (uses expect, usage_error, pass, fail,
# $MG and $TMP).

REPRO=$TMP/repro
# repro_input TARGET VARIANT NAME [memgate run flags]: writes the input for a case
# where the path pins the target and the variant, as corpus/regressions does.
repro_input() {
	local dir=$REPRO/$1/$2 name=$3
	shift 3
	mkdir -p "$dir"
	$MG encode --variant="${dir##*/}" "$@" --output="$dir/$name.in" >/dev/null
}
repro_input memcpy bad_memcpy_overread_src overread --len=17 --src-align=47
repro_input memmove bad_memmove_always_forward forward --len=16 --overlap=1
repro_input memcpy bad_memcpy_returns_end end --len=17
repro_input memset bad_memset_whole_int int --len=8 --value=0x1ab
repro_input memcpy memcpy_erms fine --len=1000 --src-align=3 --dst-align=60 --seed=7
repro_input memmove memmove_bytewise long --len=100000 --overlap=-17 --seed=3
# As the sweep finds most cases: another stack alignment and fp environment
# at entry, which the program's own call does not make.
repro_input memmove bad_memmove_always_forward forward_entry --len=16 --overlap=1 --stack-offset=16 --fpenv=unmasked
REPRO_OVERREAD=$REPRO/memcpy/bad_memcpy_overread_src/overread.in

# repro_expect NAME STATUS PATTERN... -- ARGS: one run of scripts/repro ARGS
# exits with STATUS and prints a line matching each PATTERN.
repro_expect() {
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	expect_all "${args[@]}" -- scripts/repro "$@"
}

# The verdict memgate run gives a case, for comparing.
repro_run_verdict() {
	$MG run "$@" | sed -n 's/^verdict: //p'
}

echo "== scripts/repro"
repro_expect "repro: an over-read reproduces, the case in words, the fault relative to each buffer" 1 \
	'^variant:  bad_memcpy_overread_src \(memcpy, generic\), entry point mg_generic_bad_memcpy_overread_src in tests/bad/generic/bad_memcpy_overread_src\.c$' \
	'^case:     len 17, src%64 = 47, dst%64 = 0, src below dst; guard page after: src flush, dst 47 bytes off; fill seed 0x0$' \
	'^verdict:  out-of-bounds-read: src, 1 byte past the end \(at src\+17, len 17\)$' \
	'^fault at: src\+17 \(1 byte past its end\), dst-[0-9]+ \([0-9]+ bytes before it\)$' \
	'^REPRODUCED: bad_memcpy_overread_src fails this case \(out-of-bounds-read\)$' \
	-- "$REPRO_OVERREAD"
repro_expect "repro: a wrong result shows got and want around the first difference" 1 \
	'^verdict:  wrong-result: dst\[1\] got 0x([0-9a-f]{2}) want 0x[0-9a-f]{2} \(15 of 16 bytes wrong\)' \
	'^bytes from dst-7, the first difference in \[ \]:$' \
	'^  got:  ([0-9a-f]{2} ){8}\[[0-9a-f]{2}\]( [0-9a-f]{2}){7}$' \
	'^  want: ([0-9a-f]{2} ){8}\[[0-9a-f]{2}\]( [0-9a-f]{2}){7}$' \
	-- "$REPRO/memmove/bad_memmove_always_forward/forward.in"
repro_expect "repro: a correct variant does not reproduce" 0 \
	'^case:     len 1000, src%64 = 3, dst%64 = 60, src below dst; .*fill seed 0x7$' \
	'^verdict:  ok$' '^not reproduced: memcpy_erms passes this case$' \
	-- "$REPRO/memcpy/memcpy_erms/fine.in"
repro_expect "repro: --variant runs another variant on the same input" 0 '^verdict:  ok$' \
	-- --variant=memcpy_libc "$REPRO_OVERREAD"
repro_expect "repro: several inputs, one line of totals" 1 '^1 of 2 inputs reproduce a failure$' \
	-- "$REPRO/memcpy/memcpy_erms/fine.in" "$REPRO_OVERREAD"
for c in "overread:--variant=bad_memcpy_overread_src --len=17 --src-align=47" \
	"forward:--variant=bad_memmove_always_forward --len=16 --overlap=1" \
	"int:--variant=bad_memset_whole_int --len=8 --value=0x1ab"; do
	file=$(find "$REPRO" -name "${c%%:*}.in")
	# shellcheck disable=SC2086
	want=$(repro_run_verdict ${c#*:})
	got=$(scripts/repro "$file" | sed -n 's/^verdict:  //p')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		pass "repro agrees with memgate run on ${c#*:}"
	else
		fail "repro agrees with memgate run on ${c#*:}" "repro '$got', run '$want'"
	fi
done

echo "== scripts/repro: bad input, one line, exit 2"
usage_error "repro: a missing file" "^repro: $REPRO/nope\.in: no such file$" scripts/repro "$REPRO/nope.in"
head -c 5000 /dev/zero >"$REPRO/memcpy/long.in"
usage_error "repro: a corrupt file (too long to be an input)" \
	"^repro: $REPRO/memcpy/long\.in is not a memgate fuzz input: over 4096 bytes$" \
	scripts/repro "$REPRO/memcpy/long.in"
build/replay --verbose "$REPRO_OVERREAD" | sed -n '2,$p' >"$REPRO/memcpy/report.txt"
usage_error "repro: a finding report instead of its input" \
	"^repro: $REPRO/memcpy/report\.txt is a finding report, not an input" \
	scripts/repro "$REPRO/memcpy/report.txt"
cp "$REPRO_OVERREAD" "$REPRO/anywhere.in"
usage_error "repro: no target in the path or flags" "^repro: $REPRO/anywhere\.in: which target\? none in its path" \
	scripts/repro "$REPRO/anywhere.in"
usage_error "repro: an unknown option" "^repro: unknown option '--bogus'" scripts/repro --bogus "$REPRO_OVERREAD"
usage_error "repro: --emit-c with two inputs" "^repro: --emit-c takes exactly one input" \
	scripts/repro --emit-c "$REPRO/x.c" "$REPRO_OVERREAD" "$REPRO_OVERREAD"

echo "== scripts/repro --emit-c: a standalone program, built and run"
# Its fixed part is real C (targets/standalone.c), built with a sample case.
expect "the reproducer's fixed part (targets/standalone.c) passes its sample case" 0 \
	"^verdict: ok$" build/test-standalone
# repro_emitted NAME STATUS INPUT: the program for INPUT, in $REPRO/NAME.c,
# built and run (tests/run's emit_and_reproduce).
repro_emitted() {
	emit_and_reproduce "$1" "$2" "$REPRO/$1.c" "$3"
}
repro_emitted overread 1 "$REPRO_OVERREAD"
repro_emitted forward 1 "$REPRO/memmove/bad_memmove_always_forward/forward.in"
repro_emitted end 1 "$REPRO/memcpy/bad_memcpy_returns_end/end.in"
repro_emitted int 1 "$REPRO/memset/bad_memset_whole_int/int.in"
repro_emitted fine 0 "$REPRO/memcpy/memcpy_erms/fine.in"
repro_emitted long 0 "$REPRO/memmove/memmove_bytewise/long.in"
# The same verdict without them: the program is written for that call.
repro_emitted forward_entry 1 "$REPRO/memmove/bad_memmove_always_forward/forward_entry.in"
expect "an emitted case found at another entry state is replayed at the program's" 0 \
	'^ \* replay: +build/memgate run --variant=bad_memmove_always_forward --len=16 .*--overlap=1 [^*]*--seed=0x[0-9a-f]+$' \
	cat "$REPRO/forward_entry.c"
# A finding the floating-point environment at entry makes (memgate's
# entry-fpenv abi-violation): the program enters the call with it, shows
# the failure, and in the default environment passes.
if [ "$(uname -m)" = x86_64 ]; then
	repro_input memcpy bad_memcpy_rounds_count round_up --len=100 --fpenv=round-up
	emit_shows "x86_64's entry-fpenv finding (round-up)" 1 \
		"^verdict: out-of-bounds-write: dst, 4 bytes past the end" "$REPRO/round_up.c" \
		"$REPRO/memcpy/bad_memcpy_rounds_count/round_up.in"
	expect "its program sets MXCSR and the x87 environment around the call, and at MXCSR 0x1f80 passes" 0 \
		"^verdict: ok$" emitted_rerun 's/^static const unsigned int fpenv_mxcsr = .*/static const unsigned int fpenv_mxcsr = 0x1f80;/' \
		"$REPRO/round_up.c"
	# Of a stack offset and an environment, the program keeps what the
	# verdict needs: the environment here, the offset for the stack test.
	repro_input memcpy bad_memcpy_rounds_count both --len=100 --fpenv=round-up --stack-offset=16
	emit_shows "an entry-fpenv finding found at a stack offset too" 1 \
		"^verdict: out-of-bounds-write: dst, 4 bytes past the end" "$REPRO/both.c" \
		"$REPRO/memcpy/bad_memcpy_rounds_count/both.in"
	expect "its program enters the environment, at the alignment a C call has" 0 "^1 0$" \
		sh -c "echo \$(grep -c '^static void enter_fpenv' '$REPRO/both.c') \$(grep -c '^#define STACK_OFFSET' '$REPRO/both.c')"
	repro_input memcpy bad_memcpy_stack_vmovaps both --len=100 --fpenv=round-up --stack-offset=16
	emit_shows "a stack-offset finding found in another environment too" 1 "^verdict: crash: SIGSEGV" \
		"$REPRO/both_stack.c" "$REPRO/memcpy/bad_memcpy_stack_vmovaps/both.in"
	expect "its program calls at the offset, in the default environment" 0 "^0 1$" \
		sh -c "echo \$(grep -c '^static void enter_fpenv' '$REPRO/both_stack.c') \$(grep -c '^#define STACK_OFFSET' '$REPRO/both_stack.c')"
fi
# fe_arch ARCH VARIANT WHAT PATTERN SED-SCRIPT: the same on ARCH, where its
# build runs: the case at --fpenv=round-up shows PATTERN, and edited by
# SED-SCRIPT back to the default environment, it passes.
fe_arch() {
	local run dir=$REPRO/$1/memcpy/$2
	run=$(scripts/arch-probe "$1" 2>/dev/null) && [ -x "build/$1/memgate" ] || return 0
	mkdir -p "$dir"
	$run "build/$1/memgate" encode --variant="$2" --len=200 --fpenv=round-up --output="$dir/ru.in" >/dev/null
	emit_shows "$1's entry-fpenv finding ($3)" 1 "$4" "$REPRO/$1-ru.c" "$dir/ru.in" --arch="$1"
	expect "$1: in the default environment the same program passes" 0 "^verdict: ok$" \
		emitted_rerun "$5" "$REPRO/$1-ru.c"
}
fe_arch aarch64 bad_memcpy_frinti_blocks "FPCR round-up" "^verdict: out-of-bounds-write: dst, " \
	's/"r"((uint64_t)0x[0-9a-f]*), "r"((uint64_t)0x0)/"r"((uint64_t)0x0), "r"((uint64_t)0x0)/'
# A routine that declares V: its program is built for V.
fe_arch riscv64 bad_memcpy_assumes_vxrm "vxrm rdn, built for V" "^verdict: wrong-result: dst\[0\] " \
	's/: "=&r"(saved_vcsr) : "r"(0x[0-9a-f]*ul)/: "=\&r"(saved_vcsr) : "r"(0x0ul)/'
# A finding that depends on the arithmetic flags at entry (memgate's
# entry-flags, on its sampled calls): the program enters the call with
# every flag set, as memgate's did, and shows the failure memgate names;
# edited by SED-SCRIPT to clear them, it passes.
carry_arch() {
	local run mg=build/$1/memgate dir=$REPRO/$1/memcpy/bad_memcpy_entry_carry
	arch_usable "$1" "repro --emit-c of $1's entry-flags finding" run || return 0
	[ "$1" != "$(uname -m)" ] || mg=$MG
	mkdir -p "$dir"
	$run "$mg" encode --variant=bad_memcpy_entry_carry --len=100 --seed=0 \
		--output="$dir/carry.in" >/dev/null
	emit_shows "$1's entry-flags finding (the carry at entry)" 1 \
		'^verdict: wrong-result: dst\[99\] got 0x49 want 0x17 \(1 of 100 bytes wrong\)' "$REPRO/$1-carry.c" \
		"$dir/carry.in" --arch="$1"
	expect "$1: with the flags clear at entry the same program passes" 0 "^verdict: ok$" \
		emitted_rerun "$2" "$REPRO/$1-carry.c"
}
carry_arch x86_64 's/orq $0x8d5, (%rsp)/andq $-0x8d6, (%rsp)/'
carry_arch i386 's/orl $0x8d5, (%esp)/andl $-0x8d6, (%esp)/'
carry_arch aarch64 's/mov x10, #0xf0000000/mov x10, #0/'
# Under a CPU model (QEMU_CPU and MEMGATE_CPU_MODEL, as the gate's repro
# lines set them), the program's run line names it, and the qemu that has
# it: a routine wrong at VLEN 256 alone passes under qemu's default.
if arch_usable riscv64 "repro --emit-c under a riscv64 CPU model" rv_run; then
	rv256=rv64,v=true,vlen=256,vext_spec=v1.0
	dir=$REPRO/riscv64/memset/bad_memset_vlen128
	mkdir -p "$dir"
	$rv_run build/riscv64/memgate encode --variant=bad_memset_vlen128 --len=16 --value=0x1ab \
		--output="$dir/v256.in" >/dev/null
	QEMU_CPU=$rv256 MEMGATE_CPU_MODEL=$rv256 emit_and_reproduce "riscv64 at VLEN 256" 1 "$REPRO/rv256.c" \
		"$dir/v256.in" --arch=riscv64
	expect "its run line names the model's qemu and the model" 0 \
		"^ \*[[:blank:]]$(scripts/arch-probe --cpu "$rv256" riscv64) -cpu $rv256 $REPRO/rv256$" cat "$REPRO/rv256.c"
fi
# aarch64's sweep tags most of its cases' pointers (--tag): the program is
# written untagged where the same verdict, word for word, shows the tags
# are not what it is about, and where they are, it passes the tagged
# pointers as memgate did (Linux's top-byte-ignore lets user code do it)
# and says, as memgate does, that untagged the call passes.
if arch_usable aarch64 "repro --emit-c of a tagged aarch64 case" a64_run; then
	dir=$REPRO/aarch64/usercopy/bad_copy_from_user_count_off_by_one
	mkdir -p "$dir"
	$a64_run build/aarch64/memgate encode --variant=bad_copy_from_user_count_off_by_one --len=17 \
		--fault-at=5 --tag=188 --output="$dir/tag.in" >/dev/null
	emit_and_reproduce "an aarch64 user copy's wrong count, found with tagged pointers" 1 "$REPRO/a64-tag.c" \
		"$dir/tag.in" --arch=aarch64
	dir=$REPRO/aarch64/memmove/bad_memmove_untags_src
	mkdir -p "$dir"
	$a64_run build/aarch64/memgate encode --variant=bad_memmove_untags_src --len=16 --overlap=3 --tag=188 \
		--output="$dir/tag.in" >/dev/null
	emit_and_reproduce "a finding that needs its tagged pointers, the program tags them (untagged, it passes)" 1 \
		"$REPRO/a64-untags.c" "$dir/tag.in" --arch=aarch64
fi
# A situation the program does not create is refused, never emitted as a
# program that would silently not reproduce the case.
$MG encode --output="$REPRO/step.in" --variant=memcpy_libc --len=100 --interrupt=step >/dev/null
expect "repro --emit-c: a stepped case is refused, the replay command named" 2 \
	"^repro: --emit-c: this case runs with the stop after every instruction \(--interrupt=step\), which a standalone program does not create: use the replay command$" \
	scripts/repro --emit-c "$REPRO/step.c" --target=memcpy --variant=memcpy_libc "$REPRO/step.in"
# An SVE vector length of the case's own (--vl, aarch64): the program sets
# it for its thread (prctl PR_SVE_SET_VL), and its verdict ends, as
# memgate's does, with what the call does at the start-up length; the
# length-agnostic twin passes at it.
if arch_usable aarch64 "repro --emit-c of an aarch64 case at another SVE vector length" vl_run; then
	for vl_case in bad_memcpy_sve_vl64:1 memcpy_sve_vla:0; do
		dir=$REPRO/aarch64/memcpy/${vl_case%%:*}
		mkdir -p "$dir"
		$vl_run build/aarch64/memgate encode --variant="${vl_case%%:*}" --len=200 --vl=16 \
			--output="$dir/vl16.in" >/dev/null
		emit_and_reproduce "${vl_case%%:*} at a vector length of 16 bytes" "${vl_case#*:}" \
			"$REPRO/a64-vl-${vl_case%%:*}.c" "$dir/vl16.in" --arch=aarch64
	done
fi
# A case in threads (--threads): the program makes the case's call while
# 3 workers make the calls memgate's workers drew, each on buffers of its
# own, and words what it sees as memgate does, the call alone again in a
# child. A race depends on the timing: a run that misses it is tried again
# (3 runs at most). th_emit NAME VARIANT LEN: the program for VARIANT's
# case of LEN bytes in 4 threads, built; memgate's verdict in $th_memgate.
th_emit() {
	local dir=$REPRO/memcpy/$2
	mkdir -p "$dir"
	$MG encode --variant="$2" --len="$3" --threads=4 --output="$dir/$1.in" >/dev/null
	th_memgate=$(scripts/repro --emit-c "$REPRO/$1.c" "$dir/$1.in" | sed -n 's/^verdict:  //p')
	bash -c "$(emitted_line 1 "$REPRO/$1.c") -Wall -Wextra -Werror"
}
# th_shows LABEL NAME VARIANT LEN PATTERN: the program exits 1 with a
# verdict of memgate's class that matches PATTERN, as memgate's does.
th_shows() {
	local out="" rc=0 try
	if ! th_emit "$2" "$3" "$4"; then
		fail "$1" "the program did not build"
		return
	fi
	for try in 1 2 3; do
		out=$(bounded bash -c "$(emitted_line 2 "$REPRO/$2.c")")
		rc=$?
		[ "$rc" -ne 1 ] || break
	done
	out=$(sed -n 's/^verdict: //p' <<<"$out")
	if [ "$rc" -eq 1 ] && [ "${out%%:*}" = "${th_memgate%%:*}" ] && [[ $out =~ $5 ]] && [[ $th_memgate =~ $5 ]]; then
		pass "$1"
	else
		fail "$1" "exit $rc, verdict '$out'; memgate's '$th_memgate'"
	fi
}
th_why="; in one thread, (the same case|that call) passes: the routine is not thread-safe \(POSIX XSH 2\.9\.1\)$"
th_shows "the program of a case in 4 threads shows bad_memcpy_shared_bounce's race" bounce \
	bad_memcpy_shared_bounce 16384 "^wrong-result: dst\[[0-9]+\] got .*$th_why"
th_shows "the program shows bad_memcpy_static_blocks's race in a worker's call, described as memgate does" blocks \
	bad_memcpy_static_blocks 0 \
	"^wrong-result: dst\[[0-9]+\] got 0x[0-9a-f]{2} want 0x[0-9a-f]{2} \(len [0-9]+\) in thread [2-4] of 4, called at the same time as the others on buffers of its own \(its call [0-9]+: memcpy len [0-9]+, src%64 [0-9]+, dst%64 [0-9]+, guard page (before|after)\)$th_why"
for th_twin in memcpy_thread_bounce:16384 memcpy_thread_blocks:0; do
	if th_emit "${th_twin%%:*}" "${th_twin%%:*}" "${th_twin#*:}"; then
		expect "the program of ${th_twin%%:*}'s case in 4 threads passes" 0 "^verdict: ok$" \
			bash -c "$(emitted_line 2 "$REPRO/${th_twin%%:*}.c")"
	else
		fail "the program of ${th_twin%%:*}'s case in 4 threads builds"
	fi
done
# A finding with no input (a length of 2 GiB and more, the huge check's)
# has memgate run's replay line as its repro line: --emit-c added to it
# is refused, one line, saying why.
usage_error "memgate run --emit-c: a huge length in the mapped regions has no standalone program, the replay command named" \
	"^memgate run: --emit-c: a length over [0-9]+ without overlap \(or --oracle\) runs in the mapped regions of memgate's huge-length check, which a standalone program does not reproduce: use the replay command \(this one without --emit-c\)$" \
	$MG run --variant=memcpy_libc --len=4294967296 --emit-c "$REPRO/huge.c"
# A memmove of 2 GiB and more within one buffer (the huge-length check's
# "one buffer": the signed-length bug class, CVE-2020-6096): memgate run
# --emit-c writes its program, which maps the region as memgate does (a
# 16 MiB memfd over and over, windows of real pages) and checks the same
# bytes. huge_emitted LABEL ARCH STATUS VARIANT DIST: memgate run's verdict
# for VARIANT's move of 2 GiB + 65 bytes at distance DIST on ARCH, and the
# program's, built and run with the lines of its header, word for word.
huge_emitted() {
	local run mg=build/$2/memgate c=$REPRO/huge-$2-$4.c want out rc
	arch_usable "$2" "$1" run || return 0
	[ "$2" != "$(uname -m)" ] || mg=$MG
	want=$($run "$mg" run --variant="$4" --len=2147483713 --overlap="$5" --emit-c="$c" |
		sed -n 's/^verdict: //p')
	if ! out=$(bash -c "$(emitted_line 1 "$c") -Wall -Wextra -Werror" 2>&1); then
		fail "$1" "the program did not build: $out"
		return
	fi
	out=$(bounded bash -c "$(emitted_line 2 "$c")")
	rc=$?
	if [ -n "$want" ] && [ "$rc" -eq "$3" ] && grep -qxF "verdict: $want" <<<"$out"; then
		pass "$1"
	else
		fail "$1" "exit $rc, want $3; want 'verdict: $want' in: $out"
	fi
}
huge_emitted "armhf: the program of bad_memmove_signed_len's 2 GiB+ move (CVE-2020-6096) shows memgate's verdict" \
	armhf 1 bad_memmove_signed_len -1
huge_emitted "i386: the program of memmove_rep's 2 GiB+ move passes" i386 0 memmove_rep 1
usage_error "memgate run --emit-c: another case's program is scripts/repro's, which it names" \
	"^memgate run: --emit-c: memgate run writes no program; scripts/repro --emit-c OUT\.c does, from the case as an input" \
	$MG run --variant=memcpy_libc --len=100 --emit-c "$REPRO/run.c"
expect "buffers over 64 KiB are regenerated from memgate's pool (and checked)" 0 \
	'^[[:blank:]]pool_fill\(to, [0-9]+u, 100177, 0x[0-9a-f]{16}ull, "win"\);$' cat "$REPRO/long.c"
expect "the build command has the files the variant calls into" 0 \
	'^ \*[[:blank:]]cc .* impls/x86_64/memmove_bytewise\.S impls/x86_64/forward_copy\.S$' cat "$REPRO/long.c"
expect "the emitted program says where the fault is, relative to each buffer" 1 \
	'^fault:   SIGSEGV, a read at 0x[0-9a-f]+: src\+17, dst-[0-9]+ \(len 17\)$' "$REPRO/overread"
expect "the emitted program shows the bytes around a wrong one" 1 '^  got:  .*\[[0-9a-f]{2}\]' "$REPRO/forward"
expect "scripts/repro prints the build command after writing" 0 \
	"^  cc -O2 .* -o $REPRO/fine2 $REPRO/fine2\.c impls/x86_64/memcpy_erms\.S$" \
	scripts/repro --emit-c "$REPRO/fine2.c" "$REPRO/memcpy/memcpy_erms/fine.in"

echo "== scripts/repro --gdb, --valgrind"
if command -v gdb >/dev/null; then
	expect "repro --gdb-batch stops at the variant's entry point" 1 \
		"Breakpoint [0-9]+, (0x[0-9a-f]+ in )?mg_generic_bad_memcpy_overread_src \(" \
		scripts/repro --gdb-batch "$REPRO_OVERREAD"
	# The CFI of harness/arch/asmdefs.h's ENTRY/END and of the trampoline:
	# from an assembly variant, through mg_abi_call, to the C caller.
	expect "repro --gdb-batch unwinds through an assembly variant and the trampoline" 1 \
		"^  #2 +0x[0-9a-f]+ in mg_[a-z_]+ \(" \
		scripts/repro --gdb-batch corpus/regressions/memcpy/bad_memcpy_ud2/crash-1390534652.in
else
	echo "SKIP repro --gdb-batch: gdb is not installed"
fi
if command -v valgrind >/dev/null; then
	expect "repro --valgrind: memcheck sees the over-read too" 1 \
		"^    Invalid read of size 1 \(memcheck InvalidRead in mg_generic_bad_memcpy_overread_src\)" \
		scripts/repro --valgrind "$REPRO_OVERREAD"
	# An over-read in the aligned block of the last byte, short of the guard
	# page: memcheck reports it, and the records classify it: a warning by
	# default, never "REPRODUCED"; a failure under --overread=strict.
	$MG encode --output="$TMP/aligned17.in" --variant=bad_memcpy_overread_src --len=17 --src-align=0 >/dev/null
	expect_all "repro --valgrind: an aligned over-read is a warning, not a failure" 0 \
		"^  result:   a warning, not a failure \(aligned-over-read\)$" \
		"^not reproduced: bad_memcpy_overread_src passes this case, with a warning under memcheck \(aligned-over-read\)$" -- \
		scripts/repro --valgrind --target=memcpy --variant=bad_memcpy_overread_src "$TMP/aligned17.in"
	expect "repro --valgrind: the same over-read under --overread=strict is a failure of its class" 1 \
		"^REPRODUCED: bad_memcpy_overread_src fails this case \(aligned-over-read\)$" \
		env MEMGATE_OVERREAD=strict scripts/repro --valgrind --target=memcpy --variant=bad_memcpy_overread_src \
		"$TMP/aligned17.in"
	# A timeout's record has no old or new value: the harness must not read
	# the verdict's unset fields to write it (memcheck saw that once).
	$MG encode --output="$TMP/hang7.in" --variant=bad_memcpy_hangs_at_7 --len=7 >/dev/null
	expect_all "repro --valgrind: a hang is a timeout, and memcheck sees nothing of the harness's" 1 \
		"^  memcheck: no errors$" "^REPRODUCED: bad_memcpy_hangs_at_7 fails this case \(timeout\)$" -- \
		scripts/repro --valgrind --target=memcpy --variant=bad_memcpy_hangs_at_7 "$TMP/hang7.in"
	expect "repro --valgrind: a correct routine passes" 0 "^not reproduced: memcpy_libc passes this case$" \
		scripts/repro --valgrind --target=memcpy --variant=memcpy_libc "$TMP/aligned17.in"
else
	echo "SKIP repro --valgrind: valgrind is not installed"
fi

full_tier_only || return 0

# The i386 program of a signed compare's 2 GiB+ move: memgate's run takes
# about 17 s, the program's 10 s.
huge_emitted "i386: the program of bad_memmove_signed_compare's 2 GiB+ move shows memgate's verdict" \
	i386 1 bad_memmove_signed_compare 1

# The standalone reproducer of a gate finding on a kernel file, on every
# arch (issue 44), as a user meets it: the file gated from a directory of
# their own (its memgate-results set up once, for every arch), the first
# finding's repro line run as printed with --emit-c added, then the build
# and run lines it prints, run as printed. The program is built from the
# user's own file, compiled as the gate compiled it (through the shim,
# with the tree's -D, for the arch and its contract), and shows the
# finding's verdict word for word. Each gate sweeps the quick profile until
# its first finding, under one CPU model.
echo "== the standalone reproducer of a kernel file's finding, per arch"
kr_user=$TMP/kernel-user
mkdir -p "$kr_user"
# kr_in_user COMMAND: runs the shell command in the user's directory, as
# their shell would: none of the test run's settings of where results go.
kr_in_user() {
	(cd "$kr_user" && env -u MEMGATE_OUT -u MEMGATE_GATE_RESULTS bash -c "$1")
}
# ere TEXT: TEXT as an extended regex that matches it alone.
ere() {
	sed 's/[][\.*^$(){}?+|/]/\\&/g' <<<"$1"
}
# kernel_repro NAME WHAT FINDING BUILD RUN -- GATE-ARGS...: gates with
# GATE-ARGS (the file last); the first finding matches FINDING (a regex,
# after its number and check); --emit-c NAME.c's build line matches BUILD
# and its run line RUN; both work where printed, and the program exits 1
# with the finding's verdict.
kernel_repro() {
	local name=$1 what=$2 finding=$3 build_re=$4 run_re=$5 out=$TMP/kr-$1 rc repro verdict build run
	shift 6
	kr_in_user "$PWD/scripts/gate --quick --skip=huge,fuzz,valgrind,regressions --no-bench $(printf '%q ' "$@")" \
		>"$out.gate" 2>&1
	rc=$?
	expect "$what: the gate rejects it" 1 "^1\. \[sweep\] $finding" sh -c "cat '$out.gate'; exit $rc"
	repro=$(sed -n 's/^   repro: //p' "$out.gate" | head -n 1)
	verdict=$(sed -En 's/^1\. \[sweep\] (.*)$/\1/p' "$out.gate" | sed -E 's/ \(cpu [^)]*\)$//')
	[ -n "$repro" ] && [ -n "$verdict" ] || return 0
	kr_in_user "${repro%)} --emit-c $name.c)" >"$out.emit" 2>&1
	rc=$?
	expect "$what: its repro line with --emit-c, run where printed, writes the program" 1 \
		"^emitted:  .*/$name\.c, a standalone program; build and run it with$" sh -c "cat '$out.emit'; exit $rc"
	build=$(grep -A2 '^emitted: ' "$out.emit" | sed -n 2p)
	run=$(grep -A2 '^emitted: ' "$out.emit" | sed -n 3p)
	expect "$what: the build line compiles the user's own file as the gate did" 0 "$build_re" echo "$build"
	expect "$what: the run line runs it as memgate ran it" 0 "$run_re" echo "$run"
	expect "$what: the program builds with the build line, where it is printed" 0 '' kr_in_user "$build"
	expect "$what: run with the run line, the program shows the finding's verdict" 1 "^verdict: $(ere "$verdict")$" \
		kr_in_user "$run"
}
kg=$PWD/tests/gate/kernel
shim="-include $(ere "$PWD/zoo/kernel/shim.h") "
wrong_page='wrong-result: dst\[[0-9]+\] got 0x[0-9a-f]{2} want 0x[0-9a-f]{2} \([0-9]+ of 4096 bytes wrong\)'
wrong_count='wrong-count: returned [0-9]+ of n = [0-9]+, so [0-9]+ bytes? copied, but the user buffer faults from byte [0-9]+: at most [0-9]+ could be'
# own NAME FILE CC-RE OBJCOPY [FLAG-RE [LINK-RE]]: the build line's shape:
# the user's FILE compiled through the shim (and with FLAG-RE) by CC-RE
# into NAME.0.o, renamed by OBJCOPY, linked into the program (with
# LINK-RE: a user copy's exception-table emulation) by CC-RE.
own() {
	echo "^  \(cd .*/memgate-results && $3 .*${shim}.*${5:-} -c -o $1\.0\.o $(ere "$2") && $4 --redefine-syms=build/gate/.*/renames $1\.0\.o && $3 .*-O2 .* -o $1 $1\.c .*${6:-}.*$1\.0\.o"
}

if arch_usable x86_64 "kernel files' reproducers on x86_64" kr_run; then
	kernel_repro kx86page "x86_64 copy_page, a kernel file" "$wrong_page" \
		"$(own kx86page "$kg/copy_page_short_x86_64.S" cc objcopy)" '^  \(cd .*/memgate-results && \./kx86page\)$' -- \
		--kernel --op copy_page "$kg/copy_page_short_x86_64.S"
	kernel_repro kx86uc "x86_64 copy_from_user, a kernel file with its exception table" "$wrong_count" \
		"$(own kx86uc "$kg/copy_from_user_short_x86_64.S" cc objcopy '' "harness/arch/x86/extable\.c")" \
		'^  \(cd .*/memgate-results && \./kx86uc\)$' -- \
		--kernel --op copy_from_user "$kg/copy_from_user_short_x86_64.S"
	kernel_repro kx86conv "x86_64 copy_from_user in a register convention of its own" "$wrong_count" \
		"$(own kx86conv "$PWD/tests/gate/conv/movs_style.S" cc objcopy -DCOUNT_SHORT)" '^  \(cd .*/memgate-results && \./kx86conv\)$' -- \
		--kernel --op copy_from_user --convention 'args=rdi,rsi,rcx ret=rcx clobbers=rax' -DCOUNT_SHORT \
		"$PWD/tests/gate/conv/movs_style.S"
fi
if arch_usable i386 "kernel files' reproducers on i386" kr_run; then
	i386_run="^  \(cd .*/memgate-results && ${kr_run:+$(ere "$kr_run") }\./"
	kernel_repro k32page "i386 copy_page, a kernel file" "$wrong_page" \
		"$(own k32page "$kg/copy_page_short_i386.S" 'cc -m32' objcopy)" "${i386_run}k32page\)$" -- \
		--arch i386 --kernel --op copy_page "$kg/copy_page_short_i386.S"
	kernel_repro k32uc "i386 copy_from_user, a kernel file with its exception table" "$wrong_count" \
		"$(own k32uc "$kg/copy_from_user_short_i386.S" 'cc -m32' objcopy '' "harness/arch/x86/extable\.c")" \
		"${i386_run}k32uc\)$" -- --arch i386 --kernel --op copy_from_user "$kg/copy_from_user_short_i386.S"
	kernel_repro k32conv "i386 copy_from_user in the kernel's -mregparm=3 convention" "$wrong_count" \
		"$(own k32conv "$PWD/tests/gate/conv/regparm_style.S" 'cc -m32' objcopy -DCOUNT_SHORT)" "${i386_run}k32conv\)$" -- \
		--arch i386 --kernel --op copy_from_user --convention 'args=eax,edx,ecx ret=eax' -DCOUNT_SHORT \
		"$PWD/tests/gate/conv/regparm_style.S"
fi
if arch_usable aarch64 "kernel files' reproducers on aarch64" kr_run; then
	a64_cc='clang --target=aarch64-linux-gnu'
	kernel_repro ka64page "aarch64 copy_page, a kernel file" "$wrong_page" \
		"$(own ka64page "$kg/copy_page_short_aarch64.S" "$a64_cc" aarch64-linux-gnu-objcopy)" \
		"^  \(cd .*/memgate-results && $(ere "$kr_run") -cpu max \./ka64page\)$" -- \
		--arch aarch64 --cpu max --kernel --op copy_page "$kg/copy_page_short_aarch64.S"
	kernel_repro ka64uc "aarch64 copy_from_user, a kernel file with its exception table" "$wrong_count" \
		"$(own ka64uc "$kg/copy_from_user_short_aarch64.S" "$a64_cc" aarch64-linux-gnu-objcopy '' \
			"harness/arch/aarch64/extable\.c")" \
		"^  \(cd .*/memgate-results && $(ere "$kr_run") -cpu max \./ka64uc\)$" -- \
		--arch aarch64 --cpu max --kernel --op copy_from_user "$kg/copy_from_user_short_aarch64.S"
fi
rv128=rv64,v=true,vlen=128,vext_spec=v1.0
if arch_usable riscv64 "kernel files' reproducers on riscv64" kr_run; then
	kernel_repro krvpage "riscv64 clear_page, a kernel file" "$wrong_page" \
		"$(own krvpage "$kg/clear_page_short_riscv64.S" 'clang --target=riscv64-linux-gnu' riscv64-linux-gnu-objcopy)" \
		"^  \(cd .*/memgate-results && $(ere "$(scripts/arch-probe --cpu "$rv128" riscv64)") -cpu $(ere "$rv128") \./krvpage\)$" -- \
		--arch riscv64 --cpu "$rv128" --kernel --op clear_page "$kg/clear_page_short_riscv64.S"
fi
if arch_usable armhf "kernel files' reproducers on armhf" kr_run; then
	arm_cc='clang --target=arm-linux-gnueabihf'
	kernel_repro karmpage "armhf copy_page, a kernel file of arch/arm/lib" "$wrong_page" \
		"$(own karmpage "$kg/copy_page_short_armhf.S" "$arm_cc" arm-linux-gnueabihf-objcopy)" \
		"^  \(cd .*/memgate-results && $(ere "$(scripts/arch-probe --cpu cortex-a15 armhf)") -cpu cortex-a15 \./karmpage\)$" -- \
		--arch armhf --cpu cortex-a15 --kernel --op copy_page "$kg/copy_page_short_armhf.S"
	# An ordinary C routine under another arch: the cross compiler, the
	# arch's floating-point unit, qemu and its model.
	cp tests/gate/word_memmove_dist3.c "$kr_user/"
	kernel_repro karmc "armhf memmove in C" \
		'wrong-result: dst\[3\] got 0x[0-9a-f]{2} want 0x[0-9a-f]{2} \(1 of 4 bytes wrong\)' \
		"^  \(cd .*/memgate-results && $arm_cc .*-mfpu=vfpv3-d16 .* -c -o karmc\.0\.o $(ere "$kr_user")/word_memmove_dist3\.c && arm-linux-gnueabihf-objcopy .* && $arm_cc .* -o karmc karmc\.c karmc\.0\.o" \
		"^  \(cd .*/memgate-results && $(ere "$(scripts/arch-probe --cpu cortex-a15 armhf)") -cpu cortex-a15 \./karmc\)$" -- \
		--arch armhf --cpu cortex-a15 --op memmove word_memmove_dist3.c
fi
# A routine that calls a failure function (glibc's __chk_fail): memgate's
# stub makes that the finding "called __chk_fail"; the program defines the
# failure functions as memgate stubs them, so it says the same, where the
# C library's would print and abort.
cp tests/gate/calls_chk_fail.c "$kr_user/"
kernel_repro kchk "a C routine that calls __chk_fail" \
	'crash: called __chk_fail, a failure function that does not return' \
	"^  \(cd .*/memgate-results && cc .* -c -o kchk\.0\.o $(ere "$kr_user")/calls_chk_fail\.c && objcopy .* && cc .* -o kchk kchk\.c kchk\.0\.o" \
	"^  \(cd .*/memgate-results && \./kchk\)$" -- --op memcpy calls_chk_fail.c
