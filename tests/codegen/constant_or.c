// SPDX-License-Identifier: GPL-2.0
/*
 * A condition that folds to a constant: the load is short-circuited
 * away by a true term.
 * A file of its own: volatile_if() refuses to compile a constant
 * condition, and a compile error is the verdict of every case in the file.
 */
#include "codegen.h"

/* codegen: constant */
void cg_short_circuit(int *a, int *b, int *c)
{
	int q = LOAD(a);

	volatile_if (q || 1 > 0)
		WRITE_ONCE(*b, 1);
}
