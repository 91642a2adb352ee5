"""scripts/watch-misaligned: riscv64's misaligned watch around a `memgate
verify` of the tree's own variants (make verify ARCH=riscv64 runs it; the
gate's `misaligned` check, misaligned.py, is the same watch for a
submission). qemu's plugin build/riscv64/qemu-misaligned.so watches every
variant the command runs, by its entry point; after it, each variant is
judged by its code (docs/contract.md, R14 and RK3):

- kernel code that made a misaligned load or store: `misaligned-access`,
  exit 1, unless its row expects it (MG_EXPECT_MISALIGNED, a self-test);
- a self-test that expects it and made none: not caught, exit 1;
- user code that made one: a warning (it pays for it on most boards).

The command's own output and exit status pass through; the watch's lines
follow, and its records go to FINDINGS/misaligned.json. Exit status: the
worse of the command's and the watch's (1 over 2 over 0); 2 alone when
the watch could not run (no plugin, a qemu that loads none)."""

import json
import os
import shlex
import subprocess
import sys

from . import cli, elf_code, misaligned, procs
from .records import CouldNotJudge, write_json

USAGE = """usage: scripts/watch-misaligned [--findings=DIR] -- QEMU [QEMU-OPTIONS] MEMGATE verify [OPTIONS]
Runs the memgate verify command under qemu-riscv64 with the misaligned
plugin (build/riscv64/qemu-misaligned.so, beside MEMGATE) watching each
variant it runs, then judges them: kernel code must make no misaligned
load or store, a self-test that expects one must make it, user code's
are warnings. FINDINGS/misaligned.json holds the records (default
findings/verify). Exit 0, 1 (a finding, or a self-test not caught), 2
(could not judge)."""

EXPECT_WATCHED = "FAIL when watched: misaligned-access"
# memgate verify's options that choose the variants, as memgate list takes them.
CHOOSERS = ("--set", "--variant", "--op", "--hide-feature")


def parse(argv):
    findings = "findings/verify"
    if "--" not in argv:
        raise cli.Usage("give the command after --")
    cut = argv.index("--")
    for arg in argv[:cut]:
        if arg in ("-h", "--help"):
            cli.print_help(USAGE)
            sys.exit(0)
        if arg.startswith("--findings="):
            findings = arg.split("=", 1)[1]
        else:
            raise cli.Usage(f"unknown option '{arg}' (valid: --findings)")
    command = argv[cut + 1:]
    at = next((i for i, a in enumerate(command) if os.path.basename(a) == "memgate"), None)
    if at is None or at == 0 or command[at + 1:at + 2] != ["verify"]:
        raise cli.Usage("the command must be QEMU [OPTIONS] .../memgate verify [OPTIONS]")
    return findings, command[:at], command[at], command[at + 2:]


def choosers(options):
    """The verify options that choose variants, as `--opt=value`."""
    out, i = [], 0
    while i < len(options):
        opt, eq, value = options[i].partition("=")
        if opt in CHOOSERS:
            if not eq and i + 1 < len(options):
                value, i = options[i + 1], i + 1
            out.append(f"{opt}={value}")
        i += 1
    return out


def variants_run(runner, memgate, options):
    """[(name, entry point, code, expect)] of the variants the command
    runs here (memgate list with its choosing options, less SKIPs)."""
    argv = [a for a in choosers(options) if not a.startswith(("--variant=", "--op="))]
    out = subprocess.run(runner + [memgate, "list", "--tsv"] + argv, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise CouldNotJudge(f"memgate list: {out.stderr.strip() or out.returncode}")
    picked = dict(a.split("=", 1) for a in choosers(options) if a.startswith(("--variant=", "--op=")))
    names = set(picked.get("--variant", "").split(",")) - {""}
    ops = set(picked.get("--op", "").split(",")) - {""}
    rows = []
    for line in out.stdout.splitlines():
        f = line.split("\t")
        if len(f) < 9 or f[5] != "runs" or (names and f[0] not in names) or (ops and f[1] not in ops):
            continue
        rows.append((f[0], f[3], f[8], f[6]))
    return rows


def problem(runner, memgate, rows):
    """Why the watch cannot run, or ""."""
    plugin = os.path.join(os.path.dirname(memgate), misaligned.PLUGIN)
    if not runner or "riscv64" not in os.path.basename(runner[0]):
        return "the watch is riscv64's, under qemu-riscv64"
    if not os.path.isfile(plugin):
        return f"no {plugin} (make ARCH=riscv64 builds it)"
    if not misaligned.loads_plugins(runner[0]):
        return f"{runner[0]} loads no plugins (a static build): the watch needs one that does, as Debian 12's"
    if not 1 <= len(rows) <= misaligned.MAX_SYMBOLS:
        return f"{len(rows)} variants: the plugin watches 1 to {misaligned.MAX_SYMBOLS}"
    return ""


def judge(rows, seen):
    """[record] per variant: what the watch saw (`seen`: the plugin's
    records, each with its `at`) and the verdict its code and row give."""
    out = []
    for name, symbol, code, expect in rows:
        mine = [r for r in seen if r.get("symbol") == symbol]
        expected = expect == EXPECT_WATCHED
        if expected:
            verdict = "caught" if mine else "not-caught"
        elif not mine:
            verdict = "pass"
        else:
            verdict = "misaligned-access" if code == "kernel" else "warning"
        record = {"record": "misaligned", "variant": name, "code": code, "verdict": verdict,
                  "instructions": len(mine)}
        if mine:
            record["first"] = {k: mine[0][k] for k in ("at", "address", "width", "access")}
        out.append(record)
    return out


def line_of(record):
    first = record.get("first")
    what = (f"{record['instructions']} instruction(s), first {misaligned.describe(first)}" if first else "")
    return {"misaligned-access": f"FAIL misaligned-access: {record['variant']} (kernel code): {what}",
            "not-caught": f"FAIL not caught: {record['variant']} expects a misaligned access, and the watch saw none",
            "caught": f"caught: {record['variant']} (misaligned-access, as expected): {what}",
            "warning": f"warning: {record['variant']} (user code): {what}"}.get(record["verdict"])


def run(findings, runner, memgate, options):
    """The command under the watch, then the watch's lines; its exit status."""
    rows = variants_run(runner, memgate, options)
    why = problem(runner, memgate, rows)
    log = os.path.join(findings, misaligned.LOG)
    env = dict(os.environ)
    if not why:
        os.makedirs(findings, exist_ok=True)
        if os.path.exists(log):
            os.unlink(log)  # a result only of this run
        env["QEMU_PLUGIN"] = ",".join([f"file={os.path.abspath(os.path.join(os.path.dirname(memgate), misaligned.PLUGIN))}",
                                       f"out={os.path.abspath(log)}"] + [f"sym={r[1]}" for r in rows])
    sys.stdout.flush()
    rc = procs.run(runner + [memgate, "verify"] + options, env=env, stdout=sys.stdout, stderr=sys.stderr).returncode
    if why:
        print(f"misaligned watch: could not judge: {why}")
        return 1 if rc == 1 else 2
    try:
        seen = misaligned.read_log(log)  # no file: the plugin never ran
        where = misaligned.Locator(memgate)
    except (OSError, ValueError, elf_code.BadObject) as e:
        print(f"misaligned watch: could not judge: the plugin's report {log}: {e}")
        return 1 if rc == 1 else 2
    records = judge(rows, [dict(r, at=where.name(r)) for r in seen])
    records_path = os.path.join(findings, "misaligned.json")
    write_json(records_path, {"schema": "memgate-misaligned-watch/1", "command": shlex.join(runner + [memgate, "verify"] + options),
                              "variants": records})
    lines = [line for line in map(line_of, records) if line]
    failed = [r for r in records if r["verdict"] in ("misaligned-access", "not-caught")]
    print(f"misaligned watch (qemu's plugin): {len(records)} variants watched, {len(failed)} failed, "
          f"{sum(r['verdict'] == 'warning' for r in records)} warnings; records in {records_path}")
    for line in lines:
        print(f"  {line}")
    return 1 if failed or rc == 1 else rc


def main(argv):
    def body():
        return run(*parse(argv))
    return cli.run_main("watch-misaligned", body)
