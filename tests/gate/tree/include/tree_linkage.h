/* A tree's own linkage macro, as glibc's sysdep.h or the kernel's
 * linkage.h has: the gate must find it through -I. */
#define ENTRY(name)                                                                                \
	.globl name;                                                                               \
	.type name, @function;                                                                     \
	name:
#define END(name) .size name, .- name
