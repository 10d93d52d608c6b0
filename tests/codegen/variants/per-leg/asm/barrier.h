/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "per-leg": base-patch's generic volatile_cond(), a
 * distinct asm in each leg, on every weakly ordered architecture: what
 * arm64, powerpc and riscv would pay without __volatile_cond_taken().
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_PER_LEG_BARRIER_H
#define CODEGEN_PER_LEG_BARRIER_H

/* the weakly ordered architectures; TSO ones keep their compiler barrier */
#if defined(CONFIG_ARM64) || defined(CONFIG_ARM) || defined(CONFIG_PPC) || \
    defined(CONFIG_RISCV)
#undef __volatile_cond
#define __volatile_cond(c)						\
	((c) ? ({ asm volatile("" : : "i" (1) : "memory"); true; })	\
	     : ({ asm volatile("" : : "i" (0) : "memory"); false; }))
#endif

#endif
