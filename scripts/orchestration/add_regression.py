"""scripts/add-regression: files a finding as a regression input,
corpus/regressions/TARGET/VARIANT/CLASS-CKSUM.in, which `make check`
replays against VARIANT (it must fail) and against every correct variant of
TARGET (they must pass).

  scripts/add-regression [--target=F] [--variant=V] INPUT.in
      a fuzz input (from findings/fuzz/..., or anywhere)
  scripts/add-regression --case 'build/memgate run --variant=V --len=N ...'
      a replay line, as printed by `memgate verify` and saved in
      findings/verify/*.txt

--into=DIR files under DIR instead of corpus/regressions. Without
--variant, the variant of the finding record beside the input (NAME.json)
pins it, if there is one.
The input is filed only if it reproduces: build/replay's record of it
(--format=jsonl) says what it is. Exit 0 filed, 1 it does not reproduce,
2 bad usage or could not judge.
"""

import os
import shlex
import shutil
import sys
import tempfile

from . import cli, procs
from .records import CouldNotJudge, of_kind, read

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPTIONS = "--target, --variant, --case, --into"


Usage = cli.Usage


def parse(argv):
    flags, inputs, case, into = [], [], None, "corpus/regressions"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a.startswith(("--target=", "--variant=")):
            flags.append(a)
        elif a == "--case":
            if not args:
                raise Usage("--case needs a replay line")
            case = args.pop(0)
        elif a.startswith("--case="):
            case = a[len("--case="):]
        elif a.startswith("--into="):
            into = a[len("--into="):]
        elif a in ("-h", "--help"):
            return None
        elif a.startswith("-"):
            raise Usage(f"unknown option '{a}' (valid: {OPTIONS})")
        else:
            if inputs:
                raise Usage("one input at a time")
            inputs.append(a)
    return flags, (inputs[0] if inputs else None), case, into


def cksum(data):
    """POSIX cksum's CRC of `data` (the names of the regression inputs)."""
    crc = 0
    for byte in data + _length_bytes(len(data)):
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return ~crc & 0xFFFFFFFF


def _length_bytes(n):
    out = b""
    while n:
        out += bytes([n & 0xFF])
        n >>= 8
    return out


def family(op):
    return "page" if op in ("copy_page", "clear_page") else op


def run_quiet(argv, what):
    log = tempfile.NamedTemporaryFile(prefix="add-regression-", suffix=".log", delete=False)
    log.close()
    try:
        r = procs.run(argv, stdout=log.name, stderr=log.name, cwd=ROOT)
        with open(log.name, encoding="utf-8", errors="replace") as f:
            text = f.read()
    finally:
        os.unlink(log.name)
    if r.returncode != 0:
        sys.stderr.write(text)
        raise CouldNotJudge(f"{what} failed")


def encode_case(line, flags, tmp):
    words = shlex.split(line)
    if len(words) < 2 or words[1] != "run":
        raise Usage(f"--case wants a 'memgate run ...' line, got: {line}")
    path = os.path.join(tmp, "case.in")
    run_quiet(["build/memgate", "encode", f"--output={path}"] + words[2:], "memgate encode")
    flags += [w for w in words[2:] if w.startswith("--variant=")]
    return path


def pinned_by_record(path):
    """The variant of the finding record saved beside a fuzz input
    (NAME.json, as scripts/fuzz and the fuzz targets write it), if any."""
    beside = (path[:-3] if path.endswith(".in") else path) + ".json"
    try:
        found = of_kind(read(beside, require_summary=False), "finding")
    except CouldNotJudge:
        return None
    return found[0].get("variant") if found else None


def replay(flags, path, tmp):
    """build/replay's finding for the input, or None if it passes."""
    out = os.path.join(tmp, "replay.jsonl")
    err = os.path.join(tmp, "replay.err")
    r = procs.run(["build/replay", "--format=jsonl"] + flags + [path], stdout=out, stderr=err, cwd=ROOT)
    if r.returncode == 2:
        with open(err, encoding="utf-8", errors="replace") as f:
            sys.stderr.write(f.read())
        raise CouldNotJudge(f"build/replay could not judge {path}")
    recs = read(out)
    found = of_kind(recs, "finding")
    if r.returncode != 1 or not found:
        return None
    return found[0]


def main(argv):
    return cli.run_main("add-regression", lambda: add(argv))


def add(argv):
    parsed = parse(argv)
    if parsed is None:
        cli.print_help(__doc__.split("\n\n", 1)[1])
        return 0
    flags, path, case, into = parsed
    os.chdir(ROOT)
    run_quiet(["make", "--no-print-directory", "-s", "build/memgate", "build/replay"], "building build/memgate and build/replay")
    with tempfile.TemporaryDirectory(prefix="add-regression-") as tmp:
        if case is not None:
            if path:
                raise Usage("give an input file or --case, not both")
            path = encode_case(case, flags, tmp)
        if not path:
            raise Usage("no input given (see --help)")
        if not any(f.startswith("--variant=") for f in flags) and pinned_by_record(path):
            flags.append(f"--variant={pinned_by_record(path)}")
        finding = replay(flags, path, tmp)
        if finding is None:
            print(f"add-regression: {path} does not reproduce: build/replay passes it", file=sys.stderr)
            return 1
        directory = os.path.join(into, family(finding["op"]), finding["variant"])
        os.makedirs(directory, exist_ok=True)
        with open(path, "rb") as f:
            data = f.read()
        dest = os.path.join(directory, f"{finding['class']}-{cksum(data)}.in")
        shutil.copyfile(path, dest)
        print(f"filed {dest} ({finding['signature']})")
        return 0
