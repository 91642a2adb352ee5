"""What every command of scripts/ does the same way: print its --help text,
and turn what ends a run early into one line on stderr and the exit status
the house rules give it (2 for bad usage and for "could not judge: REASON",
128 + N for signal N: 130 SIGINT, 143 SIGTERM, 129 SIGHUP). Never a pass: a
run that ends here exits non-zero. Whatever way it ends, no process it
started is left running."""

import os
import re
import sys

from . import procs
from .records import CouldNotJudge


class Usage(Exception):
    """Bad usage: one line (or more, for a compiler's messages) on stderr,
    exit 2."""


# Set by the installed `memgate` command for the tool it runs ("memgate
# gate"): that tool's help names the command its user typed, not the
# tree's scripts/gate.
INVOKED_AS = "MEMGATE_INVOKED_AS"


def as_invoked(text):
    """`text` with scripts/TOOL named as the user called it."""
    called = os.environ.get(INVOKED_AS, "")
    if not re.fullmatch(r"memgate [a-z-]+", called):
        return text
    return re.sub(rf"\bscripts/{re.escape(called.split()[1])}\b", called, text)


def print_help(text):
    """Prints a command's --help text on stdout. A reader that stops early
    (`| head`) has read what it wanted: no traceback, and stdout goes to
    /dev/null so that the interpreter's own flush at exit stays quiet."""
    try:
        sys.stdout.write(as_invoked(text).rstrip("\n") + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def os_reason(e):
    """An OSError as a reason: 'FILE: what the system said'."""
    return f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}"


def shown(text):
    """A name or value as printed: bytes that are not UTF-8 (which Python
    keeps as surrogates) as \\xNN escapes."""
    return os.fsencode(text).decode("utf-8", "backslashreplace")


def not_utf8(text):
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def refuse_non_utf8(argv, flags=()):
    """Usage for the first argument that is not UTF-8: file names and flag
    values go into C strings, JSON records and reports, which are UTF-8.
    `flags`: the options that take no value (so the word after one is no
    value of it)."""
    previous = None
    for arg in argv:
        if not_utf8(arg):
            if arg.startswith("--") and "=" in arg:
                name, _, arg = arg.partition("=")
                what = f"the value of {name}"
            elif arg[:2] in ("-I", "-D") and len(arg) > 2:
                what = f"the value of {arg[:2]}"
            elif previous and previous.startswith("-") and "=" not in previous and previous not in flags:
                what = f"the value of {previous}"
            else:
                what = "the file name"
            raise Usage(f"{what} '{shown(arg)}' is not UTF-8: names and values must be UTF-8 text")
        previous = arg


def once(seen, name):
    """Usage if option `name` was given before (a repeated flag would
    silently keep its last value)."""
    if name in seen:
        raise Usage(f"{name} given twice (give it once)")
    seen.add(name)


def run_main(prog, body, saved=None):
    """Runs body() and returns its exit status; Usage, CouldNotJudge, an
    OSError or an interrupt become one line '{prog}: ...' and 2 (128 + N
    for signal N); any other exception (a bug) its traceback and
    "could not judge: internal error", 2. SIGINT, SIGTERM and SIGHUP sent to this process end it
    as the terminal's SIGINT does; saved() (or None) says where the results
    so far are, for the interrupted line. Every child is stopped first."""
    procs.catch_stop_signals()
    try:
        return body()
    except Usage as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except CouldNotJudge as e:
        print(f"{prog}: could not judge: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog}: could not judge: {os_reason(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        return interrupted(prog, e, saved)
    except Exception as e:  # a bug here must never read as a verdict (exit 1 is "rejected")
        import traceback
        traceback.print_exc()
        print(f"{prog}: could not judge: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    finally:
        stop_children()


def stop_children():
    """Every process started here ends before the program does (a second
    stop signal meanwhile is ignored, see procs.catch_stop_signals)."""
    try:
        procs.stop_all()
    except KeyboardInterrupt:
        procs.stop_all()


def interrupted(prog, e, saved=None):
    """Stops every child, prints the one line and returns 128 + N."""
    stop_children()
    if not isinstance(e, procs.Interrupted):
        e = procs.interrupted() or procs.Interrupted(2)
    where = saved() if saved else None
    print(f"{prog}: interrupted by {e.name}" + (f"; {where}" if where else ""), file=sys.stderr)
    return e.status
