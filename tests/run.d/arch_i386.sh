# tier: fast
# The i386 build: gcc -m32, run natively or under qemu-i386 (scripts/arch-probe
# says which). Sourced by tests/run (uses expect, caught, pass, fail, skip,
# tier_profile, $tier, $MG and $TMP). About 80 s on two cores in make check
# (i386 native), most of it the two tables' smoke sweeps.

echo "== i386"
if ! arch_usable i386 "i386 build and checks" i386_run; then
	:
elif ! i386_build=$(make -s ARCH=i386 all 2>&1); then
	fail "make ARCH=i386 all builds (warnings are errors)" "$(tail -n 3 <<<"$i386_build")"
else
	pass "make ARCH=i386 all builds (warnings are errors)"
	host_mg=$MG
	# Word-split on purpose: the runner prefix, if any, then the program.
	MG="$i386_run build/i386/memgate"

	# The main table at the tier's profile: smoke in make check, quick (make
	# verify's) in make check-all.
	profile=$(tier_profile)
	expect "i386: every correct variant passes its $profile sweep, 0 unexpected" 0 \
		"^[0-9]+ variants: [0-9]+ passed, [0-9]+ failed as expected, [0-9]+ skipped, 0 unexpected$" \
		$MG verify --profile="$profile" --findings="$TMP/findings-i386"

	# The whole selftest table once: the generic self-tests run here too,
	# and the one wrong only at 4 GiB is a SKIP with its reason, not a pass.
	# The smoke profile catches each as the quick one does (33 CPU s
	# against 20 under qemu-i386).
	$MG verify --set=selftest --profile=smoke --timeout-ms=200 --findings="$TMP/findings-i386" \
		>"$TMP/i386-selftest.out" 2>&1
	expect "i386: the selftest table fails exactly as declared" 0 ", 0 unexpected$" \
		cat "$TMP/i386-selftest.out"
	expect "i386: a variant wrong only at 4 GiB is skipped with the reason, not passed" 0 \
		"^bad_memset_signed_count .* SKIP \(4GiB\+ check: lengths of 4 GiB and more need a 64-bit size_t\)" \
		cat "$TMP/i386-selftest.out"
	# Its sweep is the long one (the failing overlaps come last): read
	# its row from the table above rather than sweep it again.
	expect "i386: sweep catches bad_memmove_signed_compare as wrong-result" 0 \
		"^bad_memmove_signed_compare .*FAIL \(expected\) .* wrong-result: " \
		cat "$TMP/i386-selftest.out"
	expect "i386: diagnosis of bad_memmove_signed_compare" 1 \
		"^verdict: wrong-result: dst\[3\] got 0x[0-9a-f]+ want 0x[0-9a-f]+ \(3 of 16 bytes wrong\)" \
		$MG run --variant=bad_memmove_signed_compare --len=16 --overlap=-1
	expect "i386: the signed compare is right when dst is above src" 0 "^verdict: ok$" \
		$MG run --variant=bad_memmove_signed_compare --len=16 --overlap=1

	# The trampoline checks the i386 registers and frame, with i386 canaries.
	caught bad_memcpy_clobbers_ebx abi-violation "ebx clobbered \(0x11111111 -> 0x" --len=40
	caught bad_memcpy_leaves_df_set abi-violation "direction flag left set$" --len=40
	caught bad_memcpy_unbalanced_stack abi-violation "stack pointer moved by \+4 bytes$" --len=40
	caught bad_memcpy_writes_caller_frame abi-violation \
		"the caller.s stack frame above the argument words was overwritten$" --len=40
	expect "i386: a callee may overwrite its own argument words" 0 "^verdict: ok$" \
		$MG run --variant=memcpy_reuses_arg_words --len=40
	# gs, the thread pointer (I7): the selector after every call; the base
	# with get_thread_area on the sampled calls (seed 0), through %gs:0 on
	# the others (seed 1).
	caught bad_memcpy_clears_gs abi-violation \
		"changed gs, the thread pointer, which is reserved for the system \(its selector 0x[0-9a-f]+ -> 0x0\)$" --len=40
	caught bad_memcpy_moves_gs_base abi-violation \
		"changed gs, the thread pointer, which is reserved for the system \(its base 0x[0-9a-f]+ -> 0x[0-9a-f]+\)$" \
		--len=40 --seed=0
	expect "i386: an unsampled call sees the moved base through %gs:0" 1 \
		"^verdict: abi-violation: changed gs, the thread pointer, .*\(its base 0x[0-9a-f]+ -> 0x[0-9a-f]+\)$" \
		$MG run --variant=bad_memcpy_moves_gs_base --len=40 --seed=1
	expect "i386: the gs finding names the rule thread-pointer" 0 '"rule":"thread-pointer"' \
		bash -c "$MG run --variant=bad_memcpy_clears_gs --len=40 --format=jsonl; true"
	expect "i386: a routine that puts gs back passes the case uninterrupted" 0 "^verdict: ok$" \
		$MG run --variant=bad_memcpy_borrows_gs --len=40
	expect "i386: and a signal during its copy crashes it, naming gs" 1 \
		"^verdict: crash: SIGTRAP at pc mg_i386_bad_memcpy_borrows_gs\+0x[0-9a-f]+ came while gs held selector 0x[0-9a-f]+, not the thread.s 0x[0-9a-f]+: " \
		$MG run --variant=bad_memcpy_borrows_gs --len=40 --interrupt=step

	# Faults are told apart as reads or writes here too (qemu-user leaves
	# the trap number out: arch/x86/fault.c falls back on the signal).
	caught bad_memcpy_tail_off_by_one out-of-bounds-read \
		"src, 1 byte past the end \(at src\+9, len 9\)$" --len=9 --src-align=55
	expect "i386: the same extra byte, as a write against the guard page" 1 \
		"^verdict: out-of-bounds-write: dst, 1 byte past the end \(at dst\+9, len 9\)$" \
		$MG run --variant=bad_memcpy_tail_off_by_one --len=9 --dst-align=55
	expect "i386: a write before dst faults as an out-of-bounds write" 1 \
		"^verdict: out-of-bounds-write: dst, 1 byte before it \(at dst-1\)$" \
		$MG run --variant=bad_memcpy_write_before_dst --len=17 --dst-align=0 --place=before

	# The user copies (docs/usercopy.md): the x86 exception table, resumed
	# from the i386 signal context; each rule's broken variant (the code of
	# tests/bad/x86/, x86-64's, with dwords) fails with its class and
	# diagnosis, and the correct byte loops resume a fault at each end and
	# inside.
	caught bad_copy_from_user_count_off_by_one wrong-count \
		"returned 11 of n = 17, so 6 bytes copied, but the user buffer faults from byte 5: at most 5 could be$" \
		--len=17 --fault-at=5
	caught bad_copy_from_user_quadwords_left wrong-count \
		"returned 7 of n = 40, so 33 bytes copied, but the user buffer faults from byte 12: at most 12 could be$" \
		--len=40 --fault-at=12
	caught bad_copy_to_user_tail_unlisted unhandled-fault \
		"dst, inside it \(at dst\+9\); the user buffer faulted at pc mg_i386_bad_copy_to_user_tail_unlisted\+0x[0-9a-f]+, which the exception table does not list: the kernel would oops$" \
		--len=17 --fault-at=9
	caught bad_copy_from_user_pads_one write-past-count \
		"dst\[5\] changed 0x[0-9a-f]{2} -> 0x00, past the 5 bytes the count says were copied \(returned 12 of n = 17\)" \
		--len=17 --fault-at=5
	caught bad_copy_to_user_reads_past_src kernel-fault \
		"src, 1 byte past the end \(at src\+16, len 16\); the kernel buffer faulted at pc mg_i386_bad_copy_to_user_reads_past_src\+0x[0-9a-f]+" \
		--len=16 --src-align=48 --dst-align=0
	caught bad_copy_from_user_probes_end nothing-copied \
		"returned n = 17 \(nothing copied\), but the first 5 bytes could be" \
		--len=17 --fault-at=5
	for v in copy_from_user_bytes copy_to_user_bytes clear_user_bytes; do
		for k in 0 13 20; do
			expect "i386: $v resumes a fault at byte $k of 21" 0 "^verdict: ok$" \
				$MG run --variant=$v --len=21 --fault-at=$k --dst-align=5 --src-align=5
		done
	done
	expect "i386: the usercopy seeds pass on every correct user copy" 0 "^[0-9]+ passed, 0 failed$" \
		$i386_run build/i386/replay --each-variant corpus/usercopy
	# Their standalone reproducer, built with -m32 as its header says.
	for v in bad_copy_to_user_tail_unlisted bad_copy_from_user_count_off_by_one bad_copy_to_user_reads_past_src; do
		emit_and_reproduce "i386 $v" 1 "$TMP/emit-i386-$v.c" \
			"$(find corpus/regressions/usercopy/$v -name '*.in' | sort | head -n 1)" --arch=i386 --variant=$v
	done

	# Both runners on any machine (issue 43): the qemu-i386 path's own
	# handling, whichever runner the probe picked above. qemu-i386 7.2's
	# sigreturn drops the x87 state, so what memgate cannot judge there is
	# said, never passed over: the x87 part of the kernel contract after a
	# fault resumed at its fixup, and the interrupts in a non-default x87
	# environment. Natively both are judged, and nothing is said.
	if command -v "${QEMU_I386:-qemu-i386}" >/dev/null; then
		MG="${QEMU_I386:-qemu-i386} build/i386/memgate"
		expect "i386 under qemu: a resumed user copy's x87 part is named as not judged" 0 \
			"^not judged here: the x87 part of fpu-state, on calls a signal returned into " \
			$MG run --variant=clear_user_bytes --len=21 --fault-at=13
		$MG verify --variant=clear_user_bytes,memset_word --profile=smoke --huge=off --format=jsonl \
			--findings="$TMP/findings-i386-qemu" >"$TMP/i386-qemu.jsonl" 2>&1
		expect "i386 under qemu: verify counts the resumed calls whose x87 part it could not judge" 0 \
			'"variant":"clear_user_bytes".*"status":"pass".*"not_judged":\[\{"name":"x87-after-signal","check":"abi","cases":[1-9]' \
			cat "$TMP/i386-qemu.jsonl"
		expect "i386 under qemu: and the interrupt cases it ran in the default x87 environment" 0 \
			'"variant":"memset_word".*"status":"pass".*"not_judged":\[\{"name":"x87-environment-under-step","check":"interrupts","cases":[1-9]' \
			cat "$TMP/i386-qemu.jsonl"
		expect "i386 under qemu: the table says a pass is in part" 0 \
			"^clear_user_bytes .* PASS \(part not judged here\)" \
			$MG verify --variant=clear_user_bytes --profile=smoke --huge=off --findings="$TMP/findings-i386-qemu"
		# What only qemu-i386 needs, proven on any machine: the MMX-mode
		# check reads ST(7)'s tag (qemu has no x87 stack fault), and
		# FXSAVE's unwritten bytes are zeroed first (three false alarms on
		# the user copies before).
		caught bad_memcpy_mmx_no_emms abi-violation \
			"left the x87 registers in MMX mode \\(no emms before it returned\\)" --len=100 --seed=0
		# Three user copies' whole sweeps under qemu (40 s of CPU): make
		# check-all's; make check has clear_user_bytes' above.
		if [ "$tier" = all ]; then
			expect "i386 under qemu: a correct user copy passes its smoke sweep" 0 \
				"^[0-9]+ variants: 3 passed, 0 failed as expected, 0 skipped, 0 unexpected$" \
				$MG verify --variant=copy_from_user_bytes,copy_to_user_bytes,clear_user_bytes --profile=smoke \
				--huge=off --findings="$TMP/findings-i386-qemu"
		else
			echo "== i386 under qemu: three user copies' sweeps run in make check-all (the full tier)"
		fi
	else
		skip "i386 under qemu-i386 too" "${QEMU_I386:-qemu-i386} (qemu-user) is not installed"
	fi
	if [ -z "$i386_run" ]; then
		expect "i386 natively: every part is judged (no not_judged part)" 0 \
			'"variant":"memset_word".*"not_judged":\[\]' \
			build/i386/memgate verify --variant=memset_word --profile=smoke --huge=off --format=jsonl \
			--findings="$TMP/findings-i386"
	fi
	MG=$host_mg
fi
