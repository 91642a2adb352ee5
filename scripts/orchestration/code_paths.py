"""The routine's own code as a graph, for the static audits that follow
every path from an entry: uaccess_audit (the SMAP brackets) and
store_order_audit (a fence after the weakly ordered stores). One walker,
each audit its own states and how an instruction changes them.

Standard library and Capstone (isa_audit.capstone)."""

import struct

from . import elf_code, isa_audit

EXTABLE = "__ex_table"
# Entries: x86 { int insn, fixup, type } and arm64 { int insn, fixup;
# short type, data }, both 12 bytes (6.1's asm-extable.h).
ENTRY_SIZE = 12


def words(data, at, layout):
    return struct.unpack_from(layout, data, at)


def table_entries(obj, name, size):
    """[(offset in the table, {field offset: (section, offset)})] of the
    section `name`'s entries of `size` bytes, their self-relative words
    resolved through the object's relocations; [] without the section."""
    section = obj.section_named(name)
    if section is None:
        return [], None
    targets = dict(obj.self_relative_targets(section))
    return [(at, {k: targets.get(at + k) for k in range(0, size, 4)}) for at in range(0, section.size - size + 1, size)], section


def extable(obj):
    """{(section, offset) of a listed instruction: (fixup (section,
    offset), type)}. BadObject when an entry's words are not relocated
    (not a relocatable object: the audit reads the gate's merged one)."""
    out = {}
    entries, section = table_entries(obj, EXTABLE, ENTRY_SIZE)
    for at, fields in entries:
        if fields[0] is None or fields[4] is None:
            raise elf_code.BadObject(f"{obj.path}: {EXTABLE} entry at {at:#x} is not relocated "
                                     "(the audit reads a relocatable object)")
        kind = words(section.data, at + 8, "<h" if obj.arch == "aarch64" else "<i")[0]
        out[fields[0]] = (fields[4], kind)
    return out


class Code:
    """The object's decoded instructions, {(section, offset): insn}, and
    each branch's relocated target."""

    def __init__(self, obj):
        self.obj = obj
        self.md = isa_audit.decoder(obj.arch)
        self.insns, self.relocated = {}, {}
        self.names = {}
        for section in obj.code_sections():
            self.names[section.index] = elf_code.namer(obj, section)
            for start, end in elf_code.code_ranges(obj, section):
                self.decode(section, start, end)
            for where, target in obj.self_relative_targets(section):
                self.relocated[(section.index, where)] = target

    def decode(self, section, start, end):
        """Decodes data[start:end], going on past a word Capstone 4 cannot
        decode on aarch64 (it refuses `ldtrb w1, [x1]`, say); on x86 the
        rest of the range is left undecoded. A path that reaches such a
        place is a limit of the audit (Result.limits)."""
        off = start
        while off < end:
            for insn in self.md.disasm(section.data[off:end], off):
                self.insns[(section.index, insn.address)] = insn
                off = insn.address + insn.size
            if off >= end or self.obj.arch != "aarch64":
                break
            off += 4

    def name(self, node):
        namer = self.names.get(node[0])
        return namer(node[1]) if namer else f"section {node[0]}+{node[1]:#x}"

    def branch_target(self, node, insn):
        """(section, offset) of a direct branch's target, or None (an
        indirect one, or an undefined symbol's)."""
        x86 = self.obj.arch != "aarch64"
        field = (node[0], node[1] + insn.size - 4) if x86 else node
        if field in self.relocated:
            section, value = self.relocated[field]
            # x86's rel32 counts from the instruction's end: S + A + 4.
            return (section, value + 4) if section and x86 else ((section, value) if section else None)
        imms = [op.imm for op in insn.operands if op.type == isa_audit.capstone().CS_OP_IMM]
        return (node[0], imms[-1]) if imms else None

    def indirect(self, insn):
        """Is it a jump or call through a register or memory (whose
        target the audit cannot know)?"""
        cs = isa_audit.capstone()
        if insn.group(cs.CS_GRP_RET) or not (insn.group(cs.CS_GRP_JUMP) or insn.group(cs.CS_GRP_CALL)):
            return False
        if self.obj.arch == "aarch64":
            return insn.mnemonic.startswith(("br", "blr"))
        return not any(op.type == cs.CS_OP_IMM for op in insn.operands)

    def function_nodes(self, node):
        """The decoded instructions of the sized symbol whose code holds
        `node` (its function), or [] when no such symbol does."""
        for sym in self.obj.symbols:
            if sym.shndx == node[0] and sym.size and sym.value <= node[1] < sym.value + sym.size:
                return [n for n in self.insns if n[0] == node[0] and sym.value <= n[1] < sym.value + sym.size]
        return []

    def successors(self, node, insn):
        cs = isa_audit.capstone()
        after = (node[0], node[1] + insn.size)
        if insn.group(cs.CS_GRP_RET) or insn.mnemonic in ("ud2", "hlt", "int3", "brk", "udf", "eret"):
            return []
        if insn.group(cs.CS_GRP_JUMP) or insn.group(cs.CS_GRP_CALL):
            target = self.branch_target(node, insn)
            out = [target] if target else []
            unconditional = insn.mnemonic in ("jmp", "ljmp", "b", "br")
            return out if unconditional else out + [after]
        return [after]


def symbol_node(obj, symbol):
    for s in obj.symbols:
        if s.name in (symbol, f"mg_gate_{symbol}") and 0 < s.shndx < len(obj.sections) and obj.sections[s.shndx].code:
            return (s.shndx, s.value)
    return None


def walk(code, entry, start, step, fixups=None, into_calls=True, spread=None):
    """({node: set of states on entering it}, missing) over every path from
    `entry`, entered in the states `start`. `step(node, insn, now)` gives
    (the states the instruction runs in, the states after it); the states
    reach its successors (jumps, both ways of a conditional branch, a
    call's callee and its return) and, for a node in `fixups`, its fixup,
    in the states the instruction ran in (those of its fault). Without
    `into_calls` a call goes on after it, its callee not followed (the
    routine's own paths, whose returns are its own). `missing`: the nodes
    reached that are not decoded, and the indirect jumps and calls
    reached, which the walk cannot follow, unless `spread(node, insn, now)`
    gives where such a one may go ([(node, states)]; None: it cannot
    say either)."""
    fixups = fixups or {}
    states, work, missing = {entry: set(start)}, [entry], []
    while work:
        node = work.pop()
        insn = code.insns.get(node)
        if insn is None:
            missing.append(node)
            continue
        now, out = step(node, insn, set(states[node]))
        spread_to = []
        if code.indirect(insn):
            spread_to = spread(node, insn, now) if spread else None
            if spread_to is None:
                missing.append(node)
        after = [(node[0], node[1] + insn.size)]
        own = after if not into_calls and insn.group(isa_audit.capstone().CS_GRP_CALL) else None
        nexts = [(n, out) for n in (own or code.successors(node, insn))] + (spread_to or [])
        if node in fixups:
            nexts.append((fixups[node], now))
        for n, s in nexts:
            if not s <= states.get(n, set()):
                states[n] = states.get(n, set()) | s
                work.append(n)
    return states, missing


def limit(code, symbol, node):
    """Why the audit cannot follow a path from `symbol` past `node`."""
    insn = code.insns.get(node)
    if insn is None:
        return (f"a path from {symbol} reaches {code.name(node)}, which Capstone 4.0.2 cannot decode "
                "(or which is no code)")
    return (f"a path from {symbol} reaches {insn.mnemonic} {insn.op_str} at {code.name(node)}, an indirect "
            "jump or call the audit cannot follow (what it reaches is not audited)")
