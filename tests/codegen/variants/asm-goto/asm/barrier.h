/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "asm-goto": base-patch's volatile_cond() before v2, kept
 * to measure what v2 saves.  On arm64, ARM, powerpc and riscv an asm goto
 * branches over the then-leg on the value of the condition itself, an int
 * tested in 32 bits, a u64 on 32-bit ARM folded with one ORRS; elsewhere
 * (TSO) a compiler barrier.  Copied from base-patch 0001 and 0005-0008 as
 * they were, with the names prefixed so that they stand beside v2's.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_ASM_GOTO_BARRIER_H
#define CODEGEN_ASM_GOTO_BARRIER_H

#if defined(CONFIG_ARM64)
static __always_inline bool cg_volatile_cond(unsigned long cond)
{
	asm goto("cbz	%0, %l[l_no]" : : "r" (cond) : "memory" : l_no);
	return true;
l_no:
	return false;
}

static __always_inline bool cg_volatile_cond_int(unsigned int cond)
{
	asm goto("cbz	%w0, %l[l_no]" : : "r" (cond) : "memory" : l_no);
	return true;
l_no:
	return false;
}
#define cg_volatile_cond_int cg_volatile_cond_int
#elif defined(CONFIG_ARM)
static __always_inline bool cg_volatile_cond(unsigned long cond)
{
	asm goto("cmp	%0, #0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "cc", "memory" : l_no);
	return true;
l_no:
	return false;
}

static __always_inline bool cg_volatile_cond_u64(u64 cond)
{
	asm goto("orrs	ip, %Q0, %R0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "ip", "cc", "memory" : l_no);
	return true;
l_no:
	return false;
}
#define cg_volatile_cond_u64 cg_volatile_cond_u64
#elif defined(CONFIG_PPC)
#include <asm/asm-compat.h>
static __always_inline bool cg_volatile_cond(unsigned long cond)
{
	asm goto(PPC_LCMPI "%0, 0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "cr0", "memory" : l_no);
	return true;
l_no:
	return false;
}

static __always_inline bool cg_volatile_cond_int(unsigned int cond)
{
	asm goto("cmpwi	%0, 0\n\t"
		 "beq	%l[l_no]"
		 : : "r" (cond) : "cr0", "memory" : l_no);
	return true;
l_no:
	return false;
}
#define cg_volatile_cond_int cg_volatile_cond_int
#elif defined(CONFIG_RISCV)
static __always_inline bool cg_volatile_cond(unsigned long cond)
{
	asm goto("beqz	%0, %l[l_no]" : : "r" (cond) : "memory" : l_no);
	return true;
l_no:
	return false;
}

static __always_inline bool cg_volatile_cond_int(unsigned int cond)
{
	return cg_volatile_cond((long)(int)cond);
}
#define cg_volatile_cond_int cg_volatile_cond_int
#else
/* TSO: a compiler barrier, as base-patch 0002-0004 */
static __always_inline bool cg_volatile_cond(unsigned long cond)
{
	barrier();
	return cond;
}
#endif

#ifndef cg_volatile_cond_int
static __always_inline bool cg_volatile_cond_int(unsigned int cond)
{
	return cg_volatile_cond(cond);
}
#endif

#ifndef cg_volatile_cond_u64
static __always_inline bool cg_volatile_cond_u64(u64 cond)
{
	return cg_volatile_cond((unsigned long)(cond >> 32) | (unsigned long)cond);
}
#endif

/* base-patch 0001's dispatch on the size of @cond */
#define cg_volatile_cond_size(cond)	sizeof(({ cond; }))
#define cg_volatile_cond_as(fits, type, cond)				\
	((__force type)__builtin_choose_expr(fits, (cond), (type)0))

#undef volatile_cond
#define volatile_cond(cond)						\
	__builtin_choose_expr(cg_volatile_cond_size(cond) > sizeof(long),	\
		cg_volatile_cond_u64(cg_volatile_cond_as(		\
			cg_volatile_cond_size(cond) > sizeof(long), u64, cond)), \
	__builtin_choose_expr(cg_volatile_cond_size(cond) <= sizeof(int),	\
		cg_volatile_cond_int(cg_volatile_cond_as(		\
			cg_volatile_cond_size(cond) <= sizeof(int),	\
			unsigned int, cond)),				\
		cg_volatile_cond((__force unsigned long)(cond))))
#undef volatile_if
#define volatile_if(...) if (volatile_cond((__VA_ARGS__)))

#endif
