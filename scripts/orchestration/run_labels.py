"""What a run of the checks is called: its CPU model and its --extern
values (a glibc value set by its producers). The label names the run in
the progress lines, the table's rows and findings, its results folder
(gate_runs) and the values the table shows for it (gate_tunables)."""


def label_of(model, externs, runs):
    parts = []
    if model:
        parts.append(f"cpu {model}")
    if getattr(externs, "label", None):  # a value set of the glibc model: its producers
        parts.append(externs.label)
    elif len({tuple(e) for _, e in runs}) > 1:
        parts += [f"{name}={value:#x}" if abs(value) >= 4096 else f"{name}={value}" for name, value in externs]
    return ", ".join(parts)
