/* ibt_no_endbr: a correct memcpy in an object whose GNU property note claims IBT
 * (GNU_PROPERTY_X86_FEATURE_1_AND, IBT and SHSTK, as gcc -fcf-protection
 * marks it): it promises that every function an indirect branch may reach
 * starts with endbr64 (x86-psABI, "Intel CET").
 * BUG: the entry lacks endbr64. A loader that enforces IBT (every object of
 * the process marked) turns it on, and the first indirect call (through the
 * PLT, a function pointer, an ifunc) faults with #CP: the gate's isa check
 * sees it statically (landing-pad); no machine here enforces IBT.
 *
 * void *ibt_no_endbr(void *d, const void *s, size_t n): rdi, rsi, rdx; rax = d.
 */
	.text
	.globl	ibt_no_endbr
	.type	ibt_no_endbr, @function
ibt_no_endbr:
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
	.size	ibt_no_endbr, .-ibt_no_endbr

	.section .note.gnu.property, "a"
	.p2align 3
	.long	4			/* name size: "GNU\0" */
	.long	16			/* descriptor size */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002		/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4
	.long	3			/* IBT | SHSTK */
	.long	0			/* padding to 8 bytes */

	.section .note.GNU-stack, "", @progbits
