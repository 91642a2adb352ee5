"""The reports: every class of the schema (flaky included), n/a,
warnings and could-not-judge in JSON, SARIF and JUnit; write errors are
could-not-judge."""
import json
import os
import unittest
import xml.etree.ElementTree as ET

from common import tmpdir
from orchestration import records, registry, report
from orchestration.records import CouldNotJudge


def load(path):
    with open(path) as f:
        return json.load(f)


def doc(**over):
    d = {"schema": report.SCHEMA, "variant": "df", "op": "memmove", "arch": "x86_64",
         "symbol": "mg_x86_64_bad_memmove_leaves_df_set", "files": ["tests/bad/x86_64/bad_memmove_leaves_df_set.S"],
         "verdict": "rejected", "seconds": 12.5, "memgate": "v1.0-3-gabc", "started": "2026-11-30T10:00:00Z",
         "checks": [{"name": "build", "status": "pass", "cases": 0, "seconds": 1, "note": ""},
                    {"name": "abi", "status": "fail", "cases": 10, "seconds": 1, "note": ""},
                    {"name": "huge", "status": "n/a", "cases": 0, "seconds": 0, "note": "page routines take one page"},
                    {"name": "fuzz", "status": "fail", "cases": 10, "seconds": 1, "note": ""},
                    {"name": "valgrind", "status": "error", "cases": 0, "seconds": 0, "note": "valgrind is not on PATH"},
                    {"name": "bench", "status": "skip", "cases": 0, "seconds": 0, "note": "--no-bench"}],
         "findings": [{"check": "abi", "kind": "abi-violation", "detail": "direction flag left set", "input": "",
                       "repro": "memgate run --len=40", "signature": "df abi-violation direction-flag"},
                      {"check": "fuzz", "kind": "flaky", "detail": "passes when run again", "input": "x.in",
                       "repro": "scripts/repro x.in", "fuzz_command": "fuzz_memmove x.in", "signature": "df flaky"}],
         "warnings": [{"check": "abi", "name": "vzeroupper", "text": "AVX upper state left dirty"}]}
    d.update(over)
    return d


class Reports(unittest.TestCase):
    def write_all(self, d, document):
        os.makedirs(d, exist_ok=True)
        records.write_json(os.path.join(d, "gate.json"), document)
        loaded = report.load(d)
        paths = [os.path.join(d, n) for n in ("r.json", "r.sarif", "r.xml")]
        report.write(loaded, *paths)
        return loaded, paths

    def test_every_class_is_reportable(self):
        d = tmpdir(self)
        for kind in records.CLASSES:
            check = registry.OWNER.get(kind, "fuzz")
            document = doc()
            if not any(c["name"] == check for c in document["checks"]):
                document["checks"].insert(1, {"name": check, "status": "fail", "cases": 1, "seconds": 0.1, "note": ""})
            for c in document["checks"]:
                if c["name"] == check:
                    c["status"] = "fail"
            document["findings"] = [{"check": check, "kind": kind, "detail": "x", "input": "", "repro": "r",
                                     "signature": f"df {kind}"}]
            self.write_all(os.path.join(d, kind), document)

    def test_df_routine_reports(self):
        d = tmpdir(self)
        loaded, (j, s, x) = self.write_all(d, doc())
        self.assertEqual(load(j)["could_not_judge"], [{"check": "valgrind", "reason": "valgrind is not on PATH"}])
        self.assertEqual(loaded["not_applicable"], [{"check": "huge", "reason": "page routines take one page"}])
        sarif = load(s)
        run = sarif["runs"][0]
        self.assertEqual([r["ruleId"] for r in run["results"]], ["abi-violation", "flaky", "warning"])
        self.assertEqual([r["level"] for r in run["results"]], ["error", "error", "warning"])
        self.assertIn("Seen by: fuzz_memmove x.in\nReplay: scripts/repro x.in", run["results"][1]["message"]["text"])
        self.assertFalse(run["invocations"][0]["executionSuccessful"])
        self.assertEqual([r["id"] for r in run["tool"]["driver"]["rules"]], ["abi-violation", "flaky", "warning"])
        suite = ET.parse(x).getroot()
        self.assertEqual((suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")),
                         ("6", "2", "1", "2"))
        huge = suite.find(".//testcase[@name='huge']/skipped")
        self.assertEqual(huge.get("message"), "n/a (page routines take one page)")
        fuzz = suite.find(".//testcase[@name='fuzz']/failure").text
        self.assertIn("seen by: fuzz_memmove x.in", fuzz)

    def test_an_unknown_class_is_refused(self):
        d = tmpdir(self)
        document = doc()
        document["findings"][0]["kind"] = "segfault"
        records.write_json(os.path.join(d, "gate.json"), document)
        with self.assertRaises(report.BadWorkdir):
            report.load(d)

    def test_an_unwritable_report_is_could_not_judge(self):
        d = tmpdir(self)
        loaded, _ = self.write_all(d, doc())
        with self.assertRaises(CouldNotJudge):
            report.write(loaded, json_path=os.path.join(d, "missing", "r.json"))

    def test_junit_escapes(self):
        document = doc()
        document["findings"][0]["detail"] = "a <b> & \"c\" \x07 \r"
        text = report.to_junit(report.derived(document))
        ET.fromstring(text.encode())
        self.assertIn("&lt;b&gt; &amp; &quot;c&quot; \ufffd &#13;", text)

    def test_seconds(self):
        self.assertEqual([report.secs(x) for x in (93.4, 60, 0.0004, 1.23456)], ["93.4", "60", "0", "1.235"])


if __name__ == "__main__":
    unittest.main()
