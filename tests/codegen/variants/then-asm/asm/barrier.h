/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "then-asm": base-patch's __volatile_cond_taken(), the asm
 * of the taken leg alone, on 32-bit ARM too, which keeps an asm in each leg.
 * The compiler must still branch to choose whether to run the asm, but it
 * may execute the other leg's stores without a branch where the
 * instruction set has conditional stores: kept to show that on ARM.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_THEN_ASM_BARRIER_H
#define CODEGEN_THEN_ASM_BARRIER_H

/* the weakly ordered architectures; TSO ones keep their compiler barrier */
#if defined(CONFIG_ARM64) || defined(CONFIG_ARM) || defined(CONFIG_PPC) || \
    defined(CONFIG_RISCV)
#undef __volatile_cond
#define __volatile_cond(c)	__volatile_cond_taken(c)
#endif

#endif
