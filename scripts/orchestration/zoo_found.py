"""The zoo's discovery, kept: what `discover` found (the units and the
notes) is reused while everything it read is as it was: the archives
and the kernel tarball (their size and modification time), the zoo's own
code (every module of this package: zoo.py imports nearly all of them)
and the kernel shim, and the tools it ran (nm, the assemblers,
objdump, dpkg's view of the packages). A unit whose files are gone (the
kernel's extracted sources or builds removed) is found afresh. A stale
list could only change which units are gated, never a verdict: each gate
checks what it builds (gate_prebuilt, gate_cache)."""

import hashlib
import json
import os
import shutil

from . import records

SCHEMA = 1
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = ("nm", "gcc", "clang", "objdump", "aarch64-linux-gnu-objdump", "tar", "dpkg-query")


def _stat(path):
    try:
        st = os.stat(path)
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return None


def _sha(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def code_files():
    """The package's modules: zoo.py imports, at some depth, nearly all of
    them, and a module it reaches later must not reuse an old list."""
    return sorted(n for n in os.listdir(HERE) if n.endswith(".py"))


def key(sources, arches, archives, kernel_dir, shim):
    """What discovery depends on (see the module's comment)."""
    tools = {}
    for t in TOOLS:
        found = shutil.which(t)
        tools[t] = [os.path.realpath(found), _stat(os.path.realpath(found))] if found else None
    src = sorted(os.listdir(kernel_dir)) if os.path.isdir(kernel_dir) else []
    value = {"schema": SCHEMA, "sources": sorted(sources), "arches": sorted(arches),
             "archives": {p: _stat(p) for p in archives},
             "kernel": {n: _stat(os.path.join(kernel_dir, n)) for n in src if n.startswith("linux-source-")},
             "code": {n: _sha(os.path.join(HERE, n)) for n in code_files()},
             "shim": {n: _sha(os.path.join(os.path.dirname(shim), n)) for n in sorted(os.listdir(os.path.dirname(shim)))},
             "tools": tools,
             "dpkg": _stat("/var/lib/dpkg/status")}
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _present(unit):
    from .submission import split_member
    paths = []
    for f in unit["inputs"]:
        member = split_member(f)
        paths.append(member[0] if member else f)
    flags = unit.get("flags") or []
    paths += [flags[i + 1] for i, f in enumerate(flags[:-1]) if f == "-I"]
    paths += unit.get("objects") or []
    return all(os.path.exists(p) for p in paths)


def load(path, want):
    """(units as dicts, notes) kept under `want`, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            got = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(got, dict) or got.get("key") != want or not isinstance(got.get("units"), list):
        return None
    if not all(isinstance(u, dict) and _present(u) for u in got["units"]):
        return None
    return got["units"], got.get("notes") or []


def save(path, want, units, notes):
    """Keeps a discovery (no error if it cannot: the next run finds them again)."""
    try:
        records.write_text(path, json.dumps({"key": want, "units": units, "notes": notes}, indent=1) + "\n")
        return True
    except (records.CouldNotJudge, OSError):
        return False
