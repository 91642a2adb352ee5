"""memgate's kernel shim (zoo/kernel/shim.h) and what a kernel file needs
to assemble through it outside its tree: an empty stand-in for every
header the file includes (made from the file's own #include lines, so no
linux-source is needed), and the kernel constants the file tests that the
shim does not define (said as such, never as data for --extern)."""

import os
import re

from . import records

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIM = os.path.join(ROOT, "zoo", "kernel", "shim.h")

INCLUDE = re.compile(r'^\s*#\s*include\s*<([^>]+)>', re.M)
# The kernel's CPU feature and capability constants, as the alternatives of
# arch/x86 and arch/arm64 name them.
CONSTANT = re.compile(r"\b(X86_FEATURE_\w+|X86_BUG_\w+|ARM64_\w+)\b")
DEFINE = re.compile(r"^#define\s+(\w+)", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STUB_TEXT = "/* empty: zoo/kernel/shim.h stands in for the kernel's headers */\n"
# The kernel configuration a file tests: #ifdef, #ifndef, defined(), IS_ENABLED().
CONFIG_TEST = re.compile(r"(?:#\s*ifn?def\s+|\bdefined\s*\(\s*|\bIS_ENABLED\s*\(\s*)(CONFIG_\w+)")


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def stub_includes(sources, incdir):
    """Empty files under `incdir` for every <header> the sources include:
    the shim, given with -include, defines what they would."""
    for path in sources:
        for header in INCLUDE.findall(read(path)):
            stub = os.path.normpath(os.path.join(incdir, header))
            if not stub.startswith(os.path.normpath(incdir) + os.sep):
                continue  # <../x.h>: nothing to stand in for outside the folder
            if not os.path.exists(stub):
                os.makedirs(os.path.dirname(stub), exist_ok=True)
                records.write_text(stub, STUB_TEXT)


def defined(shim=SHIM):
    """The names the shim #defines."""
    return set(DEFINE.findall(read(shim)))


def constants(text):
    """The kernel constants `text` uses outside its comments, in order."""
    return list(dict.fromkeys(CONSTANT.findall(COMMENT.sub(" ", text))))


def unknown_constants(sources, shim=SHIM):
    """[(source, constant)]: the kernel constants each source tests that
    the shim does not define. The assembler would leave such a name an
    undefined symbol (GNU as) or refuse its expression (clang), and neither
    is the routine's fault."""
    known = defined(shim)
    return [(path, name) for path in sources if path.endswith((".S", ".s"))
            for name in constants(read(path)) if name not in known]


def configs_off(sources, flags, shim=SHIM):
    """The CONFIG_ options the sources test that neither the shim nor a -D
    of the tree flags defines, in order: each file is built as a kernel
    configured without them, which the gate says (6.1's riscv memset.S
    tests CONFIG_64BIT for its 64-bit fill and its jump into its stores,
    and crashed built without it)."""
    given = set(defined(shim))
    for i, flag in enumerate(flags):
        name = flags[i + 1] if flag == "-D" and i + 1 < len(flags) else flag[2:] if flag.startswith("-D") else ""
        given.add(name.split("=", 1)[0])
    return list(dict.fromkeys(name for path in sources
                              for name in CONFIG_TEST.findall(COMMENT.sub(" ", read(path))) if name not in given))


def unknown_message(found):
    """One line for unknown_constants' answer."""
    names = ", ".join(dict.fromkeys(name for _, name in found))
    files = ", ".join(dict.fromkeys(path for path, _ in found))
    return (f"{files} tests the kernel constant{'s' if ',' in names else ''} {names}, which memgate's kernel shim "
            f"(zoo/kernel/shim.h) does not define: an assembler constant of the kernel's headers, not data "
            f"(no --extern gives it) and no fault of the routine; the shim needs a bit for it "
            f"(docs/zoo.md, \"Your own kernel tree\")")


def uses_shim(flags):
    """Whether the tree flags include the shim (-include .../shim.h, the
    form scripts/zoo gives): the routine is then a kernel routine."""
    for i, flag in enumerate(flags):
        path = flag[len("-include"):] if flag.startswith("-include") and flag != "-include" else \
            (flags[i + 1] if flag == "-include" and i + 1 < len(flags) else None)
        if path and os.path.exists(path) and os.path.samefile(path, SHIM):
            return True
    return False
