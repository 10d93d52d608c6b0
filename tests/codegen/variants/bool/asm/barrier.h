/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "bool": base-patch's volatile_cond() with the condition
 * kept in a bool and no constant check, for gcc and clang alike: what the
 * check costs gcc, and what the variable costs clang.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_BOOL_BARRIER_H
#define CODEGEN_BOOL_BARRIER_H

#undef volatile_cond
#define volatile_cond(...)						\
({									\
	bool __volatile_c = (__VA_ARGS__);				\
									\
	__volatile_cond(__volatile_c);					\
})

#endif
