"""What the fuzzers saved, judged from records only.

Every input a fuzzer saved (the target's NAME.in with its NAME.json record,
libFuzzer's crash-*, AFL++'s crashes/ and hangs/, seeds that fail) is
grouped by the signature of its record; one input of each group is replayed
with `build/replay --format=jsonl` to confirm it, the smallest confirmed one
is minimised (and kept only if it replays to the same signature), and the
other inputs of the group are removed. A crash the fuzzer saw that does not
replay is a `flaky` finding, with both commands. A replay that cannot run
or does not finish raises CouldNotJudge: never a finding, never a pass.
"""

import hashlib
import os
import platform
import re
import shlex
import shutil
import time

from . import procs
from .fuzz_engines import signal_name
from .records import FAILURE_CLASSES, CouldNotJudge, of_kind, parse_lines, read

INPUT_MAX = 4096  # build/replay rejects longer files: not one of our inputs
# How long the last replay of the minimised inputs may take, kept back from
# the minimisers.
FINAL_REPLAY_RESERVE = 8.0
# One minimiser run at most (it only makes the input smaller).
MINIMISE_SECONDS = 20.0


def record_path(path):
    """NAME.json beside NAME.in (or beside an input of any other name)."""
    return path[:-3] + ".json" if path.endswith(".in") else path + ".json"


def text_path(path):
    return path[:-3] + ".txt" if path.endswith(".in") else path + ".txt"


def slug(signature):
    s = re.sub(r"[^A-Za-z0-9_.-]", "-", signature)
    return re.sub(r"-+", "-", s).rstrip("-")


def read_target_record(path):
    """The finding record a fuzz target wrote beside an input, or None if
    there is none or it is not a complete finding record (the input is then
    replayed like any other)."""
    try:
        with open(record_path(path), "rb") as f:
            text = f.read().decode("utf-8", "replace")
        findings = of_kind(parse_lines(text, record_path(path)), "finding")
    except (OSError, CouldNotJudge):
        return None
    if findings and isinstance(findings[0].get("signature"), str) and findings[0]["signature"]:
        return findings[0]
    return None


class Verdict:
    """build/replay's result for one input: "ok" or a failure class, and
    the finding record when it failed."""

    def __init__(self, cls, finding=None):
        self.cls = cls
        self.finding = finding

    @property
    def failed(self):
        return self.cls != "ok"

    @property
    def signature(self):
        return self.finding.get("signature") if self.finding else None


def parse_replay(records, origin):
    """{input path: Verdict} from build/replay's records."""
    verdicts = {}
    current = None
    for r in records:
        if r["record"] == "case":
            current = os.path.normpath(str(r.get("input")))
            verdicts[current] = Verdict(r.get("class"))
        elif r["record"] == "finding":
            key = os.path.normpath(str(r.get("input"))) if r.get("input") else current
            if key is None:
                raise CouldNotJudge(f"{origin}: a finding record with no input")
            v = verdicts.setdefault(key, Verdict(r.get("class")))
            v.finding = r
            if v.cls in (None, "ok"):
                v.cls = r.get("class")
    for path, v in verdicts.items():
        if v.cls == "ok":
            continue
        if v.cls not in FAILURE_CLASSES:
            raise CouldNotJudge(f"{origin}: {path}: build/replay's class '{v.cls}' is not a verdict")
        if not v.finding or not isinstance(v.finding.get("signature"), str):
            raise CouldNotJudge(f"{origin}: {path} failed ({v.cls}) with no finding record")
    return verdicts


class Replayer:
    """Runs build/replay on inputs, spread over `jobs` processes (a hang
    costs a full watchdog period to replay), each in its own session under
    the deadline."""

    def __init__(self, ctx, target, work):
        self.ctx = ctx
        self.target = target
        self.work = work
        self.batch = 0

    def argv(self, paths):
        return [self.ctx.replay_binary(), "--format=jsonl"] + self.ctx.replay_flags(self.target) + list(paths)

    def run(self, paths, deadline, what="the saved inputs"):
        paths = list(dict.fromkeys(paths))
        if not paths:
            return {}
        n = min(self.ctx.jobs, len(paths))
        parts = [paths[i::n] for i in range(n)]
        self.batch += 1
        running = []
        for i, part in enumerate(parts):
            out = os.path.join(self.work, f"replay-{self.batch}-{i}.jsonl")
            err = os.path.join(self.work, f"replay-{self.batch}-{i}.err")
            for p in (out, err):
                if os.path.exists(p):
                    os.unlink(p)
            child = procs.start(self.argv(part), stdout=out, stderr=err, env=self.ctx.env())
            running.append((child, out, err, part))
        try:
            while any(c.poll() is None for c, _, _, _ in running):
                if deadline.expired():
                    raise CouldNotJudge(
                        f"replaying {what} ({len(paths)} input(s)) did not finish in the time allowed"
                    )
                time.sleep(0.02)
        finally:
            for c, _, _, _ in running:
                procs.stop(c)
        verdicts = {}
        for child, out, err, part in running:
            verdicts.update(self.read_batch(child, out, err, part))
        for f in os.listdir(self.work):
            if f.startswith(f"replay-{self.batch}-"):
                os.unlink(os.path.join(self.work, f))
        return verdicts

    def read_batch(self, child, out, err, part):
        rc = child.returncode
        said = last_line(err)
        if rc < 0:
            why = {"SIGXFSZ": " (over the file size limit: ulimit -f)"}.get(signal_name(-rc), "")
            raise CouldNotJudge(f"build/replay was killed by {signal_name(-rc)}{why}" + (f": {said}" if said else ""))
        try:
            records = read(out)  # a missing summary or an error record raises
        except CouldNotJudge as e:
            why = str(e)
            if said and said not in why:
                why += f" (it said: {said})"
            raise CouldNotJudge(f"build/replay: {why}") from None
        if rc not in (0, 1):
            raise CouldNotJudge(f"build/replay exited with status {rc}" + (f": {said}" if said else ""))
        verdicts = parse_replay(records, "build/replay")
        result = {}
        for p in part:
            v = verdicts.get(os.path.normpath(p))
            if v is None:
                skipped = records[-1].get("skipped")
                why = " (skipped: this CPU cannot run the variant)" if skipped else ""
                raise CouldNotJudge(f"build/replay gave no result for {p}{why}")
            result[p] = v
        return result


def last_line(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [x.strip() for x in f if x.strip()]
    except OSError:
        return None
    return lines[-1] if lines else None


def sha1(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


class Saved:
    """One distinct content among the saved inputs, and every path that
    holds it."""

    def __init__(self, digest):
        self.digest = digest
        self.paths = []
        self.size = 0
        self.record = None  # the fuzz target's own record of it
        self.verdict = None  # build/replay's, once replayed
        self.earlier = False  # saved in an earlier session of the run
        self.seed = False
        self.saved_at = None  # seconds into this session

    @property
    def signature(self):
        if self.verdict is not None:
            return self.verdict.signature
        return self.record["signature"] if self.record else None

    def main_path(self):
        """The path to keep: the target's own NAME.in (with its record) if
        there is one."""
        with_record = [p for p in self.paths if os.path.exists(record_path(p))]
        return sorted(with_record or self.paths)[0]

    def ended_in_call(self):
        """Only known from an in-flight file: a fuzz target process ended
        during the call on this input."""
        return all(os.path.basename(p).startswith(ENDED_PREFIX) for p in self.paths)

    def owners(self):
        """The pids of the processes an ended-in-call input came from."""
        pids = set()
        for p in self.paths:
            name = os.path.basename(p)[len(ENDED_PREFIX):]
            pid = name[:-3] if name.endswith(".in") else name
            pids.add(int(pid) if pid.isdigit() else None)
        return pids

    def afl_killed(self):
        """AFL++ saw its target die of SIGKILL (sig:09): killed from
        outside, by the kernel for memory or by a person."""
        return all("sig:09" in os.path.basename(p) for p in self.paths)


# A fuzz target's in-flight file (docs/records.md): 8 bytes, the
# little-endian length of the input being checked (0: none), then the input.
INFLIGHT_PREFIX = "inflight-"
# What an in-flight file left with an input in it becomes: the input of a
# call that never returned.
ENDED_PREFIX = "ended-in-call-"


def take_inflight(raw):
    """Turns each in-flight file the fuzz targets left in raw/ into an input
    (ended-in-call-PID.in), replayed and judged like any other; one with
    length 0 goes. Only once no fuzzer runs. Returns the inputs made and
    the pids of the length-0 files: processes that ended outside a call
    without the normal exit that removes the file."""
    made, quiet = [], []
    for name in sorted(os.listdir(raw)):
        path = os.path.join(raw, name)
        if not name.startswith(INFLIGHT_PREFIX) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read(8 + INPUT_MAX + 1)
        n = int.from_bytes(data[:8], "little") if len(data) >= 8 else 0
        if len(data) >= 8 and n > 0:
            if n > INPUT_MAX or len(data) < 8 + n:
                raise CouldNotJudge(f"{path} is not an in-flight file: length {n}, {len(data)} bytes")
            dst = os.path.join(raw, ENDED_PREFIX + name[len(INFLIGHT_PREFIX):] + ".in")
            write_bytes(dst, data[8 : 8 + n])
            st = os.stat(path)
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))  # when it was seen, not now
            made.append(dst)
        else:
            pid = name[len(INFLIGHT_PREFIX):]
            if pid.isdigit():
                quiet.append(int(pid))
        # A file shorter than its length field was being created when its
        # process ended: before any call.
        os.unlink(path)
    return made, quiet


# Where a fuzz target that could not judge an input says so: an `error`
# record in DIR/error-PID.json.
ERROR_PREFIX = "error-"


def take_errors(raw, seen):
    """The reasons of the error records fuzz targets left in raw/ (each then
    moved to `seen`, so that one is reported once)."""
    reasons = []
    for name in sorted(os.listdir(raw)):
        path = os.path.join(raw, name)
        if not (name.startswith(ERROR_PREFIX) and name.endswith(".json")):
            continue
        try:
            with open(path, "rb") as f:
                recs = parse_lines(f.read().decode("utf-8", "replace"), path)
            found = [r.get("reason") or "the harness could not judge an input" for r in of_kind(recs, "error")]
        except (OSError, CouldNotJudge) as e:
            found = [f"{path}: {e}"]
        reasons.extend(found or [f"{path}: no error record in it"])
        os.makedirs(seen, exist_ok=True)
        os.replace(path, os.path.join(seen, name))
    return reasons


def saved_inputs(raw):
    """Every file under raw/ that is an input: not a record or report."""
    found = []
    for top, dirs, files in os.walk(raw):
        dirs.sort()
        for name in sorted(files):
            if name.startswith((".", INFLIGHT_PREFIX)) or name.endswith((".txt", ".json", ".tmp")):
                continue
            found.append(os.path.join(top, name))
    return found


def gather(raw, earlier, session_start):
    """The distinct contents under raw/, each with its record (if the target
    wrote one) and when it was saved."""
    by_digest = {}
    for path in saved_inputs(raw):
        try:
            st = os.lstat(path)
        except OSError as e:
            raise CouldNotJudge(f"cannot read {path}: {e.strerror}") from None
        if not os.path.isfile(path) or os.path.islink(path):
            raise CouldNotJudge(f"{path} is not a regular file: not a saved input")
        if st.st_size > INPUT_MAX:
            raise CouldNotJudge(f"{path} is not a memgate fuzz input: over {INPUT_MAX} bytes")
        try:
            digest = sha1(path)
        except OSError as e:
            raise CouldNotJudge(f"cannot read {path}: {e.strerror}") from None
        s = by_digest.setdefault(digest, Saved(digest))
        s.paths.append(path)
        s.size = st.st_size
        if s.record is None:
            s.record = read_target_record(path)
        name = os.path.basename(path)
        if name.startswith("seed-"):
            s.seed = True
        elif path in earlier:
            s.earlier = True
        else:
            at = st.st_mtime - session_start
            if at >= 0 and (s.saved_at is None or at < s.saved_at):
                s.saved_at = at
    return list(by_digest.values())


class Finding:
    """One unique finding of a target: the record, and what the summary
    says about where it came from."""

    def __init__(self, record, kept, note, extra_lines=()):
        self.record = record
        self.kept = kept  # the raw input it was found as
        self.note = note
        self.extra_lines = list(extra_lines)


def group_by_signature(contents):
    groups = {}
    for s in contents:
        if s.signature:
            groups.setdefault(s.signature, []).append(s)
    for g in groups.values():
        g.sort(key=lambda s: (s.size, s.main_path()))
    return groups


def judge(contents, replayer, deadline):
    """Replays what is needed to know each content's verdict: every content
    the target kept no record of, and the smallest of each signature; if
    that one does not confirm its signature, every other of its group."""
    first = [s for s in contents if s.record is None]
    for group in group_by_signature([s for s in contents if s.record]).values():
        first.append(group[0])
    apply_verdicts(first, replayer.run([s.main_path() for s in first], deadline))
    unconfirmed = set()
    for s in first:
        if s.record and s.verdict.signature != s.record["signature"]:
            unconfirmed.add(s.record["signature"])
    rest = [s for s in contents if s.verdict is None and s.record and s.record["signature"] in unconfirmed]
    apply_verdicts(rest, replayer.run([s.main_path() for s in rest], deadline))


def apply_verdicts(contents, verdicts):
    for s in contents:
        s.verdict = verdicts[s.main_path()]


class Analysis:
    """The findings of one target after a session."""

    def __init__(self, ctx, engine, target, target_dir, raw, work):
        self.ctx = ctx
        self.engine = engine
        self.target = target
        self.dir = target_dir
        self.raw = raw
        self.work = work
        self.replayer = Replayer(ctx, target, work)
        self.findings = []
        self.errors = []  # reasons it could not judge something it saw

    def run(self, earlier, session_start, deadline, stopped_pids):
        """`stopped_pids`: the fuzz target processes that still ran when we
        stopped the fuzzers (at the deadline): a call of theirs that never
        returned is one we ended."""
        _, quiet = take_inflight(self.raw)
        for why in take_errors(self.raw, os.path.join(self.work, "errors-seen")):
            self.errors.append(f"fuzz_{self.target} could not judge an input: {why}")
        contents = gather(self.raw, earlier, session_start)
        self.check_quiet_deaths(quiet, stopped_pids, contents)
        if not contents:
            return self.findings
        judge(contents, self.replayer, deadline)
        reproduced = [s for s in contents if s.verdict is None or s.verdict.failed]
        not_reproduced = [s for s in contents if s.verdict is not None and not s.verdict.failed]
        groups = group_by_signature(reproduced)
        for sig in sorted(groups):
            self.findings.append(self.confirmed(sig, groups[sig], deadline))
        killed = [s for s in not_reproduced if s.afl_killed()]
        if killed:
            self.errors.append(
                f"afl-fuzz saw {len(killed)} run(s) of fuzz_{self.target} killed by SIGKILL from outside "
                f"(out of memory?), which says nothing about the routine: {killed[0].main_path()}"
            )
        ended = [s for s in not_reproduced if s.ended_in_call() and s not in killed]
        # Ended by us: at this session's deadline, or by the interruption
        # that ended an earlier session. Nothing to say about the routine.
        ours = [s for s in ended if s.earlier or s.owners() <= set(stopped_pids)]
        self.set_aside(ours)
        ended = [s for s in ended if s not in ours]
        if ended:
            self.errors.append(
                f"{len(ended)} fuzz_{self.target} process(es) ended during a call whose input passes "
                f"build/replay (killed from outside, or a routine that ends the process only "
                f"sometimes): {ended[0].main_path()}"
            )
        flaky = [s for s in not_reproduced if s not in killed and s not in ended and s not in ours]
        self.findings.extend(self.flaky(flaky, deadline))
        self.final_replay(deadline)
        self.remove_duplicates(groups)
        return self.findings

    def check_quiet_deaths(self, quiet, stopped_pids, contents):
        """A libFuzzer job whose in-flight file is left, empty, ended between
        calls without its normal exit. Unless we stopped it, or libFuzzer
        saved a crash of its own (a sanitizer or out-of-memory report, with
        no record of the harness's), it was killed from outside: nothing was
        judged in what it would have run. (AFL++ always kills its fork
        server so: not for AFL++.)"""
        if self.engine.name != "libfuzzer":
            return
        dead = sorted(p for p in quiet if p not in stopped_pids)
        explained = any(s.record is None and not s.seed and not s.earlier and not s.ended_in_call()
                        for s in contents)
        if dead and not explained:
            self.errors.append(
                f"{len(dead)} fuzz_{self.target} process(es) ended between calls with no finding and no "
                f"crash report (killed from outside?): pid {dead[0]}"
            )

    def set_aside(self, contents):
        """Inputs of calls our own SIGTERM/SIGKILL ended: out of raw/ (into
        work/ended-by-stop/), so no later session reads them as findings."""
        if not contents:
            return
        dst = os.path.join(self.work, "ended-by-stop")
        os.makedirs(dst, exist_ok=True)
        for s in contents:
            for p in s.paths:
                os.replace(p, os.path.join(dst, os.path.basename(p)))

    # ------------------------------------------------------------ confirmed

    def confirmed(self, sig, group, deadline):
        replayed = [s for s in group if s.verdict is not None]
        best = min(replayed, key=lambda s: (s.size, s.main_path()))
        kept = best.main_path()
        final = os.path.join(self.dir, slug(sig) + ".in")
        data = self.minimise(kept, sig, deadline)
        write_bytes(final, data)
        count = sum(len(s.paths) for s in group)
        note = f"{len(data)} byte{'' if len(data) == 1 else 's'}"
        if len(data) != best.size:
            note += f", minimized from {best.size}"
        note += f"; {count} saved input(s) had this signature"
        note += self.when(group)
        record = dict(best.verdict.finding)
        return Finding(record, kept, note)

    def when(self, group):
        if any(s.earlier for s in group):
            return ", the first in an earlier session of this run"
        times = [s.saved_at for s in group if s.saved_at is not None]
        if times:
            return f", the first {min(times):.1f} s into the run"
        return f", seeds of corpus/{self.target}"

    def minimise(self, path, sig, deadline):
        """The shortest input with the same signature: first the shortest
        tail of it (the decoder reads fields from the end and ignores all
        but the last 29 bytes), all tails replayed in one go; then the
        engine's own minimiser, from there, while time is left. The engines
        only keep an input crashing: their result counts only if it keeps
        the signature too."""
        with open(path, "rb") as f:
            best = f.read()
        trim = os.path.join(self.work, "trim")
        shutil.rmtree(trim, ignore_errors=True)
        os.makedirs(trim)
        tails = []
        for k in range(0, min(len(best), 30)):
            p = os.path.join(trim, f"tail-{k}")
            write_bytes(p, best[len(best) - k :] if k else b"")
            tails.append(p)
        if tails and self.time_left(deadline) > 0:
            verdicts = self.replayer.run(tails, deadline, "the minimised inputs")
            for k, p in enumerate(tails):
                if verdicts[p].signature == sig:
                    best = best[len(best) - k :] if k else b""
                    break
        shutil.rmtree(trim, ignore_errors=True)
        if len(best) > 1:
            best = self.engine_minimise(best, sig, deadline)
        return best

    def time_left(self, deadline):
        left = deadline.remaining()
        return float("inf") if left is None else left - FINAL_REPLAY_RESERVE

    def engine_minimise(self, data, sig, deadline):
        left = self.time_left(deadline)
        if left < 2:
            return data
        src = os.path.join(self.work, "tmin-in")
        dst = os.path.join(self.work, "tmin-out")
        write_bytes(src, data)
        if os.path.exists(dst):
            os.unlink(dst)
        env = self.ctx.env()
        env["TMPDIR"] = os.path.join(self.work, "tmp")
        os.makedirs(env["TMPDIR"], exist_ok=True)
        log = os.path.join(self.work, "minimize.log")
        with open(log, "ab") as f:
            procs.run(self.engine.minimise_argv(src, dst), stdout=f, stderr=f, env=env,
                      timeout=min(left - 1, MINIMISE_SECONDS))
        try:
            if os.path.getsize(dst) < len(data):
                v = self.replayer.run([dst], deadline, "the minimised inputs")
                if v[dst].signature == sig:
                    with open(dst, "rb") as f:
                        data = f.read()
        except OSError:
            pass
        for p in (src, dst):
            if os.path.exists(p):
                os.unlink(p)
        return data

    # ---------------------------------------------------------------- flaky

    def flaky(self, contents, deadline):
        """Crashes the fuzzer saw that build/replay passes: a sanitizer
        report on the harness itself, a fuzzer-level timeout or
        out-of-memory, or a routine whose failure depends on what ran
        before it. They stay in raw/, all of them: one finding per
        variant."""
        by_variant = {}
        for s in contents:
            variant = (s.record or {}).get("variant") or self.ctx.variant or "-"
            by_variant.setdefault(variant, []).append(s)
        findings = []
        for variant in sorted(by_variant):
            group = sorted(by_variant[variant], key=lambda s: (s.size, s.main_path()))
            findings.append(self.flaky_finding(variant, group, deadline))
        return findings

    def flaky_finding(self, variant, group, deadline):
        best = group[0]
        raw_path = best.main_path()
        sig = f"{variant} flaky fuzz_{self.target} under {self.engine.name}"
        final = os.path.join(self.dir, slug(sig) + ".in")
        with open(raw_path, "rb") as f:
            write_bytes(final, f.read())
        fuzzer_argv = self.ctx.with_variant_env(self.engine.rerun_argv(raw_path))
        said = self.fuzzer_says(raw_path, deadline)
        seen = (best.record or {}).get("detail")
        detail = f"crashed under {self.engine.name} but passes build/replay"
        if seen:
            detail += f" (the fuzz target saw: {(best.record or {}).get('class')}: {seen})"
        elif said:
            detail += f" (the fuzzer said: {said})"
        target_record = best.record or {}
        record = {
            "record": "finding",
            "variant": variant,
            "op": target_record.get("op"),
            "arch": target_record.get("arch") or platform.machine(),
            "class": "flaky",
            "level": "error",
            "detail": detail,
            "signature": sig,
            "site": "-",
            "buffer": None,
            "side": None,
            "distance": None,
            "offset": None,
            "access": None,
            "rule": None,
            "old": None,
            "new": None,
            "signal": target_record.get("signal"),
            "pc": target_record.get("pc"),
            "address": target_record.get("address"),
            "index": None,
            "got": None,
            "want": None,
            "case": target_record.get("case"),
            "stage": "fuzz",
            "replay": self.replayer.argv([final])[:1] + self.ctx.replay_flags(self.target) + [final],
            "fuzzer": fuzzer_argv,
            "seen_as": target_record.get("class"),
        }
        count = sum(len(s.paths) for s in group)
        note = f"{count} such input(s) in {self.ctx.show(self.raw)}, found as {self.ctx.show(raw_path)}"
        return Finding(record, raw_path, note, [("rerun", shlex.join(fuzzer_argv))])

    def fuzzer_says(self, path, deadline):
        """The first line the fuzz target prints about the input, run as the
        fuzzer ran it (for people: the verdict is that it did not replay)."""
        left = self.time_left(deadline)
        if left < 2:
            return None
        out = os.path.join(self.work, "rerun.log")
        env = self.ctx.env()
        env["TMPDIR"] = os.path.join(self.work, "tmp")
        os.makedirs(env["TMPDIR"], exist_ok=True)
        with open(out, "wb") as f:
            procs.run(self.engine.rerun_argv(path), stdout=f, stderr=f, env=env, timeout=min(left - 1, 10))
        try:
            with open(out, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if re.search(r"ERROR: |SUMMARY: |runtime error|memgate: FINDING", line):
                        return re.sub(r"^==\d+== ?", "", line.strip())
        except OSError:
            pass
        return None

    # --------------------------------------------------------- final replay

    def final_replay(self, deadline):
        """Each kept input replayed once more: the record of the finding is
        build/replay's record of the file the summary names."""
        finals = {}
        for f in self.findings:
            if f.record["class"] != "flaky":
                finals[os.path.join(self.dir, slug(f.record["signature"]) + ".in")] = f
        verdicts = self.replayer.run(list(finals), deadline, "the minimised inputs")
        for path, f in finals.items():
            v = verdicts[path]
            if v.signature != f.record["signature"]:
                raise CouldNotJudge(f"{path} does not replay its finding ({f.record['signature']})")
            f.record = dict(v.finding)
            f.record["input"] = path
        for f in self.findings:
            if f.record["class"] == "flaky":
                f.record["input"] = os.path.join(self.dir, slug(f.record["signature"]) + ".in")

    def remove_duplicates(self, groups):
        """Every other input of this session with a signature already kept
        goes, with the target's record and report beside it. What an earlier
        session of the run kept stays: saved is saved."""
        for group in groups.values():
            keep = None
            for s in group:
                if s.verdict is not None and (keep is None or (s.size, s.main_path()) < keep):
                    keep = (s.size, s.main_path())
            for s in group:
                if s.earlier:
                    continue
                for p in s.paths:
                    if keep and p == keep[1]:
                        continue
                    for q in (p, record_path(p), text_path(p)):
                        if os.path.exists(q):
                            os.unlink(q)
        for top, dirs, files in os.walk(self.raw, topdown=False):
            if top != self.raw and not os.listdir(top):
                os.rmdir(top)


def write_bytes(path, data):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
