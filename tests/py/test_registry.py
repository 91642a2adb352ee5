"""The gate's checks are one table (orchestration/registry.py): every list
of checks or classes elsewhere is derived from it, and what runs each
check answers for every row that needs it."""
import os
import re
import unittest

from common import ROOT
from orchestration import checks, gate_isa, gate_options, records, registry, report


class Registry(unittest.TestCase):
    def test_the_lists_are_the_registrys(self):
        self.assertEqual(report.CHECKS, registry.NAMES)
        self.assertEqual(records.GATE_CLASSES, registry.GATE_CLASSES)
        self.assertEqual(gate_options.SKIPPABLE, registry.SKIPPABLE)
        self.assertEqual(gate_isa.EXECUTING, registry.EXECUTING)
        self.assertEqual(checks.SITUATIONS, registry.SITUATIONS)

    def test_every_situation_and_step_has_its_runner(self):
        self.assertEqual(set(checks.SITUATION_FIELDS), set(registry.SITUATIONS))
        self.assertEqual(set(checks.STEP_RUNNERS), set(registry.STEPS))

    def test_a_class_goes_with_its_owner_only(self):
        self.assertTrue(registry.may_report("fuzz", "flaky"))
        self.assertTrue(registry.may_report("fuzz", "wrong-result"))
        self.assertFalse(registry.may_report("sweep", "flaky"))
        self.assertFalse(registry.may_report("bench", "wrong-result"))
        self.assertTrue(registry.may_report("bench", "slowdown"))
        self.assertFalse(registry.may_report("sweep", "slowdown"))

    def test_each_class_has_one_owner_and_no_engine_class_is_owned(self):
        owned = [cls for c in registry.CHECKS for cls in c.own]
        self.assertEqual(len(owned), len(set(owned)))
        self.assertFalse(set(owned) & set(records.FAILURE_CLASSES))

    def test_docs_gate_md_has_a_row_for_every_check(self):
        with open(os.path.join(ROOT, "docs", "gate.md"), encoding="utf-8") as f:
            rows = set(re.findall(r"^\| ([a-z-]+) \|", f.read(), re.M))
        self.assertFalse(set(registry.NAMES) - rows, "checks without a row in docs/gate.md's table")


if __name__ == "__main__":
    unittest.main()
