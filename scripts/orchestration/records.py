"""Reading and writing memgate records (docs/records.md), failing closed.

A record file that is missing, unreadable, malformed or cut short (no
complete summary) raises CouldNotJudge: silence never reads as a pass.
"""

import json
import os

from . import registry

FAILURE_CLASSES = (
    "wrong-result",
    "out-of-bounds-read",
    "out-of-bounds-write",
    "src-modified",
    "wrong-return",
    "crash",
    "timeout",
    "abi-violation",
    # An over-read that stays in an aligned block holding a buffer byte,
    # judged a failure (aarch64 across an MTE granule, --overread=strict);
    # elsewhere it is the warning of that name.
    "aligned-over-read",
    # The user copies' fault contract (docs/usercopy.md).
    "unhandled-fault",
    "kernel-fault",
    "wrong-count",
    "write-past-count",
    "nothing-copied",
)
# Classes the orchestration adds on top of the engine's: a build that fails,
# a routine slower than allowed, a crash seen by a fuzzer that does not
# happen again when its input is replayed, an instruction that needs a CPU
# feature the routine does not declare (the ISA audit), an entry without
# the landing pad its object's marking promises (x86 IBT: endbr64), a
# misaligned load or store of kernel code (riscv64: the misaligned check); a
# user copy's user access outside the SMAP brackets, a return with them
# open or, on arm64, a privileged access (the uaccess audit).
GATE_CLASSES = registry.GATE_CLASSES
CLASSES = FAILURE_CLASSES + GATE_CLASSES
LEVELS = ("error", "warning")
# "engine": one fuzzer run of scripts/fuzz (its summary.jsonl).
RECORD_KINDS = ("finding", "variant", "case", "error", "summary", "engine")


class CouldNotJudge(Exception):
    """A check could not run to its end: the gate exits 2 with this reason."""


def parse_lines(text, origin):
    """The records in `text` (JSON Lines), each checked to be an object with
    a known "record" kind. `origin` names the source in errors."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as e:
            raise CouldNotJudge(f"{origin} line {number}: not JSON ({e})") from None
        if not isinstance(record, dict) or record.get("record") not in RECORD_KINDS:
            raise CouldNotJudge(f"{origin} line {number}: not a memgate record")
        records.append(record)
    return records


def read(path, require_summary=True):
    """The records of the file at `path`. With `require_summary`, the last
    record must be a summary with "complete": true."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        raise CouldNotJudge(f"cannot read {path}: {e.strerror or e}") from None
    records = parse_lines(text, path)
    if require_summary:
        check_complete(records, path)
    return records


def check_complete(records, origin):
    """Raises CouldNotJudge unless the records end with a complete summary
    and hold no error record."""
    for record in records:
        if record["record"] == "error":
            raise CouldNotJudge(record.get("reason") or f"{origin}: the harness reported an error")
    if not records or records[-1]["record"] != "summary" or records[-1].get("complete") is not True:
        raise CouldNotJudge(f"{origin}: the output ends before its summary (the program did not finish)")


def of_kind(records, kind):
    return [r for r in records if r["record"] == kind]


def write_text(path, text):
    """Writes `text` to `path` durably, then reads it back: a full disk or an
    I/O error raises CouldNotJudge instead of leaving a short file behind."""
    data = text.encode("utf-8")
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        with open(path, "rb") as f:
            if f.read() != data:
                raise CouldNotJudge(f"{path}: what was read back differs from what was written")
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CouldNotJudge(f"cannot write {path}: {e.strerror or e}") from None


def write_json(path, obj):
    write_text(path, json.dumps(obj, indent=2, sort_keys=False) + "\n")


def write_lines(path, records):
    write_text(path, "".join(json.dumps(r, sort_keys=False) + "\n" for r in records))
