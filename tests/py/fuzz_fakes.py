"""Stand-ins for the binaries scripts/fuzz drives (build/replay, the fuzz
targets, afl-fuzz), written as small Python programs into a directory given
to scripts/fuzz as MEMGATE_BUILD. They speak the records of docs/records.md
and do what the FAKE_MODE environment variable says, so that every way a
run can end is testable in a second, without clang or AFL++.

An input containing b"BUG<d>" fails on replay with signature
"VARIANT out-of-bounds-write dst past the end <d>"; any other input passes.
"""

import os
import stat
import textwrap

COMMON = r'''
import hashlib, json, os, signal, sys, time

def sig_of(data, variant):
    if os.environ.get("FAKE_REPLAY") == "allfail":
        return f"{variant} out-of-bounds-write dst past the end 0"
    i = data.find(b"BUG")
    if i < 0:
        return None
    return f"{variant} out-of-bounds-write dst past the end {data[i + 3:i + 4].decode()}"

def finding(path, data, variant, stage):
    return {"record": "finding", "variant": variant, "op": "memcpy", "arch": "x86_64",
            "class": "out-of-bounds-write", "level": "error",
            "detail": "dst, 1 byte past the end", "signature": sig_of(data, variant),
            "site": "dst past the end", "buffer": "dst", "side": "past-end", "distance": 1,
            "offset": None, "access": "write", "rule": None, "old": None, "new": None,
            "signal": None, "pc": None, "address": None, "index": None, "got": None,
            "want": None, "case": {"len": len(data)}, "stage": stage,
            "replay": ["build/memgate", "run", f"--variant={variant}", f"--len={len(data)}"],
            "input": path}
'''

REPLAY = COMMON + r'''
args = sys.argv[1:]
variant = "memcpy_libc"
files = []
for a in args:
    if a.startswith("--variant="):
        variant = a.split("=", 1)[1]
    elif not a.startswith("--"):
        files.append(a)
out = []
failed = 0
for f in files:
    try:
        data = open(f, "rb").read()
    except OSError as e:
        print(f"replay: cannot open {f}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if len(data) > 4096:
        print(f"replay: {f} is not a memgate fuzz input: over 4096 bytes", file=sys.stderr)
        sys.exit(2)
    if sig_of(data, variant):
        failed += 1
        out.append({"record": "case", "input": f, "variant": variant, "class": "out-of-bounds-write",
                    "level": "error", "case": {"len": len(data)}})
        out.append(finding(f, data, variant, "replay"))
    else:
        out.append({"record": "case", "input": f, "variant": variant, "class": "ok",
                    "level": None, "case": {"len": len(data)}})
if os.environ.get("FAKE_REPLAY") != "cut":
    out.append({"record": "summary", "command": "replay", "complete": True, "cases": len(files),
                "passed": len(files) - failed, "failed": failed, "errors": 0, "skipped": 0})
for r in out:
    print(json.dumps(r))
sys.exit(1 if failed else 0)
'''

FUZZER = COMMON + r'''
args = sys.argv[1:]
opts = {}
pos = []
for a in args:
    if a.startswith("-") and "=" in a:
        k, v = a[1:].split("=", 1)
        opts[k] = v
    elif not a.startswith("-"):
        pos.append(a)
mode = os.environ.get("FAKE_MODE", "clean")
variant = os.environ.get("MEMGATE_VARIANT", "memcpy_libc")
if "minimize_crash" in opts:
    data = open(pos[0], "rb").read()
    i = data.find(b"BUG")
    open(opts["exact_artifact_path"], "wb").write(data[i:i + 4] if i >= 0 else data)
    sys.exit(0)
if "max_total_time" not in opts:  # run on one input, as the fuzzer ran it
    print("==1== ERROR: AddressSanitizer: heap-use-after-free (a fake)", file=sys.stderr)
    sys.exit(1)
if os.environ.get("FAKE_PIDS"):
    with open(os.environ["FAKE_PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")
raw = os.environ.get("MEMGATE_FINDINGS", "")
prefix = opts.get("artifact_prefix", "")
total = int(opts["max_total_time"])
print("INFO: Seed: 1", file=sys.stderr, flush=True)
if mode == "fail":
    print("ERROR: the fake fuzzer cannot start", file=sys.stderr)
    sys.exit(1)

def save(data, record=True, kind="crash"):
    h = hashlib.sha1(data).hexdigest()
    if record and sig_of(data, variant):
        base = os.path.join(raw, f"{variant}-out-of-bounds-write-{h[:16]}")
        open(base + ".in", "wb").write(data)
        open(base + ".json", "w").write(json.dumps(finding(base + ".in", data, variant, "fuzz")) + "\n")
    elif record:
        base = os.path.join(raw, f"{variant}-crash-{h[:16]}")
        open(base + ".in", "wb").write(data)
        rec = finding(base + ".in", data, variant, "fuzz")
        rec.update({"class": "crash", "signature": f"{variant} crash SIGSEGV at {variant}+0x4",
                    "detail": "SIGSEGV at {variant}+0x4", "signal": "SIGSEGV"})
        open(base + ".json", "w").write(json.dumps(rec) + "\n")
    open(prefix + f"{kind}-{h}", "wb").write(data)

if mode == "bug":
    save(b"xxxxBUG1")
    save(b"yyBUG1")
    save(b"BUG2zzzzzz")
elif mode == "flaky":
    save(b"FLAKY-1")
    save(b"FLAKY-22", record=False)
elif mode == "cannot-judge":
    with open(os.path.join(raw, f"error-{os.getpid()}.json"), "w") as f:
        f.write(json.dumps({"record": "error", "reason": "cannot map the sandbox: Cannot allocate memory",
                            "stage": "fuzz", "variant": variant}) + "\n")
elif mode == "big":
    save(b"BUG1" + b"x" * 5000, record=False)
elif mode in ("inflight-bug", "inflight-calm"):
    def inflight(pid, data):
        with open(os.path.join(raw, f"inflight-{pid}"), "wb") as f:
            f.write(len(data).to_bytes(8, "little") + data + bytes(4096 - len(data)))
    inflight(101, b"zzBUG3" if mode == "inflight-bug" else b"calm")
def calm_inflight(pid, data=b"calm"):
    with open(os.path.join(raw, f"inflight-{pid}"), "wb") as f:
        f.write(len(data).to_bytes(8, "little") + data + bytes(4096 - len(data)))
if mode == "quiet-death":
    import subprocess
    job = subprocess.Popen(["true"])
    job.wait()
    calm_inflight(job.pid, b"")  # a job killed between calls
if mode in ("stubborn", "stubborn-dead-job"):
    calm_inflight(os.getpid())  # in a call when the deadline comes
if mode == "stubborn-dead-job":
    # A job that ended during a call long before the deadline (killed from
    # outside): its pid is not running when the run stops.
    import subprocess
    job = subprocess.Popen(["true"])
    job.wait()
    calm_inflight(job.pid, b"quiet")
    mode = "stubborn"
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.fork() == 0:
        with open(os.environ["FAKE_PIDS"], "a") as f:
            f.write(f"{os.getpid()}\n")
        while True:
            time.sleep(1)
n = 0
end = time.time() + (3600 if mode == "stubborn" else total)
while time.time() < end:
    n += 1000
    print(f"#{n}: cov: 1 ft: 1 corp: 1 exec/s: 1000", file=sys.stderr, flush=True)
    if mode == "bug" and n == 3000:
        save(b"BUG1")
    time.sleep(0.1)
print(f"stat::number_of_executed_units: {n}", file=sys.stderr)
sys.exit(0)
'''

AFL_FUZZ = r'''
import os, sys, time
args = sys.argv[1:]
mode = os.environ.get("FAKE_AFL", "clean")
out = args[args.index("-o") + 1]
name = args[args.index("-M") + 1] if "-M" in args else args[args.index("-S") + 1]
secs = int(args[args.index("-V") + 1])
inst = os.path.join(out, name)
if mode == "abort":
    print("\x1b[1;91m[-] PROGRAM ABORT : \x1b[0mFork server handshake failed\x1b[1;91m")
    print("         Location : afl_fsrv_start(), src/afl-forkserver.c:1221")
    sys.exit(1)
for d in ("queue", "crashes", "hangs"):
    os.makedirs(os.path.join(inst, d), exist_ok=True)
open(os.path.join(inst, "queue", "id:000000,orig:seed"), "wb").write(b"seed")
if mode == "crash":
    open(os.path.join(inst, "crashes", "id:000000,sig:06,src:000000,op:havoc"), "wb").write(b"xxBUG1")
if mode == "killed":
    open(os.path.join(inst, "crashes", "id:000000,sig:09,src:000000,op:havoc"), "wb").write(b"calm")
time.sleep(min(secs, 1))
open(os.path.join(inst, "fuzzer_stats"), "w").write("execs_done        : 4321\ncorpus_count      : 7\n")
sys.exit(0)
'''


def write_program(path, body):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/usr/bin/env python3\n" + textwrap.dedent(body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def make_build(top):
    """A build directory with fake replay and fuzz targets, and a bin/
    directory with fake afl-fuzz and afl-tmin to put first in PATH."""
    build = os.path.join(top, "build")
    write_program(os.path.join(build, "replay"), REPLAY)
    for flavor in ("libfuzzer", "libfuzzer-asan", "afl"):
        for t in ("memcpy", "memmove", "memset", "page"):
            write_program(os.path.join(build, "fuzz", flavor, f"fuzz_{t}"), FUZZER)
    bin_dir = os.path.join(top, "bin")
    write_program(os.path.join(bin_dir, "afl-fuzz"), AFL_FUZZ)
    write_program(os.path.join(bin_dir, "afl-tmin"), "import sys\nsys.exit(1)\n")
    return build, bin_dir
