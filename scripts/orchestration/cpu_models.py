"""The qemu-user CPU models aarch64 code runs under, and the CPU facts each
gives a program. qemu 7.2's models, measured with a program that reads
DCZID_EL0, CTR_EL0 and the HWCAPs (docs/placements.md, "CPU models"):

    model        DC ZVA block  D-cache line  SVE  MOPS
    max          512 bytes     32 bytes      yes  no   (qemu's default)
    cortex-a57    64 bytes     64 bytes      no   no   (like most real cores)
    a64fx        256 bytes    256 bytes      yes  no

(cortex-a53, -a72, -a76 and neoverse-n1 read like cortex-a57.) qemu-user
cannot prohibit DC ZVA (DCZID_EL0.DZP), and no model of qemu 7.2 has MOPS.
The Makefile's CPU_MODELS lists the same names, for make verify."""

# model -> the facts a routine may --require that it has
MODELS = (("max", ("zva512", "sve", "sve2")), ("cortex-a57", ("zva64",)), ("a64fx", ("zva256", "sve")))
FACTS = ("zva64", "zva256", "zva512", "sve", "sve2", "mops")
WORDS = {"zva64": "a 64-byte ZVA block", "zva256": "a 256-byte ZVA block", "zva512": "a 512-byte ZVA block",
         "sve": "sve", "sve2": "sve2", "mops": "mops"}


def facts_of(requires):
    return [f for f in requires if f in FACTS]


def models_for(requires):
    """The models that have every fact in `requires`, qemu's default first."""
    wanted = set(facts_of(requires))
    return [name for name, facts in MODELS if wanted <= set(facts)]


def none_has(requires):
    """Why no model can run a routine that requires these facts:
    'needs sve,zva64: no qemu model here has both sve and a 64-byte ZVA block'."""
    facts = facts_of(requires)
    words = [WORDS[f] for f in sorted(facts, key=lambda f: (f not in ("sve", "mops"), f))]
    if len(words) == 1:
        have = words[0]
    elif len(words) == 2:
        have = f"both {words[0]} and {words[1]}"
    else:
        have = f"all of {', '.join(words[:-1])} and {words[-1]}"
    return f"needs {','.join(facts)}: no qemu model here has {have}"
