"""The ISA audit: every byte of a submission's code disassembled with
Capstone (Debian's python3-capstone, 4.0.2), each instruction mapped to the
CPU features it needs (isa_features), and each feature that neither
--requires nor the arch's baseline covers reported as `undeclared-feature`.
riscv64, which Capstone 4.0.2 cannot decode, is read by riscv_decode's
opcode map instead.

Where Capstone 4.0.2 cannot decode bytes, three documented rules take over
(docs/isa-audit.md): an EVEX instruction (x86) is AVX-512 and its length is
read from its prefix, ModRM and map; a VEX opmask instruction (x86) is
AVX-512 by its W and pp bits; an aarch64 word in the SVE encoding space is
SVE, one of the MOPS class is MOPS. Anything else Capstone cannot decode
is a limit of the audit: the check could not be judged, never a pass and
never a finding against the routine."""

import os
import sys

from . import elf_code, isa_features as F, riscv_decode

DEBIAN_DIST = "/usr/lib/python3/dist-packages"


class CannotAudit(Exception):
    """The audit cannot run at all (Capstone missing, an unreadable object)."""


def import_capstone():
    """import capstone, past setuptools' distutils shim where the standard
    library has distutils (Python 3.11 and older): Capstone 4 imports
    distutils.sysconfig, which the shim (put in place at start-up by
    setuptools' .pth file) serves by importing setuptools, 0.2 to 0.3 s of
    each gate's CPU against a few ms. Elsewhere, through the shim."""
    shims = [f for f in sys.meta_path if type(f).__module__ == "_distutils_hack"]
    if shims and "distutils" not in sys.modules:
        kept = list(sys.meta_path)
        sys.meta_path[:] = [f for f in kept if f not in shims]
        try:
            import capstone as cs
            return cs
        except ImportError:
            pass
        finally:
            sys.meta_path[:] = kept + [f for f in sys.meta_path if f not in kept]
    import capstone as cs
    return cs


def capstone():
    """The capstone module: the interpreter's own, else Debian's
    python3-capstone (pure Python over libcapstone4, so any Python 3 reads
    it: a pyenv interpreter does not see Debian's dist-packages)."""
    try:
        return import_capstone()
    except ImportError:
        pass
    if os.path.isdir(os.path.join(DEBIAN_DIST, "capstone")):
        sys.path.append(DEBIAN_DIST)
        try:
            return import_capstone()
        except ImportError:
            pass
    raise CannotAudit("Capstone is not installed (python3-capstone; scripts/install-deps installs it)")


def decoder(arch, mode=None):
    """Capstone's decoder for the arch (armhf: for `mode`, 'arm' or
    'thumb'); None for riscv64 (riscv_decode)."""
    if arch == "riscv64":
        return None
    cs = capstone()
    modes = {"x86_64": (cs.CS_ARCH_X86, cs.CS_MODE_64), "i386": (cs.CS_ARCH_X86, cs.CS_MODE_32),
             "aarch64": (cs.CS_ARCH_ARM64, cs.CS_MODE_ARM),
             "armhf": (cs.CS_ARCH_ARM, cs.CS_MODE_THUMB if mode == "thumb" else cs.CS_MODE_ARM)}
    md = cs.Cs(*modes[arch])
    md.detail = True
    return md


class Use:
    """One instruction that needs a feature."""

    def __init__(self, feature, text, where, how):
        self.feature, self.text, self.where, self.how = feature, text, where, how

    def as_dict(self):
        return {"feature": self.feature, "instruction": self.text, "at": self.where, "how": self.how}


class Result:
    def __init__(self, arch):
        self.arch = arch
        self.uses = {}       # feature -> [Use], in address order
        self.limits = []     # what the audit could not decode: could not judge
        self.by_rule = {}    # rule -> how many instructions it decoded
        self.instructions = 0
        self.code_bytes = 0

    def add(self, feature, text, where, how):
        self.uses.setdefault(feature, []).append(Use(feature, text, where, how))

    def needed(self):
        return [f for f in self.uses if f not in F.BASELINE.get(self.arch, ())]

    def minimal(self):
        return F.minimal(self.needed(), self.arch)

    def undeclared(self, declared):
        """[(feature, [Use])] not covered by `declared` or the baseline,
        less those another of them covers (AVX code in an AVX-512 routine
        is one finding: avx512f)."""
        out = [f for f in self.uses if not F.covered(f, declared, self.arch)]
        out = [f for f in out if not any(f in F.implied(g) for g in out if g != f)]
        return [(f, self.uses[f]) for f in out]


# --- where Capstone 4.0.2 cannot decode: the documented rules -----------------

def modrm_length(buf, i):
    """Bytes of a ModRM with its SIB and displacement (32/64-bit
    addressing), or None when the buffer ends first."""
    if i >= len(buf):
        return None
    m = buf[i]
    mod, rm, n = m >> 6, m & 7, 1
    if mod != 3 and rm == 4:
        if i + 1 >= len(buf):
            return None
        n += 1
        if mod == 0 and buf[i + 1] & 7 == 5:
            n += 4
    if mod == 0 and rm == 5:
        n += 4
    elif mod == 1:
        n += 1
    elif mod == 2:
        n += 4
    return n if i + n <= len(buf) else None


# EVEX map 0F opcodes that take an imm8 (map 0F3A always does).
EVEX_MAP1_IMM8 = (0x70, 0x71, 0x72, 0x73, 0xC2, 0xC4, 0xC5, 0xC6)


def evex_rule(buf, mode64):
    """(length, features) of an EVEX instruction Capstone cannot decode, or
    None. AVX512F always; AVX512VL when the vector length is not 512 bits
    (L'L != 2, and no EVEX.b rounding on a register form). The subset it
    belongs to (bw, dq, vbmi2, ...) is not known: docs/isa-audit.md."""
    if len(buf) < 6 or buf[0] != 0x62 or (not mode64 and buf[1] & 0xC0 != 0xC0):
        return None
    p0, p2 = buf[1], buf[3]
    mmap = p0 & 0x7
    if mmap not in (1, 2, 3):
        return None
    rest = modrm_length(buf, 5)
    if rest is None:
        return None
    imm = 1 if mmap == 3 or (mmap == 1 and buf[4] in EVEX_MAP1_IMM8) else 0
    length = 5 + rest + imm
    if length > len(buf):
        return None
    register_form = buf[5] >> 6 == 3
    rounding = register_form and p2 & 0x10
    features = ["avx512f"] + (["avx512vl"] if (p2 >> 5) & 3 != 2 and not rounding else [])
    return length, features


# VEX-encoded opmask instructions (kmov, kand, kor, kxor, knot, kadd,
# kunpck, kortest, ktest): map 0F opcodes.
KMASK_OPCODES = (0x41, 0x42, 0x44, 0x45, 0x46, 0x47, 0x4A, 0x4B, 0x90, 0x91, 0x92, 0x93, 0x98, 0x99)
# (opcode, pp, W) whose subset the W/pp rule below does not give.
KMASK_EXCEPTIONS = {(0x4B, 0, 0): "avx512bw", (0x4B, 1, 0): "avx512f", (0x4A, 0, 0): "avx512dq",
                    (0x99, 0, 0): "avx512dq"}


def kmask_rule(buf, mode64):
    """(length, features) of a VEX opmask instruction Capstone cannot
    decode, or None. The subset follows the element width the W and pp bits
    give: W1 or F2 (d and q forms) AVX512BW, 66 with W0 (b forms)
    AVX512DQ, no prefix with W0 (w forms) AVX512F, less KMASK_EXCEPTIONS."""
    if len(buf) < 4 or buf[0] not in (0xC4, 0xC5) or (not mode64 and buf[1] & 0xC0 != 0xC0):
        return None
    if buf[0] == 0xC5:
        w, pp, op, at = 0, buf[1] & 3, buf[2], 3
    else:
        if buf[1] & 0x1F != 1:
            return None
        w, pp, op, at = buf[2] >> 7, buf[2] & 3, buf[3], 4
    if op not in KMASK_OPCODES:
        return None
    rest = modrm_length(buf, at)
    if rest is None:
        return None
    feature = KMASK_EXCEPTIONS.get((op, pp, w))
    if feature is None:
        feature = "avx512bw" if w or pp == 3 else "avx512dq" if pp == 1 else "avx512f"
    return at + rest, [feature]


# aarch64: the top-level SVE encoding space (bits 28:25 = 0010, Arm ARM
# C4.1), and the MOPS class CPYF*/CPY*/SET*/SETG* (bits 31:27 = 00011,
# 25:24 = 01, 21 = 0, 11:10 = 01; Arm ARM C4.1.90).
SVE_MASK, SVE_VALUE = 0x1E000000, 0x04000000
MOPS_MASK, MOPS_VALUE = 0xFB200C00, 0x19000400


def aarch64_rule(word):
    """The feature of an aarch64 word Capstone 4 cannot decode, or None."""
    if word & MOPS_MASK == MOPS_VALUE:
        return "mops"
    if word & SVE_MASK == SVE_VALUE:
        return "sve"
    return None


# --- the walk -----------------------------------------------------------------

# armhf: Capstone's register numbers of d16-d31 and q8-q15 (which are
# d16-d31 in pairs): the names, since the numbers differ between builds.
ARM_HIGH_D = tuple(f"d{n}" for n in range(16, 32)) + tuple(f"q{n}" for n in range(8, 16))


def arm_high_d(insn):
    """Whether an ARM instruction names one of d16-d31 (VFPD32): in its
    operands, register lists included."""
    for op in insn.operands:
        if op.type == 1 and insn.reg_name(op.reg) in ARM_HIGH_D:  # ARM_OP_REG
            return True
    return False


def group_features(insn, arch):
    """The features an instruction Capstone decoded needs: its groups and
    the mnemonic rule (armhf: and the registers it names). Raises KeyError
    naming a group the audit does not know (so it is a limit, never
    silently nothing)."""
    groups, none = {"aarch64": (F.AARCH64_GROUPS, F.AARCH64_GROUP_NONE),
                    "armhf": (F.ARMHF_GROUPS, F.ARMHF_GROUP_NONE)}.get(arch, (F.X86_GROUPS, F.X86_GROUP_NONE))
    out = []
    for g in insn.groups:
        name = insn.group_name(g)
        if name in groups:
            out.append((groups[name], f"group {name}"))
        elif name not in none:
            raise KeyError(name)
    if arch == "armhf" and insn.mnemonic.split(".")[0] in F.ARMHF_DIVIDE:
        raise KeyError("divide")  # Capstone 4 gives ARM state's udiv and sdiv no group
    if arch == "armhf" and arm_high_d(insn):
        out.append(("vfpd32", "d16-d31 rule"))
    if arch in ("x86_64", "i386"):
        base = insn.mnemonic.split()[-1]
        if base in F.X86_MNEMONICS:
            out.append((F.X86_MNEMONICS[base], "mnemonic rule"))
    return out


def audit_range(md, result, data, start, end, at):
    """Decodes data[start:end] (one code range of a section)."""
    arch = result.arch
    if md is None:
        return audit_riscv_range(result, data, start, end, at)
    off = start
    while off < end:
        stopped = off
        for insn in md.disasm(data[off:end], off):
            result.instructions += 1
            text = f"{insn.mnemonic} {insn.op_str}".strip()
            try:
                for feature, how in group_features(insn, arch):
                    result.add(feature, text, at(insn.address), how)
            except KeyError as e:
                result.limits.append(f"{text} at {at(insn.address)}: Capstone group '{e.args[0]}' is not "
                                     "mapped to a feature")
            stopped = insn.address + insn.size
        off = stopped
        if off >= end:
            break
        off = undecodable(result, data, off, end, at)


def undecodable(result, data, off, end, at):
    """Applies the rules at a place Capstone could not decode; returns
    where to go on (end: nowhere, when x86 cannot find the next one)."""
    arch = result.arch
    if arch == "armhf":
        result.limits.append(f"Capstone 4.0.2 cannot decode the bytes at {at(off)} "
                             f"({bytes(data[off:off + 4]).hex(' ')}): the rest of that code was not audited")
        return end
    if arch == "aarch64":
        if end - off < 4:
            result.limits.append(f"{end - off} trailing bytes at {at(off)} are no whole instruction")
            return end
        word = int.from_bytes(data[off:off + 4], "little")
        feature = aarch64_rule(word)
        if feature:
            result.instructions += 1
            result.by_rule[feature] = result.by_rule.get(feature, 0) + 1
            result.add(feature, f".inst {word:#010x}", at(off), f"{feature} encoding rule")
        else:
            result.limits.append(f"Capstone 4.0.2 cannot decode {word:#010x} at {at(off)} (an instruction "
                                 "after ARMv8.0 it does not know, or data without a $d mapping symbol)")
        return off + 4
    window = bytes(data[off:min(end, off + 15)])
    for rule, name in ((evex_rule, "EVEX rule"), (kmask_rule, "VEX opmask rule")):
        got = rule(window, arch == "x86_64")
        if got:
            length, features = got
            result.instructions += 1
            result.by_rule[name] = result.by_rule.get(name, 0) + 1
            text = f"(bytes {window[:length].hex(' ')})"
            for feature in features:
                result.add(feature, text, at(off), name)
            return off + length
    result.limits.append(f"Capstone 4.0.2 cannot decode the bytes at {at(off)} ({window[:8].hex(' ')}), "
                         "and no rule applies: the rest of that code was not audited")
    return end


def audit_riscv_range(result, data, start, end, at):
    """riscv_decode's reading of data[start:end]: an extension --requires
    knows is a use of it; any other (or an encoding it cannot read) is a
    limit, naming the instruction."""
    known = F.known("riscv64")
    for off, insn in riscv_decode.decode(data, start, end):
        if insn.extension and insn.extension not in known:
            beyond = f"beyond RV64GC, --requires knows {', '.join(known)}"
            what = ("cannot be read: the rest of that code was not audited" if not insn.size
                    else f"is neither RV64GC nor an extension --requires knows ({beyond})"
                    if insn.extension == riscv_decode.OTHER
                    else f"needs {insn.extension}, which --requires cannot declare ({beyond})")
            result.limits.append(f"{insn.text} at {at(off)} {what}")
            if not insn.size:
                return
            continue
        result.instructions += 1
        if insn.extension:
            result.add(insn.extension, insn.text, at(off), "RISC-V opcode map")


def audit_bytes(arch, data, name="code"):
    """The Result for raw code bytes (one range, named `name`)."""
    result = Result(arch)
    result.code_bytes = len(data)
    audit_range(decoder(arch), result, data, 0, len(data), lambda off: f"{name}+{off:#x}")
    return result


def object_of(path, arch=None):
    """The elf_code.Object at `path`, checked to be `arch`'s code (its ELF
    machine). CannotAudit if it cannot be read or is another arch's."""
    try:
        obj = elf_code.Object(path)
    except elf_code.BadObject as e:
        raise CannotAudit(str(e)) from None
    if arch and arch != "generic" and obj.arch != arch:
        raise CannotAudit(f"{path} is {obj.arch} code, not {arch}")
    return obj


def code_with_decoders(obj, section):
    """[(start, end, decoder)] of the section's code: armhf's ARM and Thumb
    stretches each with its own (its mapping symbols say which)."""
    if obj.arch == "armhf":
        mds = {mode: decoder("armhf", mode) for mode in ("arm", "thumb")}
        return [(a, b, mds[mode]) for a, b, mode in elf_code.code_modes(obj, section)]
    md = decoder(obj.arch)
    return [(a, b, md) for a, b in elf_code.code_ranges(obj, section)]


def audit(path, arch=None):
    """The Result for the object at `path`. CannotAudit if it cannot be
    read, is for another arch than `arch`, or Capstone is missing."""
    obj = object_of(path, arch)
    result = Result(obj.arch)
    for section in obj.code_sections():
        at = elf_code.namer(obj, section)
        for start, end, md in code_with_decoders(obj, section):
            result.code_bytes += end - start
            audit_range(md, result, section.data, start, end, at)
    return result


# --- what the gate and the zoo print -------------------------------------------

def cover_for(declared, features, arch):
    """The --requires that covers `features` besides what was declared:
    both, made minimal, with the declared facts (erms, zva64, ...)."""
    facts = [d for d in declared if d in F.FACTS or d not in F.known(arch)]
    return ",".join(F.minimal([d for d in declared if d not in facts] + list(features), arch) + facts)


def findings(result, declared, name, obj="OBJECT"):
    """One finding record per undeclared feature: its first instruction,
    where, and the --requires that covers every one of them."""
    out = []
    undeclared = result.undeclared(declared)
    cover = cover_for(declared, [f for f, _ in undeclared], result.arch)
    for feature, uses in undeclared:
        first = uses[0]
        more = f" (and {len(uses) - 1} more)" if len(uses) > 1 else ""
        out.append({"check": "isa", "kind": "undeclared-feature",
                    "detail": f"{feature}: {first.text} at {first.where}{more} needs {feature}, which "
                              + (f"--requires {','.join(declared)} does not cover" if declared
                                 else "is not declared (no --requires)")
                              + f"; --requires {cover} covers it",
                    "input": "", "repro": f"scripts/isa-audit --arch={result.arch}"
                                          + (f" --requires={','.join(declared)}" if declared else "") + f" {obj}",
                    "signature": f"{name} undeclared-feature {feature}", "feature": feature,
                    "instruction": first.text, "at": first.where, "cover": cover})
    return out


def summary(result, declared):
    """The audit's JSON object for the gate's report and the zoo."""
    return {"arch": result.arch, "minimal_requires": result.minimal(), "declared": list(declared),
            "undeclared": [f for f, _ in result.undeclared(declared)],
            "uses": {f: [u.as_dict() for u in uses[:3]] + ([{"more": len(uses) - 3}] if len(uses) > 3 else [])
                     for f, uses in result.uses.items()},
            "instructions": result.instructions, "code_bytes": result.code_bytes,
            "by_rule": dict(result.by_rule), "limits": list(result.limits)}


def note(result):
    """The check's note: what was read, and how much the rules decoded."""
    minimal = ",".join(result.minimal()) or "none"
    reader = "the RISC-V opcode map" if result.arch == "riscv64" else "Capstone 4.0.2"
    text = (f"{result.instructions} instructions ({result.code_bytes} bytes of code), {reader}; "
            f"minimal --requires: {minimal}")
    if result.by_rule:
        text += "; decoded by rule: " + ", ".join(f"{n} {rule}" for rule, n in sorted(result.by_rule.items()))
    return text
