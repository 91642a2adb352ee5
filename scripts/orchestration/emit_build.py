"""The routine's part of a standalone reproducer's build line, for a
finding of scripts/gate (scripts/repro --emit-c; issue 44).

The gate compiled the submitted files with flags the program's own file
must not get: a kernel file through the shim (-include zoo/kernel/shim.h,
the stand-in headers' -I), the tree's -I, -D and --cflags (-mregparm=3),
the kernel contract's -mgeneral-regs-only, and per file (assembly takes
only the include paths and -march). So the build line does what the gate
did, from the user's own files: each file compiled with the gate's own
command (plain.parts/commands.json, without its dependency output), then
the gate's renames (plain.parts/renames: every global the files define
becomes mg_gate_NAME, a local entry point global first), so that the
program calls mg_gate_NAME as memgate did and no name of the routine's
(memcpy, say) takes the place of the one the program's own code calls.
The program then links those objects, built with its own flags.

`python3 -m orchestration.emit_build BUILD PROGRAM` prints two lines: the
commands to run before the program's compile, joined with && and ending
in one, and the objects to link; exit 1 (nothing printed) when BUILD has
no record of its compiles (a build made before they were kept)."""

import filecmp
import json
import os
import re
import shlex
import shutil
import sys

GATE_PREFIX = "mg_gate_"


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f]
    except FileNotFoundError:
        return []


def own_file(copy, given):
    """The user's file when it is still the one the gate copied (what the
    finding is of), else the gate's copy: the program reproduces the
    case either way, and a fix the user makes shows in the first."""
    if given and os.path.isfile(given) and os.path.isfile(copy):
        try:
            if filecmp.cmp(given, copy, shallow=False):
                return given
        except OSError:
            pass
    return copy


def compile_command(argv, source, obj):
    """The gate's compile of one file, writing `obj` from `source` and no
    dependency file (-MD, -MF FILE)."""
    out, skip = [], 0
    for i, word in enumerate(argv[:-1]):
        if skip:
            skip -= 1
            continue
        if word in ("-MD", "-c"):
            continue
        if word in ("-MF", "-o"):
            skip = 1
            continue
        out.append(word)
    return out + ["-c", "-o", obj, source]


def rename_args(build):
    """objcopy's arguments that make the objects' symbols the gate's: the
    local entry points global, every defined global mg_gate_NAME. The
    renames of failure functions to the harness's stubs are left out:
    the program links the real ones."""
    parts = os.path.join(build, "plain.parts")
    pairs = [line.split() for line in read_lines(os.path.join(parts, "renames")) if line.strip()]
    ours = [p for p in pairs if len(p) == 2 and p[1] == GATE_PREFIX + p[0]]
    if not ours:
        return None
    args = []
    if len(ours) == len(pairs):
        args.append("--redefine-syms=" + os.path.join(parts, "renames"))
    else:
        args += [f"--redefine-sym={old}={new}" for old, new in ours]
    # objcopy globalizes by the name a symbol has after its renaming.
    args += [f"--globalize-symbol={GATE_PREFIX}{name}"
             for name in read_lines(os.path.join(parts, "locals")) if name.strip()]
    return args


# The data the gate defines for glibc's x86 routines, in every x86 build
# (submission.defaults_source): weak, and linked only where the routine
# names one of them.
DEFAULTS = "glibc-x86-defaults.c"
DEFINED = re.compile(rb"\b(__x86_\w+) =")


def names_defaults(copy, files):
    """Whether one of the files (source or object text) names a datum the
    generated defaults file `copy` defines."""
    try:
        with open(copy, "rb") as f:
            names = set(DEFINED.findall(f.read()))
    except OSError:
        return True
    for path in files:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError:
            return True
        if any(name in text for name in names):
            return True
    return False


def objcopy_of(binutils):
    """The gate's objcopy, by its name alone where that name finds it."""
    for tool in binutils:
        name = os.path.basename(tool)
        if name.endswith("objcopy"):
            found = shutil.which(name)
            return name if found and os.path.realpath(found) == os.path.realpath(tool) else tool
    return None


def plan(build, program):
    """(commands, objects) for the program `program` (its path without
    .c), or None when the build has no record of its compiles."""
    try:
        with open(os.path.join(build, "plain.parts", "commands.json"), encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    objcopy = objcopy_of(record.get("binutils") or [])
    renames = rename_args(build)
    if not objcopy or renames is None:
        return None
    compiles = {argv[-1]: argv for argv in record.get("compiles") or [] if argv}
    given = read_lines(os.path.join(build, "given"))
    copies = [line for line in read_lines(os.path.join(build, "sources")) if line]
    # The gate's own files come after the submitted ones (gate_build.copy_sources).
    submitted = [c for c in copies if os.path.basename(c) not in (DEFAULTS, "externs.c")]
    commands, objects = [], []
    for index, copy in enumerate(copies):
        if os.path.basename(copy) == DEFAULTS and not names_defaults(copy, submitted):
            continue
        source = own_file(copy, given[index] if index < len(given) else "")
        obj = f"{program}.{index}.o"
        if copy in compiles:
            commands.append(compile_command(compiles[copy], source, obj))
            commands.append([objcopy] + renames + [obj])
        else:  # an object as given (a .o, an archive's member): renamed into a copy
            commands.append([objcopy] + renames + [source, obj])
        objects.append(obj)
    if not objects:
        return None
    return commands, objects


def main(argv):
    if len(argv) != 2:
        print("usage: python3 -m orchestration.emit_build BUILD PROGRAM", file=sys.stderr)
        return 2
    build = argv[0]
    if os.path.isabs(build) and os.path.commonpath([build, os.getcwd()]) == os.getcwd():
        build = os.path.relpath(build)  # shorter, where the line runs
    found = plan(build, argv[1])
    if found is None:
        return 1
    commands, objects = found
    print("".join(shlex.join(c) + " && " for c in commands))
    print(shlex.join(objects))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
