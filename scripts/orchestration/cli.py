"""What every command of scripts/ does the same way: print its --help text,
and turn what ends a run early into one line on stderr and the exit status
the house rules give it (2 for bad usage and for "could not judge: REASON",
130 for an interrupt). Never a pass: a run that ends here exits non-zero."""

import os
import sys

from .records import CouldNotJudge


class Usage(Exception):
    """Bad usage: one line (or more, for a compiler's messages) on stderr,
    exit 2."""


def print_help(text):
    """Prints a command's --help text on stdout. A reader that stops early
    (`| head`) has read what it wanted: no traceback, and stdout goes to
    /dev/null so that the interpreter's own flush at exit stays quiet."""
    try:
        sys.stdout.write(text.rstrip("\n") + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def os_reason(e):
    """An OSError as a reason: 'FILE: what the system said'."""
    return f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}"


def run_main(prog, body):
    """Runs body() and returns its exit status; Usage, CouldNotJudge, an
    OSError or an interrupt become one line '{prog}: ...' and 2 (130)."""
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
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
