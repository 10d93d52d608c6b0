// SPDX-License-Identifier: GPL-2.0
/*
 * A condition that folds to a constant: the q % MAX example of
 * control-dependencies.txt.
 * A file of its own: volatile_if() refuses to compile a constant
 * condition, and a compile error is the verdict of every case in the file.
 */
#include "codegen.h"

/* the document's MAX; x86 headers have a MAX of their own */
#define CG_MAX 1

/* MAX == 1: q % MAX is 0 whatever q is.
 * codegen: constant */
void cg_constant_mod(int *a, int *b, int *c)
{
	int q = LOAD(a);

	volatile_if (q % CG_MAX) {
		WRITE_ONCE(*b, 1);
		do_something();
	} else {
		WRITE_ONCE(*b, 2);
		do_something_else();
	}
}
