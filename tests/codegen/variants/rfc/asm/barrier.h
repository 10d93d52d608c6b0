/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "rfc": volatile_cond() of the 2021 RFC, "[RFC] LKMM: Add
 * volatile_if()" by Peter Zijlstra, June 2021: the condition made a bool,
 * then a fixed branch on it.  Copied as the baseline, with asm goto for the
 * asm_volatile_goto() this kernel no longer has.  The RFC had no riscv
 * version (riscv got the smp_mb() fallback, variant "mb"), so riscv gets one
 * in the same style here.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_RFC_BARRIER_H
#define CODEGEN_RFC_BARRIER_H

#if defined(CONFIG_ARM64)
static __always_inline _Bool volatile_cond_rfc(_Bool cond)
{
	asm goto("cbnz %0, %l[l_yes]"
		 : : "r" (cond) : "cc", "memory" : l_yes);
	return 0;
l_yes:
	return 1;
}
#elif defined(CONFIG_ARM)
static __always_inline _Bool volatile_cond_rfc(_Bool cond)
{
	asm goto("teq %0, #0; bne %l[l_yes]"
		 : : "r" (cond) : "cc", "memory" : l_yes);
	return 0;
l_yes:
	return 1;
}
#elif defined(CONFIG_PPC)
static __always_inline bool volatile_cond_rfc(bool cond)
{
	asm goto("and. %0,%0,%0; bne %l[l_yes]"
		 : : "r" (cond) : "cc", "memory" : l_yes);
	return false;
l_yes:
	return true;
}
#elif defined(CONFIG_RISCV)
static __always_inline bool volatile_cond_rfc(bool cond)
{
	asm goto("bnez %0, %l[l_yes]"
		 : : "r" (cond) : "memory" : l_yes);
	return false;
l_yes:
	return true;
}
#else
/* TSO prohibits the LOAD->STORE reorder. */
#define volatile_cond_rfc(cond)	({ bool __t = (cond); barrier(); __t; })
#endif

#endif
#undef volatile_if
#define volatile_if(...) if (volatile_cond_rfc((__VA_ARGS__)))
