"""The CPU features the ISA audit knows: what each arch has without asking
(its baseline), which Capstone 4.0.2 instruction group means which feature,
the instructions that need a feature but have no group in Capstone 4, what
declaring one feature covers, and how a tool (this CPU, valgrind, a qemu
model) is known to lack one. docs/isa-audit.md explains every rule."""

# Every feature name the audit can produce, per arch. --requires knows all
# of them (gate_options.FEATURES).
X86 = ("sse", "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "sse4a", "avx", "avx2", "fma", "fma4", "f16c",
       "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512er", "avx512pf",
       "bmi1", "bmi2", "lzcnt", "popcnt", "movbe", "adx", "aes", "pclmul", "sha", "rtm", "xop", "tbm",
       "3dnow", "mmx", "cmov", "fsgsbase", "clflushopt", "clwb", "rdrand", "rdseed")
AARCH64 = ("crc32", "crypto", "sve", "sve2", "mops")
# riscv64's extensions a copy routine may use beyond RV64GC, each a bit of
# the harness (enum mg_feature); riscv_decode's opcode map finds them (the
# extensions it names beyond these, it cannot judge).
RISCV64 = ("v", "zba", "zbb", "zbs")
# armhf's beyond Debian's baseline (ARMv7-A, VFPv3-D16), each a bit of the
# harness: Advanced SIMD, and the 32 double registers d16-d31.
ARMHF = ("neon", "vfpd32")
ALL = X86 + AARCH64 + RISCV64 + ARMHF
# Features no instruction needs: facts a routine's speed or its block size
# may rely on. They are never audited, never minimal, always allowed.
# SPEED_ONLY say how fast rep movsb/stosb is, which every x86 CPU runs: a
# routine declaring them runs on every CPU, never skipped for them (the
# harness's MG_FEAT_SPEED_ONLY). The ZVA block sizes are no such thing:
# code assuming one clears the wrong bytes on a CPU with another.
SPEED_ONLY = ("erms", "fsrm", "fsrs")
FACTS = SPEED_ONLY + ("zva64", "zva256", "zva512")

# What every CPU of the arch has (the psABI's baseline): x86-64 is SSE2
# (with x87, MMX and CMOV); i386 is Debian's i686 (x87, CMOV, the long
# NOPs), without MMX or SSE; aarch64 is ARMv8.0 with FP and Advanced SIMD.
BASELINE = {"x86_64": ("x87", "mmx", "cmov", "sse", "sse2"), "i386": ("x87", "cmov"), "aarch64": ("fp", "asimd")}

# Capstone 4.0.2's instruction groups (cs_group_name) and the feature each
# means. GROUP_NONE: groups that say nothing about the ISA (control flow,
# mode, privilege) or that are a predicate of the decoder: "novlx" marks
# a VEX form chosen when AVX512VL is absent, no requirement at all.
X86_GROUPS = {"sse1": "sse", "sse2": "sse2", "sse3": "sse3", "ssse3": "ssse3", "sse41": "sse4_1",
              "sse42": "sse4_2", "sse4a": "sse4a", "avx": "avx", "avx2": "avx2", "fma": "fma", "fma4": "fma4",
              "f16c": "f16c", "avx512": "avx512f", "bwi": "avx512bw", "dqi": "avx512dq", "vlx": "avx512vl",
              "cdi": "avx512cd", "eri": "avx512er", "pfi": "avx512pf", "bmi": "bmi1", "bmi2": "bmi2",
              "adx": "adx", "aes": "aes", "pclmul": "pclmul", "sha": "sha", "rtm": "rtm", "xop": "xop",
              "tbm": "tbm", "3dnow": "3dnow", "mmx": "mmx", "cmov": "cmov", "fsgsbase": "fsgsbase",
              "fpu": "x87"}
X86_GROUP_NONE = ("jump", "call", "ret", "return", "int", "iret", "privilege", "branch_relative", "mode32", "mode64",
                  "not64bitmode", "16bitmode", "novlx", "smap", "vm", "hle")
AARCH64_GROUPS = {"crc": "crc32", "crypto": "crypto", "neon": "asimd", "fparmv8": "fp"}
AARCH64_GROUP_NONE = ("jump", "call", "ret", "return", "int", "privilege", "branch_relative")
# armhf: Capstone's ARM groups (ARM and Thumb modes). NEON is its own
# group; d16-d31 are no group, so the audit reads the operands
# (isa_audit.arm_high_d). The architecture versions up to v7, VFPv2/v3
# (double precision included) and the rest below are the baseline; a
# group not named here (vfp4, fparmv8, v8, crc, crypto, divide, mclass,
# trustzone, virtualization) is a limit of the audit, never a pass.
ARMHF_GROUPS = {"neon": "neon"}
# The integer divide instructions, an ARMv7-A option (HWCAP IDIVA): Thumb's
# carry Capstone's group "divide", ARM state's none, so they are named.
ARMHF_DIVIDE = ("udiv", "sdiv")
ARMHF_GROUP_NONE = ("jump", "call", "ret", "return", "int", "privilege", "branch_relative", "arm", "thumb",
                    "thumb2", "thumb1only", "v4t", "v5t", "v5te", "v6", "v6t2", "v7", "vfp2", "vfp3", "dpvfp",
                    "notmclass", "v6m", "prev8", "multpro", "mulops", "t2extractpack", "thumb2dsp", "databarrier",
                    "fpvmlx")

# Instructions Capstone 4 decodes with no group although they need a
# feature (on a CPU without it, lzcnt runs as bsr and popcnt faults).
# `rep movsb`, `cpuid`, `xgetbv`, `prefetchw`, the NOPs and `endbr64` run
# on every CPU of the arch and stay out (xgetbv is how code asks the OS).
X86_MNEMONICS = {"lzcnt": "lzcnt", "popcnt": "popcnt", "movbe": "movbe", "xtest": "rtm",
                 "clflushopt": "clflushopt", "clwb": "clwb", "rdrand": "rdrand", "rdseed": "rdseed"}

# Declaring a feature covers those that, by Intel's and AMD's rules, must
# be checked before it is used: AVX2, FMA and F16C code is also AVX code;
# AVX512F is usable only where AVX is (its XCR0 test includes the YMM
# state, and glibc's cpu_features sets it only inside its AVX test); every
# AVX-512 subset needs AVX512F; SVE2 is SVE; ARMv7's Advanced SIMD comes
# with the 32 double registers (VFPv3-D32) it shares.
# Each SSE generation is also every earlier one (no CPU has one without
# them, and glibc's i386 selectors take SSSE3 for SSE2 and SSE).
IMPLIES = {"sse2": ("sse",), "sse3": ("sse2",), "ssse3": ("sse3",), "sse4_1": ("ssse3",), "sse4_2": ("sse4_1",),
           "avx2": ("avx",), "fma": ("avx",), "f16c": ("avx",), "avx512f": ("avx",),
           "avx512bw": ("avx512f",), "avx512dq": ("avx512f",), "avx512vl": ("avx512f",),
           "avx512cd": ("avx512f",), "avx512er": ("avx512f",), "avx512pf": ("avx512f",), "sve2": ("sve",),
           "neon": ("vfpd32",)}

# /proc/cpuinfo's names, where they differ (x86 "flags"; aarch64 "Features").
CPUINFO = {"sse3": ("pni",), "pclmul": ("pclmulqdq",), "sha": ("sha_ni",), "lzcnt": ("abm",),
           "bmi1": ("bmi1",), "crypto": ("aes", "pmull", "sha1", "sha2"), "x87": ("fpu",)}

# valgrind 3.19's VEX has no AVX-512 at all: such code dies of SIGILL
# under it (TOOLCHAIN.md).
VALGRIND_CANNOT_RUN = ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512er", "avx512pf")


def known(arch):
    return {"x86_64": X86, "i386": X86, "aarch64": AARCH64, "riscv64": RISCV64, "armhf": ARMHF}.get(arch, ())


def implied(feature):
    """What declaring `feature` covers besides it (IMPLIES, transitively)."""
    out, todo = set(), list(IMPLIES.get(feature, ()))
    while todo:
        f = todo.pop()
        if f not in out:
            out.add(f)
            todo += IMPLIES.get(f, ())
    return out


def covered(feature, declared, arch):
    """Whether the arch's baseline or the declared features cover it."""
    if feature in BASELINE.get(arch, ()) or feature in declared:
        return True
    return any(feature in implied(d) for d in declared)


def minimal(needed, arch):
    """The smallest --requires list covering `needed`: less the baseline,
    less what another needed feature implies; in the vocabulary's order."""
    out = [f for f in needed if f not in BASELINE.get(arch, ())]
    out = [f for f in out if not any(f in implied(g) for g in out if g != f)]
    order = ALL
    return sorted(set(out), key=lambda f: order.index(f) if f in order else len(order))


def cpuinfo_names(feature):
    return CPUINFO.get(feature, (feature,))


def host_lacks(features, cpuinfo_text):
    """The features /proc/cpuinfo's text does not list (x86 'flags',
    aarch64 'Features')."""
    words = set()
    for line in cpuinfo_text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            words |= set(value.split())
    return [f for f in features if not all(n in words for n in cpuinfo_names(f))]
