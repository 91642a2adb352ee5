"""What the compile step built, known before it runs: a gate whose
submission, options, memgate version and compiler are what they were
when a build was recorded, and whose every file the compiler read (and
every directory it searched them in) is unchanged, would build the same
code again, so the verdict cache can be asked without building
(gate_cache.verdict_key with the recorded code). This is the check
ccache's direct mode makes, with the shadowing of a header by a new file
in a directory searched first counted too. Nothing is recorded for code
that names its build directory (__FILE__ in a submission): its code
differs in every build."""

import hashlib
import json
import os
import subprocess

from . import gate_cache

SCHEMA = 1
# The environment the compile step reads (the Makefile's and the
# compiler's variables).
COMPILE_ENV = ("CC", "CFLAGS", "CPPFLAGS", "ASFLAGS", "LDFLAGS", "PATH", "MAKEFLAGS", "ARCH", "GCC_EXEC_PREFIX",
               "COMPILER_PATH", "CPATH", "C_INCLUDE_PATH", "SOURCE_DATE_EPOCH", "LC_ALL", "LANG")
# What scripts/gate-compile writes beside its objects: each command it ran.
COMMANDS = "commands.json"


def _sha(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "missing"


def _stat(path):
    try:
        st = os.stat(path)
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return "missing"


def _listing(path):
    try:
        return hashlib.sha256("\0".join(sorted(os.listdir(path))).encode()).hexdigest()
    except OSError:
        return "absent"


def given(path):
    """The file a submitted path reads: an archive member's archive (all
    of it: more than the member, never less)."""
    from .submission import split_member
    member = split_member(path)
    return member[0] if member else path


def prekey(ctx):
    """The submission as given, its options, memgate's version, the arch
    and the environment of the compile step."""
    options = {k: v for k, v in ctx.opts.items() if k not in gate_cache.NOT_KEYED}
    return gate_cache._digest({"schema": SCHEMA, "memgate": gate_cache.memgate_version(), "options": options,
                               "files": [_sha(given(f)) for f in ctx.opts["files"]], "arch": ctx.arch,
                               "runner": ctx.runner, "cwd": os.getcwd(),
                               "env": {k: os.environ.get(k) for k in COMPILE_ENV}})


def _path(key):
    return os.path.join(gate_cache.cache_dir(), f"prebuilt-{key[:32]}.json")


def _deps(path):
    """The files a make-style dependency file (-MD) names."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return None
    _, _, rest = text.partition(": ")
    out = []
    for word in rest.replace("\\ ", "\0").split():
        out.append(word.replace("\0", " "))
    return out


def _search_dirs(argv):
    """The compiler's include search list for a compile command (quote
    and bracket dirs, in order), from `CC FLAGS -E -v`."""
    flags = []
    skip = False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a in ("-c", "-MD"):
            continue
        if a in ("-o", "-MF"):
            skip = True
            continue
        flags.append(a)
    lang = "assembler-with-cpp" if argv[-1].endswith((".S", ".s")) else "c"
    cmd = [argv[0]] + flags[:-1] + ["-E", "-v", "-x", lang, "/dev/null", "-o", "/dev/null"]
    try:
        out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    dirs, inside = [], False
    for line in out.decode(errors="replace").splitlines():
        if line.startswith("#include") and "search starts here" in line:
            inside = True
        elif line.startswith("End of search list"):
            inside = False
        elif inside and line.startswith(" "):
            dirs.append(os.path.realpath(line.strip()))
    return dirs


def record(ctx, code, build_dir=None):
    """After a compile step (in build_dir, else ctx.W): what it read,
    under its pre-key. False when it cannot be recorded exactly (nothing is
    then reused without a build)."""
    where = build_dir or ctx.W
    parts = os.path.join(where, "plain.parts")
    try:
        with open(os.path.join(parts, COMMANDS), encoding="utf-8") as f:
            commands = json.load(f)
        with open(os.path.join(parts, "merged.o"), "rb") as f:
            merged = f.read()
    except (OSError, ValueError):
        return False
    build = os.path.realpath(where)
    body = b"".join(b for _, _, b in gate_cache.sections(merged))
    if build.encode() in body or where.encode() in body:
        return False
    from .submission import tool_files
    tools, files, dirs = {}, {}, {}
    for c in tool_files(commands.get("cc") or "cc", commands.get("binutils") or []):
        tools[c] = _stat(c)
    for argv in commands.get("compiles", []):
        deps = _deps(argv[argv.index("-MF") + 1]) if "-MF" in argv else None
        search = _search_dirs(argv)
        if deps is None or search is None:
            return False
        search = [d for d in search if not d.startswith(build + os.sep) and d != build]
        for dep in deps:
            real = os.path.realpath(dep)
            if real.startswith(build + os.sep):
                continue  # the build's copies of the submission, and what the gate made from it
            files[real] = _sha(real)
            dirs[os.path.dirname(real)] = _listing(os.path.dirname(real))
            found = [d for d in search if real.startswith(d + os.sep)]
            if found:
                rel = os.path.dirname(os.path.relpath(real, max(found, key=len)))
                for d in search:
                    shadow = os.path.normpath(os.path.join(d, rel))  # a header here would be found first
                    dirs[shadow] = _listing(shadow)
    names = [e["name"] for e in ctx.entries]
    return gate_cache._write(_path(prekey(ctx)), {"prekey": prekey(ctx), "code": code, "names": names,
                                                  "tools": tools, "files": files, "dirs": dirs})


def lookup(ctx):
    """(code hash, entry names) of what the compile step would build, when
    a build of the same inputs was recorded and nothing it read changed;
    else None."""
    key = prekey(ctx)
    got = gate_cache._read(_path(key))
    if not isinstance(got, dict) or got.get("prekey") != key or not isinstance(got.get("code"), str):
        return None
    names = got.get("names")
    if not isinstance(names, list) or len(names) != len(ctx.entries):
        return None
    try:
        if any(_stat(p) != v for p, v in got["tools"].items()):
            return None
        if any(_sha(p) != v for p, v in got["files"].items()):
            return None
        if any(_listing(p) != v for p, v in got["dirs"].items()):
            return None
    except (AttributeError, KeyError, TypeError):
        return None
    return got["code"], names
