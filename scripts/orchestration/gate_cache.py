"""The gate's cache: a verdict is reused when nothing it depends on changed
(the submission's built code, its options, memgate's own files and this
machine's relevant facts), and the plan's calibration is kept per memgate
version and machine. Both live in one directory (cache_dir), under the
results directory the gate writes to."""

import datetime
import hashlib
import json
import os
import platform
import re
import resource
import shutil
import struct
import tempfile

from . import procs, submission

# What memgate's verdicts depend on besides the submission: its engine,
# its scripts, its fuzz targets and references, the variants it compares
# against and the corpus it replays. A change to any file in them is a new
# memgate version.
VERSION_PATHS = ("Makefile", "harness", "scripts", "targets", "reference", "impls", "corpus")
# Options that say where reports go, not what is checked; and the
# deadline, which can only make a verdict could not judge (never cached).
NOT_KEYED = ("report", "sarif", "junit", "no_cache", "seconds", "seconds_given")
SCHEMA = 1
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def results_root():
    """The results directory the gate writes to (its runs' folders)."""
    return os.environ.get("MEMGATE_GATE_RESULTS") or os.path.join("findings", "gate")


def cache_dir():
    """Where the cache lives: the one place that names it (under the
    results directory; $MEMGATE_GATE_CACHE when a caller such as the zoo,
    whose gates each write to a results directory of their own, shares one)."""
    return os.environ.get("MEMGATE_GATE_CACHE") or os.path.join(results_root(), ".cache")


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


_version = None


def memgate_version():
    """A hash of every file under VERSION_PATHS (paths and contents)."""
    global _version
    if _version is None:
        h = hashlib.sha256()
        for top in VERSION_PATHS:
            where = os.path.join(ROOT, top)
            paths = [where] if os.path.isfile(where) else sorted(
                os.path.join(d, f) for d, dirs, files in os.walk(where) for f in files
                if "__pycache__" not in d and not f.endswith(".pyc"))
            for path in paths:
                h.update(os.path.relpath(path, ROOT).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
        _version = h.hexdigest()
    return _version


def cpu_facts():
    """The CPU's model and features, as /proc/cpuinfo gives them for the
    first CPU (the same on every CPU here)."""
    facts = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                name, _, value = line.partition(":")
                name = name.strip()
                if name in ("vendor_id", "model name", "cpu family", "model", "stepping", "flags",
                            "CPU implementer", "CPU part", "Features"):
                    facts[name] = value.strip()
    except OSError:
        pass
    facts["machine"] = platform.machine()
    return facts


# Resource limits a check can run out of (the 4 GiB+ check needs the
# address space; the fuzzers, descriptors and file size).
LIMITS = ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_CORE")


def machine_facts(ctx):
    """What of this machine a verdict depends on: the CPU, the arch judged
    and how it runs (the runner, qemu's version), the tools that decide
    which checks run (valgrind, AFL++), the resource limits the checks run
    under, and the environment memgate's programs read (MEMGATE_*, QEMU_*;
    not where the results go)."""
    env = {k: v for k, v in ctx.env.items() if k.startswith(("MEMGATE_", "QEMU_"))
           and k not in ("MEMGATE_GATE_RESULTS", "MEMGATE_GATE_CACHE")
           and not k.startswith(procs.TAG_PREFIX)}
    facts = {"cpu": cpu_facts(), "arch": ctx.arch, "runner": ctx.runner, "env": env,
             "limits": {name: resource.getrlimit(getattr(resource, name)) for name in LIMITS},
             "tools": {t: shutil.which(t, path=ctx.env.get("PATH")) or ""
                       for t in ("valgrind", "afl-fuzz", "afl-clang-fast", "clang")}}
    if ctx.emulated:
        rc, out = submission.capture([ctx.emulated, "--version"], timeout=30)
        facts["emulator"] = out.splitlines()[0] if rc == 0 and out else ""
    return facts


# Sections that describe the code rather than being it: debug
# information (which names the build directory, and whose merged strings
# are laid out by their contents), and the compiler's version string.
NOT_CODE = (b".debug", b".rela.debug", b".rel.debug", b".comment", b".shstrtab", b".note.GNU-stack")


def sections(data):
    """[(name, type, contents)] of an ELF object's sections but NOT_CODE
    (a non-ELF file is one section, all of it)."""
    if data[:4] != b"\x7fELF" or len(data) < 64:
        return [(b"", 0, data)]
    wide, end = data[4] == 2, "<" if data[5] == 1 else ">"
    shoff = struct.unpack_from(end + ("Q" if wide else "I"), data, 0x28 if wide else 0x20)[0]
    entsize, count, names = struct.unpack_from(end + "HHH", data, 0x3A if wide else 0x2E)
    heads = [struct.unpack_from(end + ("IIQQQQ" if wide else "IIIIII"), data, shoff + i * entsize)
             for i in range(count)]
    base = heads[names][4]
    out = []
    for name, kind, _, _, offset, size in heads:
        label = data[base + name:data.index(b"\0", base + name)]
        if label.startswith(NOT_CODE):
            continue
        out.append((label, kind, b"" if kind == 8 else data[offset:offset + size]))  # 8: SHT_NOBITS
    return out


def code_hash(ctx):
    """The submission's built code: the sections of the merged object of
    its compile step (code, data, symbols, relocations), not its debug
    information, which names the build directory; so two builds of the
    same code hash the same."""
    with open(os.path.join(ctx.W, "plain.parts", "merged.o"), "rb") as f:
        data = f.read()
    h = hashlib.sha256()
    for label, kind, body in sections(data):
        h.update(label + b"\0" + struct.pack("<IQ", kind, len(body)) + body)
    return h.hexdigest()


def verdict_key(ctx, code=None):
    """The key of the verdict: the built code (code_hash, or as
    gate_prebuilt knows it without a build), the options, memgate and
    the machine."""
    options = {k: v for k, v in ctx.opts.items() if k not in NOT_KEYED}
    return _digest({"schema": SCHEMA, "code": code or code_hash(ctx), "options": options,
                    "memgate": memgate_version(), "machine": machine_facts(ctx)})


def _path(kind, key):
    return os.path.join(cache_dir(), f"{kind}-{key[:32]}.json")


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write(path, value):
    """Atomically (a reader sees the old file or the new one); a cache that
    cannot be written is no error: the next run is fresh."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=1)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


# A build directory a printed command names: MEMGATE_BUILD=DIR, or one of
# its programs (DIR/memgate run ..., valgrind ... DIR/replay ...).
BUILD_NAMED = re.compile(r"MEMGATE_BUILD=(\S+)|(\S+)/(?:memgate|replay|random)(?=\s|$)")


def builds_named(items):
    """The build directories the repro commands of `items` (findings and
    warnings) name, as named (relative to where the gate works)."""
    out = set()
    for item in items:
        text = item.get("repro") if isinstance(item, dict) else None
        if isinstance(text, str):
            out.update(a or b for a, b in BUILD_NAMED.findall(text))
    return out


def printed_items(docs):
    """Every finding and warning of the entries' records (gate.json)."""
    return [i for d in docs for key in ("findings", "warnings") for i in (d.get(key) or [])]


def lookup(key):
    """The cached verdict of `key`: {"run", "date", "status", "docs"}, or
    None. A verdict whose repro commands name a build that is gone (removed
    by hand, or by an older memgate) is not reused: the lines it would
    print could not work, and judging again makes them anew."""
    got = _read(_path("verdict", key))
    if not isinstance(got, dict) or got.get("key") != key or got.get("status") not in (0, 1):
        return None
    docs = got.get("docs")
    if not isinstance(docs, list) or not docs or not all(isinstance(d, dict) for d in docs):
        return None
    if any(d.get("verdict") not in ("accepted", "rejected") for d in docs):
        return None
    if any(not os.path.isdir(b) for b in builds_named(printed_items(docs))):
        return None
    return got


def store(key, status, run, date, docs, seconds=None):
    """Keeps a verdict that was judged (accepted or rejected), and how long
    judging it took (`seconds`, which its reuse's verdict line says): a
    could-not-judge one is never kept, so the next run tries again."""
    if status not in (0, 1) or any(d.get("verdict") not in ("accepted", "rejected") for d in docs):
        return False
    kept = {"key": key, "status": status, "run": run, "date": date, "docs": docs}
    if seconds is not None:
        kept["seconds"] = round(seconds, 1)
    return _write(_path("verdict", key), kept)


def now_text():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
