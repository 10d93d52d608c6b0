/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Macro file for spatch --macro-file, for trees (or test fixtures) that do
 * not carry the project base patch: the same definition as the one the base
 * patch adds to include/asm-generic/barrier.h, so that spatch can parse
 * functions that already use volatile_if (...) { ... } else { ... }.
 */
#define volatile_if(cond) if (volatile_cond(cond))
