// SPDX-License-Identifier: GPL-2.0
/*
 * The examples of tools/memory-model/Documentation/control-dependencies.txt,
 * with "a" read through @a, "b" written through @b.
 */
#include "codegen.h"

/* codegen: depends */
void cg_load_store(int *a, int *b, int *c)
{
	int q = LOAD(a);

	volatile_if (q)
		WRITE_ONCE(*b, 1);
}

/* The compilers lift the stores above the test despite barrier().
 * codegen: depends if-breaks */
void cg_barrier_both_legs(int *a, int *b, int *c)
{
	int q = LOAD(a);

	volatile_if (q) {
		barrier();
		WRITE_ONCE(*b, 1);
		do_something();
	} else {
		barrier();
		WRITE_ONCE(*b, 1);
		do_something_else();
	}
}

/* codegen: depends */
void cg_different_stores(int *a, int *b, int *c)
{
	int q = LOAD(a);

	volatile_if (q) {
		WRITE_ONCE(*b, 1);
		do_something();
	} else {
		WRITE_ONCE(*b, 2);
		do_something_else();
	}
}

/*
 * The stores of both legs can become one store of a selected value: ordered
 * by a data dependency then, not a control dependency.  The store to c after
 * the if () is not ordered at all, and not checked.
 * codegen: depends
 */
void cg_select(int *a, int *b, int *c)
{
	int q = LOAD(a);

	volatile_if (q)
		WRITE_ONCE(*b, 1);
	else
		WRITE_ONCE(*b, 2);
	WRITE_ONCE(*c, 1);
}
