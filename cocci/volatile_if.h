/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Macro file for spatch --macro-file, for trees (or test fixtures) that do
 * not carry the project base patch: the same definition as the one the base
 * patch adds to include/asm-generic/barrier.h, so that spatch can parse
 * functions that already use volatile_if (...) { ... } else { ... }.
 */
#define volatile_if(...) if (volatile_cond(__VA_ARGS__))

/*
 * scoped_guard() (include/linux/cleanup.h, Linux 6.5 and later) is a for
 * loop that runs once.  Coccinelle 1.1.1 does not know it, and cannot parse
 * a function that leaves one with break (try_to_wake_up() in 6.12).
 */
#define scoped_guard(_name, args...) for (; _name; )
