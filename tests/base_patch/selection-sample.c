// SPDX-License-Identifier: GPL-2.0
/*
 * volatile_if used the ways checkpatch has an opinion about; the test
 * compares checkpatch's verdict on this file with its verdict on the same
 * file written with if.  The statement after each "bad" comment is meant
 * to be reported.
 */
#include <linux/compiler.h>

int a, b, c;

void sample(void)
{
	volatile_if (READ_ONCE(a)) {
		WRITE_ONCE(b, 1);
		c = 1;
	} else {
		WRITE_ONCE(b, 2);
		c = 2;
	}

	volatile_if (READ_ONCE(a))
		WRITE_ONCE(b, 1);
	else
		c = 2;

	/* bad: braces not necessary */
	volatile_if (READ_ONCE(a)) {
		WRITE_ONCE(b, 1);
	}

	/* bad: space required */
	volatile_if(READ_ONCE(a))
		c = 3;

	/* bad: trailing statement */
	volatile_if (READ_ONCE(a)) c = 3;

	/* bad: brace on the previous line */
	volatile_if (READ_ONCE(a))
	{
		WRITE_ONCE(b, 1);
		c = 4;
	}
}
