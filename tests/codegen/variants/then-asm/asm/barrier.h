/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "then-asm": base-patch's volatile_cond() with the asm of
 * the else-leg left out, as a barrier in the taken leg only was proposed in
 * the RFC's thread.  The compiler must still branch to choose whether to run
 * the asm, but it may execute the other leg's stores without a branch where
 * the instruction set has conditional stores (32-bit ARM).  Kept to measure
 * what an asm per leg costs and what it buys.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_THEN_ASM_BARRIER_H
#define CODEGEN_THEN_ASM_BARRIER_H

/* the weakly ordered architectures; TSO ones keep their compiler barrier */
#if defined(CONFIG_ARM64) || defined(CONFIG_ARM) || defined(CONFIG_PPC) || \
    defined(CONFIG_RISCV)
#undef __volatile_cond
#define __volatile_cond(c)						\
	((c) ? ({ asm volatile("" : : : "memory"); true; }) : false)
#endif

#endif
