/* copy_to_user as copy_to_user_bracketed.S, every user access between stac
 * and clac, but the fixup of the last byte returns without its clac: a
 * fault there hands the caller a kernel running with user access enabled
 * (EFLAGS.AC set), so that any later stray access to user memory goes
 * unseen by SMAP, which objtool refuses ("return with UACCESS enabled").
 * Outside the kernel stac and clac are nops (MG_STAC, MG_CLAC), so it
 * passes every run-time check; only the gate's uaccess check sees it
 * (smap-left-open, docs/contract.md U11). x86-64 and i386 (usercopy_x86.h). */
#define BRACKETED_NAME bad_copy_to_user_fault_leaves_stac
#define LAST_FIXUP_CLOSES /* the brackets left open */
#include "copy_to_user_bracketed.S"
