"""The below-sp audit (docs/contract.md, A4, AK4): on aarch64 no thread
may read or write the inactive region of the stack, below sp (AAPCS64
6.4.5.1): Linux delivers a signal's frame there, and in the kernel an
interrupt's. qemu-user cannot single-step aarch64 code, so the interrupts
stage cannot catch such an access at run time (x86 has that stage); this
audit flags it in the object instead: a load or store (not a prefetch)
whose address is sp plus a negative offset, without write-back (a
pre-indexed `stp x29, x30, [sp, #-16]!` moves sp first, and is fine).
A copy of sp in another register escapes it: the audit is a floor."""

from . import elf_code, isa_audit


class Result:
    def __init__(self, arch):
        self.arch = arch
        self.instructions = 0
        self.below = []  # (where, text, "reads" or "writes")


def audit(path):
    """Result for the object at `path` (elf_code.BadObject if unreadable,
    isa_audit.CannotAudit without Capstone)."""
    obj = elf_code.Object(path)
    result = Result(obj.arch)
    if obj.arch != "aarch64":
        return result
    cs = isa_audit.capstone()
    arm64 = cs.arm64
    md = isa_audit.decoder("aarch64")
    for section in obj.code_sections():
        at = elf_code.namer(obj, section)
        for start, end in elf_code.code_ranges(obj, section):
            for insn in md.disasm(section.data[start:end], start):
                result.instructions += 1
                if insn.writeback or insn.mnemonic.startswith("prf"):
                    continue
                for op in insn.operands:
                    if op.type == arm64.ARM64_OP_MEM and op.mem.base == arm64.ARM64_REG_SP and op.mem.disp < 0:
                        access = "reads" if insn.mnemonic.startswith("ld") else "writes"
                        result.below.append((at(insn.address), f"{insn.mnemonic} {insn.op_str}", access))
    return result


def findings(result, name, obj="OBJECT"):
    """One abi-violation record: the first instruction that reaches below
    sp, and how many more do."""
    if not result.below:
        return []
    where, text, access = result.below[0]
    more = f" (and {len(result.below) - 1} more)" if len(result.below) > 1 else ""
    return [{"check": "below-sp", "kind": "abi-violation",
             "detail": f"{text} at {where}{more} {access} below sp without moving it: the region below sp "
                       "is no one's (AAPCS64 6.4.5.1), and a signal handler or an interrupt writes there",
             "input": "", "repro": f"objdump -d {obj}",
             "signature": f"{name} abi-violation below-sp", "at": where, "instruction": text}]


def note(result):
    if result.below:
        return f"{len(result.below)} of {result.instructions} instructions reach below sp"
    return f"{result.instructions} instructions, none reaching below sp (a copy of sp in another register is not followed)"
