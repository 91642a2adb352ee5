"""Where a memgate command works: the memgate tree itself when it is
started there (the developers' way: build/ and findings/ in the tree), else
a results directory the user controls, so that memgate may be installed
read-only and run from the user's own tree.

The results directory (--out DIR, else $MEMGATE_OUT, else ./memgate-results
where the command was started) gets a link to each source part of memgate
(SOURCE_PARTS) beside its own build/ and findings/: the Makefile and the
scripts then work there exactly as in the tree, and everything they write
lands in that directory. The user's paths are made absolute against the
directory the command was started in before the command moves there; what
it prints for the user (paths, repro commands) is made to work from that
directory again (shown, command).

`python3 -m orchestration.workspace [--where] [DIR]` prepares one and
prints its path (the shell scripts' way to the same directory); exit 2 with
the reason when it cannot."""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What the Makefile and the scripts read from memgate's own tree.
SOURCE_PARTS = ("Makefile", "harness", "reference", "impls", "targets", "tests", "corpus", "scripts", "zoo", "docs")
DEFAULT_OUT = "memgate-results"
# What a results directory's build does not take from the tree's: the gate
# runs' own builds, the zoo's and the logs are each run's, not memgate's.
NOT_SEEDED = ("gate", "zoo", "valgrind")


class Unusable(Exception):
    """The results directory cannot be made or written: the reason."""


def same_dir(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def in_tree(start=None):
    """Whether the command was started in memgate's own tree (its top)."""
    return same_dir(start or os.getcwd(), ROOT)


def chosen(out=None, start=None):
    """The results directory for --out `out`, or None: the tree itself."""
    start = start or os.getcwd()
    out = out or os.environ.get("MEMGATE_OUT") or None
    if out is None:
        return None if in_tree(start) else os.path.join(start, DEFAULT_OUT)
    out = os.path.normpath(os.path.join(start, out))
    # The tree named as the results directory (make check does) is the tree.
    return None if same_dir(out, ROOT) else out


def link(out, part):
    """OUT/part -> ROOT/part, replacing a link to an older memgate; a file
    of the user's of that name is left alone and refused."""
    where = os.path.join(out, part)
    target = os.path.join(ROOT, part)
    if os.path.islink(where):
        if os.readlink(where) == target:
            return False
    elif os.path.lexists(where):
        raise Unusable(f"{where} is not memgate's (a file or folder of that name is there): give another --out")
    fresh = f"{where}.{os.getpid()}.link"
    os.symlink(target, fresh)
    os.replace(fresh, where)
    return True


def tree_built():
    """Whether the tree's own build is whole and newer than its sources
    (make -q: nothing to remake, and nothing half-made by a build running
    there now)."""
    if not os.path.isdir(os.path.join(ROOT, "build")):
        return False
    try:
        return subprocess.run(["make", "-q", "-C", ROOT, "all"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def seed_build(out):
    """A results directory with no build starts from a copy of the tree's,
    when that one is whole: the same sources (OUT's links) and their times
    kept, so make there builds only what the run adds (about 20 s less on
    a gate's first run here). A copy, not links: make would write through
    a link into the tree. Made aside and renamed, so that two commands
    starting in one directory at once never see half a copy."""
    build = os.path.join(out, "build")
    if os.path.lexists(build) or not tree_built():
        return
    fresh = tempfile.mkdtemp(prefix=".build-seed-", dir=out)
    try:
        for part in os.listdir(os.path.join(ROOT, "build")):
            src = os.path.join(ROOT, "build", part)
            if part in NOT_SEEDED or part.startswith("."):
                continue
            if os.path.isdir(src) and not os.path.islink(src):
                shutil.copytree(src, os.path.join(fresh, part), symlinks=True)
            else:
                shutil.copy2(src, os.path.join(fresh, part), follow_symlinks=False)
        os.rename(fresh, build)
    except OSError:
        # Another command's seed (or build) got there first, or the copy
        # failed: make builds what is missing either way.
        pass
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def prepare(out):
    """Makes `out` a results directory; Unusable with the reason if it
    cannot be written."""
    if same_dir(out, ROOT):
        return out
    try:
        os.makedirs(out, exist_ok=True)
        # A file made and removed there: access() says yes to root everywhere.
        with tempfile.NamedTemporaryFile(dir=out, prefix=".memgate-probe-"):
            pass
        changed = [link(out, part) for part in SOURCE_PARTS if os.path.lexists(os.path.join(ROOT, part))]
        if any(changed):
            # Another memgate's build (its sources' times say nothing of
            # these): built again from these sources.
            shutil.rmtree(os.path.join(out, "build"), ignore_errors=True)
        seed_build(out)
    except OSError as e:
        raise Unusable(f"cannot write the results directory {out}: {e.strerror or e}") from None
    return out


class Workspace:
    """Where a command started (start) and where it works (here)."""

    def __init__(self, start, here):
        self.start, self.here = start, here

    @property
    def moved(self):
        return not same_dir(self.start, self.here)

    def shown(self, path):
        """A path relative to where the command works, as the user (where
        they started it) names it."""
        if not self.moved or not path:
            return path
        full = os.path.join(self.here, path)
        rel = os.path.relpath(full, self.start)
        return full if rel.split(os.sep)[0] == ".." else rel

    def command(self, cmd):
        """A command line to run where the command works, as one the user
        runs from where they started it."""
        if not self.moved or not cmd:
            return cmd
        return f"(cd {shlex.quote(os.path.relpath(self.here, self.start))} && {cmd})"


CURRENT = Workspace(os.getcwd(), os.getcwd())


def enter(out=None):
    """Moves into the results directory, or the tree's top, and returns the
    Workspace; Unusable if it cannot be written."""
    global CURRENT
    start = os.getcwd()
    where = chosen(out, start)
    if where is None:
        os.chdir(ROOT)
        CURRENT = Workspace(ROOT, ROOT)
        return CURRENT
    prepare(where)
    os.chdir(where)
    CURRENT = Workspace(start, where)
    return CURRENT


def absolute(path, start=None):
    """A user's path made absolute against where they started (an archive
    member ARCHIVE.a(MEMBER.o) keeps its member)."""
    if not path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(start or os.getcwd(), path))


def absolute_flag(flag, start=None):
    """-IDIR with DIR made absolute; any other flag as it is."""
    if flag.startswith("-I") and len(flag) > 2 and not flag[2:].startswith("="):
        return "-I" + absolute(flag[2:], start)
    return flag


def main(argv):
    """[--where] [DIR]: prints the results directory (--where: without
    making it)."""
    where_only = argv[:1] == ["--where"]
    argv = argv[1:] if where_only else argv
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python3 -m orchestration.workspace [--where] [DIR]", file=sys.stderr)
        return 2
    try:
        where = chosen(argv[0] if argv else None) or ROOT
        print(where if where_only else prepare(where))
    except Unusable as e:
        print(f"memgate: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
