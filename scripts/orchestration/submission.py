"""A submitted routine's files: compiled and merged into one object, its
global symbols renamed mg_gate_*, and the rules checked at build time (it
defines its entry point, references nothing it does not define except the
--extern data symbols, makes no system calls)."""

import os
import re
import shlex
import shutil
import sys

from . import procs

# System-call instructions, as objdump (GNU or LLVM) prints them: on x86
# syscall, sysenter and int $0x80; on aarch64 svc (and the hypervisor and
# secure-monitor calls next to it).
SYSCALL_RE = re.compile(r"\t\s*(syscall|sysenter|int\s+\$0x80|svc|hvc|smc)\b")
# A symbol the linker provides, not a function or datum of anyone's.
LINKER_SYMBOLS = ("_GLOBAL_OFFSET_TABLE_",)
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class BuildProblem(Exception):
    """The submission breaks a build-time rule: one line, exit 2."""


def c_string(text):
    """`text` as a C string literal: printable ASCII kept, everything else
    (quotes, backslashes, UTF-8 bytes) as octal escapes."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if 0x20 <= byte < 0x7F and ch not in '"\\?':
            out.append(ch)
        else:
            out.append("\\%03o" % byte)
    return '"' + "".join(out) + '"'


def parse_extern(text):
    """NAME=VALUE (VALUE an integer, decimal or 0x hex) -> (name, value)."""
    name, eq, value = text.partition("=")
    if not eq or not IDENTIFIER.match(name):
        raise ValueError(f"--extern '{text}' is not NAME=VALUE with NAME a C identifier")
    try:
        number = int(value, 0)
    except ValueError:
        raise ValueError(f"--extern {name}: value '{value}' is not an integer") from None
    if not -(2**63) <= number < 2**64:
        raise ValueError(f"--extern {name}: value {value} does not fit in 64 bits")
    return name, number


def parse_extern_values(text):
    """NAME=V1,V2,... -> (name, [values]): each value as parse_extern takes
    it, none twice."""
    name, eq, values = text.partition("=")
    parsed = [parse_extern(f"{name}={v}")[1] for v in values.split(",")] if eq else [parse_extern(text)[1]]
    if len(set(parsed)) != len(parsed):
        raise ValueError(f"--extern {name}: a value is given twice")
    return name, parsed


def extern_source(externs):
    """A C file defining each --extern data symbol with its value."""
    lines = ["/* scripts/gate --extern: the data symbols the submission may reference. */"]
    for name, value in externs:
        lines.append(f"long long {name} __attribute__((aligned(16))) = {value}LL;"
                     if value < 2**63 else
                     f"unsigned long long {name} __attribute__((aligned(16))) = {value}ULL;")
    return "\n".join(lines) + "\n"


def safe_name(index, path):
    """A name for the build's copy of a source: no spaces or letters the
    Makefile or a shell could split or mangle."""
    base = os.path.basename(path)
    stem, ext = os.path.splitext(base)
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", stem) or "source"
    return f"{index}-{stem}{ext}"


def capture(argv, timeout=120, env=None, cwd=None):
    """(status, output) of a short helper command, run under procs."""
    import tempfile
    with tempfile.TemporaryFile() as out:
        try:
            result = procs.run(argv, stdout=out, stderr=out, timeout=timeout, env=env, cwd=cwd)
        except OSError as e:
            return 127, f"{argv[0]}: {e.strerror or e}"
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if result.timed_out:
        return 124, text + f"\n{argv[0]} did not finish in {timeout} s"
    return result.returncode, text


def binutils(cc):
    """The nm, objcopy and objdump that read what `cc` produces: the ones it
    names for its target, else LLVM's, which read every arch."""
    tools = {}
    for tool in ("nm", "objcopy", "objdump"):
        rc, out = capture(shlex.split(cc) + [f"-print-prog-name={tool}"], timeout=30)
        name = out.strip() if rc == 0 and out.strip() else tool
        tools[tool] = name
    return tools


def usable(tools, obj):
    rc, _ = capture([tools["nm"], obj], timeout=60)
    if rc == 0:
        return tools
    if shutil.which("llvm-nm"):
        return {"nm": "llvm-nm", "objcopy": "llvm-objcopy",
                "objdump": "llvm-objdump" if shutil.which("llvm-objdump") else tools["objdump"]}
    return tools


def symbols(tools, obj, which):
    """Global symbols of `obj`: which="defined" or "undefined"."""
    flag = "--defined-only" if which == "defined" else "--undefined-only"
    rc, out = capture([tools["nm"], flag, "-g", obj], timeout=60)
    if rc != 0:
        raise BuildProblem(f"nm cannot read {obj}: {out.strip().splitlines()[-1] if out.strip() else rc}")
    names = []
    for line in out.splitlines():
        fields = line.split()
        if fields:
            names.append(fields[-1])
    return names


def system_calls(tools, obj):
    """The system-call instructions in `obj`, each as 'insn at symbol+0xOFF'."""
    rc, out = capture([tools["objdump"], "-d", obj], timeout=120)
    if rc != 0:
        raise BuildProblem(f"objdump cannot disassemble {obj}: {out.strip()[-200:]}")
    found, symbol, start = [], "?", 0
    for line in out.splitlines():
        head = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if head:
            symbol, start = head.group(2), int(head.group(1), 16)
            continue
        insn = SYSCALL_RE.search(line)
        at = re.match(r"^\s*([0-9a-f]+):", line)
        if insn and at:
            mnemonic = re.sub(r"\s+", " ", insn.group(1))
            found.append(f"{mnemonic} at {symbol}+{int(at.group(1), 16) - start:#x}")
    return found


def compile_object(out, symbol, cc, cflags, sources):
    """Compiles the sources, merges them (OUT.parts/merged.o) and writes OUT
    with every defined global renamed mg_gate_*. Returns the exit status
    for scripts/gate-compile: 0, 1 (a compiler error), 3 (no SYMBOL)."""
    parts = os.path.join(os.path.dirname(out), os.path.basename(out)[:-2] + ".parts")
    shutil.rmtree(parts, ignore_errors=True)
    os.makedirs(parts)
    objs = []
    for index, src in enumerate(sources):
        obj = os.path.join(parts, f"{index}-{os.path.splitext(os.path.basename(src))[0]}.o")
        # Assembly gets only the include paths: a .S may include
        # harness/arch/asmdefs.h, as the tree's own variants do.
        flags = [f for f in shlex.split(cflags) if src.endswith(".c") or f.startswith("-I")]
        rc = os.spawnvp(os.P_WAIT, shlex.split(cc)[0], shlex.split(cc) + flags + ["-c", "-o", obj, src])
        if rc != 0:
            return 1
        objs.append(obj)
    merged = os.path.join(parts, "merged.o")
    # The compiler driver merges, so the linker gets the arch's emulation
    # (the host's plain `ld -r` refuses i386 objects).
    if os.spawnvp(os.P_WAIT, shlex.split(cc)[0], shlex.split(cc) + ["-r", "-nostdlib", "-o", merged] + objs) != 0:
        return 1
    tools = usable(binutils(cc), merged)
    defined = symbols(tools, merged, "defined")
    if symbol not in defined:
        print(f"gate: symbol '{symbol}' is not defined in {' '.join(sources)} "
              f"(it defines: {', '.join(defined)})", file=sys.stderr)
        return 3
    renames = os.path.join(parts, "renames")
    with open(renames, "w") as f:
        f.writelines(f"{name} mg_gate_{name}\n" for name in defined)
    return os.spawnvp(os.P_WAIT, tools["objcopy"], [tools["objcopy"], f"--redefine-syms={renames}", merged, out])


def inspect(merged, cc, symbol, allowed):
    """The build-time rules on the merged object, before renaming: a list of
    one-line problems (empty: none)."""
    tools = usable(binutils(cc), merged)
    problems = []
    defined = symbols(tools, merged, "defined")
    if symbol not in defined:
        return [f"symbol '{symbol}' is not defined (it defines: {', '.join(defined) or 'nothing'})"]
    undefined = [s for s in symbols(tools, merged, "undefined")
                 if s not in LINKER_SYMBOLS and s not in allowed]
    if undefined:
        problems.append("references symbols it does not define: " + ", ".join(sorted(set(undefined)))
                        + " (a routine calls nothing; only data symbols given with --extern NAME=VALUE may be referenced)")
    calls = system_calls(tools, merged)
    if calls:
        problems.append("makes system calls: " + ", ".join(calls))
    return problems


def main(argv):
    """scripts/gate-compile OUT.o SYMBOL CC "CFLAGS" SOURCE..."""
    if len(argv) < 5:
        print("usage: scripts/gate-compile OUT.o SYMBOL CC CFLAGS SOURCE...", file=sys.stderr)
        return 2
    out, symbol, cc, cflags = argv[:4]
    return compile_object(out, symbol, cc, cflags, argv[4:])
