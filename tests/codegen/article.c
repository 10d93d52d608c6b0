// SPDX-License-Identifier: GPL-2.0
/*
 * The examples of "Protecting control dependencies with volatile_if()"
 * (LWN, 2021), A read through @a, B written through @b.
 */
#include "codegen.h"

/* codegen: depends */
void cg_article_basic(int *a, int *b, int *c)
{
	volatile_if (LOAD(a))
		WRITE_ONCE(*b, 1);
}

/* Paul McKenney's: the same store in both legs, then different calls.
 * codegen: depends if-breaks */
void cg_identical_calls(int *a, int *b, int *c)
{
	volatile_if (LOAD(a)) {
		WRITE_ONCE(*b, 1);
		do_something();
	} else {
		WRITE_ONCE(*b, 1);
		do_something_else();
	}
}

/* The same store in both legs, and a select for the rest.
 * codegen: depends if-breaks */
void cg_identical_stores(int *a, int *b, int *c, int x)
{
	volatile_if (LOAD(a)) {
		WRITE_ONCE(*b, 1);
		*c = x + 1;
	} else {
		WRITE_ONCE(*b, 1);
		*c = x + 2;
	}
}
