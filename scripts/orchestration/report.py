"""The gate's reports: its own JSON (schema memgate-gate-report/1), SARIF
2.1.0 and JUnit XML, built from the results directory scripts/gate wrote
(gate.json; or, from older runs and hand-made ones, meta.tsv, checks.tsv and
findings.tsv). Every output is written durably and read back
(records.write_text)."""

import json
import os
import re
import urllib.parse

from . import cli, records, registry, units
from .records import CouldNotJudge

SCHEMA = "memgate-gate-report/1"
CHECKS = registry.NAMES
STATUSES = ("pass", "fail", "skip", "n/a", "error")
VERDICTS = ("accepted", "rejected", "could-not-judge")
OPS = ("memcpy", "mempcpy", "memmove", "memset", "copy_page", "clear_page", "copy_from_user",
       "copy_to_user", "clear_user")
# Where a code-scanning alert links for memgate itself.
INFO_URI = "https://github.com/memgate/memgate"

class BadWorkdir(Exception):
    """The work directory is missing or malformed: one line, exit 2."""


# --- reading a work directory ------------------------------------------------

def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", errors="replace")
    except OSError as e:
        raise BadWorkdir(f"{path}: {e.strerror or e}") from None


def rows(directory, name, fields):
    text = read_text(os.path.join(directory, name))
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if line == "":
            continue
        f = line.split("\t")
        if len(f) != fields:
            raise BadWorkdir(f"{directory}/{name} line {number}: {len(f)} fields, want {fields}")
        out.append((number, f))
    return out


DECIMAL = re.compile(r"^[0-9]+(\.[0-9]+)?$")
STARTED = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|\+00:00)$")


def number(text):
    value = float(text)
    return int(value) if value.is_integer() else value


def meta_of(directory):
    meta = {}
    for line, (key, value) in rows(directory, "meta.tsv", 2):
        if key in meta:
            raise BadWorkdir(f"{directory}/meta.tsv line {line}: '{key}' given twice")
        meta[key] = value
    for key in ("variant", "op", "arch", "symbol", "files", "verdict", "seconds", "memgate_version", "started"):
        if key not in meta:
            raise BadWorkdir(f"{directory}/meta.tsv: no '{key}' line")
        if meta[key] == "":
            raise BadWorkdir(f"{directory}/meta.tsv: '{key}' is empty")
    return meta


def validate_meta(meta, where):
    if meta["op"] not in OPS:
        raise BadWorkdir(f"{where}: op '{meta['op']}' (valid: {', '.join(OPS)})")
    if meta["verdict"] not in VERDICTS:
        raise BadWorkdir(f"{where}: verdict '{meta['verdict']}' (valid: {', '.join(VERDICTS)})")
    if not STARTED.match(meta["started"]):
        raise BadWorkdir(f"{where}: started '{meta['started']}' is not an ISO 8601 UTC time (e.g. 2025-01-31T12:00:00Z)")
    for f in meta["files"]:
        if f.startswith("/"):
            raise BadWorkdir(f"{where}: files must be relative to the repository root, got '{f}'")


def checks_of(directory):
    checks = []
    where = f"{directory}/checks.tsv"
    for line, (name, status, cases, seconds, note) in rows(directory, "checks.tsv", 5):
        at = f"{where} line {line}"
        if name not in CHECKS:
            raise BadWorkdir(f"{at}: check '{name}' (valid: {', '.join(CHECKS)})")
        if status not in STATUSES:
            raise BadWorkdir(f"{at}: status '{status}' (valid: {', '.join(STATUSES)})")
        if not re.match(r"^[0-9]+$", cases):
            raise BadWorkdir(f"{at}: cases '{cases}' (want a whole number)")
        if not DECIMAL.match(seconds):
            raise BadWorkdir(f"{at}: seconds '{seconds}' (want a decimal number)")
        if any(c["name"] == name for c in checks):
            raise BadWorkdir(f"{at}: check '{name}' given twice")
        checks.append({"name": name, "status": status, "cases": int(cases),
                       "seconds": number(seconds), "note": note})
    if not checks:
        raise BadWorkdir(f"{where}: no checks")
    return checks


def validate_finding(f, checks, at):
    status = next((c["status"] for c in checks if c["name"] == f["check"] and c.get("run", "") == f.get("run", "")),
                  None)
    if status is None:
        raise BadWorkdir(f"{at}: check '{f['check']}' (not in checks.tsv)")
    if status not in ("fail", "error"):
        raise BadWorkdir(f"{at}: check '{f['check']}' has status {status} (a finding needs fail or error)")
    if f["kind"] not in records.CLASSES:
        raise BadWorkdir(f"{at}: class '{f['kind']}' (valid: {', '.join(records.CLASSES)})")
    if not registry.may_report(f["check"], f["kind"]):
        raise BadWorkdir(f"{at}: class '{f['kind']}' for check '{f['check']}' ({registry.owners_text()})")
    if f["detail"] == "":
        raise BadWorkdir(f"{at}: the detail is empty (the one-line diagnosis is required)")
    if f["signature"] == "":
        raise BadWorkdir(f"{at}: the signature is empty (want 'variant class site')")


def findings_of(directory, checks):
    out = []
    for line, (check, kind, detail, input_, repro, sig) in rows(directory, "findings.tsv", 6):
        f = {"check": check, "kind": kind, "detail": detail, "input": input_, "repro": repro, "signature": sig}
        validate_finding(f, checks, f"{directory}/findings.tsv line {line}")
        out.append(f)
    return out


def derived(report):
    """The lists every report carries besides the checks: what could not be
    judged, what does not apply, what --skip left out."""
    report.setdefault("warnings", [])
    report.setdefault("could_not_judge", [{"check": c["name"], "reason": c["note"]}
                                          for c in report["checks"] if c["status"] == "error"])
    report.setdefault("not_applicable", [{"check": c["name"], "reason": c["note"]}
                                         for c in report["checks"] if c["status"] == "n/a"])
    report.setdefault("skipped", [c["name"] for c in report["checks"] if c["status"] == "skip"])
    return report


def from_tsv(directory):
    for name in ("meta.tsv", "checks.tsv", "findings.tsv"):
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            raise BadWorkdir(f"{path}: missing")
        if not os.access(path, os.R_OK):
            raise BadWorkdir(f"{path}: not readable")
    meta = meta_of(directory)
    meta["files"] = [f[2:] if f.startswith("./") else f for f in meta["files"].split(" ") if f]
    validate_meta(meta, f"{directory}/meta.tsv")
    if not DECIMAL.match(meta["seconds"]):
        raise BadWorkdir(f"{directory}/meta.tsv: seconds '{meta['seconds']}' is not a decimal number")
    checks = checks_of(directory)
    report = {"schema": SCHEMA, "variant": meta["variant"], "op": meta["op"], "arch": meta["arch"],
              "symbol": meta["symbol"], "files": meta["files"], "verdict": meta["verdict"],
              "seconds": number(meta["seconds"]), "memgate": meta["memgate_version"],
              "started": meta["started"], "checks": checks,
              "findings": findings_of(directory, checks)}
    return derived(report)


def from_json(path):
    try:
        report = json.loads(read_text(path))
    except ValueError as e:
        raise BadWorkdir(f"{path}: not JSON ({e})") from None
    if not isinstance(report, dict) or report.get("schema") != SCHEMA:
        raise BadWorkdir(f"{path}: not a {SCHEMA} document")
    for key in ("variant", "op", "arch", "symbol", "files", "verdict", "seconds", "memgate", "started",
                "checks", "findings"):
        if key not in report:
            raise BadWorkdir(f"{path}: no '{key}'")
    validate_meta(report, path)
    for i, c in enumerate(report["checks"]):
        if c.get("name") not in CHECKS or c.get("status") not in STATUSES:
            raise BadWorkdir(f"{path}: check {i + 1} has no known name and status")
    for i, f in enumerate(report["findings"]):
        validate_finding(f, report["checks"], f"{path} finding {i + 1}")
    return derived(report)


def load(directory):
    """The report of a work directory (gate.json, else the three TSVs)."""
    if not os.path.isdir(directory):
        raise BadWorkdir(f"no work directory '{directory}'")
    path = os.path.join(directory, "gate.json")
    return from_json(path) if os.path.exists(path) else from_tsv(directory)


# --- SARIF ---------------------------------------------------------------------

# Each class's SARIF rule text: (short, full, help). A check's unit has
# its own classes' (units.ABOUT).
ABOUT = {
    "wrong-result": ("Wrong bytes in the destination",
                     "After the call, dst differs from what the byte-loop reference in reference/ produced from the same input, or the call returned from a length at which it should have faulted on the guard.",
                     "memgate runs each case on the variant and on a byte-loop reference with the same fill, and compares dst byte by byte. The message names the first wrong offset, the bytes got and wanted, and how many are wrong."),
    "out-of-bounds-read": ("Read outside a buffer",
                           "The variant read before the start or past the end of its source or destination: the access faulted on a PROT_NONE guard page placed flush against the buffer, or valgrind's memcheck saw it.",
                           "memgate places each buffer flush against a guard page at either end. The message names the buffer, the side and the distance in bytes."),
    "out-of-bounds-write": ("Write outside the destination",
                            "The variant wrote before the start or past the end of dst: the write faulted on a guard page, or one of the 128 random red-zone bytes on either side of dst changed.",
                            "The message names the side and the distance in bytes, and for a red-zone byte its old and new value."),
    "src-modified": ("Write into the source",
                     "The variant wrote into the source buffer, which memgate maps read-only during the call.",
                     "The message names the offset written. A copy must never modify its source."),
    "wrong-return": ("Wrong return value",
                     "The call did not return dst, as memcpy, memmove and memset must (or dst + n, as mempcpy must).",
                     "The message gives the value returned and the one expected, as offsets from dst."),
    "abi-violation": ("Calling convention broken",
                      "The variant changed state that the calling convention says it must preserve: a callee-saved register, the stack pointer or the caller's frame, the direction flag, the MXCSR control bits or the x87 control word; or it read the undefined upper 32 bits of memset's int argument.",
                      "Every call goes through a trampoline that loads canaries into the callee-saved registers and the caller's frame and checks them afterwards. The message names the first rule broken, with the old and new value."),
    "aligned-over-read": ("Read past a buffer within an aligned block, judged a failure",
                          "The variant read past the end (or before the start) of a buffer, but only within a naturally aligned block of at most 64 bytes that holds a byte of the buffer, so no MMU can fault on it. It is a failure on aarch64 when the read crosses a 16-byte MTE granule, and anywhere under --overread=strict; otherwise it is a warning.",
                          "Seen under valgrind's memcheck, byte-granular. The message names the buffer, side and distance, and the block's width."),
    "unhandled-fault": ("A user-memory fault the exception table does not list",
                        "A user copy (copy_from_user, copy_to_user, clear_user) faulted on the user buffer at an instruction that has no exception-table entry: the kernel would oops instead of returning a short count.",
                        "memgate places the user buffer so that it faults from byte k on and resumes each fault at a listed instruction as the kernel's handler would (docs/usercopy.md). The message names the instruction as symbol+offset and the byte that faulted."),
    "kernel-fault": ("The kernel buffer faulted",
                     "A user copy faulted on its kernel-side buffer, which never faults: it read or wrote past that buffer, into its guard page. In the kernel that is an oops, or with an exception entry a kernel-side overrun passed off as a short copy.",
                     "The message names the buffer, the side and the distance, and the instruction."),
    "wrong-count": ("Wrong count of bytes not copied",
                    "A user copy returned a count outside [0, n], a non-zero count when nothing faulted, or a count that says more bytes were copied than could be before the user buffer's first faulting byte.",
                    "The message gives the count returned, n and the byte that faults (include/linux/uaccess.h, raw_copy_{to,from}_user)."),
    "write-past-count": ("Wrote past the bytes it says it copied",
                         "A user copy changed a destination byte at or past to + n - ret, the bytes its return value says were not copied: all data past them must be left unmodified (include/linux/uaccess.h).",
                         "The message names the byte, its old and new value, and the count returned."),
    "nothing-copied": ("Copied nothing though it could",
                       "A user copy returned n (nothing copied) although the first bytes of the user buffer could be accessed: returning n is only allowed when not even the first byte can be copied (include/linux/uaccess.h).",
                       "The message gives n and how many bytes could have been copied."),
    "crash": ("Crash",
              "The call died of a signal other than a guard-page fault: a general-protection fault (for example an aligned SSE load on a misaligned address), SIGILL, SIGBUS, or the process ending.",
              "The message gives the signal, the pc as symbol+offset and the address."),
    "timeout": ("No return within the time limit",
                "The call ran longer than 1 s plus 1 ms per 4 KiB of length (per 256 KiB past 32 MiB) and a watchdog interrupted it: most likely an endless loop at some length.",
                "The message gives the limit."),
    "build-error": ("Does not build",
                    "The submitted source did not compile, assemble or link into the memgate harness as a variant.",
                    "The message gives the build's first error."),
    "slowdown": ("Slower than the incumbents",
                 "The bench check measured the variant slower than the best incumbent of its operation by more than the gate's --max-slowdown factor.",
                 "The message gives the worst ratio, and the memgate speed command that measures it again."),
    "undeclared-feature": ("An instruction needs a CPU feature the routine does not declare",
                           "The ISA audit disassembled the routine's code with Capstone and found an instruction that needs a CPU feature which neither --requires nor the arch's baseline covers: on a CPU or VM without it (AVX2 without BMI2, say) the routine dies of SIGILL or computes something else.",
                           "The message names the feature, the first instruction that needs it as symbol+offset, and the --requires that covers it. See docs/isa-audit.md."),
    "landing-pad": ("An entry point lacks the landing pad its object's marking promises",
                    "The routine's object carries the GNU property note that claims indirect-branch tracking (x86 CET's IBT, as gcc -fcf-protection marks it), but an entry point does not start with the arch's landing pad (endbr64, endbr32 on i386): where IBT is enforced, the first indirect call to it (the PLT, a function pointer, an ifunc) faults.",
                    "The message names the entry point and the bytes it starts with. See docs/contract.md, X17."),
    "flaky": ("A fuzzer crash that does not happen again",
              "A fuzzer saw the variant crash (or break a rule) on an input, but replaying that input alone passes: the routine depends on state left by earlier calls (a flag, a register) or on timing.",
              "The message gives both commands: the fuzzer's, which saw it, and the replay, which did not."),
    "warning": ("A warning",
                "A check passed but noticed something that costs speed or may break elsewhere (for example AVX upper state left dirty: no vzeroupper).",
                "The message names the warning."),
}
ABOUT.update(units.ABOUT)
CWE = {"out-of-bounds-read": "external/cwe/cwe-125", "out-of-bounds-write": "external/cwe/cwe-787"}
HOW_TO = " Replay it with the command in the alert's message; scripts/repro INPUT describes a saved input. Each class is explained in docs/design.md, section Verdicts."
ORDER = tuple(records.CLASSES) + ("warning",)


def symbol_line(path, symbol):
    """The line that defines `symbol` in the file: an assembly label
    "SYMBOL:" or "ENTRY(SYMBOL)" (harness/arch/asmdefs.h), or a C line naming "SYMBOL(" that is neither a comment nor a
    declaration ending in ';'. None if there is none."""
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", symbol) or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", errors="replace").split("\n")
    except OSError:
        return None
    label = re.compile(r"^[ \t]*(" + symbol + ":|(LOCAL_)?ENTRY\\([ \t]*" + symbol + r"[ \t]*\))")
    call = re.compile(r"(^|[^A-Za-z0-9_])" + symbol + r"[ \t]*\(")
    for number_, line in enumerate(lines, 1):
        if label.match(line):
            return number_
        if re.match(r"^[ \t]*(\*|/\*|//|#)", line) or re.search(r";[ \t]*$", line):
            continue
        if call.search(line):
            return number_
    return None


def location(report):
    """The file (as the submitter names it, when the gate says) and line
    that define the symbol."""
    names = report.get("submitted") or report["files"]
    for f, name in zip(report["files"], names):
        line = symbol_line(os.path.abspath(f), report["symbol"])
        if line:
            return name, line
    return (names[0] if names else "unknown"), 1


def rule(kind, level):
    short, full, help_ = ABOUT[kind]
    tags = ["memgate", "correctness"] + ([CWE[kind]] if kind in CWE else [])
    return {"id": kind, "shortDescription": {"text": short}, "fullDescription": {"text": full},
            "help": {"text": help_ + HOW_TO}, "helpUri": f"{INFO_URI}#verdicts",
            "defaultConfiguration": {"level": level},
            "properties": {"tags": tags, "precision": "very-high", "problem.severity": level}}


def labelled(f, labels, indent):
    """The finding's fields named in `labels` ((key, label), in order), one
    line each, as the report kind words them; those it lacks are left out."""
    return "".join(f"\n{indent}{label}: {f[key]}" for key, label in labels if f.get(key))


def message(f):
    return f["detail"] + labelled(f, (("fuzz_command", "Seen by"), ("repro", "Replay"), ("input", "Input")), "")


def to_sarif(report):
    path, line = location(report)
    uri = "/".join(urllib.parse.quote(seg, safe="") for seg in path.split("/"))
    items = [(f["kind"], "error", f) for f in report["findings"]]
    items += [("warning", "warning", {"check": w["check"], "detail": f"{w['name']}: {w['text']}",
                                      "repro": w.get("repro", ""),
                                      "signature": f"{report['variant']} warning {w['name']}"})
              for w in report.get("warnings", [])]
    used = [k for k in ORDER if any(kind == k for kind, _, _ in items)]
    results = []
    for kind, level, f in items:
        results.append({
            "ruleId": kind, "ruleIndex": used.index(kind), "level": level,
            "message": {"text": message(f)},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": line}}}],
            "partialFingerprints": {"memgateSignature/v1": f["signature"]},
            "properties": {"check": f["check"], "input": f.get("input", ""), "repro": f.get("repro", "")}})
    notes = [{"level": "error", "message": {"text": f"{c['check']}: could not judge: {c['reason']}"}}
             for c in report.get("could_not_judge", [])]
    notes += [{"level": "note", "message": {"text": f"{c['check']}: n/a ({c['reason']})"}}
              for c in report.get("not_applicable", [])]
    invocation = {"executionSuccessful": all(c["status"] != "error" for c in report["checks"]),
                  "startTimeUtc": report["started"]}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    version = re.sub(r"^v(?=[0-9])", "", report["memgate"])
    properties = {"variant": report["variant"], "op": report["op"], "arch": report["arch"],
                  "symbol": report["symbol"], "verdict": report["verdict"], "seconds": report["seconds"],
                  **isa_properties(report)}
    if report.get("convention"):
        properties["convention"] = report["convention"]
    if report.get("cached"):
        properties["cached"] = cached_text(report["cached"])
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {"name": "memgate", "informationUri": INFO_URI, "version": version,
                                    "rules": [rule(k, "warning" if k == "warning" else "error") for k in used]}},
                # One category per variant, so one variant's report never
                # closes another's alerts.
                "automationDetails": {"id": f"memgate-gate/{report['variant']}/"},
                "invocations": [invocation],
                "results": results,
                "properties": properties}]}


def isa_properties(report):
    """The ISA audit's minimal --requires, for SARIF's and JUnit's
    properties ({} when the audit did not run)."""
    isa = report.get("isa") or {}
    if "minimal_requires" not in isa:
        return {}
    return {"minimal_requires": ",".join(isa["minimal_requires"]), "requires": ",".join(isa["declared"])}


def cached_text(cached):
    """'from RUN, DATE': where a reused verdict was judged (gate_cache)."""
    return f"from {cached.get('from', '?')}, {cached.get('date', '?')}"


# --- JUnit XML -----------------------------------------------------------------

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml(value):
    """Text for XML 1.0: control characters it forbids become U+FFFD; a
    carriage return is kept as a reference, so no parser folds it."""
    text = CONTROL.sub("\ufffd", str(value))
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&apos;"), ("\r", "&#13;")):
        text = text.replace(a, b)
    return text


def attr(name, value):
    return f' {name}="{xml(value)}"'


def secs(x):
    """Seconds to the millisecond, printed as a plain decimal."""
    value = round(float(x) * 1000) / 1000
    return str(int(value)) if value.is_integer() else repr(value)


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def finding_text(f):
    return (f"{f['kind']}: {f['detail']}"
            + labelled(f, (("input", "input"), ("fuzz_command", "seen by"), ("repro", "replay")), "  ")
            + f"\n  signature: {f['signature']}")


def testcase(report, check):
    fs = [f for f in report["findings"] if f["check"] == check["name"] and f.get("run", "") == check.get("run", "")]
    note, status = check["note"], check["status"]
    inner = ""
    if status == "skip":
        inner += f"    <skipped{attr('message', note or 'skipped')}/>\n"
    elif status == "n/a":
        inner += f"    <skipped{attr('message', f'n/a ({note})')}/>\n"
    elif status == "fail":
        kinds = []
        for f in fs:
            if f["kind"] not in kinds:
                kinds.append(f["kind"])
        body = "\n\n".join([finding_text(f) for f in fs] + ([note] if note else []))
        inner += (f"    <failure{attr('message', plural(len(fs), 'finding'))}"
                  f"{attr('type', ', '.join(kinds) or 'fail')}>{xml(body)}</failure>\n")
    elif status == "error":
        message_ = note or "could not judge"
        body = "\n\n".join(finding_text(f) for f in fs)
        inner += f"    <error{attr('message', message_)}{attr('type', 'error')}>{xml(body)}</error>\n"
    out = []
    if check["cases"] > 0:
        out.append(plural(check["cases"], "case"))
    if status == "pass" and note:
        out.append(note)
    warnings = [w for w in report.get("warnings", []) if w["check"] == check["name"]]
    out += [f"warning: {w['name']}: {w['text']}" + (f"; replay: {w['repro']}" if w.get("repro") else "")
            for w in warnings]
    if out:
        inner += f"    <system-out>{xml('; '.join(out))}</system-out>\n"
    head = (f"  <testcase{attr('classname', 'memgate.gate.' + report['variant'])}"
            f"{attr('name', check['name'] + (' [' + check['run'] + ']' if check.get('run') else ''))}"
            f"{attr('time', secs(check['seconds']))}")
    return head + ("/>\n" if not inner else f">\n{inner}  </testcase>\n")


def to_junit(report):
    def count(*statuses):
        return sum(1 for c in report["checks"] if c["status"] in statuses)

    def prop(name, value):
        return f"    <property{attr('name', name)}{attr('value', value)}/>\n"

    text = '<?xml version="1.0" encoding="UTF-8"?>\n'
    text += (f"<testsuite{attr('name', 'memgate gate: ' + report['variant'])}{attr('tests', len(report['checks']))}"
             f"{attr('failures', count('fail'))}{attr('errors', count('error'))}{attr('skipped', count('skip', 'n/a'))}"
             f"{attr('time', secs(report['seconds']))}{attr('timestamp', report['started'][:19])}>\n")
    text += "  <properties>\n"
    text += prop("verdict", report["verdict"]) + prop("op", report["op"]) + prop("arch", report["arch"])
    text += prop("symbol", report["symbol"]) + prop("files", " ".join(report["files"]))
    text += prop("memgate", report["memgate"])
    if report.get("convention"):
        text += prop("convention", report["convention"])
    text += "".join(prop(k, v) for k, v in isa_properties(report).items())
    if report.get("cached"):
        text += prop("cached", cached_text(report["cached"]))
    text += "  </properties>\n"
    text += "".join(testcase(report, c) for c in report["checks"])
    return text + "</testsuite>\n"


# --- writing -------------------------------------------------------------------

def to_json_text(report):
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def sarif_text(log):
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def write_each(paths, makers):
    """Each report asked for (its path given), made by its maker and written;
    CouldNotJudge if one cannot be written (or read back)."""
    for path, make in zip(paths, makers):
        if path:
            records.write_text(path, make())


def write(report, json_path=None, sarif_path=None, junit_path=None):
    """Writes the reports asked for; CouldNotJudge if one cannot be written
    (or read back)."""
    write_each((json_path, sarif_path, junit_path),
               (lambda: to_json_text(report), lambda: sarif_text(to_sarif(report)), lambda: to_junit(report)))


RUN_SCHEMA = "memgate-gate-run/1"


def overall(reports):
    """One verdict for several entry points: rejected if any is, else
    could-not-judge if any is, else accepted."""
    verdicts = {r["verdict"] for r in reports}
    for v in ("rejected", "could-not-judge"):
        if v in verdicts:
            return v
    return "accepted"


def combined_json(reports):
    return {"schema": RUN_SCHEMA, "verdict": overall(reports), "entries": reports}


def combined_sarif(reports):
    """SARIF allows several runs in one log: one per entry point."""
    logs = [to_sarif(r) for r in reports]
    out = dict(logs[0])
    out["runs"] = [run for log in logs for run in log["runs"]]
    return out


def combined_junit(reports):
    """One <testsuite> per entry point, in <testsuites>."""
    head = '<?xml version="1.0" encoding="UTF-8"?>\n'
    suites = "".join(to_junit(r)[len(head):] for r in reports)
    return head + f"<testsuites{attr('name', 'memgate gate')}>\n" + suites + "</testsuites>\n"


def write_combined(reports, json_path=None, sarif_path=None, junit_path=None):
    """The reports of several entry points of one submission, one file of
    each kind; CouldNotJudge if one cannot be written (or read back)."""
    write_each((json_path, sarif_path, junit_path),
               (lambda: to_json_text(combined_json(reports)), lambda: sarif_text(combined_sarif(reports)),
                lambda: combined_junit(reports)))


USAGE = """\
scripts/gate-report WORKDIR [--json FILE] [--sarif FILE] [--junit FILE]

Turns what scripts/gate wrote into WORKDIR (gate.json, or meta.tsv,
checks.tsv and findings.tsv; see docs/gate.md, "Reports") into reports:
  --json FILE    memgate's own report, schema memgate-gate-report/1
  --sarif FILE   SARIF 2.1.0 for GitHub code scanning (one result per finding)
  --junit FILE   JUnit XML (one testcase per check)
With no output asked for, it only checks the work directory.
Exit status: 0 done, 2 with one line on stderr if WORKDIR or one of its
files is missing or malformed, or an output cannot be written."""


def main(argv):
    return cli.run_main("gate-report", lambda: make_reports(argv))


def die(text):
    raise cli.Usage(text)


def make_reports(argv):
    directory, outputs = None, {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            cli.print_help(USAGE)
            return 0
        opt, eq, value = arg.partition("=")
        if opt in ("--json", "--sarif", "--junit"):
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1] == "":
                    die(f"{opt} needs a file name")
                value = argv[i + 1]
                i += 1
            if value == "":
                die(f"{opt} needs a file name")
            outputs[opt[2:]] = value
        elif arg.startswith("-"):
            die(f"unknown option '{arg}' (valid: --json, --sarif, --junit)")
        elif directory is not None:
            die(f"one work directory at a time (got '{directory}' and '{arg}')")
        else:
            directory = arg
        i += 1
    if not directory:
        die("no work directory given (usage: scripts/gate-report WORKDIR [--json FILE] [--sarif FILE] [--junit FILE])")
    if directory != "/":
        directory = directory.rstrip("/")
    try:
        report = load(directory)
    except BadWorkdir as e:
        die(str(e))
    for kind, path in outputs.items():
        try:
            write(report, **{f"{kind}_path": path})
        except CouldNotJudge as e:
            die(f"cannot write '{path}': {str(e).split(': ', 1)[-1]}")
    return 0
