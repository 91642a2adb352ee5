"""scripts/add-regression: files a finding as a regression input,
corpus/regressions/TARGET/VARIANT/CLASS-CKSUM.in, which `make check`
replays against VARIANT (it must fail) and against every correct variant of
TARGET (they must pass).

  scripts/add-regression [--target=F] [--variant=V] INPUT.in
      a fuzz input (from findings/fuzz/..., or anywhere)
  scripts/add-regression --case 'build/memgate run --variant=V --len=N ...'
      a replay line, as printed by `memgate verify` and saved in
      findings/verify/*.txt

--into=DIR files under DIR instead of corpus/regressions. Started anywhere
but memgate's tree, it builds in the results directory (./memgate-results,
or $MEMGATE_OUT) and files under its regressions/ unless --into says where
(memgate's own corpus is written only from memgate's tree). Without
--variant, the variant of the finding record beside the input (NAME.json)
pins it, if there is one.
The input is filed only if it reproduces: build/replay's record of it
(--format=jsonl) says what it is. Exit 0 filed (or filed already), 1 it
does not reproduce, 2 bad usage, bad input (a directory, a FIFO, a link
loop, a file over 4096 bytes: one line with the reason) or could not judge,
128 + N stopped by signal N. A filed input is never overwritten.
"""

import errno
import os
import shlex
import shutil
import stat
import sys
import tempfile

from . import cli, procs, workspace
from .fuzz_findings import INPUT_MAX
from .records import CouldNotJudge, of_kind, read

OPTIONS = "--target, --variant, --case, --into"


Usage = cli.Usage


def parse(argv):
    cli.refuse_non_utf8(argv)
    flags, inputs, case, into = [], [], None, "corpus/regressions"
    seen = set()
    args = list(argv)
    while args:
        a = args.pop(0)
        name, eq, value = a.partition("=")
        if a in ("-h", "--help"):
            return None
        if name in ("--target", "--variant", "--case", "--into"):
            if not eq:
                if name != "--case":
                    raise Usage(f"{name} needs a value ({name}=VALUE)")
                if not args:
                    raise Usage("--case needs a replay line")
                value = args.pop(0)
            if not value.strip():
                raise Usage(f"{name} needs a value, not an empty one")
            cli.once(seen, name)
            if name == "--case":
                case = value
            elif name == "--into":
                into = value
            else:
                flags.append(f"{name}={value}")
        elif a.startswith("-"):
            raise Usage(f"unknown option '{a}' (valid: {OPTIONS})")
        else:
            if inputs:
                raise Usage("one input at a time")
            inputs.append(a)
    return flags, (inputs[0] if inputs else None), case, into


def check_input(path):
    """Usage (bad input, exit 2) unless `path` is a file that can be a fuzz
    input: the reason is the file's, never 'does not reproduce'."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise Usage(f"{path}: {'no such file' if e.errno == errno.ENOENT else e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise Usage(f"{path} is a directory, not an input file (give one file in it)")
    if stat.S_ISFIFO(st.st_mode):
        raise Usage(f"{path} is a FIFO, not a memgate fuzz input")
    if not stat.S_ISREG(st.st_mode):
        raise Usage(f"{path} is not a regular file, not a memgate fuzz input")
    if st.st_size > INPUT_MAX:
        raise Usage(f"{path} is not a memgate fuzz input: {st.st_size} bytes, over {INPUT_MAX}")
    if not os.access(path, os.R_OK):
        raise Usage(f"{path}: cannot be read (permission denied)")


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
    if op in ("copy_from_user", "copy_to_user", "clear_user"):
        return "usercopy"
    return "page" if op in ("copy_page", "clear_page") else op


def run_quiet(argv, what):
    log = tempfile.NamedTemporaryFile(prefix="add-regression-", suffix=".log", delete=False)
    log.close()
    try:
        r = procs.run(argv, stdout=log.name, stderr=log.name)
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
    r = procs.run(["build/replay", "--format=jsonl"] + flags + [path], stdout=out, stderr=err)
    if r.returncode == 2:
        # build/replay's one line of why (a file or a flag it refuses), as ours.
        with open(err, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
        why = lines[-1] if lines else f"build/replay could not judge {path} (exit 2)"
        for prefix in ("memgate replay: ", "replay: "):
            why = why[len(prefix):] if why.startswith(prefix) else why
        raise Usage(why)
    recs = read(out)
    found = of_kind(recs, "finding")
    if r.returncode != 1 or not found:
        return None
    return found[0]


def free_name(directory, stem, data):
    """STEM.in, or the first STEM-N.in that is free or holds `data` already:
    a filed regression is never overwritten by another input whose
    checksum is the same."""
    for n in range(1, 1000):
        dest = os.path.join(directory, f"{stem}.in" if n == 1 else f"{stem}-{n}.in")
        try:
            with open(dest, "rb") as f:
                if f.read() == data:
                    return dest
        except FileNotFoundError:
            return dest
    raise CouldNotJudge(f"{directory}: 999 inputs named {stem}-N.in already")


def main(argv):
    return cli.run_main("add-regression", lambda: add(argv))


def add(argv):
    parsed = parse(argv)
    if parsed is None:
        cli.print_help(__doc__.split("\n\n", 1)[1])
        return 0
    flags, path, case, into = parsed
    if path:
        check_input(path)
        path = os.path.abspath(path)
    if into != "corpus/regressions":
        into = os.path.abspath(into)
    try:
        ws = workspace.enter()
    except workspace.Unusable as e:
        raise Usage(str(e)) from None
    if ws.moved and into == "corpus/regressions":
        into = "regressions"
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
        dest = free_name(directory, f"{finding['class']}-{cksum(data)}", data)
        if os.path.exists(dest):
            # Named by its bytes: the same input is filed already, as it is.
            print(f"filed already: {ws.shown(dest)} ({finding['signature']})")
            return 0
        tmp = f"{dest}.tmp-{os.getpid()}"
        try:
            shutil.copyfile(path, tmp)
            os.replace(tmp, dest)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        print(f"filed {ws.shown(dest)} ({finding['signature']})")
        return 0
