"""glibc's x86 tuning variables as its start-up code computes them, by
release (2.33 to 2.41) and by ABI (x86-64's 64-bit `long`, i386's 32-bit
one): the model of `dl_init_cacheinfo` (sysdeps/x86/dl-cacheinfo.h) and
`init_cacheinfo` (sysdeps/x86/cacheinfo.h), which both arches share, that
turns a machine's cache description and the GLIBC_TUNABLES settings into
the values of `__x86_shared_cache_size` and its kin. Facts read from
glibc's sources per release tag; docs/tunables.md lists them with the
commits that changed them. Standard library only."""

import copy
import re

# x86-64's widths (Abi below has both ABIs').
U64 = (1 << 64) - 1
SIZE_MAX = U64
LONG_MAX = (1 << 63) - 1


class Abi:
    """The integer widths the start-up code computes in: its `long`,
    `unsigned long` and `size_t` are `bits` wide."""

    def __init__(self, arch, bits):
        self.arch, self.bits = arch, bits
        self.mask = (1 << bits) - 1
        self.size_max, self.long_max = self.mask, self.mask >> 1
        self.max_nt = self.mask >> 4      # memmove shifts the threshold left by 4

    def s(self, x):
        """x as a `long` holds it (two's complement)."""
        x &= self.mask
        return x - (1 << self.bits) if x >> (self.bits - 1) else x

    def u(self, x):
        """x as an `unsigned long` holds it."""
        return x & self.mask


LP64, ILP32 = Abi("x86_64", 64), Abi("i386", 32)
ABIS = {a.arch: a for a in (LP64, ILP32)}

# Every modelled release, as its minor number (2.33 .. 2.41).
VERSIONS = tuple(range(33, 42))
MIN_NT = 0x4040            # the non-temporal threshold's lower bound (2.36 on)
MAX_NT = LP64.max_nt       # its upper bound on x86-64
NT_FALLBACK = 64 << 20     # 2.38 on: the threshold when the cache info is missing

# The glibc x86 data symbols, by the releases that define them.
COMMON = ("__x86_data_cache_size", "__x86_data_cache_size_half", "__x86_shared_cache_size",
          "__x86_shared_cache_size_half", "__x86_shared_non_temporal_threshold", "__x86_rep_movsb_threshold",
          "__x86_rep_stosb_threshold")
RAW = ("__x86_raw_data_cache_size", "__x86_raw_data_cache_size_half", "__x86_raw_shared_cache_size",
       "__x86_raw_shared_cache_size_half")


class Release:
    """A glibc as the model knows it: a release tag (2.MINOR) and the fixes
    a distribution's branch carries of later releases (`backports`, the
    names of FIXES)."""

    def __init__(self, minor, backports=(), name=None):
        self.minor, self.backports = minor, frozenset(backports)
        self.name = name or f"2.{minor}"

    def since(self, minor, fix):
        """Has it the behaviour of 2.MINOR on, named `fix` in FIXES?"""
        return self.minor >= minor or fix in self.backports

    def __eq__(self, other):
        return isinstance(other, Release) and (self.minor, self.backports) == (other.minor, other.backports)

    def __hash__(self):
        return hash((self.minor, self.backports))

    def __repr__(self):
        return self.name


# The later fixes a branch may carry, by the release that has them.
FIXES = {"nt-bounds": "48b74865c6 (2.37): the non-temporal threshold clamped to 0x4040 .. SIZE_MAX >> 4",
         "nt-quarter": "af992e7abd, 8b9a0af8ca, 47f7472178 (2.38): a quarter of the L3, at least 3/4 of a thread's share",
         "per-thread-scope": "084fb31bc2 (2.39): the thread's share divided on every path",
         "amd-per-thread": "release/2.36's own: AMD's thread share from the old thread count",
         "nt-divisor": "180897c161 (2.38): the divisor CPU-specific (8 on Haswell, 2 on Sapphire Rapids)",
         "nt-64mib": "ed2f9dc942 (2.38): 64 MiB when the threshold comes out below 0x4040",
         "wide-movsb": "61c3450db9 (2.41): the rep movsb threshold an unsigned long"}
# Debian 12's glibc 2.36 is the release/2.36 branch, which carries these
# (git log release/2.36/master -- sysdeps/x86/dl-cacheinfo.h).
DEBIAN12 = Release(36, ("nt-bounds", "nt-quarter", "per-thread-scope", "amd-per-thread", "wide-movsb"),
                   "2.36-deb12")


def variables(version):
    """The data symbols glibc 2.VERSION's x86 libc (x86-64's and i386's)
    defines for its string routines (every one a `long`, but
    `__x86_string_control`, an `int`)."""
    version = release(version).minor
    names = list(COMMON)
    if version == 33:
        names += RAW           # dropped in 2.34
    if version >= 34:
        names += ["__x86_rep_movsb_stop_threshold", "__x86_string_control"]
    if version >= 40:
        names.append("__x86_memset_non_temporal_threshold")
    return tuple(names)


def parse_version(text):
    """'2.36' (or 'glibc 2.36', '2.36.1') -> Release(36); '2.36-deb12' or
    what Debian 12's ldd says ('Debian GLIBC 2.36-9+deb12u14') -> DEBIAN12;
    ValueError naming the modelled range otherwise."""
    text = text or ""
    if re.search(r"2\.36-deb12|deb12u", text):
        return DEBIAN12
    m = re.search(r"(\d+)\.(\d+)", text)
    if not m or m.group(1) != "2" or int(m.group(2)) not in VERSIONS:
        raise ValueError(f"glibc version '{text}': the model knows 2.{VERSIONS[0]} to 2.{VERSIONS[-1]} "
                         f"and {DEBIAN12.name} (Debian 12's)")
    return Release(int(m.group(2)))


def release(version):
    """A Release of a Release or of a tag's minor number."""
    return version if isinstance(version, Release) else Release(version)


class Machine:
    """What glibc's start-up code reads of a CPU: the cache sizes CPUID
    reports (0: no such leaf or level), how many logical threads share L2
    and L3 (on AMD, `threads` is the package's logical processors and
    `ccx_threads` those of one core complex), and the features that pick
    the defaults."""

    def __init__(self, name, about, vendor, l1d, l2, l3, threads_l2=1, threads_l3=1, ccx_threads=0,
                 inclusive=True, zen=False, erms=True, fsrm=False, vec=32, nt_divisor=4,
                 avoid_nt_memset=False):
        self.name, self.about, self.vendor = name, about, vendor
        self.l1d, self.l2, self.l3 = l1d, l2, l3
        self.threads_l2, self.threads_l3, self.ccx_threads = threads_l2, threads_l3, ccx_threads
        self.inclusive, self.zen, self.erms, self.fsrm, self.vec = inclusive, zen, erms, fsrm, vec
        self.nt_divisor, self.avoid_nt_memset = nt_divisor, avoid_nt_memset


KiB, MiB, TiB = 1 << 10, 1 << 20, 1 << 40
# The table of machines: real CPUs of each vendor and generation, and the
# virtual and odd ones whose values shipped bugs came from. The first is
# the base the tunables are applied to.
MACHINES = (
    Machine("intel-skylake-sp", "Xeon Platinum 8180: 28 cores, 38.5 MiB non-inclusive L3", "intel",
            32 * KiB, 1 * MiB, 38912 * KiB, threads_l2=2, threads_l3=56, inclusive=False, vec=32,
            avoid_nt_memset=True),
    Machine("intel-haswell", "Core i7-4770: 4 cores, 8 MiB inclusive L3", "intel",
            32 * KiB, 256 * KiB, 8 * MiB, threads_l2=2, threads_l3=8, vec=32, nt_divisor=8),
    Machine("intel-icelake-sp", "Xeon 8380: 40 cores, 60 MiB L3, FSRM, AVX-512", "intel",
            48 * KiB, 1280 * KiB, 60 * MiB, threads_l2=2, threads_l3=80, inclusive=False, fsrm=True, vec=64),
    Machine("intel-sapphire-rapids", "Xeon 8480+: 56 cores, 105 MiB L3, FSRM", "intel",
            48 * KiB, 2 * MiB, 105 * MiB, threads_l2=2, threads_l3=112, inclusive=False, fsrm=True, vec=64,
            nt_divisor=2),
    Machine("intel-core2", "Core 2 Duo E8400: no L3, 6 MiB L2 for 2 threads, no ERMS", "intel",
            32 * KiB, 6 * MiB, 0, threads_l2=2, erms=False, vec=16),
    Machine("amd-zen2-epyc", "EPYC 7742: 64 cores, 16 MiB L3 per 8-thread CCX", "amd",
            32 * KiB, 512 * KiB, 16 * MiB, threads_l3=128, ccx_threads=8, zen=True, vec=32),
    Machine("amd-zen4", "Ryzen 9 7950X: 32 MiB L3 per 16-thread CCD, FSRM, AVX-512", "amd",
            32 * KiB, 1 * MiB, 32 * MiB, threads_l3=32, ccx_threads=16, zen=True, fsrm=True, vec=64),
    Machine("amd-bulldozer", "FX-8150 (family 0x15): exclusive 8 MiB L3, 2 MiB L2, no ERMS", "amd",
            16 * KiB, 2 * MiB, 8 * MiB, threads_l3=8, erms=False, vec=16),
    Machine("zhaoxin-kx6000", "KX-6000: 8 cores, 8 MiB L3", "zhaoxin",
            32 * KiB, 4 * MiB, 8 * MiB, threads_l2=4, threads_l3=8, erms=False, vec=32),
    Machine("qemu-tcg", "qemu64 under QEMU/TCG: AMD vendor, no cache leaves (every size 0), no ERMS", "amd",
            0, 0, 0, threads_l3=1, erms=False, vec=16),
    Machine("hypervisor-zero-cache", "a hypervisor passing the host's features but 0 for every cache", "intel",
            0, 0, 0, threads_l3=1, fsrm=True, vec=32),
    Machine("tiny-caches", "a virtual CPU with 1 KiB L1d, 4 KiB L2 and 16 KiB L3 for 8 threads", "intel",
            1 * KiB, 4 * KiB, 16 * KiB, threads_l2=1, threads_l3=8, vec=16),
    Machine("hypervisor-1tib-l3", "a hypervisor reporting a 1 TiB L3 on an AMD Zen CPU (glibc BZ 32470)", "amd",
            32 * KiB, 512 * KiB, 1 * TiB, threads_l3=8, ccx_threads=8, zen=True, vec=32),
    Machine("hypervisor-1tib-l3-intel", "a hypervisor reporting a 1 TiB L3 on an Intel CPU", "intel",
            48 * KiB, 2 * MiB, 1 * TiB, threads_l2=2, threads_l3=8, fsrm=True, vec=64),
)
BY_NAME = {m.name: m for m in MACHINES}


def _div(a, b):
    """C's signed division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _as_read(m, abi):
    """The machine as the start-up code holds it: handle_intel and handle_amd
    return each size as a `long` (on i386 one of 2 GiB or more is negative,
    and one of 4 GiB or more keeps its low 32 bits)."""
    if abi.bits == 64:
        return m
    m = copy.copy(m)
    m.l1d, m.l2, m.l3 = abi.s(m.l1d), abi.s(m.l2), abi.s(m.l3)
    return m


def _caches(rel, m, abi):
    """(data, core, shared, shared_per_thread) as dl_init_cacheinfo has them
    before its thresholds: the vendor paths and get_common_cache_info, in
    the ABI's `long`."""
    data, core = m.l1d, m.l2
    shared = _amd_shared(rel, m) if m.vendor == "amd" else _intel_shared(rel, m)
    return (data, core) + tuple(abi.s(x) for x in shared)


def _amd_shared(rel, m):
    if m.l3 <= 0:
        return m.l2, m.l2                 # no L3: the L2 is all there is
    if "amd-per-thread" in rel.backports:
        # The whole L3 (plus the exclusive L2 before Zen); the thread's
        # share from the old rule.
        per = _div(m.l3, m.threads_l3) if m.threads_l3 > 0 else m.l3
        per = per * m.ccx_threads if m.zen else per + m.l2
        return (m.l3 if m.zen else m.l3 + m.l2), per
    if not rel.since(38, "nt-quarter"):
        # The L3 divided among the package's threads, then (Zen) times the
        # threads of one core complex, else plus the exclusive L2.
        shared = _div(m.l3, m.threads_l3) if m.threads_l3 > 0 else m.l3
        shared = shared * m.ccx_threads if m.zen else shared + m.l2
        return shared, shared
    shared = m.l3 if (rel.minor == 38 or m.zen) else m.l3 + m.l2
    return shared, shared                 # 2.38 on: per thread is the whole


def _intel_shared(rel, m):
    shared, threads, per_l2 = m.l3, m.threads_l3, m.threads_l2
    if shared <= 0:
        shared, threads = m.l2, m.threads_l2
    if not rel.since(38, "nt-quarter"):
        if shared > 0 and threads > 0:
            shared = _div(shared, threads)
        if not m.inclusive:
            shared += _div(m.l2, per_l2) if per_l2 > 0 else m.l2
        return shared, shared
    per_thread = shared
    # 2.38 divided the per-thread share only when leaf 4 gave no thread
    # count (084fb31bc2, 2.39, fixed the scope); the model's machines give one.
    if rel.since(39, "per-thread-scope") and per_thread > 0 and threads > 0:
        per_thread = _div(per_thread, threads)
    if not m.inclusive:
        per_thread += _div(m.l2, per_l2) if per_l2 > 0 else m.l2
        shared += m.l2
    return shared, per_thread


def _non_temporal(rel, m, shared, per_thread, abi):
    """The non-temporal threshold before the tunables: an `unsigned long`
    from `long` arithmetic (`shared * 3 / 4` wraps on i386 past 682 MiB)."""
    def three_quarters(x):
        return abi.u(_div(abi.s(x * 3), 4))
    if not rel.since(38, "nt-quarter"):
        nt = three_quarters(shared)
        if rel.since(37, "nt-bounds"):    # 48b74865c6: clamped into the bounds
            nt = min(max(nt, MIN_NT), abi.max_nt)
        return nt
    # The divisor is an unsigned long: the division is unsigned.
    nt = abi.u(shared) // (m.nt_divisor if rel.since(38, "nt-divisor") else 4)
    low = three_quarters(per_thread)
    nt = max(nt, low)
    if not m.erms and not (rel.minor >= 40 and m.vendor == "zhaoxin"):
        nt = low
    if nt < MIN_NT:
        # ed2f9dc942: 64 MiB when the cache info is missing; before, the bound.
        nt = NT_FALLBACK if rel.since(38, "nt-64mib") else MIN_NT
    elif nt > abi.max_nt:
        nt = abi.max_nt
    return nt


def _rep_movsb(version, m):
    """(default, minimum) of the rep movsb threshold: by vector size."""
    wide = 4096 if version >= 35 else 2048
    default = {64: wide * 4, 32: wide * 2}.get(m.vec, 2048)
    if m.fsrm and version >= 34:
        default = 2112
    return default, m.vec * 8


def produce(version, m, tunables=None, abi=LP64):
    """{variable: value} (unsigned, as the bytes of a `long` of `abi` read)
    that glibc 2.VERSION's x86 start-up code stores for machine `m` with
    GLIBC_TUNABLES `tunables` ({'x86_non_temporal_threshold': N, ...})."""
    t = dict(tunables or {})
    rel = release(version)
    version = rel.minor
    m = _as_read(m, abi)
    data, core, shared, per_thread = _caches(rel, m, abi)
    nt = _non_temporal(rel, m, shared, per_thread, abi)
    movsb, movsb_min = _rep_movsb(version, m)
    memset_nt = abi.size_max
    if version >= 40 and not m.avoid_nt_memset and (version >= 41 or m.vendor in ("intel", "amd")):
        memset_nt = nt
    if version >= 40 and m.vendor == "amd":
        movsb = nt                        # 0c0d39fe4a: Zen's rep movsb is slow
    if not rel.since(41, "wide-movsb"):
        movsb &= 0xFFFFFFFF               # an unsigned int until 61c3450db9 (2.41)
    stosb = 2048
    # 2.34-2.35 set the stop threshold before the tunables (0355915514).
    stop_early = core if m.vendor == "amd" else nt
    data, shared, nt, memset_nt, movsb, stosb = _apply_tunables(
        rel, t, data, shared, nt, memset_nt, movsb, movsb_min, stosb, m, abi)
    if version <= 35:
        stop = stop_early
    elif version <= 39:
        stop = core if m.vendor == "amd" else nt
    else:
        stop = nt
    return _stored(version, data, shared, nt, memset_nt, movsb, stosb, stop, abi)


def _apply_tunables(rel, t, data, shared, nt, memset_nt, movsb, movsb_min, stosb, m, abi):
    """The GLIBC_TUNABLES settings, as each release takes them (a `long`
    compared with its bounds). A setting above the ABI's SIZE_MAX is
    refused by the parser and changes nothing (i386's ld.so shows it)."""
    t = {name: v for name, v in t.items() if v <= abi.size_max}

    def get(name):
        return abi.s(t[name]) if name in t else None
    v = get("x86_data_cache_size")
    if v:
        data = v
    v = get("x86_shared_cache_size")
    if v:
        shared = v
    v = get("x86_non_temporal_threshold")
    if v is not None and (MIN_NT < v <= abi.max_nt if rel.since(37, "nt-bounds") else v != 0):
        nt = abi.u(v)
    v = get("x86_memset_non_temporal_threshold")
    if rel.minor >= 40 and v is not None and MIN_NT < v <= abi.max_nt:
        memset_nt = v
    v = get("x86_rep_movsb_threshold")
    wide = rel.since(41, "wide-movsb")
    if v is not None and (abi.u(v) > movsb_min if wide else v > movsb_min):
        movsb = abi.u(v) & (abi.mask if wide else 0xFFFFFFFF)
    if "x86_rep_stosb_threshold" in t:
        stosb = abi.u(t["x86_rep_stosb_threshold"])
    elif rel.minor >= 40 and m.vendor == "amd":
        stosb = abi.size_max                 # Zen3+: the vector loop beats rep stosb
    return data, shared, nt, memset_nt, movsb, stosb


def _stored(version, data, shared, nt, memset_nt, movsb, stosb, stop, abi):
    """init_cacheinfo: the sizes (`long`s) rounded down to 256 bytes and
    halved; from 2.35 on (c242fcce06) a size of 0 or less leaves the static
    default (32 KiB, 1 MiB) in place instead of storing it."""
    out = {}
    for name, size, static in (("data", data, 32 * KiB), ("shared", shared, 1 * MiB)):
        size = abi.s(size)
        if version == 33:
            out[f"__x86_raw_{name}_cache_size"] = abi.u(size)
            out[f"__x86_raw_{name}_cache_size_half"] = abi.u(_div(size, 2))
        rounded = size & ~255
        if version >= 35 and rounded <= 0:
            rounded = static
        out[f"__x86_{name}_cache_size"] = abi.u(rounded)
        out[f"__x86_{name}_cache_size_half"] = abi.u(_div(rounded, 2))
    out["__x86_shared_non_temporal_threshold"] = abi.u(nt)
    out["__x86_rep_movsb_threshold"] = abi.u(movsb)
    out["__x86_rep_stosb_threshold"] = abi.u(stosb)
    if version >= 34:
        out["__x86_rep_movsb_stop_threshold"] = abi.u(stop)
        out["__x86_string_control"] = 0
    if version >= 40:
        out["__x86_memset_non_temporal_threshold"] = abi.u(memset_nt)
    return out


# --- the tunables' documented bounds -------------------------------------------

TUNABLES = ("x86_data_cache_size", "x86_shared_cache_size", "x86_non_temporal_threshold",
            "x86_memset_non_temporal_threshold", "x86_rep_movsb_threshold", "x86_rep_stosb_threshold")
# Values a user may write, among which each release's smallest and largest
# accepted ones are found (those that change what it stores): the bounds
# and extremes of both ABIs' `long` and `size_t`.
CANDIDATES = sorted({1, 2, 127, 128, 129, 255, 256, 257, 512, 513, MIN_NT, MIN_NT + 1,
                     ILP32.max_nt, ILP32.long_max, ILP32.long_max + 1, ILP32.size_max, 1 << 32,
                     LP64.max_nt, LP64.long_max, LP64.size_max})


def tunable_extremes(version, name, base=None, abi=LP64):
    """The smallest and largest settings of tunable `name` that change what
    glibc 2.VERSION stores on machine `base` (none: the tunable does not
    exist there or is ignored)."""
    if name == "x86_memset_non_temporal_threshold" and release(version).minor < 40:
        return []
    base = base or MACHINES[0]
    plain = produce(version, base, abi=abi)
    taken = [v for v in CANDIDATES if v <= abi.size_max and produce(version, base, {name: v}, abi) != plain]
    return sorted({taken[0], taken[-1]}) if taken else []


# --- value sets ----------------------------------------------------------------

def fmt(value):
    return f"{value:#x}" if value >= 4096 else str(value)


def producers(version, abi=LP64):
    """[(name, values)]: every machine of the table, and each tunable at the
    ends of its range on the first machine."""
    out = [(m.name, produce(version, m, abi=abi)) for m in MACHINES]
    base = MACHINES[0]
    for name in TUNABLES:
        for value in tunable_extremes(version, name, base, abi):
            out.append((f"{base.name} with glibc.cpu.{name}={fmt(value)}",
                        produce(version, base, {name: value}, abi)))
    return out


class ValueSet(list):
    """One run's values: [(variable, value)], with the label its findings
    carry (the machines or settings producing it, or the boundary) and its
    kind: 'produced' or 'boundary'."""

    def __init__(self, items, label, kind, producers=()):
        super().__init__(items)
        self.label, self.kind, self.producers = label, kind, list(producers)


def produced_sets(version, names, abi=LP64):
    """The distinct value sets of `names` (the variables a routine reads)
    that glibc 2.VERSION's producers give, each with every producer of it,
    in the table's order. A name the release does not define keeps the
    gate's default (`defaults`)."""
    from .submission import GLIBC_X86_DEFAULTS
    defaults = dict(GLIBC_X86_DEFAULTS)
    sets = {}
    for producer, values in producers(version, abi):
        key = tuple((n, values.get(n, defaults.get(n, 0))) for n in names)
        sets.setdefault(key, []).append(producer)
    return [ValueSet(list(key), label_of(who), "produced", who) for key, who in sets.items()]


def label_of(producers_):
    shown = producers_[:2]
    more = len(producers_) - len(shown)
    return ", ".join(shown) + (f" (+{more} more)" if more else "")


def boundaries(abi=LP64):
    """0, 1 and the type's extremes as a `long` holds them: LONG_MAX and -1."""
    return (0, 1, abi.long_max, abi.size_max)


def boundary_sets(names, produced, abi=LP64):
    """A set per boundary value with every variable read at it, unless a
    producer gives that very set."""
    seen = {tuple(s) for s in produced}
    out = []
    for b in boundaries(abi):
        items = [(n, b) for n in names]
        if tuple(items) not in seen:
            out.append(ValueSet(items, f"boundary {fmt(b)}", "boundary"))
    return out


def targets(valueset, names, abi=LP64):
    """What a set stands for in the cover: each variable's value class."""
    return {(n, _value_class(v, abi)) for n, v in valueset}


def _value_class(v, abi):
    """Values that behave alike for a routine's arithmetic: each small value
    on its own (< 64 KiB: loop counts and thresholds the sweep reaches), else
    its power of two, and the unsigned values that are negative as a long."""
    if v < 0x10000:
        return v
    if abi.s(v) < 0:
        return "negative"
    return f"2^{v.bit_length() - 1}"


def cover(sets, names, most, abi=LP64):
    """A covering subset of `sets`, at most `most` of them but for those it
    must keep: first the first (the table's base machine), then any that
    is a boundary set (every variable at 0, 1 or an extreme: a producer
    gives it, so a failure there is a finding), then those with each
    variable's least and greatest value (where a routine's assumption
    breaks first), then greedily the set that adds the most value classes
    not yet covered, small values first. Returns (chosen, the rest)."""
    if not sets:
        return [], []
    chosen = [sets[0]]
    bounds = {tuple((n, b) for n in names) for b in boundaries(abi)}
    chosen += [s for s in sets if tuple(s) in bounds and s not in chosen]
    for n in names:
        for pick in (min, max):
            s = pick(sets, key=lambda s: dict(s)[n])
            if s not in chosen and len(chosen) < most:
                chosen.append(s)
    covered = set().union(*(targets(s, names, abi) for s in chosen))
    rest = [s for s in sets if s not in chosen]

    def gain(s):
        new = targets(s, names, abi) - covered
        return (sum(1 for _, c in new if isinstance(c, int)), len(new))
    while rest and len(chosen) < most:
        best = max(rest, key=gain)
        if not targets(best, names, abi) - covered:
            break
        chosen.append(best)
        covered |= targets(best, names, abi)
        rest.remove(best)
    return chosen, rest


def plan(version, names, most=8, abi=LP64):
    """(runs, produced, left out): the produced sets chosen to cover the
    rest (at most `most`) followed by the boundary sets, every produced
    set, and those not run because the chosen ones cover them."""
    produced = produced_sets(version, list(names), abi)
    chosen, rest = cover(produced, names, most, abi)
    return chosen + boundary_sets(list(names), produced, abi), produced, rest
