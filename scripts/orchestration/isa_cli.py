"""scripts/isa-audit: the ISA audit (isa_audit) on objects, as the gate runs
it, for a submitter and for the zoo's static run."""

import json
import os
import sys
import tempfile

from . import cli, isa_audit, isa_features, procs, submission

USAGE = """\
scripts/isa-audit [--arch ARCH] [--requires FEATURE,...] [--format text|json]
                  FILE.o|ARCHIVE.a(MEMBER.o) ...

Disassembles every byte of the objects' code with Capstone 4.0.2 and names
the CPU features it needs, the minimal --requires that covers them, and
each feature that neither --requires nor the arch's baseline covers (an
undeclared-feature finding, with its instruction as symbol+offset).
--format json prints one JSON object per file (schema memgate-isa-audit/1).

Exit status: 0 every feature is declared or baseline, 1 some is not, 2 bad
usage or could not judge (Capstone missing, an unreadable object, bytes
Capstone cannot decode and no documented rule covers)."""
SCHEMA = "memgate-isa-audit/1"


def parse(argv):
    opts = {"arch": None, "requires": [], "format": "text", "files": []}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            cli.print_help(USAGE)
            sys.exit(0)
        opt, eq, value = arg.partition("=")
        if opt in ("--arch", "--requires", "--format"):
            if not eq:
                if i + 1 >= len(argv):
                    raise cli.Usage(f"{opt} needs a value")
                value = argv[i + 1]
                i += 1
            if opt == "--requires":
                opts["requires"] = [f for f in value.split(",") if f]
            else:
                opts[opt[2:]] = value
        elif opt == "--emit-c":
            # Added to an isa finding's repro line, as to scripts/repro's.
            raise cli.Usage("--emit-c: an ISA audit finding is of the code itself (an instruction the "
                            "declared CPU may lack), not of a case a program runs: this command without "
                            "--emit-c shows it")
        elif arg.startswith("-"):
            raise cli.Usage(f"unknown option '{arg}' (valid: --arch, --requires, --format)")
        else:
            opts["files"].append(arg)
        i += 1
    if opts["arch"] not in (None, "x86_64", "i386", "aarch64", "riscv64", "armhf"):
        raise cli.Usage(f"unknown arch '{opts['arch']}' (valid: x86_64, i386, aarch64, riscv64, armhf)")
    if opts["format"] not in ("text", "json"):
        raise cli.Usage(f"--format must be text or json, not '{opts['format']}'")
    known = isa_features.ALL + isa_features.FACTS
    for f in opts["requires"]:
        if f not in known:
            raise cli.Usage(f"unknown feature '{f}' in --requires (valid: {', '.join(known)})")
    if not opts["files"]:
        raise cli.Usage("no object given (FILE.o or ARCHIVE.a(MEMBER.o))")
    return opts


def object_of(path, scratch):
    """A path to the object itself: a file, or an archive member extracted."""
    member = submission.split_member(path)
    if not member:
        if not os.path.isfile(path):
            raise cli.Usage(f"{path}: no such file")
        return path
    archive, name = member
    out = os.path.join(scratch, os.path.basename(name))
    with open(out, "wb") as f:
        result = procs.run(["ar", "p", archive, name], stdout=f, stderr=os.devnull, timeout=120)
    if result.returncode != 0 or os.path.getsize(out) == 0:
        raise cli.Usage(f"{archive}({name}): ar cannot extract it")
    return out


def report(path, obj, opts, name):
    """(exit status, JSON object) of one file's audit."""
    try:
        result = isa_audit.audit(obj, opts["arch"])
    except isa_audit.CannotAudit as e:
        return 2, {"schema": SCHEMA, "file": path, "verdict": "could-not-judge", "reason": str(e)}
    doc = dict(isa_audit.summary(result, opts["requires"]), schema=SCHEMA, file=path)
    doc["findings"] = isa_audit.findings(result, opts["requires"], name, path)
    doc["verdict"] = "could-not-judge" if result.limits else "rejected" if doc["findings"] else "accepted"
    return {"accepted": 0, "rejected": 1, "could-not-judge": 2}[doc["verdict"]], doc


def text_of(doc):
    if "reason" in doc:
        return f"{doc['file']}: could not judge: {doc['reason']}"
    lines = [f"{doc['file']}: {doc['arch']}, {doc['instructions']} instructions; minimal --requires: "
             f"{','.join(doc['minimal_requires']) or 'none'} (declared: {','.join(doc['declared']) or 'none'})"]
    for feature, uses in doc["uses"].items():
        first = uses[0]
        lines.append(f"  {feature:12s} {first['instruction']} at {first['at']} ({first['how']})")
    lines += [f"  undeclared-feature: {f['detail']}" for f in doc["findings"]]
    lines += [f"  could not judge: {limit}" for limit in doc["limits"]]
    return "\n".join(lines)


def audit_all(argv):
    opts = parse(argv)
    worst = 0
    with tempfile.TemporaryDirectory(prefix="isa-audit-") as scratch:
        for path in opts["files"]:
            status, doc = report(path, object_of(path, scratch), opts, os.path.basename(path))
            print(json.dumps(doc) if opts["format"] == "json" else text_of(doc))
            worst = max(worst, status)
    return worst


def main(argv):
    return cli.run_main("isa-audit", lambda: audit_all(argv))
