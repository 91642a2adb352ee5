"""The qemu-user CPU models code of another arch runs under, and the CPU
facts each gives a program.

aarch64: qemu 7.2's models, measured with a program that reads DCZID_EL0,
CTR_EL0 and the HWCAPs (docs/placements.md, "CPU models"):

    model        DC ZVA block  D-cache line  SVE  MOPS
    max          512 bytes     32 bytes      yes  no   (qemu's default)
    cortex-a57    64 bytes     64 bytes      no   no   (like most real cores)
    a64fx        256 bytes    256 bytes      yes  no

(cortex-a53, -a72, -a76 and neoverse-n1 read like cortex-a57.) qemu-user
cannot prohibit DC ZVA (DCZID_EL0.DZP), and no model of qemu 7.2 has MOPS.

riscv64 (docs/arches.md, "riscv64"): qemu's rv64 with V at VLEN 128, 256,
512 and 1024 bits, and RV64GC alone (no V, and none of Zba, Zbb, Zbs,
which qemu's rv64 has by default). VLEN is fixed for a process, so each
VLEN is a model; they differ only for code that uses V, so the wider ones
run only a routine that requires v. RV64GC runs every routine that
requires none of the four: one that uses V or B without declaring it dies
there of SIGILL, a finding.

armhf (docs/arches.md, "armhf"): a Cortex-A15 (NEON, VFPv4, d0-d31,
the divide instructions; qemu's cortex-a7 and max read the same to user
code) and Debian's baseline, VFPv3-D16 without NEON, as a Cortex-A9 with
both off (Debian 12's qemu 7.2 has no vfp-d32 option, the backport's
10.0 has: scripts/arch-probe --cpu finds the qemu that has it). The baseline runs every routine that
requires neither neon nor vfpd32; one that uses them undeclared dies
there of SIGILL, a finding. (make verify also runs a Cortex-A9 with NEON,
for the tree's variants: no VFPv4 and no divide, which a routine cannot
--require, so the ISA audit cannot judge the code that uses them.)

The Makefile's CPU_MODELS lists the same names, for make verify."""

RVV = "rv64,v=true,vlen={},vext_spec=v1.0"
RV64GC = "rv64,v=false,zba=false,zbb=false,zbc=false,zbs=false"
RV_ALL = ("v", "zba", "zbb", "zbs")
ARMHF_D16 = "cortex-a9,neon=off,vfp-d32=off"

# arch -> ((model, the facts a routine may --require that it has, the fact
# a routine must require for this model to run it, or "")...), the first
# the primary model (it runs every check).
MODELS = {
    "aarch64": (("max", ("zva512", "sve", "sve2"), ""), ("cortex-a57", ("zva64",), ""),
                ("a64fx", ("zva256", "sve"), "")),
    "riscv64": ((RVV.format(128), RV_ALL, ""), (RV64GC, (), ""), (RVV.format(256), RV_ALL, "v"),
                (RVV.format(512), RV_ALL, "v"), (RVV.format(1024), RV_ALL, "v")),
    "armhf": (("cortex-a15", ("neon", "vfpd32"), ""), (ARMHF_D16, (), "")),
}
FACTS = {"aarch64": ("zva64", "zva256", "zva512", "sve", "sve2", "mops"), "riscv64": RV_ALL,
         "armhf": ("neon", "vfpd32")}
WORDS = {"zva64": "a 64-byte ZVA block", "zva256": "a 256-byte ZVA block", "zva512": "a 512-byte ZVA block"}
# Listed first when none_has names what no model has.
EXTENSIONS = ("sve", "mops", "v", "neon")


def arch_of_fact(fact):
    """The arch whose CPU fact `fact` is, or None."""
    for arch, facts in FACTS.items():
        if fact in facts:
            return arch
    return None


def facts_of(requires, arch="aarch64"):
    return [f for f in requires if f in FACTS.get(arch, ())]


def foreign_facts(requires, arch):
    """The facts in `requires` that are another arch's, not `arch`'s."""
    return [f for f in requires if arch_of_fact(f) not in (None, arch)]


def model_facts(model, arch="aarch64"):
    """The facts of `model` ("" is qemu's default, the first), or None for
    a model this table does not know."""
    for name, facts, _ in MODELS.get(arch, ()):
        if name == (model or MODELS[arch][0][0]):
            return facts
    return None


def models_for(requires, arch="aarch64"):
    """The models that have every fact in `requires`, qemu's default first
    (and, on riscv64, the wider VLENs only when it requires v)."""
    wanted = set(facts_of(requires, arch))
    return [name for name, facts, only_for in MODELS.get(arch, ())
            if wanted <= set(facts) and (not only_for or only_for in wanted)]


def none_has(requires, arch="aarch64"):
    """Why no model can run a routine that requires these facts:
    'needs sve,zva64: no qemu model here has both sve and a 64-byte ZVA block'."""
    facts = facts_of(requires, arch)
    words = [WORDS.get(f, f) for f in sorted(facts, key=lambda f: (f not in EXTENSIONS, f))]
    if len(words) == 1:
        have = words[0]
    elif len(words) == 2:
        have = f"both {words[0]} and {words[1]}"
    else:
        have = f"all of {', '.join(words[:-1])} and {words[-1]}"
    return f"needs {','.join(facts)}: no qemu model here has {have}"
