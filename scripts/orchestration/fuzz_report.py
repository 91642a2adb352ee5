"""scripts/fuzz's outputs: summary.jsonl (records: one `engine` per fuzzer
run, one `finding` per unique finding, `error`s, and a last `summary`),
summary.txt and the same text on stdout, and beside each kept input its
record (NAME.json) and report (NAME.txt). Everything is written durably and
read back (records.write_text): a write error is "could not judge"."""

import os
import shlex
import sys

from .fuzz_findings import text_path, record_path
from .records import write_lines, write_text


class Report:
    def __init__(self, ctx):
        self.ctx = ctx
        self.engines = []
        self.rows = []
        self.findings = []  # (target, Finding, record as written)
        self.errors = []  # error records

    def add_engine(self, target, engine, execs, seconds, corpus, status, reason):
        self.engines.append({
            "record": "engine",
            "engine": engine,
            "target": target,
            "execs": execs,
            "seconds": round(seconds, 1),
            "status": status,
            "reason": reason,
            "sanitize": self.ctx.sanitize,
            "variant": self.ctx.variant or None,
            "corpus": corpus,
            **self.plan(),
        })
        if status == "error":
            self.add_error(reason, target)
        self.rows.append((target, self.ctx.label, round(seconds), execs, corpus))

    def add_finding(self, target, finding):
        ctx = self.ctx
        record = dict(finding.record)
        path = record["input"]
        record["stage"] = "fuzz"
        record["engine"] = ctx.engine
        record["target"] = target
        record["input"] = ctx.show(path)
        record["repro"] = ctx.repro_argv(target, ctx.show(path))
        if ctx.repro_env():
            record["repro_env"] = ctx.repro_env()
        record["found_as"] = ctx.show(finding.kept)
        record["note"] = finding.note
        self.findings.append((target, finding, record))
        write_lines(record_path(path), [record])
        write_text(text_path(path), self.finding_text(record, finding) + "\n")

    def add_error(self, reason, target):
        self.errors.append({"record": "error", "reason": reason, "stage": "fuzz",
                            "variant": self.ctx.variant or None, "target": target})

    def finding_text(self, record, finding):
        lines = [
            f"{record['class']} in {record.get('variant')} ({record['target']}, {self.ctx.label})",
            f"  signature: {record['signature']}",
            f"  diagnosis: {record['class']}: {record.get('detail')}",
        ]
        if record.get("replay"):
            lines.append(f"  replay:    {shlex.join(record['replay'])}")
        for name, text in finding.extra_lines:
            lines.append(f"  {name + ':':<10} {text}")
        lines.append(f"  repro:     {self.ctx.repro_text(record['target'], finding.record['input'])}")
        lines.append(f"  found as:  {record['found_as']} ({finding.note})")
        return "\n".join(lines)

    # -------------------------------------------------------------- summary

    def total_execs(self):
        return sum(e["execs"] for e in self.engines)

    def plan(self):
        """--runs: the inputs planned per target and engine, and the seed
        (records of a run for a time budget have neither)."""
        return {"runs": self.ctx.runs, "seed": self.ctx.seed} if self.ctx.runs else {}

    def summary_record(self):
        return {
            "record": "summary",
            "command": "fuzz",
            "complete": True,
            "findings": len(self.findings),
            "execs": self.total_execs(),
            "errors": len(self.errors),
            **self.plan(),
        }

    def write_records(self):
        records = self.engines + [r for _, _, r in self.findings] + self.errors + [self.summary_record()]
        write_lines(os.path.join(self.ctx.run_dir, "summary.jsonl"), records)

    def text(self):
        ctx = self.ctx
        run = ctx.show(ctx.run_dir)
        out = [""]
        if ctx.runs:
            out.append(f"{ctx.runs} inputs from seed {ctx.seed} per target, in one process ({ctx.label})")
        out.append(f"{'target':<8} {'engine':<15} {'seconds':>7} {'execs':>12} {'exec/s':>9} {'corpus':>7}  unique findings")
        for target, label, seconds, execs, corpus in self.rows:
            n = sum(1 for t, _, _ in self.findings if t == target)
            rate = execs // seconds if seconds > 0 else 0
            out.append(f"{target:<8} {label:<15} {seconds:>7} {execs:>12} {rate:>9} {corpus:>7}  {n}")
        out.append("")
        total = len(self.findings)
        if total == 0 and not self.errors:
            out.append(f"no findings{' on ' + ctx.variant if ctx.variant else ''}; working corpus in {run}/corpus")
        for i, (target, finding, record) in enumerate(self.findings, 1):
            out.append(f"finding {i} of {total}: {target}, {ctx.label}, {ctx.variant or 'all variants'}:")
            out.append(f"  signature: {record['signature']}")
            out.append(f"  diagnosis: {record['class']}: {record.get('detail')}")
            out.append(f"  input:     {record['input']} ({finding.note})")
            out.append(f"  repro:     {ctx.repro_text(target, finding.record['input'])}")
            for name, text in finding.extra_lines:
                out.append(f"  {name + ':':<10} {text}")
            out.append("")
        if total:
            out.append(f"{total} unique finding(s); inputs and reports in {run}/<target>/; "
                       f"working corpus in {run}/corpus")
        for e in self.errors:
            out.append(f"could not judge{' ' + e['target'] if e.get('target') else ''}: {e['reason']}")
        return "\n".join(out) + "\n"

    def finish(self):
        """Writes the summaries, prints the text, and returns the exit
        status: 2 if anything could not be judged, 1 findings, 0 none."""
        text = self.text()
        write_text(os.path.join(self.ctx.run_dir, "summary.txt"), text)
        # Last: a complete summary.jsonl means everything before it was
        # written.
        self.write_records()
        sys.stdout.write(text)
        sys.stdout.flush()
        if self.errors:
            reasons = "; ".join(e["reason"] for e in self.errors)
            print(f"fuzz: could not judge: {reasons}", file=sys.stderr)
            return 2
        return 1 if self.findings else 0
