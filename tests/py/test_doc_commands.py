"""Every command the README and docs/ show (in a fenced or an indented
block) names what exists: the script, the memgate command, every --option
among those its --help names, the make target and the test groups of
GROUP=; and every gate command is one the gate's option checks take. What the README's quick start prints is run as printed by
tests/run.d/quickstart.sh; this keeps the rest from drifting (issue 44)."""
import glob
import os
import re
import shlex
import subprocess
import unittest

from common import ROOT

DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
# A command as the docs start it: from the tree, through ~/memgate/, or
# installed; the engine's program of any arch.
COMMAND = re.compile(r"^(?:\$ )?(?:~/memgate/|\./)?(scripts/[\w-]+|memgate\s+[a-z-]+|build/(?:\w+/)?memgate\s+[a-z-]+"
                     r"|make\b)")
# What runs no --help of its own (a probe and an installer that would set
# the machine up).
NO_HELP = ("scripts/arch-probe", "scripts/install-deps")
# The tree's file a command's own file (my_memmove.c) stands as.
STAND_IN = "tests/gate/bytecopy.c"


def code_lines(path):
    """(line number, text) of each line in a fenced block, or in a block
    indented four spaces after a blank line."""
    fenced, indented, blank = False, False, True
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if line.startswith("```"):
                fenced = not fenced
            elif fenced:
                yield n, line
            elif line.startswith("    ") and line.strip() and (blank or indented):
                indented = True
                yield n, line
            elif line.strip():
                indented = False
            blank = not line.strip()


def commands(path):
    """(line number, program, argv) of each memgate command shown in
    `path`, continuation lines joined and a trailing comment cut."""
    pending = None
    for n, line in code_lines(path):
        text = line.strip()
        if pending is not None:
            pending = (pending[0], pending[1] + " " + text.rstrip("\\"))
            if not text.endswith("\\"):
                yield parsed(*pending)
                pending = None
            continue
        if not COMMAND.match(text):
            continue
        if text.endswith("\\"):
            pending = (n, text.rstrip("\\"))
        else:
            yield parsed(n, text)


def parsed(n, text):
    text = re.sub(r"^\$ ", "", text)
    program = re.sub(r"^(~/memgate/|\./)", "", COMMAND.match(text).group(1))
    program = re.sub(r"^build/\w+/memgate", "build/memgate", re.sub(r"\s+", " ", program))
    try:
        argv = shlex.split(text, comments=True)
    except ValueError:
        argv = None
    return n, program, argv


HELP = {}


def options_of(program):
    """The --options `program --help` names (None: it has no help)."""
    if program not in HELP:
        argv = program.split()
        if argv[0] == "memgate":
            argv[0] = "scripts/memgate"
        out = subprocess.run(argv + ["--help"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=120).stdout
        HELP[program] = set(re.findall(r"--[a-z][a-z0-9-]*", out))
    return HELP[program]


def in_tree(path):
    """A file a command names, from the tree's top (the docs' commands run
    there or name ~/memgate/), else the stand-in for the reader's own."""
    path = re.sub(r"^~/memgate/", "", path)
    here = os.path.join(ROOT, path)
    return here if os.path.exists(here) else os.path.join(ROOT, STAND_IN)


def gate_refusals(shown):
    """The gate commands of `shown` ((where, program, argv)...) that the
    gate's option parser and checks refuse, each "where: why". A file the
    docs name that is not in the tree (the reader's own) stands as a tree
    file."""
    import contextlib
    import io
    from orchestration import cli, gate_options
    refused = []
    for where, program, argv in shown:
        if program not in ("scripts/gate", "memgate gate") or argv is None:
            continue
        args = argv[1:] if program == "scripts/gate" else argv[2:]
        if not args or not args[0].startswith("-") or any(a.startswith("[") for a in args):
            continue  # the gate's output ("memgate gate: NAME (...)"), or its synopsis
        args = [in_tree(a) if not a.startswith("-") and a.endswith((".c", ".S", ".s", ".o", ")")) else a
                for a in args]
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                gate_options.validate(gate_options.parse(args))
        except cli.Usage as e:
            refused.append(f"{where}: {e}")
        except SystemExit as e:
            if e.code:
                refused.append(f"{where}: exit {e.code}")
    return refused


# What a memgate make command is made of: targets and VAR=VALUE.
MAKE_WORD = re.compile(r"^([a-z][\w-]*|[A-Z][A-Z0-9_]*=.*)$")


def make_targets():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", text, re.M))


class Shown(unittest.TestCase):
    def every(self):
        for path in DOCS:
            for n, program, argv in commands(path):
                yield f"{path}:{n}", program, argv

    def test_the_docs_show_commands(self):
        self.assertGreater(len(list(self.every())), 50)

    def test_each_parses_as_a_shell_line(self):
        bad = [where for where, _, argv in self.every() if argv is None]
        self.assertEqual(bad, [])

    def test_each_program_exists(self):
        missing = []
        for where, program, _ in self.every():
            first = program.split()[0]
            if first.startswith("scripts/") and not os.access(os.path.join(ROOT, first), os.X_OK):
                missing.append(f"{where}: {first}")
        self.assertEqual(missing, [])

    def test_each_option_is_one_its_help_names(self):
        unknown = []
        for where, program, argv in self.every():
            if argv is None or program == "make" or program in NO_HELP:
                continue
            known = options_of(program)
            for arg in argv:
                option = arg.split("=", 1)[0]
                if option.startswith("--") and len(option) > 2 and option not in known:
                    unknown.append(f"{where}: {program} {option}")
        self.assertEqual(unknown, [])

    def test_each_gate_command_is_one_the_gate_takes(self):
        # Its options and their values as the gate parses and validates
        # them before it builds anything: a value the gate refuses (an
        # example's --seconds once) fails here.
        self.assertEqual(gate_refusals(self.every()), [])

    def test_each_make_target_and_group_exists(self):
        targets = make_targets()
        groups = {os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "tests", "run.d", "*.sh"))}
        unknown = []
        for where, program, argv in self.every():
            if program != "make" or not argv or not all(MAKE_WORD.match(a) for a in argv[1:]):
                continue  # prose or output in a block, or another project's make (-C)
            for arg in argv[1:]:
                if arg.startswith("GROUP="):
                    unknown += [f"{where}: group {g}" for g in arg[6:].split(",") if g and g not in groups]
                elif re.match(r"^[a-z][\w-]*$", arg) and arg not in targets:
                    unknown.append(f"{where}: make {arg}")
        self.assertEqual(unknown, [])


class Extraction(unittest.TestCase):
    def test_a_gate_command_the_gate_refuses_is_named(self):
        shown = [("a.md:1", "scripts/gate", ["scripts/gate", "--op", "memcpy", "--profile=nope", "mine.c"]),
                 ("a.md:2", "scripts/gate", ["scripts/gate", "--op", "memcpy", "--quick", "mine.c"]),
                 ("a.md:3", "memgate gate", ["memgate", "gate", "my_ldp", "(memcpy,", "aarch64)"])]
        self.assertEqual(gate_refusals(shown), ["a.md:1: --profile must be smoke, quick or full, not 'nope'"])

    def test_the_options_are_read_from_the_help(self):
        self.assertIn("--emit-c", options_of("scripts/repro"))
        self.assertNotIn("--emit-rust", options_of("scripts/repro"))
        self.assertIn("--profile", options_of("memgate verify"))

    def test_blocks_continuations_and_comments(self):
        import tempfile
        d = tempfile.mkdtemp(prefix="mg-py-")
        self.addCleanup(lambda: __import__("shutil").rmtree(d, ignore_errors=True))
        text = ("Prose scripts/gate --nothing here\n\n    scripts/repro --gdb x.in\n"
                "```\nmake check GROUP=a,b   # two groups\n~/memgate/scripts/gate --op memmove \\\n"
                "    --quick f.c\nnot a command\n```\n")
        with open(os.path.join(d, "doc.md"), "w") as f:
            f.write(text)
        got = list(commands(os.path.relpath(os.path.join(d, "doc.md"), ROOT)))
        self.assertEqual([(p, a) for _, p, a in got], [
            ("scripts/repro", ["scripts/repro", "--gdb", "x.in"]),
            ("make", ["make", "check", "GROUP=a,b"]),
            ("scripts/gate", ["~/memgate/scripts/gate", "--op", "memmove", "--quick", "f.c"]),
        ])


if __name__ == "__main__":
    unittest.main()
