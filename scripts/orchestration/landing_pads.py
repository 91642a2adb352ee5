"""The landing-pad rule of an object marked for indirect-branch tracking
(docs/contract.md, X17, A16): an object whose GNU property note claims it
(x86 CET's IBT, aarch64's BTI) promises that every function an indirect
branch may reach starts with the arch's landing pad, and a loader that
enforces it turns that promise on for the whole process (aarch64: the
kernel maps its code as guarded pages). An entry point without one is a
fault the first time a caller reaches it through a pointer (#CP; SIGILL),
which is how a memcpy is called through the PLT and an ifunc. Standard
library only.

One row per arch in PADS; an arch without a row has no such rule here."""

import struct

from . import elf_code

NT_GNU_PROPERTY_TYPE_0 = 5


class Pad:
    """An arch's rule: the property (its type, the bit that claims it, the
    feature's name) and the instructions a marked entry may start with."""

    def __init__(self, prop, bit, feature, starts):
        self.prop, self.bit, self.feature, self.starts = prop, bit, feature, starts


# GNU_PROPERTY_X86_FEATURE_1_AND, its IBT bit (SHSTK, bit 1, asks nothing
# of an entry's first instruction); x86-psABI, "Intel CET".
X86_IBT = 0xc0000002
AARCH64_FEATURE_1_AND = 0xc0000000
PADS = {
    "x86_64": Pad(X86_IBT, 1, "IBT", ((b"\xf3\x0f\x1e\xfa", "endbr64"),)),
    "i386": Pad(X86_IBT, 1, "IBT", ((b"\xf3\x0f\x1e\xfb", "endbr32"),)),
    # GNU_PROPERTY_AARCH64_FEATURE_1_AND, its BTI bit (PAC, bit 1, asks
    # nothing of an entry); the pads a call (blr, br) may land on: bti c,
    # bti jc, and paciasp or pacibsp, which are pads for a call too.
    "aarch64": Pad(AARCH64_FEATURE_1_AND, 1, "BTI",
                   ((b"\x5f\x24\x03\xd5", "bti c"), (b"\xdf\x24\x03\xd5", "bti jc"),
                    (b"\x3f\x23\x03\xd5", "paciasp"), (b"\x7f\x23\x03\xd5", "pacibsp"))),
}
X86_SHSTK_BIT = 2


def feature_words(obj):
    """{property type: its 4-byte word} of the object's .note.gnu.property
    sections (the AND words of every feature note), or {} without one."""
    out = {}
    align = 8 if obj.wide else 4
    for s in obj.sections:
        if s.name != ".note.gnu.property":
            continue
        data, at = s.data, 0
        while at + 12 <= len(data):
            namesz, descsz, kind = struct.unpack_from("<III", data, at)
            name = data[at + 12:at + 12 + namesz]
            start = at + 12 + ((namesz + 3) & ~3)
            desc = data[start:start + descsz]
            at = start + ((descsz + align - 1) & ~(align - 1))
            if kind != NT_GNU_PROPERTY_TYPE_0 or name != b"GNU\0":
                continue
            p = 0
            while p + 8 <= len(desc):
                prop, size = struct.unpack_from("<II", desc, p)
                if size >= 4 and p + 12 <= len(desc):
                    out[prop] = out.get(prop, 0) | struct.unpack_from("<I", desc, p + 8)[0]
                p += 8 + ((size + align - 1) & ~(align - 1))
    return out


def marking(obj):
    """(the arch's Pad or None, claimed: the object claims its feature,
    shadow_stack: x86's SHSTK bit is set)."""
    words = feature_words(obj)
    pad = PADS.get(obj.arch)
    claimed = bool(pad and words.get(pad.prop, 0) & pad.bit)
    return pad, claimed, bool(words.get(X86_IBT, 0) & X86_SHSTK_BIT) and obj.arch in ("x86_64", "i386")


def first_bytes(obj, name):
    """The first 8 bytes of the defined symbol `name` (fewer at its
    section's end), or None if the object does not define it in code."""
    for s in obj.symbols:
        if s.name == name and 0 < s.shndx < len(obj.sections):
            section = obj.sections[s.shndx]
            if section.code:
                return section.data[s.value:s.value + 8]
    return None


def missing(path, symbols):
    """(pad, claimed, shadow_stack, [(symbol, what it starts with)]) for
    the object at `path`: the entries of a marked object that lack the
    landing pad. BadObject if it cannot be read."""
    obj = elf_code.Object(path)
    pad, claimed, shstk = marking(obj)
    lacking = []
    if claimed:
        for name in symbols:
            head = first_bytes(obj, name)
            if head is None:
                continue  # not defined here: the build's own check names it
            if not any(head.startswith(code) for code, _ in pad.starts):
                lacking.append((name, head[:4].hex(" ")))
    return pad, claimed, shstk, lacking


def findings(path, symbols, name_of):
    """One finding record per entry that lacks its landing pad (check
    `isa`, kind `landing-pad`); name_of(symbol) is the entry's name."""
    pad, _claimed, _shstk, lacking = missing(path, symbols)
    out = []
    for symbol, head in lacking:
        want = " or ".join(n for _, n in pad.starts)
        out.append({"check": "isa", "kind": "landing-pad",
                    "detail": f"{symbol} starts with {head}, not {want}, in an object marked for {pad.feature} "
                              f"(its GNU property note): an indirect call to it faults where {pad.feature} "
                              f"is enforced; start it with {want}, or drop the marking",
                    "input": "", "repro": f"readelf -n {path}; objdump -d {path}",
                    "signature": f"{name_of(symbol)} landing-pad {symbol}", "symbol": symbol,
                    "feature": pad.feature, "instruction": head, "at": f"{symbol}+0x0"})
    return out
