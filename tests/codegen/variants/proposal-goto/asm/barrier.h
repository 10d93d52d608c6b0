/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "proposal-goto": base-patch's asm goto, turned around.
 * The asm branches to l_no when @cond is zero and falls through into the
 * then-leg, the way the compiler lays out if (), so that no tail is
 * duplicated; and a condition of at most 32 bits is tested in a 32-bit
 * register, so that an int needs no sign extension first (arm64, powerpc).
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_PROPOSAL_GOTO_H
#define CODEGEN_PROPOSAL_GOTO_H

#if defined(CONFIG_ARM64)
static __always_inline bool volatile_cond_long(unsigned long cond)
{
	asm goto("cbz	%0, %l[l_no]" : : "r" (cond) : "memory" : l_no);
	return true;
l_no:
	return false;
}

static __always_inline bool volatile_cond_int(unsigned int cond)
{
	asm goto("cbz	%w0, %l[l_no]" : : "r" (cond) : "memory" : l_no);
	return true;
l_no:
	return false;
}
#elif defined(CONFIG_ARM)
static __always_inline bool volatile_cond_long(unsigned long cond)
{
	asm goto("cmp	%0, #0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "cc", "memory" : l_no);
	return true;
l_no:
	return false;
}
#define volatile_cond_int volatile_cond_long

static __always_inline bool volatile_cond_u64(u64 cond)
{
	asm goto("orrs	ip, %Q0, %R0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "ip", "cc", "memory" : l_no);
	return true;
l_no:
	return false;
}
#elif defined(CONFIG_PPC)
static __always_inline bool volatile_cond_long(unsigned long cond)
{
	asm goto(PPC_LCMPI "%0, 0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "cr0", "memory" : l_no);
	return true;
l_no:
	return false;
}

static __always_inline bool volatile_cond_int(unsigned int cond)
{
	asm goto("cmpwi	%0, 0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "cr0", "memory" : l_no);
	return true;
l_no:
	return false;
}
#elif defined(CONFIG_RISCV)
/* Registers hold an int sign-extended: no 32-bit test needed. */
static __always_inline bool volatile_cond_long(unsigned long cond)
{
	asm goto("beqz	%0, %l[l_no]" : : "r" (cond) : "memory" : l_no);
	return true;
l_no:
	return false;
}
#define volatile_cond_int volatile_cond_long
#else
#define volatile_cond_long __volatile_cond
#define volatile_cond_int __volatile_cond
#endif
#ifndef CONFIG_ARM
#define volatile_cond_u64 __volatile_cond_u64
#endif

#endif

#define __volatile_cond_size(cond) sizeof(({ cond; }))
#undef volatile_cond
#define volatile_cond(cond)						\
	__builtin_choose_expr(__volatile_cond_size(cond) > sizeof(long),	\
		volatile_cond_u64((__force u64)__builtin_choose_expr(	\
			__volatile_cond_size(cond) > sizeof(long), (cond), 0ULL)), \
	__builtin_choose_expr(__volatile_cond_size(cond) <= sizeof(int),	\
		volatile_cond_int((__force unsigned int)__builtin_choose_expr( \
			__volatile_cond_size(cond) <= sizeof(int), (cond), 0U)), \
		volatile_cond_long((__force unsigned long)(cond))))
