"""glibc's x86 tuning variables by release and ABI (glibc_x86): the
formulas' facts that shipped bugs came from, the tunables' bounds, the
value sets and their cover, the version option."""
import os
import shutil
import subprocess
import tempfile
import unittest

from common import ROOT  # noqa: F401  (the orchestration package on sys.path)
from orchestration import glibc_x86 as g

QEMU = g.BY_NAME["qemu-tcg"]
ZERO = g.BY_NAME["hypervisor-zero-cache"]
HUGE_AMD = g.BY_NAME["hypervisor-1tib-l3"]
TINY = g.BY_NAME["tiny-caches"]
SKX = g.BY_NAME["intel-skylake-sp"]
NT = "__x86_shared_non_temporal_threshold"


class Formulas(unittest.TestCase):
    def test_no_cache_leaves_store_zero_until_2_35(self):
        # BZ 28784: under QEMU the sizes read 0 and 2.33-2.34 stored them;
        # c242fcce06 (2.35) keeps the static defaults instead.
        for v in (33, 34):
            self.assertEqual(g.produce(v, QEMU)["__x86_shared_cache_size"], 0)
            self.assertEqual(g.produce(v, QEMU)["__x86_data_cache_size"], 0)
        for v in range(35, 42):
            self.assertEqual(g.produce(v, QEMU)["__x86_shared_cache_size"], 1 << 20)
            self.assertEqual(g.produce(v, QEMU)["__x86_data_cache_size_half"], 16 << 10)

    def test_non_temporal_threshold_bounds(self):
        # Below 0x4040 until 2.36 (b446822b6a only bounded the tunable's
        # record), clamped in 2.37, the 64 MiB fallback from 2.38.
        for v in range(33, 37):
            self.assertEqual(g.produce(v, ZERO)[NT], 0)
            self.assertLess(g.produce(v, TINY)[NT], g.MIN_NT)
        self.assertEqual(g.produce(37, ZERO)[NT], g.MIN_NT)
        for v in range(38, 42):
            self.assertEqual(g.produce(v, ZERO)[NT], g.NT_FALLBACK)
            for m in g.MACHINES:
                self.assertGreaterEqual(g.produce(v, m)[NT], g.MIN_NT, m.name)

    def test_1tib_l3_truncates_rep_movsb_threshold_in_2_40_only(self):
        # BZ 32470: the AMD rep movsb threshold is the non-temporal one
        # (0c0d39fe4a, 2.40), held in an unsigned int until 61c3450db9 (2.41).
        self.assertEqual(g.produce(40, HUGE_AMD)["__x86_rep_movsb_threshold"], 0)
        self.assertEqual(g.produce(41, HUGE_AMD)["__x86_rep_movsb_threshold"], g.produce(41, HUGE_AMD)[NT])
        self.assertGreater(g.produce(41, HUGE_AMD)["__x86_rep_movsb_threshold"], 1 << 32)

    def test_stop_threshold_took_the_tunable_from_2_36(self):
        # 0355915514: 2.34-2.35 set rep_movsb_stop_threshold before the
        # tunables, so a user's x86_non_temporal_threshold did not reach it.
        t = {"x86_non_temporal_threshold": 0x100000}
        self.assertNotEqual(g.produce(35, SKX, t)["__x86_rep_movsb_stop_threshold"], 0x100000)
        self.assertEqual(g.produce(35, SKX, t)[NT], 0x100000)
        self.assertEqual(g.produce(36, SKX, t)["__x86_rep_movsb_stop_threshold"], 0x100000)

    def test_variables_by_release(self):
        self.assertIn("__x86_raw_shared_cache_size", g.variables(33))
        self.assertNotIn("__x86_raw_shared_cache_size", g.variables(34))
        self.assertNotIn("__x86_rep_movsb_stop_threshold", g.variables(33))
        self.assertIn("__x86_memset_non_temporal_threshold", g.variables(40))
        for v in g.VERSIONS:
            self.assertEqual(set(g.produce(v, SKX)), set(g.variables(v)), v)

    def test_values_are_unsigned_64_bit(self):
        for v in g.VERSIONS:
            for m in g.MACHINES:
                for name, value in g.produce(v, m).items():
                    self.assertTrue(0 <= value <= g.U64, (v, m.name, name))


class Debian12(unittest.TestCase):
    # Debian 12's 2.36 is the release/2.36 branch: the 2.37 bounds, the
    # 2.38 quarter of the L3 and the 2.41 widening, not the 64 MiB fallback.
    def test_bounds_without_the_64mib_fallback(self):
        self.assertEqual(g.produce(g.DEBIAN12, ZERO)[NT], g.MIN_NT)
        self.assertEqual(g.produce(g.DEBIAN12, SKX, {"x86_non_temporal_threshold": 1})[NT],
                         g.produce(g.DEBIAN12, SKX)[NT])
        for m in g.MACHINES:
            self.assertGreaterEqual(g.produce(g.DEBIAN12, m)[NT], g.MIN_NT, m.name)

    def test_a_machine_like_this_one(self):
        # A 2-vCPU guest of a 480 MiB-L3 host with a 2 MiB non-inclusive L2
        # and FSRM: what Debian 12's ld.so --list-diagnostics showed here.
        guest = g.Machine("guest", "", "intel", 48 << 10, 2 << 20, 480 << 20, threads_l2=1, threads_l3=2,
                          inclusive=False, fsrm=True, vec=64)
        got = g.produce(g.DEBIAN12, guest)
        self.assertEqual(got[NT], 0xb580000)
        self.assertEqual(got["__x86_shared_cache_size"], 0x1e200000)
        self.assertEqual(got["__x86_rep_movsb_threshold"], 0x840)
        self.assertEqual(got["__x86_rep_movsb_stop_threshold"], 0xb580000)


class Tunables(unittest.TestCase):
    def test_non_temporal_tunable_range(self):
        self.assertEqual(g.tunable_extremes(36, "x86_non_temporal_threshold"), [1, g.SIZE_MAX])
        self.assertEqual(g.tunable_extremes(37, "x86_non_temporal_threshold"), [g.MIN_NT + 1, g.MAX_NT])
        self.assertEqual(g.tunable_extremes(36, "x86_memset_non_temporal_threshold"), [])

    def test_a_tunable_of_1_reaches_the_code_until_2_36(self):
        self.assertEqual(g.produce(36, SKX, {"x86_non_temporal_threshold": 1})[NT], 1)
        self.assertEqual(g.produce(37, SKX, {"x86_non_temporal_threshold": 1})[NT], g.produce(37, SKX)[NT])


class Sets(unittest.TestCase):
    def test_distinct_sets_name_their_producers(self):
        sets = g.produced_sets(34, ["__x86_shared_cache_size"])
        values = [s[0][1] for s in sets]
        self.assertEqual(len(values), len(set(values)))
        zero = [s for s in sets if s[0][1] == 0]
        self.assertEqual(len(zero), 1)
        self.assertIn("qemu-tcg", zero[0].producers)
        self.assertIn("qemu-tcg", zero[0].label)

    def test_cover_keeps_small_values_and_starts_with_the_base(self):
        sets = g.produced_sets(34, ["__x86_shared_cache_size"])
        chosen, rest = g.cover(sets, ["__x86_shared_cache_size"], 16)
        self.assertIs(chosen[0], sets[0])
        self.assertIn(0, [s[0][1] for s in chosen])
        covered = set().union(*(g.targets(s, ["__x86_shared_cache_size"]) for s in chosen))
        for s in rest:
            self.assertLessEqual(g.targets(s, ["__x86_shared_cache_size"]), covered)

    def test_boundaries_no_producer_gives(self):
        names = ["__x86_shared_cache_size"]
        runs, produced, _ = g.plan(36, names)
        bounds = [s for s in runs if s.kind == "boundary"]
        self.assertIn([("__x86_shared_cache_size", 0)], bounds)
        self.assertTrue(all(tuple(b) not in {tuple(p) for p in produced} for b in bounds))
        runs34, _, _ = g.plan(34, names)
        self.assertNotIn([("__x86_shared_cache_size", 0)], [s for s in runs34 if s.kind == "boundary"])

    def test_version_text(self):
        self.assertEqual(g.parse_version("2.36"), g.Release(36))
        self.assertEqual(g.parse_version("glibc 2.41").name, "2.41")
        self.assertIs(g.parse_version("2.36-9+deb12u14"), g.DEBIAN12)
        self.assertIs(g.parse_version("2.36-deb12"), g.DEBIAN12)
        with self.assertRaises(ValueError):
            g.parse_version("2.32")
        with self.assertRaises(ValueError):
            g.parse_version("three")


class I386(unittest.TestCase):
    """i386's glibc runs the same start-up code with a 32-bit `long`.
    Checked here against Debian 12's /lib/ld-linux.so.2 --list-diagnostics
    on the 2-vCPU guest of Formulas (its cpu_features are the values before
    init_cacheinfo rounds them)."""

    GUEST = g.Machine("guest", "", "intel", 48 << 10, 2 << 20, 480 << 20, threads_l2=1, threads_l3=2,
                      inclusive=False, fsrm=True, vec=64)

    def produce(self, tunables=None, version=g.DEBIAN12, m=None):
        return g.produce(version, m or self.GUEST, tunables, g.ILP32)

    def test_the_guest_reads_as_on_x86_64(self):
        got = self.produce()
        self.assertEqual(got[NT], 0xb580000)
        self.assertEqual(got["__x86_shared_cache_size"], 0x1e200000)
        self.assertEqual(got["__x86_rep_movsb_threshold"], 0x840)

    def test_settings_past_a_32_bit_size_t_are_refused(self):
        # ld.so left every value as it was for 2^32 and kept 0xffffffff.
        self.assertEqual(self.produce({"x86_shared_cache_size": 1 << 32}), self.produce())
        self.assertEqual(self.produce({"x86_rep_movsb_threshold": 0xFFFFFFFF})["__x86_rep_movsb_threshold"],
                         0xFFFFFFFF)

    def test_the_non_temporal_bounds_are_32_bit(self):
        # 0x4041 and 0xfffffff (SIZE_MAX >> 4) taken; 0x4040, 0x10000000
        # and 0xffffffff (a long of -1) refused.
        for v, taken in ((0x4040, False), (0x4041, True), (0xFFFFFFF, True), (0x10000000, False),
                         (0xFFFFFFFF, False)):
            self.assertEqual(self.produce({"x86_non_temporal_threshold": v})[NT] == v, taken, hex(v))

    def test_a_size_negative_as_a_long_is_stored_until_2_35(self):
        # ld.so's shared_cache_size read 0x90000000; init_cacheinfo's
        # `shared > 0` (2.35 on) keeps the 1 MiB default then.
        huge = {"x86_shared_cache_size": 0x90000000}
        self.assertEqual(self.produce(huge)["__x86_shared_cache_size"], 1 << 20)
        self.assertEqual(self.produce(huge, 34)["__x86_shared_cache_size"], 0x90000000)
        self.assertEqual(g.produce(34, self.GUEST, huge)["__x86_shared_cache_size"], 0x90000000)

    def test_a_1_tib_l3_keeps_its_low_32_bits(self):
        # As a 32-bit long the L3 reads 0: AMD's path falls back to the L2.
        self.assertEqual(self.produce(m=HUGE_AMD)["__x86_shared_cache_size"], 512 << 10)

    def test_boundaries_are_the_32_bit_extremes(self):
        self.assertEqual(g.boundaries(g.ILP32), (0, 1, 0x7FFFFFFF, 0xFFFFFFFF))
        runs, _, _ = g.plan(34, ["__x86_shared_cache_size"], abi=g.ILP32)
        self.assertTrue(all(v <= 0xFFFFFFFF for s in runs for _, v in s))
        self.assertIn("qemu-tcg", [p for s in runs for p in s.producers])


class GateRuns(unittest.TestCase):
    """How the gate uses the sets: their labels, their parts of --seconds,
    a boundary run's findings as warnings, and what a routine reads."""

    def sets(self):
        runs, _, _ = g.plan(g.Release(34), ["__x86_shared_cache_size"])
        for i, s in enumerate(runs):
            s.full, s.weight = i == 0, (4 if i == 0 else 1)
        return [("", s) for s in runs]

    def test_labels_name_the_producers(self):
        from orchestration.run_labels import label_of
        runs = self.sets()
        labels = [label_of("", e, runs) for _, e in runs]
        self.assertTrue(any(label.startswith("qemu-tcg") for label in labels))
        self.assertIn("boundary 1", labels)

    def test_a_boundary_finding_is_a_warning(self):
        from orchestration import gate_runs
        from orchestration.check_result import Check
        boundary = [e for _, e in self.sets() if e.kind == "boundary"][0]
        results = [Check("sweep", "fail", 5, 0.1, "quick profile")]
        found = [{"check": "sweep", "kind": "crash", "detail": "SIGFPE", "repro": "scripts/repro x", "signature": "s"}]
        results, found, warned = gate_runs.boundary_only(results, found, [], boundary)
        self.assertEqual(found, [])
        self.assertEqual(results[0].status, "pass")
        self.assertEqual([w["name"] for w in warned], ["fragile-tunable"])
        self.assertIn("__x86_shared_cache_size=", warned[0]["text"])


@unittest.skipUnless(shutil.which("cc") and shutil.which("objdump"), "needs cc and binutils")
class Reads(unittest.TestCase):
    def test_reads_are_code_relocations_not_debug_info(self):
        from orchestration import submission
        d = tempfile.mkdtemp(prefix="mg-py-")
        src = os.path.join(d, "r.c")
        with open(src, "w") as f:
            f.write("long __x86_shared_cache_size = 1, __x86_data_cache_size = 2;\n"
                    "long f(void) { return __x86_shared_cache_size; }\n")
        obj = os.path.join(d, "r.o")
        subprocess.run(["cc", "-g", "-O2", "-c", "-o", obj, src], check=True)
        tools = {"objdump": "objdump"}
        self.assertIn("__x86_data_cache_size", submission.relocated(tools, obj))  # debug info names it
        self.assertIn("__x86_shared_cache_size", submission.data_reads(tools, obj))
        self.assertNotIn("__x86_data_cache_size", submission.data_reads(tools, obj))


class Thresholds(unittest.TestCase):
    """The lengths a run sweeps around (gate_tunables.thresholds): the
    values the routine reads in that run, and memmove's 4x point."""

    def ctx(self, reads, externs=()):
        import types
        return types.SimpleNamespace(tunables={"reads": reads}, externs=list(externs))

    def test_the_run_values_of_what_it_reads(self):
        from orchestration import gate_tunables as t
        ctx = self.ctx(["copy_threshold", NT], [("copy_threshold", 50000), (NT, 0x4040), ("unread", 7)])
        self.assertEqual(t.thresholds(ctx), [0x4040, 50000, 0x4040 * 16])

    def test_the_gate_default_when_the_run_gives_none(self):
        from orchestration import gate_tunables as t, submission
        default = dict(submission.GLIBC_X86_DEFAULTS)["__x86_rep_movsb_threshold"]
        self.assertEqual(t.thresholds(self.ctx(["__x86_rep_movsb_threshold"])), [default])

    def test_zero_and_negative_values_add_no_length(self):
        from orchestration import gate_tunables as t
        self.assertEqual(t.thresholds(self.ctx(["a", "b"], [("a", 0), ("b", -1)])), [])


if __name__ == "__main__":
    unittest.main()
