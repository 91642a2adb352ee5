"""scripts/repro --valgrind: one input replayed in one process under
valgrind's memcheck, and its result classified from the records, as the
gate's valgrind check classifies it (checks.run_valgrind), never from
memcheck's text:

- failure: the replay wrote a finding record (out-of-bounds-read, or an
  aligned-over-read judged a failure: aarch64 across a granule,
  --overread=strict), or memcheck reported an error the replay's records
  do not explain;
- warning: memcheck's invalid reads are the over-read the replay judged an
  aligned-over-read warning (it stays in an aligned block holding a buffer
  byte: it cannot fault);
- pass: neither.

Usage: python3 -m orchestration.repro_memcheck RESULT REPLAY [ARG...] INPUT.
Prints what it saw for people; writes RESULT, one line of tab-separated
fields: the result (pass, warning, failure), the class (a finding's, or
the warning's name, or '-'), and the detail. Exit status: 0 pass or
warning, 1 failure, 2 could not judge (one line on stderr)."""

import os
import sys
import tempfile

from . import checks, cli, procs, records
from .records import CouldNotJudge

# What the printed line names: memcheck's flags that make it byte-exact.
FLAGS = [f for f in checks.VALGRIND if f.startswith(("--partial-loads-ok", "--vex-iropt-level"))]


def run(replay_argv, work):
    """Runs the replay under memcheck: (exit status, records, memcheck's
    errors as the gate's findings)."""
    xml = os.path.join(work, "memcheck.xml")
    out = os.path.join(work, "memcheck.jsonl")
    err = os.path.join(work, "memcheck.err")
    # As the gate's valgrind check runs it (the harness's own allocations
    # are no leak of the routine's).
    argv = checks.VALGRIND + ["--error-exitcode=99", "--errors-for-leak-kinds=none", "--show-leak-kinds=none",
                              "--xml=yes", f"--xml-file={xml}"] + replay_argv + ["--format=jsonl"]
    try:
        with open(out, "wb") as o, open(err, "wb") as e:
            result = procs.run(argv, stdout=o, stderr=e, timeout=600)
    except OSError as e:
        raise CouldNotJudge(f"valgrind cannot start: {e.strerror or e}") from None
    if result.timed_out:
        raise CouldNotJudge("the replay under valgrind did not finish in 600 s")
    recs = records.read(out, require_summary=False)
    if not recs or recs[-1]["record"] != "summary" or recs[-1].get("complete") is not True:
        raise CouldNotJudge(checks.incomplete(result, "the replay under valgrind", err))
    return result.returncode, recs, checks.valgrind_findings(recs[0].get("variant", "?"), argv, xml)


def classify(rc, recs, seen):
    """(result, class, detail) of one replay under memcheck."""
    findings = records.of_kind(recs, "finding")
    if findings:
        f = findings[0]
        return "failure", f.get("class", "?"), f.get("detail", "")
    if recs[-1].get("skipped"):
        raise CouldNotJudge("the input was not run under valgrind (a CPU feature valgrind hides)")
    warned = checks.warnings_of("valgrind", records.of_kind(recs, "case"))
    left = checks.overreads_explained(seen, warned)
    if left:
        return "failure", left[0]["kind"], left[0]["detail"]
    if rc not in (0, 1, 99) or (rc == 99 and not seen):
        raise CouldNotJudge(f"valgrind exited with status {rc} and reported no error")
    over = next((w for w in warned if w["name"] == "aligned-over-read"), None)
    if over:
        return "warning", over["name"], over["text"]
    if warned:
        return "warning", warned[0]["name"], warned[0]["text"]
    return "pass", "-", ""


def show(recs, seen, result):
    print(f"valgrind: memcheck, {' '.join(FLAGS)}, in one process:")
    # A failing case's finding record says more than its case record.
    for r in records.of_kind(recs, "finding") or records.of_kind(recs, "case"):
        print(f"  verdict:  {r.get('class', '?')}" + (f": {r['detail']}" if r.get("detail") else ""))
        for w in r.get("warnings") or []:
            print(f"  warning:  {checks.warning_of('valgrind', w)['text']}")
    if seen:
        print(f"  memcheck: {len(seen)} error(s):")
        for f in seen:
            print(f"    {f['detail']}")
    else:
        print("  memcheck: no errors")
    kind, cls, detail = result
    said = {"failure": f"a failure ({cls})", "warning": f"a warning, not a failure ({cls})",
            "pass": "passes"}[kind]
    print(f"  result:   {said}")


def main(argv):
    if len(argv) < 3:
        print("usage: python3 -m orchestration.repro_memcheck RESULT REPLAY [ARG...] INPUT", file=sys.stderr)
        return 2
    result_path, replay_argv = argv[0], argv[1:]

    def body():
        with tempfile.TemporaryDirectory() as work:
            rc, recs, seen = run(replay_argv, work)
            result = classify(rc, recs, seen)
        show(recs, seen, result)
        records.write_text(result_path, "\t".join(x.replace("\t", " ").replace("\n", " ") for x in result) + "\n")
        return 1 if result[0] == "failure" else 0

    return cli.run_main("repro: --valgrind", body)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
