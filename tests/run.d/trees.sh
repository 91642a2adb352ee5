# Routines of current trees, not only Debian's (issue 23): a kernel file of
# each tree generation (6.1's macros; the 6.19 era's SYM_FUNC_ALIAS_MEMFUNC,
# SYM_PIC_ALIAS, __stringify, X86_FEATURE_FSRS, arm64's MOPS alternative)
# gated with `scripts/gate --kernel` from a folder outside memgate, with no
# linux-source and no hand-made header stand-ins; a glibc object of each
# generation (2.36's data, and master's __x86_memset_non_temporal_threshold)
# gated as its build made it. The files are this test's own, written the
# way those trees write theirs, never the trees' text.
# Sourced by tests/run (uses expect, expect_all, usage_error, arch_wanted,
# skip, $TMP).

echo "== current trees: the kernel shim's generations, glibc's built objects"
tr_dir=$TMP/trees
mkdir -p "$tr_dir/arch/x86/lib" "$tr_dir/arch/arm64/lib"
# --skip is each test's own: the gate takes a flag once.
TREE_FLAGS=(--quick --no-bench)

# 6.1: SYM_FUNC_START, ALTERNATIVE_2 on REP_GOOD and ERMS, a weak alias.
cat >"$tr_dir/arch/x86/lib/tcopy_61.S" <<'EOF'
#include <linux/linkage.h>
#include <asm/cpufeatures.h>
#include <asm/alternative.h>
#include <asm/export.h>
SYM_FUNC_START(__tcopy)
	ALTERNATIVE_2 "jmp tcopy_loop", "", X86_FEATURE_REP_GOOD, "jmp tcopy_bytes", X86_FEATURE_ERMS
	movq %rdi, %rax
	movq %rdx, %rcx
	shrq $3, %rcx
	andl $7, %edx
	rep movsq
	movl %edx, %ecx
	rep movsb
	RET
SYM_FUNC_END(__tcopy)
EXPORT_SYMBOL(__tcopy)
SYM_FUNC_ALIAS_WEAK(tcopy, __tcopy)
SYM_FUNC_START_LOCAL(tcopy_bytes)
	movq %rdi, %rax
	movq %rdx, %rcx
	rep movsb
	RET
SYM_FUNC_END(tcopy_bytes)
SYM_FUNC_START_LOCAL(tcopy_loop)
	movq %rdi, %rax
	xorl %ecx, %ecx
1:	cmpq %rdx, %rcx
	je 2f
	movb (%rsi, %rcx), %r8b
	movb %r8b, (%rdi, %rcx)
	incq %rcx
	jmp 1b
2:	RET
SYM_FUNC_END(tcopy_loop)
EOF

# The 6.19 era: the alias macros of 6.5 and 6.16, an alternative quoted
# with __stringify, tested on FSRS.
cat >"$tr_dir/arch/x86/lib/tset_619.S" <<'EOF'
#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/cpufeatures.h>
#include <asm/alternative.h>
#define TSET_BYTES movq %rdi, %r9; movzbl %sil, %eax; movq %rdx, %rcx; rep stosb; movq %r9, %rax; RET
SYM_FUNC_START(__tset)
	ALTERNATIVE "jmp tset_loop", __stringify(TSET_BYTES), X86_FEATURE_FSRS
SYM_FUNC_END(__tset)
EXPORT_SYMBOL(__tset)
SYM_FUNC_ALIAS_MEMFUNC(tset, __tset)
SYM_PIC_ALIAS(tset)
EXPORT_SYMBOL(tset)
SYM_FUNC_START_LOCAL(tset_loop)
	movq %rdi, %rax
	testq %rdx, %rdx
	jz 2f
1:	movb %sil, -1(%rdi, %rdx)
	decq %rdx
	jnz 1b
2:	RET
SYM_FUNC_END(tset_loop)
EOF

# The tree's files by their paths in it (the gate reads them from memgate's
# folder today: issue 23's first item makes relative paths the user's).
tr_gate() { scripts/gate "$@"; }
expect_all "trees: a 6.1-era kernel memcpy, its ERMS alternative, through the shim, the kernel contract" 0 \
	"^memgate gate: __tcopy \(memcpy, x86_64, kernel contract\)" \
	"^abi +PASS .*no vector or x87 state \(kernel\)" "^ACCEPTED.*: __tcopy passed" -- \
	tr_gate --kernel -D ZOO_CPU=X86_FEATURE_ERMS --requires erms --op memcpy --symbol __tcopy \
	"${TREE_FLAGS[@]}" --skip=huge,fuzz "$tr_dir/arch/x86/lib/tcopy_61.S"
expect_all "trees: the same file's CPU without REP_GOOD runs its local loop (the shim's default CPU)" 0 \
	"^ACCEPTED.*: __tcopy passed" -- \
	tr_gate --kernel --entry memcpy=__tcopy "${TREE_FLAGS[@]}" --skip=huge,fuzz,valgrind "$tr_dir/arch/x86/lib/tcopy_61.S"
expect_all "trees: a 6.19-era kernel memset (MEMFUNC and PIC aliases, __stringify, FSRS) is accepted" 0 \
	"^isa +PASS .*minimal --requires: none" "^ACCEPTED.*: __tset passed" -- \
	tr_gate --kernel -D ZOO_CPU=X86_FEATURE_FSRS --op memset --symbol __tset --report "$tr_dir/tset.json" \
	"${TREE_FLAGS[@]}" --skip=huge,fuzz "$tr_dir/arch/x86/lib/tset_619.S"
expect "trees: the JSON report says the kernel contract" 0 "^kernel$" \
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["contract"])' "$tr_dir/tset.json"
expect "trees: an explicit --contract user wins over the shim's default" 0 "user contract" \
	tr_gate --kernel --contract user -D ZOO_CPU=X86_FEATURE_FSRS --op memset --symbol tset \
	"${TREE_FLAGS[@]}" --skip=huge,fuzz,valgrind "$tr_dir/arch/x86/lib/tset_619.S"
# What the shim lacks is said as such: not data, not the routine's fault.
sed 's/X86_FEATURE_FSRS/X86_FEATURE_NEWER/' "$tr_dir/arch/x86/lib/tset_619.S" >"$tr_dir/arch/x86/lib/tset_new.S"
usage_error "trees: a kernel constant the shim lacks is named as one, before anything builds" \
	"tests the kernel constant X86_FEATURE_NEWER, which memgate's kernel shim .* does not define: an assembler constant .*not data \(no --extern gives it\)" \
	tr_gate --kernel --op memset --symbol __tset "$tr_dir/arch/x86/lib/tset_new.S"
# Without the shim, an undefined name in an .if is an assembler constant
# of the tree's headers: -D or -I, never --extern.
cat >"$tr_dir/tconst.S" <<'EOF'
	.text
	.globl tconst_copy
tconst_copy:
	movq %rdi, %rax
	movq %rdx, %rcx
.if (0) & (TREE_FAST_STRINGS)
	nop
.endif
	rep movsb
	ret
EOF
usage_error "trees: an undefined assembler constant is one, not data for --extern" \
	"uses assembler constants it does not define: TREE_FAST_STRINGS .*-D NAME=VALUE.*not data for --extern" \
	tr_gate --op memcpy --symbol tconst_copy "$tr_dir/tconst.S"
usage_error "trees: --requires knows fsrs only as a word it knows" "unknown feature 'fsrz' in --requires \(valid: .*fsrs" \
	tr_gate --op memset --symbol __tset --requires fsrz "$tr_dir/arch/x86/lib/tset_619.S"

# arm64, both generations: 6.1's alternative_if, the 6.19 era's MOPS
# routine, built for a CPU without MOPS (the generic code, the MOPS code
# left out as an assembler without it would) and for one with it (a SKIP:
# no qemu 7.2 model has MOPS).
if ! arch_usable aarch64 "trees: arm64 kernel files" tr_why; then
	:
else
	cat >"$tr_dir/arch/arm64/lib/tset.S" <<'EOF'
#include <linux/linkage.h>
#include <asm/assembler.h>
SYM_FUNC_START_LOCAL(__pi_tset_generic)
	mov	x3, x0
	cbz	x2, 2f
alternative_if ARM64_HAS_NO_HW_PREFETCH
	prfm	pstl1strm, [x3]
alternative_else_nop_endif
1:	strb	w1, [x3], #1
	subs	x2, x2, #1
	b.ne	1b
2:	ret
SYM_FUNC_END(__pi_tset_generic)
#ifdef CONFIG_AS_HAS_MOPS
	.arch_extension mops
SYM_FUNC_START(__pi_tset)
alternative_if_not ARM64_HAS_MOPS
	b	__pi_tset_generic
alternative_else_nop_endif
	mov	x3, x0
	setp	[x3]!, x2!, x1
	setm	[x3]!, x2!, x1
	sete	[x3]!, x2!, x1
	ret
SYM_FUNC_END(__pi_tset)
#else
SYM_FUNC_ALIAS(__pi_tset, __pi_tset_generic)
#endif
SYM_FUNC_ALIAS(__tset, __pi_tset)
SYM_FUNC_ALIAS_WEAK(tset, __pi_tset)
EOF
	expect_all "trees: an arm64 memset of the 6.19 era on a CPU without MOPS is accepted, kernel contract" 0 \
		"^memgate gate: __tset \(memset, aarch64, under qemu-aarch64, kernel contract\)" \
		"^isa +PASS .*minimal --requires: none" "^ACCEPTED.*: __tset passed" -- \
		tr_gate --kernel --arch aarch64 -D ZOO_CPU=ARM64_HAS_NO_HW_PREFETCH --op memset --symbol __tset \
		--quick --no-bench --skip=huge,fuzz "$tr_dir/arch/arm64/lib/tset.S"
	expect "trees: its MOPS alternative assembles and is a SKIP where no CPU model has MOPS" 2 \
		"^SKIP \(needs mops: no qemu model here has mops\)" \
		tr_gate --kernel --arch aarch64 -D ZOO_CPU=ARM64_HAS_MOPS --requires mops --op memset --symbol __tset \
		--quick "$tr_dir/arch/arm64/lib/tset.S"
fi

# glibc: an object as the tree's build makes it, gated as it is. 2.36's
# objects read __x86_shared_non_temporal_threshold; master's memset reads
# __x86_memset_non_temporal_threshold too: both have their defaults.
cat >"$tr_dir/tglibc_set.S" <<'EOF'
	.text
	.globl __tglibc_memset
	.hidden __tglibc_memset
__tglibc_memset:
	movq %rdi, %rax
	movq %rdx, %rcx
	cmpq __x86_memset_non_temporal_threshold(%rip), %rdx
	jae 1f
	cmpq __x86_rep_stosb_threshold(%rip), %rdx
1:	movq %rdi, %r9
	movl %esi, %eax
	rep stosb
	movq %r9, %rax
	ret
EOF
cc -c -o "$tr_dir/tglibc_set.o" "$tr_dir/tglibc_set.S"
expect_all "trees: a glibc-master-like built object reading __x86_memset_non_temporal_threshold is accepted" 0 \
	"^ACCEPTED.*: __tglibc_memset passed" -- \
	tr_gate --entry memset=__tglibc_memset "${TREE_FLAGS[@]}" --skip=huge,fuzz,valgrind "$tr_dir/tglibc_set.o"
