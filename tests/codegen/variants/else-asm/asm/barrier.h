/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "else-asm": base-patch's generic volatile_cond() with the
 * asm of the then-leg left out, the mirror of "then-asm": free where the
 * then-leg only leaves (return, goto, break), as in most of the kernel's
 * sites, and as weak as "then-asm" on 32-bit ARM.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_ELSE_ASM_BARRIER_H
#define CODEGEN_ELSE_ASM_BARRIER_H

/* the weakly ordered architectures; TSO ones keep their compiler barrier */
#if defined(CONFIG_ARM64) || defined(CONFIG_ARM) || defined(CONFIG_PPC) || \
    defined(CONFIG_RISCV)
#undef __volatile_cond
#define __volatile_cond(c)						\
	((c) ? true : ({ asm volatile("" : : : "memory"); false; }))
#endif

#endif
