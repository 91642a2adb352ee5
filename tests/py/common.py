"""Shared by the unit tests: the orchestration package on sys.path, and a
gate context with fixed directories for the checks' record readers."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
# The tools a test starts work in the tree, as under tests/run (which sets
# the same), wherever the tests were started from: from tests/py they
# would otherwise make tests/py/memgate-results (workspace.py).
os.environ.setdefault("MEMGATE_OUT", ROOT)
# The tools a test signals start with the stop signals at their defaults, as
# from a terminal, whatever the runner inherited: make check's workers are a
# script's background jobs, started with SIGINT ignored, and the tools keep
# a signal they were started with ignored (orchestration.procs).
for _s in (signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_s) == signal.SIG_IGN:
        signal.signal(_s, signal.SIG_DFL)
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

from orchestration import gate  # noqa: E402


def context(tmp, **over):
    opts = gate.validate(gate.parse(["--op", "memcpy", os.path.join(ROOT, "tests/gate/bytecopy.c")]))
    ctx = gate.Context(opts)
    ctx.host, ctx.arch, ctx.name, ctx.W, ctx.R = "x86_64", "x86_64", "bytecopy", "build/gate/bytecopy-x", tmp
    ctx.table = []
    ctx.start_clock()
    ctx.progress = lambda stage: None
    for k, v in over.items():
        setattr(ctx, k, v)
    return ctx


def tmpdir(test):
    d = tempfile.mkdtemp(prefix="mg-py-")
    test.addCleanup(lambda: __import__("shutil").rmtree(d, ignore_errors=True))
    return d


def assemble(test, text, target=None, name="t"):
    """The object of assembly `text` (with harness/arch's asmdefs.h): for
    `target` with clang, else with cc, -m32 when `name` ends in 32."""
    cc = ["clang", f"--target={target}"] if target else ["cc"] + (["-m32"] if name.endswith("32") else [])
    if not shutil.which(cc[0]):
        test.fail(f"{cc[0]} is not installed (scripts/install-deps installs it)")
    d = tmpdir(test)
    src, obj = os.path.join(d, name + ".S"), os.path.join(d, name + ".o")
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(cc + ["-c", "-I", os.path.join(ROOT, "harness/arch"), src, "-o", obj], check=True)
    return obj
