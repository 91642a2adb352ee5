"""The ISA audit's RISC-V decoder (Capstone 4.0.2 has none): each
instruction's length, and the extension it belongs to, read from its
opcode and function fields as the unprivileged spec's opcode maps give
them (RV64 only). It names instructions no further than the audit needs:
the Zba, Zbb and Zbs ones by mnemonic, the rest by their class.

An instruction is one of:
- RV64GC (I, M, A, F, D, C, Zicsr, Zifencei): no extension, "";
- an extension --requires knows (isa_features.RISCV64: v, zba, zbb, zbs);
- another extension, named (zbc, zicbom, zicboz, zicond, zfh, q), or a
  reserved or custom encoding, a privileged instruction, Zcb's space, one
  longer than 32 bits: OTHER. The audit cannot judge either kind
  (docs/isa-audit.md).
Encodings that later extensions put inside OP-V (Zvbb, the vector crypto
extensions, Zvfh's half-precision forms) read as V: a limit of this map,
said in docs/isa-audit.md."""

import typing

OTHER = "other"


class Insn(typing.NamedTuple):
    size: int       # 2 or 4
    word: int       # the instruction's bits
    extension: str  # "" (RV64GC), an extension's name, or OTHER
    text: str       # its name (or class) and its bits


def field(word, hi, lo):
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


# OP (0110011) and OP-32 (0111011): (funct7, funct3) -> (extension, name).
OP = {**{(0x00, f): ("", "") for f in range(8)}, **{(0x01, f): ("", "") for f in range(8)},
      (0x20, 0): ("", ""), (0x20, 5): ("", ""),
      (0x20, 7): ("zbb", "andn"), (0x20, 6): ("zbb", "orn"), (0x20, 4): ("zbb", "xnor"),
      (0x10, 2): ("zba", "sh1add"), (0x10, 4): ("zba", "sh2add"), (0x10, 6): ("zba", "sh3add"),
      (0x05, 4): ("zbb", "min"), (0x05, 5): ("zbb", "minu"), (0x05, 6): ("zbb", "max"), (0x05, 7): ("zbb", "maxu"),
      (0x05, 1): ("zbc", "clmul"), (0x05, 2): ("zbc", "clmulr"), (0x05, 3): ("zbc", "clmulh"),
      (0x30, 1): ("zbb", "rol"), (0x30, 5): ("zbb", "ror"),
      (0x24, 1): ("zbs", "bclr"), (0x24, 5): ("zbs", "bext"), (0x14, 1): ("zbs", "bset"), (0x34, 1): ("zbs", "binv"),
      (0x07, 5): ("zicond", "czero.eqz"), (0x07, 7): ("zicond", "czero.nez")}
OP32 = {(0x00, 0): ("", ""), (0x00, 1): ("", ""), (0x00, 5): ("", ""), (0x20, 0): ("", ""), (0x20, 5): ("", ""),
        **{(0x01, f): ("", "") for f in (0, 4, 5, 6, 7)},
        (0x04, 0): ("zba", "add.uw"), (0x10, 2): ("zba", "sh1add.uw"), (0x10, 4): ("zba", "sh2add.uw"),
        (0x10, 6): ("zba", "sh3add.uw"), (0x30, 1): ("zbb", "rolw"), (0x30, 5): ("zbb", "rorw")}
# OP-IMM's unary Zbb forms, by the whole immediate (funct3 001 and 101).
OP_IMM_UNARY = {(1, 0x600): "clz", (1, 0x601): "ctz", (1, 0x602): "cpop", (1, 0x604): "sext.b",
                (1, 0x605): "sext.h", (5, 0x287): "orc.b", (5, 0x6B8): "rev8"}
# OP-IMM's shifts by imm[11:6] (RV64's 6-bit shamt), funct3 001 and 101.
OP_IMM_SHIFT = {(1, 0x00): ("", ""), (5, 0x00): ("", ""), (5, 0x10): ("", ""), (5, 0x18): ("zbb", "rori"),
                (1, 0x12): ("zbs", "bclri"), (1, 0x0A): ("zbs", "bseti"), (1, 0x1A): ("zbs", "binvi"),
                (5, 0x12): ("zbs", "bexti")}
# OP-IMM-32's, by funct7 (imm[11:5]); slli.uw by imm[11:6].
OP_IMM32_SHIFT = {(1, 0x00): ("", ""), (5, 0x00): ("", ""), (5, 0x20): ("", ""), (5, 0x30): ("zbb", "roriw")}
OP_IMM32_UNARY = {0: "clzw", 1: "ctzw", 2: "cpopw"}
# A's funct5s (lr, sc and the AMOs of RV64A).
AMO_FUNCT5 = (0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C)
# The CSRs that exist only with V (vstart, vxsat, vxrm, vcsr, vl, vtype, vlenb).
VECTOR_CSRS = (0x008, 0x009, 0x00A, 0x00F, 0xC20, 0xC21, 0xC22)
# F and D's OP-FP forms by funct5 (bits 31:27): the funct3s (rm for the
# arithmetic: any) or the rs2 values each takes; the rest (Zfa's fli,
# fminm, fcvtmod, ...) is OTHER.
ANY = None
FP_FORMS = {0x00: (ANY, ANY), 0x01: (ANY, ANY), 0x02: (ANY, ANY), 0x03: (ANY, ANY), 0x0B: (ANY, (0,)),
            0x04: ((0, 1, 2), ANY), 0x05: ((0, 1), ANY), 0x14: ((0, 1, 2), ANY), 0x18: (ANY, (0, 1, 2, 3)),
            0x1A: (ANY, (0, 1, 2, 3)), 0x1C: ((0, 1), (0,)), 0x1E: ((0,), (0,))}
FP_FORMATS = {0: "", 1: "", 2: "zfh", 3: "q"}


def op_v(word):
    """The class of an OP-V instruction."""
    if field(word, 14, 12) == 7:
        return "vsetivli" if field(word, 31, 30) == 3 else "vsetvl" if field(word, 31, 31) else "vsetvli"
    return "vector arithmetic"


def fp_load_store(word, store):
    width = field(word, 14, 12)
    if width in (2, 3):
        return "", ""
    if width == 1:
        return "zfh", "flh/fsh"
    if width == 4:
        return "q", "flq/fsq"
    return "v", "vector store" if store else "vector load"


def op_fp(word):
    fmt, funct5 = field(word, 26, 25), field(word, 31, 27)
    if FP_FORMATS[fmt]:
        return FP_FORMATS[fmt], "half or quad float"
    if funct5 == 0x08:  # fcvt.s.d (rs2 1) and fcvt.d.s (rs2 0); others convert H or Q
        return ("", "") if field(word, 24, 20) == 1 - fmt else (OTHER, "fcvt with H or Q")
    forms = FP_FORMS.get(funct5)
    if forms is None:
        return OTHER, "OP-FP"
    funct3s, rs2s = forms
    if (funct3s is not ANY and field(word, 14, 12) not in funct3s) or (rs2s is not ANY and field(word, 24, 20) not in rs2s):
        return OTHER, "OP-FP (Zfa?)"
    return "", ""


def op_imm(word):
    funct3 = field(word, 14, 12)
    if funct3 not in (1, 5):
        return "", ""
    unary = OP_IMM_UNARY.get((funct3, field(word, 31, 20)))
    if unary:
        return "zbb", unary
    return OP_IMM_SHIFT.get((funct3, field(word, 31, 26)), (OTHER, "OP-IMM"))


def op_imm32(word):
    funct3, funct7 = field(word, 14, 12), field(word, 31, 25)
    if funct3 == 0:
        return "", ""
    if funct3 == 1 and field(word, 31, 26) == 0x02:
        return "zba", "slli.uw"
    if funct3 == 1 and funct7 == 0x30 and field(word, 24, 20) in OP_IMM32_UNARY:
        return "zbb", OP_IMM32_UNARY[field(word, 24, 20)]
    return OP_IMM32_SHIFT.get((funct3, funct7), (OTHER, "OP-IMM-32"))


def op_32(word):
    funct3, funct7 = field(word, 14, 12), field(word, 31, 25)
    if (funct7, funct3) == (0x04, 4) and field(word, 24, 20) == 0:
        return "zbb", "zext.h"
    return OP32.get((funct7, funct3), (OTHER, "OP-32"))


def misc_mem(word):
    funct3 = field(word, 14, 12)
    if funct3 in (0, 1):  # fence (fence.tso, pause), fence.i
        return "", ""
    if funct3 == 2:
        return {0: ("zicbom", "cbo.inval"), 1: ("zicbom", "cbo.clean"), 2: ("zicbom", "cbo.flush"),
                4: ("zicboz", "cbo.zero")}.get(field(word, 31, 20), (OTHER, "MISC-MEM"))
    return OTHER, "MISC-MEM"


def system(word):
    funct3 = field(word, 14, 12)
    if funct3 == 0:
        return ("", "") if word in (0x00000073, 0x00100073) else (OTHER, "privileged instruction")
    if funct3 == 4:
        return OTHER, "SYSTEM"
    return ("v", "vector CSR access") if field(word, 31, 20) in VECTOR_CSRS else ("", "")


def amo(word):
    ok = field(word, 14, 12) in (2, 3) and field(word, 31, 27) in AMO_FUNCT5
    return ("", "") if ok else (OTHER, "AMO")


def load(word):
    return ("", "") if field(word, 14, 12) != 7 else (OTHER, "LOAD")


def store(word):
    return ("", "") if field(word, 14, 12) < 4 else (OTHER, "STORE")


def branch(word):
    return ("", "") if field(word, 14, 12) not in (2, 3) else (OTHER, "BRANCH")


def jalr(word):
    return ("", "") if field(word, 14, 12) == 0 else (OTHER, "JALR")


def always(_word):
    return "", ""


# The major opcodes (bits 6:0) of 32-bit instructions.
MAJOR = {0x03: load, 0x07: lambda w: fp_load_store(w, False), 0x0F: misc_mem, 0x13: op_imm, 0x17: always,
         0x1B: op_imm32, 0x23: store, 0x27: lambda w: fp_load_store(w, True), 0x2F: amo,
         0x33: lambda w: OP.get((field(w, 31, 25), field(w, 14, 12)), (OTHER, "OP")), 0x37: always, 0x3B: op_32,
         0x43: lambda w: (FP_FORMATS[field(w, 26, 25)], "fused multiply-add"),
         0x47: lambda w: (FP_FORMATS[field(w, 26, 25)], "fused multiply-add"),
         0x4B: lambda w: (FP_FORMATS[field(w, 26, 25)], "fused multiply-add"),
         0x4F: lambda w: (FP_FORMATS[field(w, 26, 25)], "fused multiply-add"),
         0x53: op_fp, 0x57: lambda w: ("v", op_v(w)), 0x63: branch, 0x67: jalr, 0x6F: always, 0x73: system}
CUSTOM = (0x0B, 0x2B, 0x5B, 0x7B)


def compressed(half):
    """(extension, name) of a 16-bit instruction: RV64C, but quadrant 0's
    funct3 100 and quadrant 1's subw/addw neighbours, where Zcb lives."""
    quadrant, funct3 = half & 3, field(half, 15, 13)
    if quadrant == 0 and funct3 == 4:
        return OTHER, "16-bit quadrant 0, funct3 100 (Zcb or reserved)"
    if quadrant == 1 and funct3 == 4 and field(half, 11, 10) == 3 and field(half, 12, 12) and field(half, 6, 5) >= 2:
        return OTHER, "16-bit quadrant 1, funct 100111 (Zcb or reserved)"
    return "", ""


def classify(word, size):
    """(extension, name) of one instruction."""
    if size == 2:
        return compressed(word)
    opcode = word & 0x7F
    if opcode in CUSTOM:
        return OTHER, "custom (vendor) opcode"
    rule = MAJOR.get(opcode)
    return rule(word) if rule else (OTHER, f"major opcode {opcode:#04x}")


def decode(data, off, end):
    """Yields (offset, Insn) for data[off:end]; a length the audit does not
    read (48 bits and longer) or a cut instruction ends the walk with an
    Insn of size 0, its extension OTHER."""
    while off < end:
        if end - off < 2:
            yield off, Insn(0, data[off], OTHER, "a trailing byte")
            return
        half = int.from_bytes(data[off:off + 2], "little")
        size = 2 if half & 3 != 3 else 4 if half & 0x1C != 0x1C else 0
        if size == 0 or end - off < size:
            what = "an instruction longer than 32 bits" if size == 0 else "a cut instruction"
            yield off, Insn(0, half, OTHER, f"{what} ({half:#06x})")
            return
        word = int.from_bytes(data[off:off + size], "little")
        extension, name = classify(word, size)
        bits = f".insn {word:#06x}" if size == 2 else f".insn {word:#010x}"
        yield off, Insn(size, word, extension, f"{name} ({bits})" if name else bits)
        off += size
