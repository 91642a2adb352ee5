"""The gate's --convention: a register convention of the routine's own
(docs/conventions.md), as harness/engine/convention.c reads it:

    args=REG,... [ret=REG] [clobbers=REG,...] [zero=REG,...]

The gate checks it here, so that a bad one is one line, exit 2, before
anything builds; the harness parses the same text again when it calls the
routine. "c" is the C convention (no convention of its own)."""

# The general registers (each arch's MG_ABI_GPR_NAMES); the stack pointer
# is none of a convention's.
REGISTERS = {"x86_64": ("rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"),
             "i386": ("eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi")}
STACK_POINTER = {"x86_64": "rsp", "i386": "esp"}
KEYS = ("args", "ret", "clobbers", "zero")
MAX_ARGS = 3
# The operands args= names, in order, per operation (a page routine may
# take its length, 4096, after its pointers).
OPERANDS = {"memcpy": ("dst", "src", "len"), "mempcpy": ("dst", "src", "len"), "memmove": ("dst", "src", "len"),
            "memset": ("dst", "c", "len"), "copy_from_user": ("to", "from", "len"),
            "copy_to_user": ("to", "from", "len"), "clear_user": ("to", "len"),
            "copy_page": ("to", "from"), "clear_page": ("page",)}
PAGE_OPS = ("copy_page", "clear_page")
VOID_OPS = PAGE_OPS


def parse(text, arch="x86_64"):
    """{"args": [...], "ret": REG or None, "clobbers": [...], "zero": [...]},
    or None for "c"; ValueError with a reason naming the bad token."""
    if text == "c":
        return None
    if arch not in REGISTERS:
        raise ValueError(f"register conventions are implemented for x86-64 and i386 only, not {arch}")
    names = REGISTERS[arch]
    conv = {"args": None, "ret": None, "clobbers": [], "zero": []}
    given = set()
    for field in text.split(" "):
        if not field:
            continue
        key, eq, value = field.partition("=")
        if key not in KEYS or not eq:
            raise ValueError(f"'{field}' is not KEY=REGISTERS (keys: {', '.join(KEYS)})")
        if key in given:
            raise ValueError(f"'{key}=' given twice")
        given.add(key)
        regs = register_list(key, value, names, STACK_POINTER[arch])
        limit = {"args": MAX_ARGS, "ret": 1}.get(key)
        if limit is not None and len(regs) > limit:
            raise ValueError(f"'{key}=' names more than {limit} register{'s' if limit > 1 else ''} ('{regs[limit]}')")
        conv[key] = regs[0] if key == "ret" else regs
    if conv["args"] is None:
        raise ValueError("no 'args=' (the registers of the arguments, in order)")
    consistent(conv, names)
    return conv


def register_list(key, value, names, sp):
    if not value:
        raise ValueError(f"'{key}=' names no register")
    regs = []
    for reg in value.split(","):
        if not reg:
            raise ValueError(f"'{key}=' has an empty register name")
        if reg == sp:
            raise ValueError(f"'{reg}' is the stack pointer: no argument, result or clobber")
        if reg not in names:
            valid = ", ".join(n for n in names if n != sp)
            raise ValueError(f"unknown register '{reg}' (valid: {valid})")
        if reg in regs:
            raise ValueError(f"'{reg}' named twice in '{key}='")
        regs.append(reg)
    return regs


def consistent(conv, names):
    """The checks of convention.c's consistent(), in its order (register
    number order)."""
    for reg in names:
        if reg in conv["zero"] and reg in conv["args"]:
            raise ValueError(f"'{reg}' is an argument and zero= too")
        if reg in conv["clobbers"] and reg in conv["args"]:
            raise ValueError(f"'{reg}' is an argument, so may change already: not in clobbers=")
        if reg in conv["clobbers"] and conv["ret"] == reg:
            raise ValueError(f"'{reg}' is the result: not in clobbers=")


def check_fits(conv, op):
    """ValueError unless the convention suits `op` (convention.c's
    mg_convention_fits)."""
    want = len(OPERANDS[op])
    page = op in PAGE_OPS
    if len(conv["args"]) != want and not (page and len(conv["args"]) == want + 1):
        raise ValueError(f"{op} takes {want} argument{'' if want == 1 else 's'}"
                         + (" (and may take the length, 4096, after them)" if page else "")
                         + f", and args= names {len(conv['args'])}")
    if op in VOID_OPS and conv["ret"]:
        raise ValueError(f"{op} returns nothing: no ret=")
    if op not in VOID_OPS and not conv["ret"]:
        raise ValueError(f"{op} returns a value: ret= names its register")


def text_of(conv):
    """The canonical text of a parsed convention (fields in KEYS order)."""
    parts = ["args=" + ",".join(conv["args"])]
    if conv["ret"]:
        parts.append("ret=" + conv["ret"])
    for key in ("clobbers", "zero"):
        if conv[key]:
            parts.append(f"{key}=" + ",".join(conv[key]))
    return " ".join(parts)
