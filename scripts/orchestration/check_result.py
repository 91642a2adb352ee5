"""A check's result: its row in the gate's table, reports and cached
verdicts (its status, cases, seconds and note, and which run it was).

A module of its own, below every module that judges: the isa audit
(gate_isa), the checks' units (below_sp, uaccess, misaligned), the
build's row (gate_build) and the checks that run programs (checks) all
make rows, and none of them needs another to do it."""


class Check:
    def __init__(self, name, status, cases=0, seconds=0.0, note=""):
        self.name, self.status, self.cases, self.seconds, self.note = name, status, cases, seconds, note
        self.run = ""  # which run of the gate: a CPU model, --extern values

    def as_dict(self):
        d = {"name": self.name, "status": self.status, "cases": int(self.cases),
             "seconds": round(float(self.seconds), 1), "note": self.note}
        if self.run:
            d["run"] = self.run
        return d

    @classmethod
    def from_dict(cls, d):
        """A check of a report (a cached verdict's)."""
        c = cls(d["name"], d["status"], d.get("cases") or 0, d.get("seconds") or 0.0, d.get("note") or "")
        c.run = d.get("run") or ""
        return c


def na(name, reason):
    return Check(name, "n/a", note=reason)


def cannot(name, reason, seconds=0.0):
    return Check(name, "error", seconds=seconds, note=reason)
