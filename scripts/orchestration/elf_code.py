"""The code of an ELF object, as the ISA audit reads it: its executable
sections, its symbols, and which bytes of each section are code. Standard
library only (struct); relocatable objects and executables of x86-64, i386,
aarch64 and riscv64, little-endian.

Data in a code section is not code: on aarch64 the mapping symbols ($d,
$x; AAELF64 "Mapping symbols") say where literal pools and jump tables
are, on every arch a sized STT_OBJECT symbol in a code section marks data."""

import struct

MACHINES = {62: "x86_64", 3: "i386", 183: "aarch64", 243: "riscv64", 40: "armhf"}
SHF_EXECINSTR = 0x4
SHT_NOBITS = 8
SHT_SYMTAB = 2
SHT_RELA, SHT_REL = 4, 9
STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE = 1, 2, 3, 4


class BadObject(Exception):
    """Not an object the audit can read: one line, the file named."""


class Section:
    def __init__(self, index, name, kind, flags, offset, size, link, data, info=0):
        self.index, self.name, self.kind, self.flags = index, name, kind, flags
        self.offset, self.size, self.link, self.data = offset, size, link, data
        self.info = info  # a relocation section's: the section it applies to

    @property
    def code(self):
        return bool(self.flags & SHF_EXECINSTR) and self.kind != SHT_NOBITS and self.size > 0


class Symbol:
    def __init__(self, name, value, size, kind, bind, shndx, table=0):
        self.name, self.value, self.size, self.kind, self.bind, self.shndx = name, value, size, kind, bind, shndx
        self.table = table  # the index of its symbol table's section


def _c_string(table, offset):
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", errors="replace")


class Object:
    """One ELF file: arch, sections and symbols."""

    def __init__(self, path):
        try:
            with open(path, "rb") as f:
                self.raw = f.read()
        except OSError as e:
            raise BadObject(f"{path}: cannot read it: {e.strerror or e}") from None
        self.path = path
        raw = self.raw
        if raw[:4] != b"\x7fELF" or len(raw) < 52:
            raise BadObject(f"{path}: not an ELF file")
        if raw[5] != 1:
            raise BadObject(f"{path}: a big-endian ELF file (the audit reads little-endian ones)")
        self.wide = raw[4] == 2
        machine = struct.unpack_from("<H", raw, 18)[0]
        if machine not in MACHINES:
            raise BadObject(f"{path}: ELF machine {machine}, not x86-64, i386, aarch64, riscv64 or armhf")
        self.arch = MACHINES[machine]
        try:
            self.sections = self._sections()
            self.symbols = self._symbols()
        except struct.error:
            raise BadObject(f"{path}: its ELF headers are cut short") from None

    def _sections(self):
        raw = self.raw
        if self.wide:
            shoff, = struct.unpack_from("<Q", raw, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", raw, 0x3A)
            layout = "<IIQQQQIIQQ"
        else:
            shoff, = struct.unpack_from("<I", raw, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", raw, 0x2E)
            layout = "<IIIIIIIIII"
        heads = [struct.unpack_from(layout, raw, shoff + i * shentsize) for i in range(shnum)]
        names = heads[shstrndx] if shstrndx < len(heads) else None
        strtab = raw[names[4]:names[4] + names[5]] if names else b""
        out = []
        for i, h in enumerate(heads):
            name, kind, flags, _addr, offset, size, link, info = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
            data = b"" if kind == SHT_NOBITS else raw[offset:offset + size]
            if kind != SHT_NOBITS and len(data) != size:
                raise BadObject(f"{self.path}: section {i} runs past the end of the file")
            out.append(Section(i, _c_string(strtab, name), kind, flags, offset, size, link, data, info))
        return out

    def _symbols(self):
        out = []
        for s in self.sections:
            if s.kind != SHT_SYMTAB:
                continue
            names = self.sections[s.link].data if s.link < len(self.sections) else b""
            width = 24 if self.wide else 16
            for i in range(len(s.data) // width):
                if self.wide:
                    name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", s.data, i * width)
                else:
                    name, value, size, info, _other, shndx = struct.unpack_from("<IIIBBH", s.data, i * width)
                out.append(Symbol(_c_string(names, name), value, size, info & 0xF, info >> 4, shndx, s.index))
        return out

    def code_sections(self):
        return [s for s in self.sections if s.code]

    def section_named(self, name):
        return next((s for s in self.sections if s.name == name), None)

    def self_relative_targets(self, section):
        """[(offset in `section`, (target section index, offset in it))] of
        the section's 32-bit self-relative words (`.long label - .`, as the
        kernel's exception table is written), in a relocatable object: each
        word's relocation names a symbol (a section's, or a label's) and an
        addend (REL: the word itself), which is where the label lies. A
        word without a relocation is left out (it points into its own
        section)."""
        out = []
        for rel in self.sections:
            if rel.kind not in (SHT_RELA, SHT_REL) or rel.info != section.index:
                continue
            width = (24 if rel.kind == SHT_RELA else 16) if self.wide else (12 if rel.kind == SHT_RELA else 8)
            symbols = self._symbol_table(rel.link)
            for i in range(len(rel.data) // width):
                if self.wide:
                    where, info = struct.unpack_from("<QQ", rel.data, i * width)
                    index = info >> 32
                    addend = struct.unpack_from("<q", rel.data, i * width + 16)[0] if rel.kind == SHT_RELA else None
                else:
                    where, info = struct.unpack_from("<II", rel.data, i * width)
                    index = info >> 8
                    addend = struct.unpack_from("<i", rel.data, i * width + 8)[0] if rel.kind == SHT_RELA else None
                if addend is None:
                    addend = struct.unpack_from("<i", section.data, where)[0]
                if index < len(symbols):
                    symbol = symbols[index]
                    out.append((where, (symbol.shndx, symbol.value + addend)))
        return sorted(out)

    def _symbol_table(self, index):
        """The symbols of the symbol table at section `index`, in order."""
        if index >= len(self.sections) or self.sections[index].kind != SHT_SYMTAB:
            return []
        return [s for s in self.symbols if s.table == index]


def mapping_kind(name):
    """'x' (code), 'd' (data) or None: aarch64's mapping symbols are $x and
    $d, optionally followed by '.' and anything; RISC-V's (its psABI,
    "Mapping Symbol") $x, $d, and $x followed by the ISA string it uses
    from there ($xrv64i2p1_m2p0...); 32-bit Arm's (AAELF32) $a (ARM code),
    $t (Thumb code) and $d, whose code kinds code_modes tells apart."""
    for kind in ("x", "d", "a", "t"):
        if name == f"${kind}" or name.startswith(f"${kind}."):
            return "x" if kind in "at" else kind
    return "x" if name.startswith("$xrv") else None


def arm_mode(name):
    """'arm', 'thumb' or 'data' for a 32-bit Arm mapping symbol, else None."""
    for kind, mode in (("a", "arm"), ("t", "thumb"), ("d", "data")):
        if name == f"${kind}" or name.startswith(f"${kind}."):
            return mode
    return None


def marked_ranges(obj, section, kind_of, first):
    """[(start, end, kind)] of the section by its mapping symbols (kind_of
    gives a symbol's kind or None), from the section's start in `first`
    until the first mark says otherwise."""
    marks = sorted((s.value, kind_of(s.name)) for s in obj.symbols
                   if s.shndx == section.index and kind_of(s.name))
    out, start, state = [], 0, first
    for where, kind in marks:
        if kind != state:
            if where > start:
                out.append((start, where, state))
            start, state = where, kind
    if section.size > start:
        out.append((start, section.size, state))
    return out


def without_data_objects(obj, section, ranges):
    """`ranges` ([(start, end, ...)]) less the section's sized data objects."""
    data = [(s.value, s.value + s.size) for s in obj.symbols
            if s.shndx == section.index and s.kind == STT_OBJECT and s.size > 0]
    for lo, hi in data:
        cut = []
        for a, b, *rest in ranges:
            if hi <= a or lo >= b:
                cut.append((a, b, *rest))
                continue
            if a < lo:
                cut.append((a, lo, *rest))
            if hi < b:
                cut.append((hi, b, *rest))
        ranges = cut
    return ranges


def code_modes(obj, section):
    """[(start, end, mode)] of a 32-bit Arm section's code, mode 'arm' or
    'thumb' as its mapping symbols say ($a, $t; $d is data), less sized
    data objects."""
    ranges = [r for r in marked_ranges(obj, section, arm_mode, "arm") if r[2] != "data"]
    return without_data_objects(obj, section, ranges)


def code_ranges(obj, section):
    """[(start, end)] of the section's bytes that are code. aarch64,
    riscv64 and armhf: what the mapping symbols say (from the section's
    start, code until the first one says otherwise); every arch: less
    sized data objects."""
    ranges = [(0, section.size, "x")]
    if obj.arch in ("aarch64", "riscv64", "armhf"):
        ranges = [r for r in marked_ranges(obj, section, mapping_kind, "x") if r[2] == "x"]
    return [(a, b) for a, b, _ in without_data_objects(obj, section, ranges)]


def code_address(obj, symbol):
    """Where a symbol's code starts: a 32-bit Arm Thumb function's value
    has bit 0 set (AAELF32), which is no byte of it."""
    if obj.arch == "armhf" and symbol.kind == STT_FUNC:
        return symbol.value & ~1
    return symbol.value


def namer(obj, section):
    """A function giving 'symbol+0xOFF' for an offset in the section: the
    nearest named symbol at or before it (functions and labels; not
    mapping, section or file symbols)."""
    named = sorted((code_address(obj, s), s.name) for s in obj.symbols
                   if s.shndx == section.index and s.name and not mapping_kind(s.name)
                   and s.kind not in (STT_SECTION, STT_FILE) and not s.name.startswith(".L"))

    def at(offset):
        best = None
        for value, name in named:
            if value > offset:
                break
            best = (value, name)
        if best is None:
            return f"{section.name}+{offset:#x}"
        return f"{best[1]}+{offset - best[0]:#x}"
    return at
