/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code-generation corpus of control dependencies, compiled with the
 * kernel's headers and flags by tool/volatile_if/codegen/corpus.py.
 *
 * A case is a function cg_<name>(a, b, c, ...): the marked load reads
 * through @a, the stores that must be ordered after it write through @b,
 * anything else goes through @c.  The line "codegen: <tags>" in the comment
 * right before the function says what to expect:
 *
 *   depends    the condition depends on the load: volatile_if must be
 *              guaranteed
 *   if-breaks  a compiler breaks the plain if () somewhere
 *   constant   the condition folds to a constant: volatile_if must refuse
 *              to compile it (a file of its own, since a compile error is
 *              the verdict of every case in the file)
 *   far        a leg longer than a short conditional branch reaches
 *
 * The cases are written with volatile_if.  The variant compiled is chosen
 * by the include path: variants/<name>/asm/barrier.h redefines volatile_if
 * (no directory: base-patch's own), and CODEGEN_ACQUIRE turns LOAD() into
 * smp_load_acquire().
 */
#ifndef CODEGEN_H
#define CODEGEN_H

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/processor.h>

#ifdef CODEGEN_ACQUIRE
#define LOAD(p)		smp_load_acquire(p)
#ifdef CONFIG_64BIT
#define LOAD64(p)	smp_load_acquire(p)
#else
/* smp_load_acquire() takes a word at most; what it does on 32-bit arm */
#define LOAD64(p)	({ u64 __v = READ_ONCE(*(p)); smp_mb(); __v; })
#endif
#else
#define LOAD(p)		READ_ONCE(*(p))
#define LOAD64(p)	READ_ONCE(*(p))
#endif

void do_something(void);
void do_something_else(void);
bool ext_check(int *c);

#endif
