"""The uaccess audit (docs/contract.md, U9, AK6): a user copy reaches user
memory only where the kernel lets it. The user accesses are the
instructions the routine's own exception table (__ex_table) lists, as the
run-time emulation takes them (docs/usercopy.md).

- x86 (SMAP): every listed instruction runs between a stac and a clac. The
  brackets are privileged (#UD at CPL 3), so outside the kernel they are
  nops that leave a record in __memgate_uaccess ({ int at - .; int kind },
  kind 1 opens, 0 closes): the kernel shim's ASM_STAC/ASM_CLAC
  (zoo/kernel/shim.h) and harness/arch/asmdefs.h's MG_STAC/MG_CLAC write
  it; a stac or clac written as such counts too. The audit follows the
  routine's control flow from its entry, with the brackets closed there
  (jumps, both ways of a conditional branch, a call's callee and its
  return, and each listed instruction's fixup, reached in the state of its
  fault); a listed instruction that some path reaches with them closed is
  `smap-unbracketed`. A return of the routine's own (along its paths,
  jumps and fixups, not a callee's) that some path reaches with them open
  is `smap-left-open`: its caller would run with user access enabled,
  which the kernel's objtool refuses ("return with UACCESS enabled").
  A routine that reaches no bracket at all leaves them
  to its caller (6.1's clear_user_* are called from __clear_user's inline
  assembly between stac() and clac(); arm64's from C), and the rule is n/a
  for it, saying so. An indirect jump or call (through a register or
  memory: `jmp *%rax`, arm64's `br x16`) that a path reaches cannot be
  followed: the audit then could not judge, naming it, rather than pass
  what it did not see.
- arm64 (PAN): every listed instruction of a UACCESS type is one of the
  unprivileged ldtr/sttr family (PAN does not stop them), or lies inside
  uaccess_ttbr0_enable/uaccess_ttbr0_disable (the shim's records, as
  above, followed the same way); a plain ldr/str there is
  `pan-privileged-access`.

Standard library and Capstone (isa_audit.capstone)."""

from . import code_paths, elf_code, isa_audit
from .code_paths import EXTABLE, Code, extable, limit, symbol_node, table_entries, words

RECORDS = "__memgate_uaccess"
OPEN, CLOSED = 1, 0
# arm64's types whose instruction reaches user memory (extable_types.h):
# UACCESS_ERR_ZERO; KACCESS_ERR_ZERO's reaches kernel memory.
ARM64_USER_TYPES = (2,)
ARM64_UNPRIVILEGED = ("ldtr", "ldtrb", "ldtrh", "ldtrsb", "ldtrsh", "ldtrsw", "sttr", "sttrb", "sttrh")


class Rule:
    """An arch's rule: its finding class, the clause, what the brackets
    are called, and whether a listed instruction passes by its form."""

    def __init__(self, kind, clause, brackets, by_form):
        self.kind, self.clause, self.brackets, self.by_form = kind, clause, brackets, by_form


RULES = {
    "x86_64": Rule("smap-unbracketed", "U9", "stac/clac", None),
    "i386": Rule("smap-unbracketed", "U9", "stac/clac", None),
    "aarch64": Rule("pan-privileged-access", "AK6", "uaccess_ttbr0_enable/disable",
                    lambda insn: insn.mnemonic in ARM64_UNPRIVILEGED),
}


class Result:
    """What the audit found for one entry: the listed accesses it reaches,
    the ones outside (where, text, why), and whether it has brackets."""

    def __init__(self, arch, symbol):
        self.arch, self.symbol = arch, symbol
        self.accesses = 0
        self.brackets = 0
        self.outside = []
        self.open_returns = []  # (where, text) of its own returns reached with the brackets open
        self.instructions = 0
        self.limits = []  # places a path reaches that the audit cannot follow: could not judge


def marks(obj):
    """{(section, offset): OPEN or CLOSED} of the bracket records."""
    out = {}
    entries, section = table_entries(obj, RECORDS, 8)
    for at, fields in entries:
        if fields[0] is None:
            raise elf_code.BadObject(f"{obj.path}: {RECORDS} record at {at:#x} is not relocated")
        out[fields[0]] = OPEN if words(section.data, at + 4, "<i")[0] else CLOSED
    return out


def follow(code, entry, listed, brackets, into_calls=True):
    """{node: set of bracket states on entering it} over every path from
    `entry`, with the brackets closed there, and how many brackets the
    paths reach; without `into_calls` a call goes on after it, its callee
    not followed (the routine's own paths, whose returns are its own).
    `missing`: the nodes reached that are not decoded, and the indirect
    jumps and calls reached."""
    reached = set()

    def step(node, insn, now):
        if node in brackets:
            reached.add(node)
            now = {brackets[node]}
        if insn.mnemonic in ("stac", "clac"):
            reached.add(node)
        out = {OPEN} if insn.mnemonic == "stac" else {CLOSED} if insn.mnemonic == "clac" else now
        return now, out

    fixups = {node: fixup for node, (fixup, _kind) in listed.items()}
    states, missing = code_paths.walk(code, entry, {CLOSED}, step, fixups, into_calls)
    return states, len(reached), missing


def open_returns(code, entry, listed, brackets):
    """[(where, text)] of the routine's own returns (its callees' are not)
    that some path from `entry` reaches with the brackets open."""
    cs = isa_audit.capstone()
    states, _, _ = follow(code, entry, listed, brackets, into_calls=False)
    return [(code.name(n), f"{code.insns[n].mnemonic} {code.insns[n].op_str}".strip())
            for n in sorted(states) if n in code.insns and code.insns[n].group(cs.CS_GRP_RET)
            and OPEN in states[n] and n not in brackets]


def outside_why(rule, result, insn, kind, on_entry):
    """None if the listed instruction (of type `kind`, entered in the
    bracket states `on_entry`) keeps the rule or is not a user access;
    else why not. Counts the user accesses in `result`."""
    if rule.by_form and kind not in ARM64_USER_TYPES:
        return None
    result.accesses += 1
    if rule.by_form and rule.by_form(insn):
        return None
    if not rule.by_form and not result.brackets:
        return None  # without brackets of its own, x86's are the caller's
    if result.brackets and CLOSED not in on_entry:
        return None
    if not rule.by_form:
        return "a path from the entry reaches it after a clac or before any stac"
    return "a privileged access" + (" outside the brackets" if result.brackets else "")


def audit(path, symbols):
    """(Rule, [Result]) for the entries `symbols` of the object at `path`,
    (None, []) for an arch without a rule (elf_code.BadObject if
    unreadable or an entry is not defined in its code,
    isa_audit.CannotAudit without Capstone)."""
    obj = elf_code.Object(path)
    rule = RULES.get(obj.arch)
    if rule is None:
        return None, []
    listed, brackets = extable(obj), marks(obj)
    code = Code(obj)
    out = []
    for symbol in symbols:
        result = Result(obj.arch, symbol)
        entry = symbol_node(obj, symbol)
        if entry is None:
            raise elf_code.BadObject(f"{path}: {symbol} is not defined in its code")
        states, result.brackets, missing = follow(code, entry, listed, brackets)
        result.instructions = len(states) - sum(1 for n in set(missing) if n not in code.insns)
        result.limits = [limit(code, symbol, n) for n in sorted(set(missing))]
        for node, (_fixup, kind) in sorted(listed.items()):
            if node in states and node in code.insns:
                insn = code.insns[node]
                why = outside_why(rule, result, insn, kind, states[node])
                if why:
                    result.outside.append((code.name(node), f"{insn.mnemonic} {insn.op_str}".strip(), why))
        if not rule.by_form and result.brackets:
            result.open_returns = open_returns(code, entry, listed, brackets)
        out.append(result)
    return rule, out


def findings(rule, results, name, obj="OBJECT"):
    """One finding per entry with an access outside, and one per entry
    with a return left open: the first, and how many more."""
    out = []
    for r in results:
        out += left_open(r, name, obj)
        if not r.outside:
            continue
        where, text, why = r.outside[0]
        more = f" (and {len(r.outside) - 1} more)" if len(r.outside) > 1 else ""
        if rule.by_form:
            detail = (f"{text} at {where}{more}, listed in the exception table as a user access, is {why}: "
                      "under PAN a privileged load or store to user memory faults; use the unprivileged "
                      f"ldtr/sttr form (asm-uaccess.h's user_ldst) or bracket it (docs/contract.md {rule.clause})")
        else:
            detail = (f"{text} at {where}{more}, listed in the exception table as a user access, runs outside "
                      f"the SMAP brackets ({why}): with SMAP a kernel access to user memory faults there "
                      f"(docs/contract.md {rule.clause})")
        out.append({"check": "uaccess", "kind": rule.kind, "detail": detail, "input": "",
                    "repro": f"objdump -dr {obj}; readelf -x {EXTABLE} -x {RECORDS} {obj}",
                    "signature": f"{name} {rule.kind} {where}", "symbol": r.symbol, "at": where,
                    "instruction": text})
    return out


LEFT_OPEN = "smap-left-open"


def left_open(r, name, obj):
    """The smap-left-open finding of an entry, or []."""
    if not r.open_returns:
        return []
    where, text = r.open_returns[0]
    more = f" (and {len(r.open_returns) - 1} more)" if len(r.open_returns) > 1 else ""
    detail = (f"{text} at {where}{more} returns with the SMAP brackets open (a path from the entry reaches it "
              "after a stac and no clac): its caller would run with user access enabled, which objtool "
              "refuses as 'return with UACCESS enabled' (docs/contract.md U11)")
    return [{"check": "uaccess", "kind": LEFT_OPEN, "detail": detail, "input": "",
             "repro": f"objdump -dr {obj}; readelf -x {RECORDS} {obj}",
             "signature": f"{name} {LEFT_OPEN} {where}", "symbol": r.symbol, "at": where, "instruction": text}]


def note(rule, results):
    """The row's note: per entry, its accesses and brackets, or why n/a."""
    parts = []
    for r in results:
        if not r.accesses:
            parts.append(f"{r.symbol}: no listed user access reached")
        elif rule.by_form:
            parts.append(f"{r.symbol}: {r.accesses} listed user accesses, {len(r.outside)} privileged")
        elif not r.brackets:
            parts.append(f"{r.symbol}: no {rule.brackets} of its own (its caller brackets it)")
        else:
            parts.append(f"{r.symbol}: {r.accesses} listed user accesses, {len(r.outside)} outside {rule.brackets}"
                         + (f", {len(r.open_returns)} returns with them open" if r.open_returns else ""))
    return "; ".join(parts)


def applies(results, rule):
    """False when every entry leaves its brackets to its caller (x86): the
    row is n/a then."""
    return bool(rule.by_form) or any(r.brackets for r in results)
