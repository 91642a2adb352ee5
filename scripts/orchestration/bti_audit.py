"""The BTI audit (docs/contract.md, A16): in an aarch64 object whose GNU
property note says BTI, every global function must start with a landing
pad, or an indirect call to it (br, blr) faults where BTI is enforced: the
kernel maps such an object's code as guarded pages (Linux, elf_hwcaps
HWCAP2_BTI; the linker's -z force-bti). The pads a call may land on are
bti c, bti jc, and paciasp or pacibsp (which are also pads for a call).
Static: qemu-user would enforce it only if every object of the harness
were marked, and one unmarked object clears the bit for the whole link."""

import struct

from . import elf_code

BTI = 1  # GNU_PROPERTY_AARCH64_FEATURE_1_BTI
# The first words a call may land on, and what they are.
PADS = {0xD503245F: "bti c", 0xD50324DF: "bti jc", 0xD503233F: "paciasp", 0xD503237F: "pacibsp"}
# Other hints a routine may start with that are no pad for a call.
NOT_PADS = {0xD503241F: "bti", 0xD503249F: "bti j", 0xD503201F: "nop"}


class Result:
    def __init__(self, arch, marked):
        self.arch, self.marked = arch, marked
        self.entries = []   # the global functions looked at
        self.missing = []   # (symbol, first instruction's text)


def first_text(word):
    """The instruction at an entry, for the diagnosis: its name when it is
    a hint, else Capstone's text, else the word."""
    if word in NOT_PADS:
        return NOT_PADS[word]
    try:
        from . import isa_audit
        md = isa_audit.decoder("aarch64")
        for insn in md.disasm(struct.pack("<I", word), 0):
            return f"{insn.mnemonic} {insn.op_str}".strip()
    except Exception:  # no Capstone: the word says it too
        pass
    return f".inst {word:#010x}"


def audit(path):
    """Result for the object at `path` (elf_code.BadObject if unreadable)."""
    obj = elf_code.Object(path)
    features = elf_code.aarch64_features(obj) if obj.arch == "aarch64" else None
    result = Result(obj.arch, bool(features is not None and features & BTI))
    if not result.marked:
        return result
    sections = {s.index: s for s in obj.sections}
    for sym in obj.symbols:
        section = sections.get(sym.shndx)
        if sym.kind != elf_code.STT_FUNC or sym.bind == 0 or section is None or not section.code:
            continue
        result.entries.append(sym.name)
        if sym.value + 4 > len(section.data):
            result.missing.append((sym.name, "nothing (the function is empty)"))
            continue
        word, = struct.unpack_from("<I", section.data, sym.value)
        if word not in PADS:
            result.missing.append((sym.name, first_text(word)))
    return result


def findings(result, name, obj="OBJECT"):
    """One abi-violation record per entry without its landing pad."""
    return [{"check": "bti", "kind": "abi-violation",
             "detail": f"{symbol} starts with {text}, not bti c or paciasp, in an object marked BTI "
                       "(its GNU property note): an indirect call to it faults where BTI is enforced",
             "input": "", "repro": f"readelf -n {obj}; objdump -d {obj}",
             "signature": f"{name} abi-violation bti {symbol}", "symbol": symbol}
            for symbol, text in result.missing]


def note(result):
    n = len(result.entries)
    if result.missing:
        return f"{len(result.missing)} of the {n} global function(s) of a BTI-marked object lack a landing pad"
    return f"{n} global function(s) of a BTI-marked object, each starting with a landing pad"
