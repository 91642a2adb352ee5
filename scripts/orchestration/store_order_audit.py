"""The store-order audit (docs/contract.md, M1): on x86 a routine's
non-temporal stores are weakly ordered (movnti, movntdq, movntps,
movntpd, movntq, maskmovdqu and their VEX forms; Intel SDM vol. 3,
8.2.2 and 11.3.1, AMD APM vol. 2, 7.4 and 7.6), so that a store its caller
makes after the return, a release store publishing the bytes, can become
visible before them. A routine that uses them must order them before it
returns: an sfence, an mfence, a locked instruction (or xchg with memory)
or a serialising one. The audit follows the routine's own paths from its
entry (code_paths.walk: jumps, both ways of a conditional branch, the
exception table's fixups in the state of their fault, a call's callee
summed up at its returns) and finds each return that some path reaches
with a weakly ordered store not yet fenced: `unfenced-nt-store`, naming
the store and the return. A path that leaves through a jump the audit
cannot follow (indirect, or to a symbol outside the object) with such a
store pending could not be judged, and says where.

aarch64's STNP and riscv64's non-temporal hints (Zihintntl) leave the
ordering of stores as it is (a later release store orders them): there
the rule does not apply (M2, M3).

Standard library and Capstone (isa_audit.capstone)."""

from . import code_paths, elf_code, isa_audit

# The weakly ordered stores (Capstone's mnemonics).
WEAK = frozenset(("movnti", "movntdq", "movntps", "movntpd", "movntq", "movntsd", "movntss", "maskmovq",
                  "maskmovdqu", "vmovntdq", "vmovntps", "vmovntpd", "vmaskmovdqu"))
# What orders them before later stores: the fences, and the serialising
# instructions a routine might run (a lock prefix or xchg with memory too).
FENCES = frozenset(("sfence", "mfence", "cpuid", "serialize", "iret", "iretd", "iretq", "wbinvd"))
FENCED = "fenced"  # the state of a path with no weakly ordered store pending
ARCHES = ("x86_64", "i386")


class Result:
    """One entry's paths: how many instructions they reach, how many weakly
    ordered stores, the returns reached with one pending (where, text,
    store where, store text), and where a path could not be followed."""

    def __init__(self, symbol):
        self.symbol = symbol
        self.instructions = 0
        self.stores = 0
        self.unfenced = []
        self.limits = []


def orders_stores(insn):
    if insn.mnemonic in FENCES or insn.mnemonic.startswith("lock "):
        return True
    cs = isa_audit.capstone()
    return insn.mnemonic == "xchg" and any(op.type == cs.CS_OP_MEM for op in insn.operands)


class Walker:
    """The audit's states over one object: a path's state is FENCED or the
    node of a weakly ordered store it has not fenced yet."""

    def __init__(self, code):
        self.code = code
        self.summaries = {}

    def step(self, node, insn, now):
        if insn.mnemonic in WEAK:
            return now, {node}
        if orders_stores(insn):
            return now, {FENCED}
        if insn.group(isa_audit.capstone().CS_GRP_CALL):
            target = self.code.branch_target(node, insn)
            if target in self.code.insns:
                return now, self.after_call(target, now)
        return now, now

    def after_call(self, callee, now):
        """The states a call into `callee`, entered in `now`, returns in:
        those at its own returns (its fences and stores count as the
        caller's). A callee outside the object keeps its own contract and
        changes nothing here."""
        key = (callee, frozenset(now))
        if key not in self.summaries:
            self.summaries[key] = set(now)  # a recursive call: as entered
            states, _ = self.walk(callee, now)
            out = set().union(*[s for n, s in states.items() if self.returns(n)]) or set(now)
            self.summaries[key] = out
        return self.summaries[key]

    def walk(self, entry, start, fixups=None):
        return code_paths.walk(self.code, entry, start, self.step, fixups, into_calls=False, spread=self.spread)

    def spread(self, node, insn, now):
        """Where an indirect jump may go. One reached with every store
        fenced is a jump table's, within its function (glibc's ssse3
        copies): every instruction of that function may come next, in that
        state, and what each reaches is walked as ever. With a store
        pending, outside any sized function, or a call through a register
        (its callee may be a helper of the object that stores and does not
        fence, which the audit cannot summarise), it cannot say: a limit,
        which counts only in an object with a weakly ordered store."""
        if insn.group(isa_audit.capstone().CS_GRP_CALL) or now != {FENCED}:
            return None
        return [(n, {FENCED}) for n in self.code.function_nodes(node)] or None

    def returns(self, node):
        insn = self.code.insns.get(node)
        return insn is not None and insn.group(isa_audit.capstone().CS_GRP_RET)

    def leaves(self, node):
        """A jump out of what the audit can follow: indirect, or to a symbol
        outside the object (a tail call)."""
        insn = self.code.insns.get(node)
        cs = isa_audit.capstone()
        if insn is None or not insn.group(cs.CS_GRP_JUMP):
            return False
        return self.code.indirect(insn) or self.code.branch_target(node, insn) is None


def text_of(code, node):
    insn = code.insns[node]
    return f"{insn.mnemonic} {insn.op_str}".strip()


def audit_entry(walker, obj, symbol, fixups, any_weak):
    """The entry's Result. Where a path cannot be followed (an indirect
    jump, code Capstone cannot decode) it is a limit if the object has a
    weakly ordered store anywhere, since what lies past it may reach one;
    an object without any has nothing to fence."""
    code = walker.code
    result = Result(symbol)
    entry = code_paths.symbol_node(obj, symbol)
    if entry is None:
        raise elf_code.BadObject(f"{obj.path}: {symbol} is not defined in its code")
    states, missing = walker.walk(entry, {FENCED}, fixups)
    result.instructions = sum(1 for n in states if n in code.insns)
    result.stores = sum(1 for n in states if n in code.insns and code.insns[n].mnemonic in WEAK)
    for node in sorted(states):
        pending = sorted(s for s in states[node] if s != FENCED)
        if not pending:
            continue
        if walker.returns(node):
            result.unfenced.append((code.name(node), text_of(code, node), code.name(pending[0]),
                                    text_of(code, pending[0])))
        elif walker.leaves(node) and node not in missing:
            result.limits.append(f"a path from {symbol} leaves by {text_of(code, node)} at {code.name(node)} "
                                 f"with {text_of(code, pending[0])} at {code.name(pending[0])} not yet fenced: "
                                 "where it goes is not audited")
    if any_weak:
        result.limits += [code_paths.limit(code, symbol, n) for n in sorted(set(missing))]
    return result


def audit(path, symbols):
    """(applies, [Result]) for the entries `symbols` of the object at `path`:
    applies is False (and no result) on an arch without weakly ordered
    stores (elf_code.BadObject if unreadable or an entry is not defined in
    its code, isa_audit.CannotAudit without Capstone)."""
    obj = elf_code.Object(path)
    if obj.arch not in ARCHES:
        return False, []
    code = code_paths.Code(obj)
    walker = Walker(code)
    # The user copies' fixups: a store's fault goes on there.
    fixups = {node: fixup for node, (fixup, _kind) in code_paths.extable(obj).items()}
    any_weak = any(insn.mnemonic in WEAK for insn in code.insns.values())
    return True, [audit_entry(walker, obj, s, fixups, any_weak) for s in symbols]


KIND = "unfenced-nt-store"


def findings(results, name, obj="OBJECT"):
    """One finding per entry with a return reached unfenced: the first, and
    how many more."""
    out = []
    for r in results:
        if not r.unfenced:
            continue
        where, text, store_at, store = r.unfenced[0]
        more = f" (and {len(r.unfenced) - 1} more)" if len(r.unfenced) > 1 else ""
        detail = (f"{store} at {store_at} reaches {text} at {where}{more} with no fence after it (sfence, "
                  "mfence or a locked instruction): a non-temporal store is weakly ordered, so a store its "
                  "caller makes after the return (a release store publishing the bytes) can become visible "
                  "first, and a reader that acquires it sees stale bytes (docs/contract.md M1)")
        out.append({"check": "store-order", "kind": KIND, "detail": detail, "input": "",
                    "repro": f"objdump -d {obj}", "signature": f"{name} {KIND} {where}", "symbol": r.symbol,
                    "at": where, "instruction": text})
    return out


def first_limit(results):
    """The first path the audit could not follow with a store pending, and
    how many more (any makes the verdict could not judge), or ""."""
    limits = [l for r in results for l in r.limits]
    if not limits:
        return ""
    return limits[0] + (f" (and {len(limits) - 1} more)" if len(limits) > 1 else "")


def note(results):
    """The row's note, per entry."""
    parts = []
    for r in results:
        if not r.stores:
            parts.append(f"{r.symbol}: no weakly ordered store on its paths ({r.instructions} instructions)")
        else:
            parts.append(f"{r.symbol}: {r.stores} non-temporal store{'s' if r.stores != 1 else ''}, "
                         f"{len(r.unfenced)} return{'s' if len(r.unfenced) != 1 else ''} reached unfenced")
    return "; ".join(parts)
