"""scripts/zoo (orchestration/zoo.py): finding the routines of an archive,
the kernel shim's alternatives, reading gate reports into rows, and the
JSON, text and HTML it writes. Nothing here needs the zoo's packages; a
fake gate stands in for scripts/gate."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from common import tmpdir
from orchestration import kernel_shim, zoo

# `nm -A libc.a` as glibc's x86-64 archive prints it (a few members).
NM_GLIBC = """\
/l/libc.a:memcpy.o:0000000000000000 i memcpy
/l/libc.a:memmove-erms.o:0000000000000020 T __memcpy_chk_erms
/l/libc.a:memmove-erms.o:0000000000000030 T __memcpy_erms
/l/libc.a:memmove-erms.o:0000000000000030 T __memmove_erms
/l/libc.a:memmove-erms.o:0000000000000010 T __mempcpy_erms
/l/libc.a:memmove-erms.o:                 U __chk_fail
/l/libc.a:memset-evex-unaligned-erms.o:0000000000000000 T __wmemset_evex_unaligned
/l/libc.a:memset-evex-unaligned-erms.o:0000000000000020 T __memset_evex_unaligned
/l/libc.a:memset-evex-unaligned-erms.o:0000000000000080 T __memset_evex_unaligned_erms
/l/libc.a:mempcpy-ia32.o:0000000000000010 T __mempcpy
/l/libc.a:mempcpy-ia32.o:0000000000000010 W mempcpy
/l/libc.a:strlen.o:0000000000000000 T strlen
"""
# musl's: memmove jumps to memcpy's forward copy.
NM_MUSL = """\
/m/libc.a:memcpy.lo:0000000000000000 T __memcpy_fwd
/m/libc.a:memcpy.lo:0000000000000000 T memcpy
/m/libc.a:memmove.lo:0000000000000000 T memmove
/m/libc.a:memmove.lo:                 U __memcpy_fwd
/m/libc.a:mempcpy.lo:0000000000000000 T mempcpy
/m/libc.a:mempcpy.lo:                 U memcpy
"""
# glibc's generic memcpy (riscv64): it calls wordcopy.o's helpers, which
# call nothing; strlen.o calls something, so it is no helper to pull in.
NM_WORDCOPY = """\
/r/libc.a:memcpy.o:0000000000000000 T memcpy
/r/libc.a:memcpy.o:                 U _wordcopy_fwd_aligned
/r/libc.a:wordcopy.o:0000000000000000 T _wordcopy_fwd_aligned
/r/libc.a:wordcopy.o:0000000000000100 T _wordcopy_bwd_aligned
/r/libc.a:memset.o:0000000000000000 T memset
/r/libc.a:memset.o:                 U helper_that_calls
/r/libc.a:helper.o:0000000000000000 T helper_that_calls
/r/libc.a:helper.o:                 U abort
"""
# A wrapper that calls an ifunc.
NM_WRAPPER = """\
/a/libc.a:memcpy.o:0000000000000000 i memcpy
/a/libc.a:mempcpy.o:0000000000000000 T __mempcpy
/a/libc.a:mempcpy.o:                 U memcpy
"""

# glibc 2.36's armhf memmove: a tail call of memcpy, an ifunc of three.
NM_ARMHF = """\
/h/libc.a:memcpy.o:00000001 i memcpy
/h/libc.a:memmove.o:00000000 T memmove
/h/libc.a:memmove.o:         U memcpy
/h/libc.a:memcpy_neon.o:00000000 T __memcpy_neon
/h/libc.a:memcpy_vfp.o:00000000 T __memcpy_vfp
/h/libc.a:memcpy_arm.o:00000000 T __aeabi_memcpy
/h/libc.a:memcpy_arm.o:00000000 T __memcpy_arm
"""


class Discovery(unittest.TestCase):
    def test_members_and_entries(self):
        notes = []
        units = {u.name: u for u in zoo.archive_units("glibc", "libc6-dev", "x86_64", "/l/libc.a", NM_GLIBC, notes)}
        self.assertEqual(sorted(units), ["glibc-x86_64-memmove-erms", "glibc-x86_64-mempcpy-ia32",
                                         "glibc-x86_64-memset-evex-unaligned-erms"])
        erms = units["glibc-x86_64-memmove-erms"]
        # memcpy and memmove share an address but are two operations; the
        # _chk entry and the ifunc resolver are not routines.
        self.assertEqual(erms.entries, [("memcpy", "__memcpy_erms"), ("memmove", "__memmove_erms"),
                                        ("mempcpy", "__mempcpy_erms")])
        self.assertEqual(erms.inputs, ["/l/libc.a(memmove-erms.o)"])
        self.assertEqual(erms.requires, [])
        evex = units["glibc-x86_64-memset-evex-unaligned-erms"]
        self.assertEqual(evex.entries, [("memset", "__memset_evex_unaligned"),
                                        ("memset", "__memset_evex_unaligned_erms")])
        self.assertEqual(evex.requires, ["avx512bw", "avx512vl", "bmi2"])
        # An alias pair: the strong symbol names it.
        self.assertEqual(units["glibc-x86_64-mempcpy-ia32"].entries, [("mempcpy", "__mempcpy")])
        self.assertEqual(notes, [])

    def test_the_routines_an_object_jumps_to_come_along(self):
        notes = []
        units = {u.name: u for u in zoo.archive_units("musl", "musl-dev", "x86_64", "/m/libc.a", NM_MUSL, notes)}
        self.assertEqual(units["musl-x86_64-memmove"].inputs, ["/m/libc.a(memmove.lo)", "/m/libc.a(memcpy.lo)"])
        self.assertEqual(units["musl-x86_64-mempcpy"].inputs, ["/m/libc.a(mempcpy.lo)", "/m/libc.a(memcpy.lo)"])
        # memcpy and __memcpy_fwd are one routine: the public name.
        self.assertEqual(units["musl-x86_64-memcpy"].entries, [("memcpy", "memcpy")])

    def test_a_helper_that_calls_nothing_comes_along(self):
        units = {u.name: u for u in zoo.archive_units("glibc", "libc6-dev-riscv64-cross", "riscv64", "/r/libc.a",
                                                      NM_WORDCOPY, [])}
        self.assertEqual(units["glibc-riscv64-memcpy"].inputs, ["/r/libc.a(memcpy.o)", "/r/libc.a(wordcopy.o)"])
        # A helper that calls something is left to the gate's rules.
        self.assertEqual(units["glibc-riscv64-memset"].inputs, ["/r/libc.a(memset.o)"])

    def test_the_older_linkage_names_start_a_routine(self):
        text = "ENTRY(__memset)\nWEAK(memset)\nSYM_FUNC_START(__memmove)\nSYM_FUNC_START_WEAK(memmove)\n"
        self.assertEqual(zoo.FUNC_START.findall(text), ["__memset", "memset", "__memmove", "memmove"])

    def test_a_wrapper_of_an_ifunc_is_a_note_not_a_unit(self):
        notes = []
        units = zoo.archive_units("glibc", "libc6-dev-arm64-cross", "aarch64", "/a/libc.a", NM_WRAPPER, notes)
        self.assertEqual(units, [])
        self.assertEqual(len(notes), 1)
        self.assertIn("mempcpy.o): calls memcpy", notes[0])

    def test_a_wrapper_of_an_ifunc_the_zoo_knows_is_a_unit_per_choice(self):
        notes = []
        d = tmpdir(self)
        units = zoo.archive_units("glibc", "libc6-dev-armhf-cross", "armhf", "/h/libc.a", NM_ARMHF, notes,
                                  stub_dir=d)
        moves = {u.name: u for u in units if u.entries == [("memmove", "memmove")]}
        self.assertEqual(sorted(moves), ["glibc-armhf-memmove+memcpy_arm", "glibc-armhf-memmove+memcpy_neon",
                                         "glibc-armhf-memmove+memcpy_vfp"])
        neon = moves["glibc-armhf-memmove+memcpy_neon"]
        stub = os.path.join(d, "memcpy-is-memcpy_neon.S")
        self.assertEqual(neon.inputs, ["/h/libc.a(memmove.o)", "/h/libc.a(memcpy_neon.o)", stub])
        self.assertEqual(neon.requires, ["neon"])
        self.assertEqual(moves["glibc-armhf-memmove+memcpy_vfp"].requires, [])
        # The stub is one branch to the choice, under the ifunc's name.
        self.assertIn("memcpy:\n\tb\t__memcpy_neon\n", open(stub).read())
        self.assertEqual(notes, [])
        # Without a place for its stubs, it is the note it was.
        units = zoo.archive_units("glibc", "libc6-dev-armhf-cross", "armhf", "/h/libc.a", NM_ARMHF, notes)
        self.assertNotIn("memmove", [op for u in units for op, _ in u.entries])
        self.assertIn("memmove.o): calls memcpy", notes[0])

    def test_features_of_names(self):
        self.assertEqual(zoo.features_of(["__memmove_avx_unaligned_erms_rtm"], "x86_64"), ["avx", "rtm"])
        self.assertEqual(zoo.features_of(["__memset_avx2_unaligned"], "x86_64"), ["avx2"])
        self.assertEqual(zoo.features_of(["__memmove_ssse3"], "i386"), ["ssse3"])
        # A64FX's 256-byte DC ZVA block; falkor's memset assumes 64 bytes.
        self.assertEqual(zoo.features_of(["__memcpy_a64fx"], "aarch64"), ["sve", "zva256"])
        self.assertEqual(zoo.features_of(["__memset_falkor"], "aarch64"), ["zva64"])
        self.assertEqual(zoo.features_of(["__memcpy_falkor"], "aarch64"), [])
        self.assertEqual(zoo.features_of(["__memset_generic", "__memset_emag"], "aarch64"), [])
        self.assertEqual(zoo.features_of(["__memcpy_neon"], "armhf"), ["neon"])
        self.assertEqual(zoo.features_of(["__memcpy_vfp", "__memcpy_arm"], "armhf"), [])
        self.assertEqual(zoo.features_of(["__memcpy_erms", "memcpy"], "x86_64"), [])

    def test_routine_names(self):
        self.assertEqual(zoo.routine_op("__pi_memcpy"), "memcpy")
        self.assertEqual(zoo.routine_op("clear_page_erms"), "clear_page")
        self.assertIsNone(zoo.routine_op("__memset_chk_erms"))
        self.assertIsNone(zoo.routine_op("__wmemset_sse2_unaligned"))
        self.assertIsNone(zoo.routine_op("clear_user_erms"))
        self.assertEqual(zoo.routine_op("__arch_copy_to_user"), "copy_to_user")
        self.assertEqual(zoo.routine_op("__arch_clear_user"), "clear_user")

    def test_kernel_cpus(self):
        # FSRM without ERMS is no real CPU.
        cpus = zoo.cpus_of(["X86_FEATURE_ERMS", "X86_FEATURE_FSRM"])
        self.assertEqual(cpus, [(), ("X86_FEATURE_ERMS",), ("X86_FEATURE_ERMS", "X86_FEATURE_FSRM")])
        self.assertEqual(zoo.cpus_of([]), [()])


# A kernel-style file of our own: the alternatives pick the code.
KERNEL_STYLE = """\
#include <linux/linkage.h>
#include <asm/alternative.h>
SYM_FUNC_START(__memset)
	ALTERNATIVE_2 "jmp memset_orig", "", X86_FEATURE_REP_GOOD, "jmp memset_erms", X86_FEATURE_ERMS
	movq %rdi, %rax
	ret
SYM_FUNC_END(__memset)
SYM_FUNC_ALIAS_WEAK(memset, __memset)
EXPORT_SYMBOL(memset)
SYM_FUNC_START_LOCAL(memset_erms)
	movq %rdi, %rax
	RET
SYM_FUNC_END(memset_erms)
SYM_FUNC_START_LOCAL(memset_orig)
	movq %rdi, %rax
	RET
SYM_FUNC_END(memset_orig)
"""


@unittest.skipUnless(os.uname().machine == "x86_64" and shutil.which("gcc") and shutil.which("objdump"),
                     "needs gcc and objdump on x86-64")
class KernelShim(unittest.TestCase):
    def test_each_alternative_is_a_routine(self):
        d = tmpdir(self)
        tree = os.path.join(d, "tree")
        os.makedirs(os.path.join(tree, "arch/x86/lib"))
        with open(os.path.join(tree, "arch/x86/lib/memset_64.S"), "w") as f:
            f.write(KERNEL_STYLE)
        notes = []
        units = [u for u in zoo.kernel_units(tree, "test", os.path.join(d, "work"), notes) if u.arch == "x86_64"]
        # Three CPUs (none, rep_good, erms; rep_good+erms assembles as erms).
        self.assertEqual(sorted(u.alternative for u in units), ["erms", "none", "rep_good"])
        for u in units:
            self.assertEqual(u.entries, [("memset", "__memset")])
            self.assertIn("-include", u.flags[-1])
        self.assertEqual([u.requires for u in units if u.alternative == "erms"], [["erms"]])
        # The stub headers exist, empty of definitions.
        self.assertTrue(os.path.exists(os.path.join(d, "work/include/linux/linkage.h")))
        self.assertTrue(any("not in this version" in n for n in notes))

    def test_the_alternative_really_differs(self):
        d = tmpdir(self)
        src = os.path.join(d, "k.S")
        with open(src, "w") as f:
            f.write(KERNEL_STYLE)
        os.makedirs(os.path.join(d, "inc/linux"))
        os.makedirs(os.path.join(d, "inc/asm"))
        kernel_shim.stub_includes([src], os.path.join(d, "inc"))
        code = {}
        for mask in (0, 1, 2, 3):
            obj = os.path.join(d, f"k{mask}.o")
            zoo.assemble("x86_64", src, os.path.join(d, "inc"), mask, obj)
            code[mask] = subprocess.run(["objdump", "-d", obj], stdout=subprocess.PIPE, text=True).stdout
        self.assertIn("memset_orig", code[0].split("<__memset>:")[1].split("\n\n")[0])
        self.assertNotIn("jmp", code[1].split("<__memset>:")[1].split("\n\n")[0])
        self.assertIn("memset_erms", code[2].split("<__memset>:")[1].split("\n\n")[0])
        self.assertIn("memset_erms", code[3].split("<__memset>:")[1].split("\n\n")[0])


# 6.1's clear_page_64.S in miniature: the user clears, one a C function
# only by name (their convention is __clear_user's inline asm's).
CLEAR_USER_STYLE = """\
#include <linux/linkage.h>
SYM_FUNC_START(clear_user_original)
	xorl %eax, %eax
	RET
SYM_FUNC_END(clear_user_original)
SYM_FUNC_START(clear_user_erms)
	jmp clear_user_original
SYM_FUNC_END(clear_user_erms)
"""


@unittest.skipUnless(os.uname().machine == "x86_64" and shutil.which("gcc") and shutil.which("objdump"),
                     "needs gcc and objdump on x86-64")
class KernelUserCopies(unittest.TestCase):
    def test_each_routine_under_the_cpu_it_is_chosen_on(self):
        d = tmpdir(self)
        tree = os.path.join(d, "tree")
        os.makedirs(os.path.join(tree, "arch/x86/lib"))
        with open(os.path.join(tree, "arch/x86/lib/clear_page_64.S"), "w") as f:
            f.write(CLEAR_USER_STYLE)
        notes = []
        units = {u.name: u for u in zoo.kernel_user_units(tree, "test", os.path.join(d, "work"), notes)}
        self.assertEqual(sorted(units), ["linux-x86_64-clear_user_erms-rep_good+erms",
                                         "linux-x86_64-clear_user_original-none"])
        erms = units["linux-x86_64-clear_user_erms-rep_good+erms"]
        self.assertEqual(erms.entries, [("clear_user", "clear_user_erms")])
        self.assertEqual(erms.requires, ["erms"])
        self.assertIn("ZOO_CPU=3", erms.flags)
        self.assertEqual(erms.convention, zoo.CLEAR_USER_CONVENTION)
        self.assertIn("--convention", zoo.gate_argv(erms, 10, True, "r.json", ()))
        # The one the file lacks, and the file the tree lacks, are notes.
        self.assertTrue(any("no clear_user_rep_good" in n for n in notes))
        self.assertTrue(any("copy_user_64.S: not in this version" in n for n in notes))
        # The C-convention copies carry none.
        self.assertNotIn("--convention", zoo.gate_argv(zoo.Unit("u", "s", "x86_64", ["f.S"], [("memcpy", "a")]),
                                                        10, True, "r.json", ()))


# 6.1's arch/arm/lib in miniature: the older ENTRY, WEAK and ENDPROC, the
# unwind directives, `ret`, and a memmove that branches to memcpy.S's
# __memcpy for a move that is safe forward.
ARM_MEMCPY = """\
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/unwind.h>
	.text
ENTRY(__memcpy)
WEAK(memcpy)
UNWIND(	.fnstart	)
	mov	ip, r0
1:	subs	r2, r2, #1
	ldrbcs	r3, [r1], #1
	strbcs	r3, [ip], #1
	bhi	1b
	ret	lr
UNWIND(	.fnend		)
ENDPROC(memcpy)
ENDPROC(__memcpy)
"""
ARM_MEMMOVE = """\
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/unwind.h>
	.text
ENTRY(__memmove)
WEAK(memmove)
UNWIND(	.fnstart	)
	subs	ip, r0, r1
	cmphi	r2, ip
	bls	__memcpy
1:	subs	r2, r2, #1
	ldrbcs	r3, [r1, r2]
	strbcs	r3, [r0, r2]
	bhi	1b
	ret	lr
UNWIND(	.fnend		)
ENDPROC(memmove)
ENDPROC(__memmove)
"""


@unittest.skipUnless(shutil.which("clang") and shutil.which("llvm-objdump") and shutil.which("nm"),
                     "needs clang (its arm target), llvm-objdump and nm")
class KernelArm(unittest.TestCase):
    def test_memmove_is_gated_with_the_memcpy_it_branches_to(self):
        d = tmpdir(self)
        folder = os.path.join(d, "tree", "arch/arm/lib")
        os.makedirs(folder)
        for name, text in (("memcpy.S", ARM_MEMCPY), ("memmove.S", ARM_MEMMOVE)):
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
        self.assertEqual(zoo.FUNC_START.findall(ARM_MEMMOVE), ["__memmove", "memmove"])
        notes = []
        units = {u.name: u for u in zoo.kernel_units(os.path.join(d, "tree"), "test", os.path.join(d, "work"),
                                                     notes) if u.arch == "armhf"}
        self.assertEqual(sorted(units), ["linux-armhf-memcpy", "linux-armhf-memmove"])
        move, copy = units["linux-armhf-memmove"], units["linux-armhf-memcpy"]
        self.assertEqual(move.entries, [("memmove", "__memmove")])
        self.assertEqual([os.path.basename(p) for p in move.inputs], ["memmove.S", "memcpy.S"])
        self.assertEqual(len(move.objects), 2)
        self.assertEqual(copy.entries, [("memcpy", "__memcpy")])
        self.assertEqual([os.path.basename(p) for p in copy.inputs], ["memcpy.S"])
        # The unwind index's personality routine is the shim's (the kernel
        # defines it, as unwind.c does), not a reference left open.
        out = subprocess.run(["nm", copy.objects[0]], stdout=subprocess.PIPE, text=True).stdout
        self.assertIn("W __aeabi_unwind_cpp_pr0", out)
        self.assertNotIn(" U ", out)
        self.assertTrue(any("arch/arm/lib/memset.S: not in this version" in n for n in notes))


def unit(entries=(("memcpy", "a"), ("memmove", "b")), requires=(), arch="x86_64"):
    return zoo.Unit("u", "src 1.0 libc.a(x.o)", arch, ["/x.a(x.o)"], list(entries), requires=requires)


class Rows(unittest.TestCase):
    def report(self, doc):
        d = tmpdir(self)
        path = os.path.join(d, "report.json")
        if doc is not None:
            with open(path, "w") as f:
                json.dump(doc, f)
        return path

    def test_one_row_per_entry_with_its_warnings(self):
        path = self.report({"verdict": "accepted", "entries": [
            {"symbol": "a", "verdict": "accepted", "warnings": [], "seconds": 3},
            {"symbol": "b", "verdict": "accepted", "warnings": [{"text": "aligned-over-read: src"}], "seconds": 4}]})
        rows = zoo.rows_of_run(unit(), 0, False, 9.0, "", path, None)
        # Each entry's own 3 and 4 s, and the rest of the run's 9 s evenly.
        self.assertEqual([(r["entry"], r["verdict"], r["seconds"]) for r in rows],
                         [("memcpy=a", "accepted", 4.0), ("memmove=b", "warnings", 5.0)])
        self.assertEqual(rows[1]["warnings"], ["aligned-over-read: src"])

    def test_the_value_sets_a_row_ran_under_are_in_its_row_and_the_matrix(self):
        sets = {"reads": ["__x86_shared_non_temporal_threshold"], "glibc_version": "2.36", "model": ["x"],
                "sets": [{"run": "intel-skylake-sp", "kind": "produced", "values": {}},
                         {"run": "qemu-tcg", "kind": "produced", "values": {}}],
                "not_run": [{"run": "tiny-caches"}]}
        path = self.report({"verdict": "accepted", "entries": [
            {"symbol": "a", "verdict": "accepted", "warnings": [], "seconds": 3, "data_symbols": sets},
            {"symbol": "b", "verdict": "accepted", "warnings": [], "seconds": 3}]})
        rows = zoo.rows_of_run(unit(), 0, False, 9.0, "", path, None)
        self.assertEqual((rows[0]["data_symbols"], rows[1]["data_symbols"]), (sets, None))
        self.assertEqual(zoo.value_sets_text(rows[0]), "glibc 2.36: 2 run (intel-skylake-sp; qemu-tcg), 1 not run")
        self.assertEqual(zoo.value_sets_text(rows[1]), "-")

    def test_entry_seconds_count_the_build_once(self):
        # The gate counts the build (10 s) in both entries' seconds: each
        # entry's own time is its checks', the build is shared evenly.
        build = [{"name": "build", "seconds": 10.0}]
        path = self.report({"verdict": "accepted", "entries": [
            {"symbol": "a", "verdict": "accepted", "seconds": 30.0, "checks": build},
            {"symbol": "b", "verdict": "accepted", "seconds": 50.0, "checks": build}]})
        rows = zoo.rows_of_run(unit(), 0, False, 70.0, "", path, None)
        self.assertEqual([r["seconds"] for r in rows], [25.0, 45.0])

    def test_entry_seconds_without_times_are_even_shares(self):
        path = self.report({"verdict": "accepted", "entries": [
            {"symbol": "a", "verdict": "accepted"}, {"symbol": "b", "verdict": "accepted", "seconds": 3}]})
        rows = zoo.rows_of_run(unit(), 0, False, 8.0, "", path, None)
        self.assertEqual([r["seconds"] for r in rows], [4.0, 4.0])

    def test_a_rejected_entry_among_accepted(self):
        path = self.report({"verdict": "rejected", "entries": [
            {"symbol": "a", "verdict": "accepted"}, {"symbol": "b", "verdict": "rejected",
                                                     "findings": [{"text": "wrong bytes"}]}]})
        rows = zoo.rows_of_run(unit(), 1, False, 9.0, "", path, None)
        self.assertEqual([r["verdict"] for r in rows], ["accepted", "rejected"])
        self.assertEqual(rows[1]["findings"], ["wrong bytes"])

    def test_a_gate_finding_reads_as_the_gate_prints_it(self):
        f = {"check": "sweep", "kind": "crash", "detail": "called __chk_fail", "run": "cpu max", "input": "x"}
        self.assertEqual(zoo.finding_text(f), "[sweep] crash: called __chk_fail (cpu max)")

    def test_a_single_entry_report(self):
        path = self.report({"verdict": "rejected", "symbol": "a", "findings": ["x"], "warnings": []})
        rows = zoo.rows_of_run(unit(entries=[("memcpy", "a")]), 1, False, 5.0, "", path, None)
        self.assertEqual([r["verdict"] for r in rows], ["rejected"])

    def test_could_not_judge_is_an_error_with_the_reason(self):
        path = self.report(None)
        rows = zoo.rows_of_run(unit(), 2, False, 1.0, "building...\ngate: could not judge: no space\n", path, None)
        self.assertEqual({r["verdict"] for r in rows}, {"error"})
        self.assertEqual(rows[0]["reason"], "gate: could not judge: no space")

    def test_each_entry_says_why_it_could_not_be_judged(self):
        path = self.report({"verdict": "could not judge", "entries": [
            {"symbol": "a", "verdict": "accepted"},
            {"symbol": "b", "verdict": "could not judge",
             "could_not_judge": [{"check": "fuzz", "reason": "no time was left"}]}]})
        rows = zoo.rows_of_run(unit(), 2, False, 2.0, "last line", path, None)
        self.assertEqual([(r["verdict"], r["reason"]) for r in rows],
                         [("accepted", ""), ("error", "could not judge: fuzz: no time was left")])

    def test_accepted_without_a_report_is_an_error(self):
        rows = zoo.rows_of_run(unit(), 0, False, 1.0, "ACCEPTED", self.report(None), None)
        self.assertEqual({r["verdict"] for r in rows}, {"error"})
        self.assertIn("no readable report", rows[0]["reason"])

    def test_a_gate_past_its_limit_is_an_error(self):
        rows = zoo.rows_of_run(unit(), -9, True, 999.0, "", self.report(None), None)
        self.assertEqual({r["verdict"] for r in rows}, {"error"})

    def test_an_entry_the_report_lacks_is_an_error(self):
        path = self.report({"verdict": "accepted", "entries": [{"symbol": "a", "verdict": "accepted"}]})
        rows = zoo.rows_of_run(unit(), 0, False, 2.0, "", path, None)
        self.assertEqual([r["verdict"] for r in rows], ["accepted", "error"])

    def test_missing_features_skip_x86_only(self):
        self.assertEqual(zoo.missing_features(unit(requires=["avx", "rtm"]), {"avx", "sse2"}), ["rtm"])
        self.assertEqual(zoo.missing_features(unit(requires=["sve"], arch="aarch64"), {"avx"}), [])

    def test_speed_only_features_never_skip(self):
        # Every x86 CPU runs rep movsb: erms, fsrm, fsrs only say how fast.
        self.assertEqual(zoo.missing_features(unit(requires=["erms", "fsrm", "fsrs", "rtm"]), {"sse2"}), ["rtm"])
        opts = {"out": tmpdir(self), "seconds": 1, "emulated_factor": 3, "quick": True, "gate_args": []}
        rows = zoo.gate_unit(unit(requires=["rtm"]), opts, {"avx"})
        self.assertEqual([(r["verdict"], r["reason"]) for r in rows], [("skipped", "SKIP (needs rtm)")] * 2)

    def test_an_arch_memgate_does_not_build_for_is_could_not_judge(self):
        opts = {"out": tmpdir(self), "seconds": 1, "emulated_factor": 3, "quick": True, "gate_args": []}
        rows = zoo.gate_unit(unit(), opts, set(), "could not judge: memgate does not build for x86_64")
        self.assertEqual({r["verdict"] for r in rows}, {"error"})

    def test_gate_arguments(self):
        u = zoo.Unit("k", "linux", "x86_64", ["/t/memset_64.S"], [("memset", "__memset")], requires=["erms"],
                     flags=["-I", "/inc", "-D", "ZOO_CPU=2", "--cflags", "-include /s.h"])
        argv = zoo.gate_argv(u, 30, True, "/r.json", ["--no-bench"])
        self.assertEqual(argv[1:], ["--arch", "x86_64", "--seconds", "30+", "--report", "/r.json", "--quick",
                                    "--requires", "erms", "--entry", "memset=__memset", "-I", "/inc", "-D",
                                    "ZOO_CPU=2", "--cflags", "-include /s.h", "--no-bench", "/t/memset_64.S"])

    def test_exit_status(self):
        ok = {"verdict": "accepted"}
        self.assertEqual(zoo.exit_status([ok, {"verdict": "warnings"}, {"verdict": "skipped"}]), 0)
        self.assertEqual(zoo.exit_status([ok, {"verdict": "rejected"}]), 1)
        self.assertEqual(zoo.exit_status([{"verdict": "rejected"}, {"verdict": "error"}]), 2)


def sample_doc():
    u = unit()
    rows = [zoo.row(u, "memcpy", "a", "accepted", 2.0, plot="plots/u.svg"),
            zoo.row(u, "memmove", "b<i>", "warnings", 3.0, warnings=["over <read>"]),
            zoo.row(u, "memset", "c", "skipped", 0.0, reason="SKIP (needs rtm)")]
    return {"schema": zoo.SCHEMA, "started": "t", "memgate": "v", "seconds_per_run": 60, "quick": False,
            "jobs": 2, "wall_seconds": 5.0, "totals": zoo.totals(rows), "arch_seconds": zoo.per_arch_seconds(rows),
            "notes": ["n & m"], "units": [u.as_dict()], "rows": rows}


class Scheduling(unittest.TestCase):
    OPTS = {"seconds": 40, "emulated_factor": 3}

    def test_the_longest_first(self):
        units = [zoo.Unit("kernel", "linux", "x86_64", [], [("memset", "m")]),
                 zoo.Unit("six", "glibc", "x86_64", [], [("memcpy", str(i)) for i in range(6)]),
                 zoo.Unit("rtm", "glibc", "x86_64", [], [("memcpy", "r")] * 6, requires=["rtm"]),
                 zoo.Unit("a64", "glibc", "aarch64", [], [("memcpy", "x"), ("memmove", "y")]),
                 zoo.Unit("kernel2", "linux", "x86_64", [], [("memset", "n")])]
        order = [u.name for u in zoo.schedule(units, self.OPTS, {"avx"})]
        if os.uname().machine == "aarch64":
            self.assertEqual(order, ["six", "a64", "kernel", "kernel2", "rtm"])
        else:
            # Two aarch64 entries under qemu (3 x 40 s, and two more CPU
            # models' quick sweeps) outlast six native ones; a unit this
            # CPU skips costs nothing; ties keep their order.
            self.assertEqual(order, ["a64", "six", "kernel", "kernel2", "rtm"])

    def test_estimate(self):
        one = zoo.Unit("k", "linux", "x86_64", [], [("memset", "m")])
        self.assertEqual(zoo.estimate(one, self.OPTS, set()), zoo.BUILD_ESTIMATE + 40)
        sve = zoo.Unit("s", "glibc", "aarch64", [], [("memcpy", "m")], requires=["sve"])
        if os.uname().machine != "aarch64":
            # max and a64fx have SVE: one further model.
            self.assertAlmostEqual(zoo.estimate(sve, self.OPTS, set()), zoo.BUILD_ESTIMATE + 120 * 1.4)

    def test_memgate_built_once_per_arch_with_the_fuzz_commons(self):
        calls = []

        class Done:
            returncode, timed_out = 0, False

        def fake_run(argv, **kw):
            calls.append(argv)
            return Done()
        old = zoo.procs.run
        self.addCleanup(setattr, zoo.procs, "run", old)
        zoo.procs.run = fake_run
        out = tmpdir(self)
        units = [zoo.Unit("a", "glibc", "x86_64", [], [("mempcpy", "p"), ("memset", "s")]),
                 zoo.Unit("k", "linux", "x86_64", [], [("clear_page", "c")]),
                 zoo.Unit("u", "linux", "x86_64", [], [("clear_user", "u")]),
                 zoo.Unit("b", "glibc", "aarch64", [], [("memmove", "m"), ("copy_to_user", "t")])]
        host = "aarch64" if os.uname().machine == "aarch64" else "x86_64"
        status = zoo.build_arches(units, out, 2)
        self.assertEqual(status, {"x86_64": None, "aarch64": None})
        self.assertEqual(sum(1 for c in calls if "all" in c), 2)
        self.assertTrue(all("-j2" in c for c in calls))
        shared = [c for c in calls if "gate-shared" in c]
        self.assertEqual(len(shared), 1)
        if host == "x86_64":
            with open(os.path.join(out, "shared-build", "family")) as f:
                # The gate's family names (a usercopy target, not one per op), and
                # only the host's units: the others are not built here.
                self.assertEqual(f.read().split(), ["memcpy", "memset", "page", "usercopy"])

    def test_wall_time_per_arch(self):
        u, v = unit(), zoo.Unit("v", "glibc", "aarch64", [], [("memcpy", "x")])
        rows = [dict(zoo.row(u, "memcpy", "a", "accepted", 10.0), started=0.0, unit_seconds=20.0),
                dict(zoo.row(u, "memmove", "b", "accepted", 10.0), started=0.0, unit_seconds=20.0),
                dict(zoo.row(v, "memcpy", "x", "accepted", 50.0), started=5.0, unit_seconds=50.0)]
        wall = zoo.per_arch_wall(rows)
        self.assertEqual(wall["x86_64"], {"runs": 1, "gate_seconds": 20.0, "first_start": 0.0, "last_end": 20.0,
                                          "wall_seconds": 20.0})
        self.assertEqual(wall["aarch64"]["last_end"], 55.0)
        doc = dict(sample_doc(), arch_wall=wall, build_seconds=3.0)
        lines = zoo.summary_lines(doc)
        self.assertIn("zoo: aarch64: 1 gate runs, 50.0 s of gate time, from 0:05 to 0:55 (50.0 s of wall time)", lines)
        self.assertTrue(any("(0:05) with 2 jobs (finding the routines 0.0 s, building memgate 3.0 s)" in line for line in lines), lines)
        self.assertIn('<table id="arches">', zoo.html_page(doc))


class Reports(unittest.TestCase):
    def test_totals_and_times(self):
        doc = sample_doc()
        self.assertEqual(doc["totals"], {"accepted": 1, "warnings": 1, "rejected": 0, "skipped": 1, "error": 0})
        self.assertEqual(doc["arch_seconds"], {"x86_64": 5.0})
        self.assertIn("zoo: 3 routines: 1 accepted, 1 warnings, 0 rejected, 1 skipped, 0 error",
                      zoo.summary_lines(doc))

    def test_html_has_every_row_escaped(self):
        page = zoo.html_page(sample_doc())
        self.assertEqual(page.count('<tr class="'), 3)
        self.assertIn("memmove=b&lt;i&gt;", page)
        self.assertIn("over &lt;read&gt;", page)
        self.assertIn('<img src="plots/u.svg"', page)
        self.assertIn("n &amp; m", page)
        self.assertNotIn("<i>", page)

    def test_written_and_read_back(self):
        d = tmpdir(self)
        zoo.write_reports(sample_doc(), d)
        with open(os.path.join(d, "zoo.json")) as f:
            self.assertEqual(json.load(f)["totals"]["warnings"], 1)
        with open(os.path.join(d, "zoo.txt")) as f:
            text = f.read()
        self.assertIn("SKIP (needs rtm)", text)
        self.assertTrue(text.splitlines()[0].startswith("source"))


# A stand-in for scripts/gate: accepts 'a', rejects 'b', writes its report.
FAKE_GATE = """#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
report = args[args.index("--report") + 1]
entries = [a.split("=", 1)[1] for i, a in enumerate(args) if i and args[i - 1] == "--entry"]
rows = [{"symbol": s, "verdict": "rejected" if s == "b" else "accepted", "warnings": [], "findings": []}
        for s in entries]
json.dump({"verdict": "rejected", "entries": rows}, open(report, "w"))
sys.exit(1 if any(r["verdict"] == "rejected" for r in rows) else 0)
"""


class Main(unittest.TestCase):
    def test_usage_errors(self):
        for argv in (["--nope"], ["--arch", "sparc"], ["--seconds", "0"], ["--only", "("], ["--sources", "x"]):
            with self.assertRaises(zoo.Usage):
                zoo.parse(argv)

    def test_a_run_with_a_fake_gate(self):
        d = tmpdir(self)
        gate = os.path.join(d, "gate")
        with open(gate, "w") as f:
            f.write(FAKE_GATE)
        os.chmod(gate, stat.S_IRWXU)
        old_discover, old_argv = zoo.discover, zoo.gate_argv
        self.addCleanup(setattr, zoo, "discover", old_discover)
        self.addCleanup(setattr, zoo, "gate_argv", old_argv)
        old_build = zoo.build_arches
        self.addCleanup(setattr, zoo, "build_arches", old_build)
        zoo.build_arches = lambda units, out, jobs=2: {"x86_64": None}
        zoo.discover = lambda *a: [unit()]
        zoo.gate_argv = lambda *a: [gate] + old_argv(*a)[1:]
        out = os.path.join(d, "out")
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()) as said:
            rc = zoo.main(["--out", out, "--seconds", "1"])
        self.assertEqual(rc, 1, said.getvalue())
        with open(os.path.join(out, "zoo.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["totals"]["accepted"], 1)
        self.assertEqual(doc["totals"]["rejected"], 1)
        self.assertIn("zoo: 2 routines", said.getvalue())
        self.assertTrue(os.path.exists(os.path.join(out, "zoo.html")))


class Found(unittest.TestCase):
    """The zoo's discovery is reused under its key while the units' files are there."""

    def test_a_discovery_is_reused_under_its_key_while_its_files_are_there(self):
        from orchestration import zoo_found
        tmp = tempfile.mkdtemp(prefix="mg-py-")
        self.addCleanup(lambda: shutil.rmtree(tmp, ignore_errors=True))
        src = os.path.join(tmp, "memcpy.S")
        with open(src, "w") as f:
            f.write("\n")
        unit = {"name": "u", "source": "s", "arch": "x86_64", "inputs": [src], "entries": [{"op": "memcpy",
                "symbol": "m"}], "requires": [], "flags": ["-I", tmp], "alternative": "", "convention": "",
                "objects": []}
        where = os.path.join(tmp, "discovery.json")
        self.assertTrue(zoo_found.save(where, "k", [unit], ["a note"]))
        self.assertEqual(zoo_found.load(where, "k"), ([unit], ["a note"]))
        self.assertIsNone(zoo_found.load(where, "other"))
        os.unlink(src)
        self.assertIsNone(zoo_found.load(where, "k"))
        self.assertEqual(zoo.unit_of(unit).as_dict(), {k: v for k, v in unit.items() if k != "objects"})

    def test_the_key_covers_every_module_discovery_runs(self):
        # A change to a module zoo.py imports (kernel_shim, zoo_isa, ...)
        # or one they import must find the units afresh, not reuse a list
        # the old code made.
        from orchestration import zoo_found
        code = zoo_found.code_files()
        for module in ("zoo.py", "zoo_found.py", "kernel_shim.py", "zoo_isa.py", "isa_features.py",
                       "gate_options.py", "cpu_models.py"):
            self.assertIn(module, code)
        self.assertTrue(all(os.path.exists(os.path.join(zoo_found.HERE, m)) for m in code))


if __name__ == "__main__":
    unittest.main()
