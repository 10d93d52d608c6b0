/* SPDX-License-Identifier: GPL-2.0 */
/* codegen variant "if": volatile_if() back to the plain if () it replaced. */
#include_next <asm/barrier.h>
#undef volatile_if
#define volatile_if(...) if (__VA_ARGS__)
