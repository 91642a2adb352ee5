"""scripts/action: the steps of memgate's GitHub action (action.yml) as one
program, so that make check runs what the action does. It reads the
action's inputs (INPUT_FILES, INPUT_ENTRIES, INPUT_OP, INPUT_REQUIRES,
INPUT_CONTRACT, INPUT_SECONDS, INPUT_FLAGS; INPUT_OUT, default
memgate-results), installs memgate's dependencies (scripts/install-deps),
runs the gate with a JSON report and SARIF under the results directory,
and writes the step's outputs to $GITHUB_OUTPUT (verdict, status, report,
sarif, results). Its exit status is the gate's: 0 accepted, 1 rejected,
2 could not judge or bad input, so the job fails on both.

  INPUT_FILES='src/memcpy.S' INPUT_OP=memcpy scripts/action

FILES and ENTRIES are lists (spaces, commas or lines between the items);
FLAGS are more gate options, split as a shell would (no expansion);
MEMGATE_ACTION_NO_DEPS=1 leaves the dependencies as they are."""

import json
import os
import re
import shlex
import subprocess
import sys

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = ("files", "entries", "op", "requires", "contract", "seconds", "flags", "out")


class Bad(Exception):
    """A bad input: one line, exit 2."""


def inputs(env):
    return {k: (env.get(f"INPUT_{k.upper()}") or "").strip() for k in INPUTS}


def items(text):
    return [w for w in re.split(r"[\s,]+", text) if w]


def gate_argv(given):
    """The gate's command line for the action's inputs (Bad if they say
    nothing to gate)."""
    files = items(given["files"])
    if not files:
        raise Bad("input 'files' is empty: name the routine's source or object files")
    entries = items(given["entries"])
    if entries and given["op"]:
        raise Bad("give input 'op' or 'entries', not both")
    if not entries and not given["op"]:
        raise Bad("input 'op' (memcpy, memmove, memset, ...) or 'entries' (OP=SYMBOL ...) is needed")
    out = given["out"] or "memgate-results"
    argv = [os.path.join(SCRIPTS, "gate"), "--out", out,
            "--report", os.path.join(out, "gate.json"), "--sarif", os.path.join(out, "gate.sarif")]
    argv += ["--op", given["op"]] if given["op"] else [f"--entry={e}" for e in entries]
    for key in ("requires", "contract", "seconds"):
        if given[key]:
            argv += [f"--{key}", given[key]]
    try:
        argv += shlex.split(given["flags"])
    except ValueError as e:
        raise Bad(f"input 'flags': {e}") from None
    return argv + ["--"] + files


def verdict_of(status, report_path):
    """The verdict the JSON report gives (data, not the gate's text), or
    what the exit status says when there is none."""
    try:
        with open(report_path, encoding="utf-8") as f:
            doc = json.load(f)
        if isinstance(doc.get("verdict"), str):
            return doc["verdict"]
    except (OSError, ValueError, AttributeError):
        pass
    return {0: "accepted", 1: "rejected"}.get(status, "could-not-judge")


def write_outputs(path, values):
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        for k, v in values.items():
            f.write(f"{k}={v}\n")


def main(argv, env=None):
    env = os.environ if env is None else env
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.split("\n\n", 1)[0].replace("\n", " ") + "\n\n" + __doc__.split("\n\n", 1)[1])
        return 0
    if argv:
        print(f"action: unknown argument '{argv[0]}' (the inputs come as INPUT_* variables; see --help)",
              file=sys.stderr)
        return 2
    try:
        cmd = gate_argv(inputs(env))
    except Bad as e:
        print(f"action: {e}", file=sys.stderr)
        return 2
    if env.get("MEMGATE_ACTION_NO_DEPS") != "1":
        deps = subprocess.run([os.path.join(SCRIPTS, "install-deps")])
        if deps.returncode != 0:
            print("action: could not judge: scripts/install-deps failed", file=sys.stderr)
            return 2
    print("action: " + shlex.join(cmd), flush=True)
    status = subprocess.run(cmd).returncode
    out = cmd[2]
    report, sarif = cmd[4], cmd[6]
    verdict = verdict_of(status, report)
    if status not in (0, 1):
        status = 2
    write_outputs(env.get("GITHUB_OUTPUT"), {
        "verdict": verdict, "status": status, "results": out,
        "report": report if os.path.exists(report) else "", "sarif": sarif if os.path.exists(sarif) else ""})
    print(f"action: verdict {verdict} (exit {status})")
    return status
