"""Shared by the unit tests: the orchestration package on sys.path, and a
gate context with fixed directories for the checks' record readers."""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
# The tools a test starts work in the tree, as under tests/run (which sets
# the same), wherever the tests were started from: from tests/py they
# would otherwise make tests/py/memgate-results (workspace.py).
os.environ.setdefault("MEMGATE_OUT", ROOT)

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
