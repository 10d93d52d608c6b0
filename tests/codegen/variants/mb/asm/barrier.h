/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codegen variant "mb": the fallback of architectures without a
 * volatile_cond(), a full barrier after the condition (as in the RFC).
 */
#include_next <asm/barrier.h>
#undef volatile_if
#define volatile_if(cond) if (({ bool __t = (cond); smp_mb(); __t; }))
