# scripts/zoo: finding the routines of the installed packages (glibc's
# libc.a is always here; musl and the kernel when scripts/install-deps
# --zoo installed them), the kernel shim's alternatives, a few routines
# gated for real (the smoke sweep), and the page in headless Chromium.
# Sourced by tests/run (uses expect, pass, fail, skip, $TMP).

echo "== the zoo (scripts/zoo)"
zoo_out=$TMP/zoo

usage_error "zoo: an unknown option is one line" "unknown option '--nope'" scripts/zoo --nope
usage_error "zoo: an unknown arch is one line" "--arch 'sparc'" scripts/zoo --arch sparc --list

# Discovery only: every member of glibc's x86-64 libc.a with a routine, its
# entry points and the features its name says it needs.
expect_all "zoo --list: glibc's x86-64 variants with every entry point" 0 \
	$'^glibc-x86_64-memmove-erms\tx86_64\tmemcpy=__memcpy_erms memmove=__memmove_erms mempcpy=__mempcpy_erms\t-' \
	$'^glibc-x86_64-memmove-avx-unaligned-erms-rtm\t.*\tavx,rtm\t' \
	$'^glibc-x86_64-memset-evex-unaligned-erms\t.*memset=__memset_evex_unaligned_erms' -- \
	scripts/zoo --list --sources glibc --arch x86_64 --out "$zoo_out"

# The kernel's files assemble with zoo/kernel/shim.h, one unit per distinct
# alternative.
if ls /usr/src/linux-source-*.tar.* >/dev/null 2>&1; then
	expect_all "zoo --list: the kernel's routines, each alternative its own" 0 \
		$'^linux-x86_64-memcpy_64-none\tx86_64\tmemcpy=__memcpy\t-' \
		$'^linux-x86_64-memcpy_64-erms\tx86_64\tmemcpy=__memcpy\terms' \
		$'^linux-x86_64-memmove_64-erms\\+fsrm\t.*\terms,fsrm' \
		$'^linux-x86_64-clear_page_64-none\t.*clear_page=clear_page_erms clear_page=clear_page_orig clear_page=clear_page_rep' \
		$'^linux-aarch64-memcpy\taarch64\tmemcpy=__pi_memcpy memmove=__memmove' \
		$'^linux-aarch64-copy_page-has_no_hw_prefetch\t' \
		$'^linux-aarch64-copy_to_user\taarch64\tcopy_to_user=__arch_copy_to_user\t-' \
		$'^linux-aarch64-clear_user\taarch64\tclear_user=__arch_clear_user\t-' \
		$'^linux-x86_64-copy_user_generic_unrolled-none-copy_from_user\tx86_64\tcopy_from_user=copy_user_generic_unrolled\t-\t.*\tc$' \
		$'^linux-x86_64-copy_user_enhanced_fast_string-rep_good\\+erms\\+fsrm-copy_to_user\tx86_64\tcopy_to_user=copy_user_enhanced_fast_string\terms,fsrm\t' \
		$'^linux-x86_64-clear_user_erms-rep_good\\+erms\tx86_64\tclear_user=clear_user_erms\terms\t.*\targs=rdi,rcx ret=rcx clobbers=rdx zero=rax$' \
		$'^linux-i386-__copy_user_ll-none-copy_from_user\ti386\tcopy_from_user=__copy_user_ll\t-\t.*usercopy_32.c\targs=eax,edx,ecx ret=eax$' \
		$'^linux-i386-__copy_user_ll-intel_movsl_mask-copy_to_user\ti386\tcopy_to_user=__copy_user_ll\t-\t.*usercopy_32.c\targs=eax,edx,ecx ret=eax$' \
		$'^linux-i386-__copy_from_user_ll_nocache_nozero-xmm2\ti386\tcopy_from_user=__copy_from_user_ll_nocache_nozero\tsse2\t' \
		$'^linux-i386-clear_user-none\ti386\tclear_user=clear_user\t-\t.*\targs=eax,edx ret=eax clobbers=ecx$' \
		$'^linux-riscv64-memset\triscv64\tmemset=__memset\t-\t.*arch/riscv/lib/memset\.S\tc$' \
		$'^linux-riscv64-memcpy\triscv64\tmemcpy=__memcpy\t-\t' \
		$'^linux-armhf-memmove\tarmhf\tmemmove=__memmove\t-\t.*arch/arm/lib/memmove\.S\tc$' \
		$'^linux-armhf-copy_page\tarmhf\tcopy_page=copy_page\t-\t' -- \
		scripts/zoo --list --sources kernel --out "$zoo_out"
	# The control of the clear_user rows' convention (issue 25): under the
	# C convention the count is passed in rsi, while clear_user_original
	# takes it from rcx (whatever the call left there) and leaves its
	# result in rcx, not rax: the file the zoo accepts with its convention
	# is rejected without it.
	zoo_cu=$(ls build/zoo/src/linux-source-*/arch/x86/lib/clear_page_64.S 2>/dev/null | head -n1)
	zoo_cu_flags=(--arch x86_64 --quick --skip=fuzz,huge --no-bench --entry clear_user=clear_user_original
		-I "$PWD/build/zoo/kernel/include" -D ZOO_CPU=0 --cflags "-include $PWD/zoo/kernel/shim.h")
	expect "zoo: clear_user_original under the C convention is rejected" 1 \
		'^1\. \[sweep\] wrong-count: ' scripts/gate "${zoo_cu_flags[@]}" "$zoo_cu"
	expect "zoo: clear_user_original with its convention is accepted" 0 '^ACCEPTED' \
		scripts/gate "${zoo_cu_flags[@]}" --convention 'args=rdi,rcx ret=rcx clobbers=rdx zero=rax' "$zoo_cu"
	# i386's usercopy_32.c, C through the shim's C half, built as the
	# kernel builds it (-mregparm=3) and gated in that convention: its
	# clear_user is accepted; __copy_user_ll as copy_from_user returns n
	# when a source dword straddles the fault with readable bytes before
	# it, which uaccess.h's "returning size should happen only when
	# nothing could be copied" forbids (docs/usercopy.md, "i386's
	# usercopy_32.c").
	zoo_u32=$(ls build/zoo/src/linux-source-*/arch/x86/lib/usercopy_32.c 2>/dev/null | head -n1)
	zoo_u32_flags=(--arch i386 --profile=smoke --skip=fuzz,huge,valgrind,regressions --no-bench
		-I "$PWD/build/zoo/kernel/include" -D ZOO_CPU=0
		--cflags "-include $PWD/zoo/kernel/shim.h -O2 -mregparm=3 -DCONFIG_X86_INTEL_USERCOPY -Wno-unused-parameter")
	if ! arch_usable i386 "zoo: i386's usercopy_32.c" zoo_why; then
		:
	else
		expect "zoo: i386 clear_user (usercopy_32.c, -mregparm=3) with its convention is accepted" 0 \
			'^ACCEPTED .*: clear_user passed' scripts/gate "${zoo_u32_flags[@]}" --entry clear_user=clear_user \
			--convention 'args=eax,edx ret=eax clobbers=ecx' "$zoo_u32"
		# Without the -D the zoo gives, the file is built as a kernel
		# configured without the option, and the verdict's first line says so.
		expect "zoo: a CONFIG_ option the file tests and nothing defines is named" 0 \
			"^memgate gate: clear_user \(clear_user, i386, .*, built without CONFIG_X86_INTEL_USERCOPY \(neither the shim nor a -D defines it\)\), from " \
			scripts/gate "${zoo_u32_flags[@]/%-DCONFIG_X86_INTEL_USERCOPY -Wno-unused-parameter/-Wno-unused-parameter}" \
			--entry clear_user=clear_user --convention 'args=eax,edx ret=eax clobbers=ecx' "$zoo_u32"
		expect "zoo: i386 __copy_user_ll as copy_from_user returns n with a byte readable: nothing-copied" 1 \
			'^1\. \[sweep\] nothing-copied: returned n = [0-9]+ \(nothing copied\), but the first [1-3] bytes? could be' \
			scripts/gate "${zoo_u32_flags[@]}" --entry copy_from_user=__copy_user_ll \
			--convention 'args=eax,edx,ecx ret=eax' --report "$TMP/u32.json" "$zoo_u32"
		# Booted as init_intel boots Intel's families 6 and 15 (movsl_mask
		# 7, shim_c.h's ZOO_INTEL_MOVSL), a long copy whose ends differ mod 8
		# takes __copy_user_intel, whose fixup counts from its 64-byte
		# block's start: bytes it stored are reported as not copied. The
		# sweep stops at its first findings, which are nothing-copied (its
		# look-ahead loads) in the smoke profile's order; the
		# write-past-count case of docs/usercopy.md replays on its build.
		expect "zoo: i386 __copy_user_ll booted as Intel's (movsl_mask 7) as copy_to_user is rejected by the sweep" 1 \
			'^[0-9]\. \[sweep\] (nothing-copied|write-past-count): ' \
			scripts/gate "${zoo_u32_flags[@]/#ZOO_CPU=0/ZOO_CPU=32}" --entry copy_to_user=__copy_user_ll \
			--convention 'args=eax,edx,ecx ret=eax' --report "$TMP/u32w.json" "$zoo_u32"
		zoo_w=$(jq -r '.findings[0].repro // ""' "$TMP/u32w.json" 2>/dev/null | sed -n 's/^MEMGATE_BUILD=\([^ ]*\) .*/\1/p')
		# Word-split on purpose: the runner prefix, if any, then the program.
		expect "zoo: __copy_user_intel (movsl_mask 7) as copy_to_user stores past its count: write-past-count" 1 \
			'^verdict: +write-past-count: dst\[0\] changed 0x[0-9a-f]{2} -> 0x[0-9a-f]{2}, past the 0 bytes the count says were copied \(returned 64 of n = 64\)' \
			$zoo_why "${zoo_w:-missing}/memgate" run --variant=__copy_user_ll --len=64 --src-align=0 --dst-align=57 \
			--place=after --seed=0xcdee7d221a84b858 --fault-at=7
		# Its standalone reproducer: the kernel file compiled as the gate
		# compiled it (with -mregparm=3, which the program's own files must
		# not get) and renamed as it renamed it, called in its convention,
		# the fault resumed through its exception table. The finding's
		# repro line, as the report has it.
		zoo_repro=$(python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc.get("entries") or [doc]:
    for f in e.get("findings") or []:
        if "scripts/repro" in (f.get("repro") or ""):
            print(f["repro"]); sys.exit(0)' "$TMP/u32.json" 2>/dev/null)
		read -ra zoo_words <<<"${zoo_repro#* scripts/repro }"
		zoo_build=${zoo_repro%% *}
		if [ "${zoo_build%%=*}" != MEMGATE_BUILD ] || [ ${#zoo_words[@]} -lt 2 ]; then
			fail "zoo: the i386 finding has a repro line" "report: '$zoo_repro'"
		else
			MEMGATE_BUILD=${zoo_build#*=} emit_and_reproduce "zoo: i386 __copy_user_ll's nothing-copied" 1 \
				"$TMP/u32-repro.c" "${zoo_words[-1]}" "${zoo_words[@]:0:${#zoo_words[@]}-1}"
		fi
	fi
	# riscv64's memset.S (6.1) jumps into its unrolled stores by an offset
	# it halves under CONFIG_64BIT, and fills with a 64-bit pattern under
	# it: the shim defines it for rv64 (without it the sweep crashed).
	if ! arch_usable riscv64 "zoo: riscv64's memset.S" zoo_why; then
		:
	else
		expect "zoo: riscv64 memset.S (6.1, CONFIG_64BIT) is accepted under every CPU model" 0 \
			'^ACCEPTED .*: __memset passed every other check' \
			scripts/gate --arch riscv64 --profile=smoke --skip=fuzz,huge,valgrind,regressions --no-bench \
			-I "$PWD/build/zoo/kernel/include" -D ZOO_CPU=0 --cflags "-include $PWD/zoo/kernel/shim.h" \
			--entry memset=__memset "$(ls build/zoo/src/linux-source-*/arch/riscv/lib/memset.S | head -n1)"
	fi
else
	skip "zoo --list: the kernel's routines" "linux-source is not installed (scripts/install-deps --zoo)"
fi

# The static audits alone (--audit-only): the ISA audit and, on x86, the
# store-order audit (docs/contract.md M1). glibc 2.36's i386
# __memmove_ssse3_rep returns from L(copy_page_by_rep) with a movntdq not
# fenced (docs/zoo.md, "What the zoo's rows were"); its ia32 memset has no
# non-temporal store.
if [ -f /usr/lib32/libc.a ]; then
	expect_all "zoo --audit-only: the store-order audit finds glibc i386's unfenced movntdq" 1 \
		'^glibc-i386-memmove-ssse3-rep: covered; .*; store-order: unfenced-nt-store: movntdq .* at __memmove_ssse3_rep\+0x[0-9a-f]+ reaches ret at __memmove_ssse3_rep\+0x[0-9a-f]+ with no fence after it' \
		'^glibc-i386-memset-ia32: covered; .*; store-order: pass$' \
		'^zoo --audit-only: 2 units: 2 covered, 0 undeclared, 0 could-not-judge; store-order: 1 pass, 1 unfenced-nt-store, 0 could-not-judge$' -- \
		scripts/zoo --audit-only --sources glibc --arch i386 --only '^glibc-i386-(memmove-ssse3-rep|memset-ia32)$' \
		--out "$TMP/zoo-audit"
else
	skip "zoo --audit-only: glibc i386" "libc6-dev-i386 is not installed (scripts/install-deps)"
fi

# riscv64's shipped routines through the RISC-V opcode map (docs/isa-audit.md,
# "riscv64"): glibc 2.36's and linux 6.1's, all RV64GC.
if [ -f /usr/riscv64-linux-gnu/lib/libc.a ] && ls /usr/src/linux-source-*.tar.* >/dev/null 2>&1; then
	expect_all "zoo --audit-only: glibc's and linux's riscv64 routines are RV64GC, every one read" 0 \
		'^glibc-riscv64-memcpy: covered; minimal --requires none, declared none$' \
		'^linux-riscv64-memset: covered; minimal --requires none, declared none$' \
		'^zoo --audit-only: 7 units: 7 covered, 0 undeclared, 0 could-not-judge; ' -- \
		scripts/zoo --audit-only --arch riscv64 --out "$TMP/zoo-audit-rv"
else
	skip "zoo --audit-only: riscv64" "libc6-dev-riscv64-cross or linux-source is not installed (scripts/install-deps --zoo)"
fi

# armhf's glibc (issue 41): the three memcpy variants its ifunc chooses
# from, and memmove and mempcpy, which call memcpy, once per choice (a
# stub of one branch stands for the ifunc's link); __memcpy_neon needs
# neon (d16-d31 and NEON), the rest nothing past VFPv3-D16.
if [ -f /usr/arm-linux-gnueabihf/lib/libc.a ]; then
	expect_all "zoo --audit-only: glibc's armhf routines, memmove and mempcpy once per memcpy" 0 \
		'^glibc-armhf-memcpy_neon: covered; minimal --requires neon, declared neon$' \
		'^glibc-armhf-memmove\+memcpy_neon: covered; minimal --requires neon, declared neon$' \
		'^glibc-armhf-memmove\+memcpy_vfp: covered; minimal --requires none, declared none$' \
		'^zoo --audit-only: 10 units: 10 covered, 0 undeclared, 0 could-not-judge; ' -- \
		scripts/zoo --audit-only --sources glibc --arch armhf --out "$TMP/zoo-audit-ah"
	expect_all "zoo: glibc's armhf memmove, its memcpy __memcpy_arm, gated through the stub" 0 \
		'^glibc .*libc.a\(memmove.o\), memcpy as __memcpy_arm \(libc.a\(memcpy_arm.o\)\) +memmove=memmove +armhf +ACCEPTED' -- \
		scripts/zoo --gate-arg --profile=smoke --gate-arg --skip=fuzz --seconds 1 --only '^glibc-armhf-memmove\+memcpy_arm$' \
		--out "$TMP/zoo-ah"
else
	skip "zoo: armhf" "libc6-dev-armhf-cross is not installed (scripts/install-deps)"
fi

# armhf's kernel routines: linux 6.1's arch/arm/lib through the shim's
# __arm__ section (ARM state, unwind directives in, their personality
# routines the shim's), ARMv7-A integer code needing nothing past it.
# memmove.S is gated with memcpy.S, whose __memcpy it branches to for a
# move that is safe forward; both take the length as signed (`subs r2,
# r2, #4; blt`), so the 2 GiB+ overlapping move, the one huge case a
# 32-bit address space holds, copies only its last bytes (docs/zoo.md,
# "armhf kernel rows").
if ls /usr/src/linux-source-*.tar.* >/dev/null 2>&1; then
	expect_all "zoo --audit-only: linux's arch/arm/lib routines are ARMv7-A integer code, every one read" 0 \
		'^linux-armhf-memcpy: covered; minimal --requires none, declared none$' \
		'^linux-armhf-memmove: covered; minimal --requires none, declared none$' \
		'^linux-armhf-memset: covered; minimal --requires none, declared none$' \
		'^linux-armhf-copy_page: covered; minimal --requires none, declared none$' \
		'^zoo --audit-only: 4 units: 4 covered, 0 undeclared, 0 could-not-judge; ' -- \
		scripts/zoo --audit-only --sources kernel --arch armhf --out "$TMP/zoo-audit-ahk"
	if arch_usable armhf "zoo: armhf's kernel memmove.S" zoo_why; then
		expect_all "zoo: linux's armhf memmove, gated with memcpy.S, fails only the 2 GiB+ move" 1 \
			'^linux .*arch/arm/lib/memmove\.S +memmove=__memmove +armhf +REJECTED' \
			'^zoo: 1 routines: 0 accepted, 0 warnings, 1 rejected, 0 skipped, 0 error' -- \
			scripts/zoo --gate-arg --profile=smoke --gate-arg --skip=fuzz --seconds 1 \
			--only '^linux-armhf-memmove$' --out "$TMP/zoo-ahk"
		expect "zoo: ... every finding of it the huge check's" 0 '^huge$' \
			python3 -c 'import json, sys; print(*sorted({f["check"] for f in json.load(open(sys.argv[1]))["findings"]}))' \
			"$(ls "$TMP"/zoo-ahk/runs/*/linux-armhf-memmove/report.json | head -n1)"
	fi
else
	skip "zoo --audit-only: armhf's kernel routines" "linux-source is not installed (scripts/install-deps --zoo)"
fi

# A few routines through the real gate, quickly: a glibc object (whose
# _chk entry calls __chk_fail, which the gate links to its stub) and a
# kernel alternative when linux-source is here; the matrix, the wall time
# per arch, JSON and page. Each gate gets 1+ (the least its plan says the
# checks need here) and the smoke sweep: the run's plumbing is what is
# tested (the fuzzers filled 45 s a row before, 75 CPU s).
zoo_only='^glibc-x86_64-memset-erms$|^linux-x86_64-memset_64-erms$'
expect_all "zoo: a few routines gated, one row each, the matrix and its totals" 0 \
	'^glibc .*libc.a\(memset-erms.o\) +memset=__memset_erms +x86_64 +ACCEPTED' \
	'^zoo: [0-9]+ routines: [0-9]+ accepted, [0-9]+ warnings, 0 rejected, 0 skipped, 0 error' \
	'^zoo: wall time .*x86_64 [0-9.]+ s' \
	'^zoo: x86_64: [12] gate runs, [0-9.]+ s of gate time, from [0-9]+:[0-9]{2} to [0-9]+:[0-9]{2} \([0-9.]+ s of wall time\)$' -- \
	env "MEMGATE_ZOO_CHECK=$$" nice scripts/zoo --gate-arg --profile=smoke --seconds 1 --only "$zoo_only" --out "$zoo_out"
# Nothing a finished zoo run started outlives it (issue 28: an AFL target,
# stopped, in a session of its own, outlived its gate): every process of the
# run above inherited MEMGATE_ZOO_CHECK, and 3 s on none may still carry it.
zoo_left=''
for ((zoo_i = 0; zoo_i < 30; zoo_i++)); do
	zoo_left=$(grep -lsxzF "MEMGATE_ZOO_CHECK=$$" /proc/[0-9]*/environ 2>/dev/null |
		sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' | while read -r zoo_pid; do
			[ "$(cut -d' ' -f3 "/proc/$zoo_pid/stat" 2>/dev/null)" = Z ] || tr '\0' ' ' <"/proc/$zoo_pid/cmdline" 2>/dev/null
			echo
		done | grep -v '^$')
	[ -n "$zoo_left" ] || break
	sleep 0.1
done
if [ -z "$zoo_left" ]; then
	pass "zoo: a finished run leaves no process behind"
else
	fail "zoo: a finished run leaves no process behind" "still running: $zoo_left"
fi
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (len(d["rows"]) >= 1 and all(r["verdict"] in ("accepted", "warnings") for r in d["rows"])))' "$zoo_out/zoo.json" 2>/dev/null; then
	pass "zoo: zoo.json has a row per entry point, every one accepted"
else
	fail "zoo: zoo.json has a row per entry point, every one accepted" "$(head -c 300 "$zoo_out/zoo.json" 2>&1)"
fi

# The same run again, nothing changed (issue 24): every verdict is reused,
# the same, and says so (the gates ask the cache before building: the
# procs tag each gate's environment carries is no fact of the machine).
expect_all "zoo: a second run with nothing changed reuses every verdict" 0 \
	'^glibc .*libc.a\(memset-erms.o\) +memset=__memset_erms +x86_64 +ACCEPTED \(cached\)' \
	'^zoo: [0-9]+ routines: [0-9]+ accepted, [0-9]+ warnings, 0 rejected, 0 skipped, 0 error' -- \
	env "MEMGATE_ZOO_CHECK=$$" nice scripts/zoo --gate-arg --profile=smoke --seconds 1 --only "$zoo_only" --out "$zoo_out"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["rows"] and all(r.get("cached") for r in d["rows"])))' "$zoo_out/zoo.json" 2>/dev/null; then
	pass "zoo: every row of the second run's zoo.json is cached"
else
	fail "zoo: every row of the second run's zoo.json is cached" "$(head -c 300 "$zoo_out/zoo.json" 2>&1)"
fi

# The page in a real browser: the DOM has the rows and the screenshot the
# verdict colours; a page whose matrix is not drawn fails the check.
if command -v chromium >/dev/null 2>&1; then
	python3 - "$zoo_out/sample" <<'PY'
import os, sys
sys.path.insert(0, "scripts")
from orchestration import zoo
u = zoo.Unit("u", "glibc 2.36 libc.a(x.o)", "x86_64", [], [])
rows = [zoo.row(u, "memcpy", "a", "accepted", 1.0), zoo.row(u, "memmove", "b", "warnings", 2.0, warnings=["w"]),
        zoo.row(u, "memset", "c", "rejected", 3.0, findings=["f"]),
        zoo.row(u, "memset", "d", "skipped", 0.0, reason="SKIP (needs rtm)"),
        zoo.row(u, "memset", "e", "error", 0.0, reason="could not judge: x")]
doc = {"schema": zoo.SCHEMA, "started": "t", "memgate": "v", "seconds_per_run": 60, "quick": False, "jobs": 2,
       "wall_seconds": 6.0, "totals": zoo.totals(rows), "arch_seconds": zoo.per_arch_seconds(rows), "notes": [],
       "units": [], "rows": rows}
os.makedirs(sys.argv[1], exist_ok=True)
zoo.write_reports(doc, sys.argv[1])
PY
	expect "zoo page in Chromium: every verdict's row drawn" 0 "the browser shows the matrix \(5 rows\)" \
		tests/zoo/page-check "$zoo_out/sample/zoo.html" 5
	sed 's|</style>|body{visibility:hidden}</style>|' "$zoo_out/sample/zoo.html" >"$zoo_out/sample/hidden.html"
	expect "zoo page in Chromium: a matrix not drawn is caught" 1 "the screenshot is blank" \
		tests/zoo/page-check "$zoo_out/sample/hidden.html" 5
	expect "zoo page in Chromium: the wrong number of rows is caught" 1 "the DOM has 5 routine rows, not 6" \
		tests/zoo/page-check "$zoo_out/sample/zoo.html" 6
	if [ -f "$zoo_out/zoo.html" ]; then
		rows=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$zoo_out/zoo.json")
		expect "zoo page in Chromium: the gated routines' matrix" 0 "the browser shows the matrix" \
			tests/zoo/page-check "$zoo_out/zoo.html" "$rows"
	fi
else
	skip "zoo page in Chromium" "chromium is not installed (scripts/install-deps --zoo)"
fi
