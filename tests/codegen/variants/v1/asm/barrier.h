/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "v1": base-patch's first volatile_cond(), kept to measure
 * what the current one saves.  The condition's value, widened to a long,
 * and a branch to the then-leg (CBNZ, BNE, BNEZ), so the compiler jumps
 * back over it to reach the else-leg; no 32-bit test of an int.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_V1_BARRIER_H
#define CODEGEN_V1_BARRIER_H

#if defined(CONFIG_ARM64)
static __always_inline bool volatile_cond_v1(unsigned long cond)
{
	asm goto("cbnz	%0, %l[l_yes]" : : "r" (cond) : "memory" : l_yes);
	return false;
l_yes:
	return true;
}
#elif defined(CONFIG_ARM)
static __always_inline bool volatile_cond_v1(unsigned long cond)
{
	asm goto("cmp	%0, #0\n\t"
		 "bne	%l[l_yes]"
		 : : "r" (cond) : "cc", "memory" : l_yes);
	return false;
l_yes:
	return true;
}

static __always_inline bool volatile_cond_v1_u64(u64 cond)
{
	asm goto("orrs	ip, %Q0, %R0\n\t"
		 "bne	%l[l_yes]"
		 : : "r" (cond) : "ip", "cc", "memory" : l_yes);
	return false;
l_yes:
	return true;
}
#define volatile_cond_v1_u64 volatile_cond_v1_u64
#elif defined(CONFIG_PPC)
#include <asm/asm-compat.h>
static __always_inline bool volatile_cond_v1(unsigned long cond)
{
	asm goto(PPC_LCMPI "%0, 0\n\t"
		 "bne	%l[l_yes]"
		 : : "r" (cond) : "cr0", "memory" : l_yes);
	return false;
l_yes:
	return true;
}
#elif defined(CONFIG_RISCV)
static __always_inline bool volatile_cond_v1(unsigned long cond)
{
	asm goto("bnez	%0, %l[l_yes]" : : "r" (cond) : "memory" : l_yes);
	return false;
l_yes:
	return true;
}
#else
/* TSO: a compiler barrier */
static __always_inline bool volatile_cond_v1(unsigned long cond)
{
	barrier();
	return cond;
}
#endif
#ifndef volatile_cond_v1_u64
#define volatile_cond_v1_u64(cond) \
	volatile_cond_v1((unsigned long)((cond) >> 32) | (unsigned long)(cond))
#endif

#define __volatile_cond_v1_u64(cond) (sizeof(({ cond; })) > sizeof(long))
#undef volatile_cond
#define volatile_cond(cond)						\
	__builtin_choose_expr(__volatile_cond_v1_u64(cond),		\
		volatile_cond_v1_u64((__force u64)__builtin_choose_expr( \
			__volatile_cond_v1_u64(cond), (cond), 0ULL)),	\
		volatile_cond_v1((__force unsigned long)(cond)))
#undef volatile_if
#define volatile_if(...) if (volatile_cond((__VA_ARGS__)))

#endif
