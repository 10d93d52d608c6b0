/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "noreturn-check": base-patch's volatile_cond() with the
 * constant check of compiletime_assert(), whose error function is
 * __noreturn, in place of base-patch's, whose function is not.
 */
#include_next <asm/barrier.h>
#ifndef CODEGEN_NORETURN_CHECK_BARRIER_H
#define CODEGEN_NORETURN_CHECK_BARRIER_H

#undef volatile_cond
#define volatile_cond(...)						\
({									\
	bool __volatile_c = (__VA_ARGS__);				\
									\
	compiletime_assert(!__builtin_constant_p(__volatile_c),		\
			   "volatile_cond(): the condition is a constant"); \
	__volatile_cond(__volatile_c);					\
})

#endif
