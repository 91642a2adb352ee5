"""The checks' units (docs/design.md, "A check of the gate"): every static
and watch row of the registry names a unit with its stage's functions and
its classes' SARIF text, each unit applies where it should, a unit reads a read-only View, and the
runners run the units through the registry (a watch's env reaches memgate
verify, and its judge sees verify's rows)."""
import dataclasses
import os
import unittest
from unittest import mock

from common import context, tmpdir
from orchestration import (below_sp, check_view, checks, gate_isa, gate_runs, misaligned, registry, report,
                           uaccess, units)
from orchestration.check_result import Check
from orchestration.cli import Usage

STAGE_FUNCTIONS = {"static": ("applies", "run"), "watch": ("applies", "refuses", "start", "judge")}
USER_COPY = {"op": "copy_from_user", "symbol": "f", "family": "usercopy", "contract": "kernel"}


def riscv(tmp, **over):
    return context(tmp, **dict({"host": "x86_64", "arch": "riscv64", "foreign": "riscv64",
                                "emulated": "qemu-riscv64"}, **over))


def view(ctx, **more):
    return check_view.of(ctx, **more)


class Registry(unittest.TestCase):
    def test_every_static_and_watch_check_has_a_unit_but_isa(self):
        # isa's audit runs first, in gate_isa: the features it finds decide
        # where the other checks can run.
        staged = [row for row in registry.CHECKS if row.stage in STAGE_FUNCTIONS]
        self.assertEqual([row.name for row in staged if not row.unit], ["isa"])
        for row in staged:
            if row.unit:
                self.assertIn(row.unit, units.BY_NAME, row.name)

    def test_every_unit_is_a_rows_and_has_its_stages_functions(self):
        rows = {row.unit: row for row in registry.CHECKS if row.unit}
        self.assertEqual(set(rows), set(units.BY_NAME))
        for name, unit in units.BY_NAME.items():
            for function in STAGE_FUNCTIONS[rows[name].stage]:
                self.assertTrue(callable(getattr(unit, function, None)), f"{name}.{function}")
            # The SARIF rule text of each class its row owns, and of no other.
            self.assertEqual(set(unit.ABOUT), set(rows[name].own), name)
            for cls, text in unit.ABOUT.items():
                self.assertIs(report.ABOUT[cls], text)

    def test_the_stages_units_in_the_registrys_order(self):
        self.assertEqual([row.name for row, _ in units.of_stage("static")], ["below-sp", "uaccess", "store-order"])
        self.assertEqual([unit for _, unit in units.of_stage("watch")], [misaligned])
        self.assertEqual(units.of_stage("step"), [])


class View(unittest.TestCase):
    def test_a_unit_cannot_change_what_it_reads(self):
        ctx = context(tmpdir(self))
        ctx.entries = [USER_COPY]
        v = view(ctx)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            v.name = "other"
        with self.assertRaises(TypeError):
            v.entries[0]["family"] = "string"
        self.assertEqual((v.name, v.merged), ("bytecopy", "build/gate/bytecopy-x/plain.parts/merged.o"))


class Applies(unittest.TestCase):
    def test_below_sp_on_aarch64_only(self):
        tmp = tmpdir(self)
        self.assertTrue(below_sp.applies(view(context(tmp, foreign="aarch64"))))
        self.assertFalse(below_sp.applies(view(context(tmp))))

    def test_uaccess_for_the_user_copies_only(self):
        ctx = context(tmpdir(self))
        self.assertFalse(uaccess.applies(view(ctx)))
        ctx.entries = [dict(ctx.entries[0]), USER_COPY]
        self.assertTrue(uaccess.applies(view(ctx)))

    def test_misaligned_has_riscv64s_row_only(self):
        tmp = tmpdir(self)
        self.assertTrue(misaligned.applies(view(riscv(tmp))))
        self.assertTrue(misaligned.applies(view(riscv(tmp, emulated=""))))  # its row says n/a
        self.assertFalse(misaligned.applies(view(context(tmp))))

    def test_the_static_stage_runs_the_units_that_apply(self):
        ctx = context(tmpdir(self), foreign="", host="x86_64")
        ctx.entries = [USER_COPY]  # its merged object was never built
        self.assertEqual([(c.name, c.status) for c, _, _ in gate_isa.static_checks(ctx)],
                         [("uaccess", "error"), ("store-order", "error")])


class Watch(unittest.TestCase):
    def test_misaligned_fast_is_riscv64s_declaration(self):
        self.assertEqual(misaligned.refuses(["misaligned_fast"], "x86_64"),
                         "--requires misaligned_fast: riscv64's declaration, and this routine is for x86_64")
        self.assertEqual(misaligned.refuses(["misaligned_fast"], "riscv64"), "")
        self.assertEqual(misaligned.refuses(["avx2"], "x86_64"), "")

    def test_no_unaligned_is_armhfs_declaration(self):
        self.assertEqual(misaligned.refuses(["no_unaligned"], "riscv64"),
                         "--requires no_unaligned: armhf's declaration, and this routine is for riscv64")
        self.assertEqual(misaligned.refuses(["no_unaligned"], "armhf"), "")

    def test_armhf_is_watched_only_for_a_target_without_unaligned_access(self):
        v = view(riscv(tmpdir(self)))
        armhf = dataclasses.replace(v, foreign="armhf", cpu_model="cortex-a15")
        self.assertIn("ARMv7 performs unaligned LDR/STR itself", misaligned.not_applicable(armhf))
        declared = dataclasses.replace(armhf, requires=("no_unaligned",))
        self.assertEqual(misaligned.not_applicable(declared), "")
        other = dataclasses.replace(declared, cpu_model="cortex-a9,neon=off,vfp-d32=off")
        self.assertIn("watched under cortex-a15", misaligned.not_applicable(other))

    def test_first_code_segment_of_a_32_bit_program(self):
        import struct
        raw = bytearray(52 + 2 * 32)
        raw[4] = 1  # ELFCLASS32
        struct.pack_into("<I", raw, 28, 52)  # e_phoff
        struct.pack_into("<HH", raw, 42, 32, 2)  # e_phentsize, e_phnum
        struct.pack_into("<IIII", raw, 52, 1, 0, 0x10000, 0)  # PT_LOAD, R
        struct.pack_into("<I", raw, 52 + 24, 4)
        struct.pack_into("<IIII", raw, 84, 1, 0, 0x1d030, 0)  # PT_LOAD, R E
        struct.pack_into("<I", raw, 84 + 24, 5)
        self.assertEqual(misaligned.first_code_segment(bytes(raw)), 0x1d030)

    def test_the_plan_asks_the_watch(self):
        ctx = context(tmpdir(self), requires=["misaligned_fast"])
        with self.assertRaisesRegex(Usage, "riscv64's declaration, and this routine is for x86_64"):
            gate_runs.plan_runs(ctx)

    def test_natively_n_a_and_nothing_added_to_verify(self):
        v = view(riscv(tmpdir(self), emulated=""))
        watching = misaligned.start(v)
        self.assertEqual(watching.env, {})
        check, found, warned = misaligned.judge(v, watching)
        self.assertEqual((check.status, check.note, found, warned),
                         ("n/a", "riscv64 runs natively here: the check is qemu-user's plugin", [], []))

    def test_without_the_plugin_it_cannot_judge(self):
        tmp = tmpdir(self)
        v = view(riscv(tmp, B=tmp))
        watching = misaligned.start(v)
        self.assertEqual(watching.env, {})
        check, _, _ = misaligned.judge(v, watching)
        self.assertEqual((check.status, check.note),
                         ("error", f"no {tmp}/qemu-misaligned.so (make ARCH=riscv64 builds it)"))

    def test_without_a_sweep_it_cannot_judge(self):
        tmp = tmpdir(self)
        watching = misaligned.Watching("", "", os.path.join(tmp, misaligned.LOG), ["f"], {"QEMU_PLUGIN": "x"})
        for earlier in ((), (Check("sweep", "error"),)):
            check, _, _ = misaligned.judge(view(riscv(tmp), earlier=earlier), watching)
            self.assertEqual((check.status, check.note), ("error", "the sweep it watches could not be judged"))


class FakeWatch:
    """A watch unit that adds MG_FAKE to verify's environment and keeps
    what its judge saw."""

    def __init__(self):
        self.earlier = None

    def applies(self, view):
        return True

    def start(self, view):
        return misaligned.Watching("", "", "", [], {"MG_FAKE": "1"})

    def judge(self, view, watching):
        self.earlier = [c.name for c in view.earlier]
        return Check("misaligned", "pass"), [], [{"check": "misaligned", "name": "fake", "text": "seen"}]


class Runner(unittest.TestCase):
    def test_a_watch_wraps_verify_and_judges_after_it(self):
        ctx = context(tmpdir(self))
        watch, seen = FakeWatch(), []

        def run_verify(ctx):
            seen.append(ctx.env.get("MG_FAKE"))
            return [Check("abi", "pass"), Check("sweep", "pass", 5)], [], []

        steps = {name: (lambda ctx, name=name: (Check(name, "pass"), [], [])) for name in checks.STEP_RUNNERS}
        with mock.patch.object(units, "of_stage", lambda stage: [(None, watch)] if stage == "watch" else []), \
                mock.patch.object(checks, "run_verify", run_verify), \
                mock.patch.dict(checks.STEP_RUNNERS, steps):
            results, findings, warnings = gate_runs.run_checks(ctx, primary=False)
        self.assertEqual(seen, ["1"])
        self.assertNotIn("MG_FAKE", ctx.env)
        self.assertEqual(watch.earlier, ["abi", "sweep"])
        self.assertEqual([c.name for c in results], ["abi", "sweep", "misaligned", "regressions"])
        self.assertEqual([w["name"] for w in warnings], ["fake"])


if __name__ == "__main__":
    unittest.main()
