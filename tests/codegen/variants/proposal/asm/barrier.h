/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "proposal": volatile_cond() without asm goto.  The compiler
 * branches on @cond as it would for if (), and each leg starts with its own
 * volatile asm.  The two differ, so the compiler can neither merge them nor
 * execute one speculatively: to run exactly one of them it needs a
 * conditional branch on @cond before both legs, and the "memory" clobbers
 * keep the legs' stores after it.
 */
#include_next <asm/barrier.h>
#undef volatile_cond
#define volatile_cond(cond)						\
	((cond) ? ({ asm volatile("# volatile_cond: true" ::: "memory"); true; }) \
		: ({ asm volatile("# volatile_cond: false" ::: "memory"); false; }))
