// SPDX-License-Identifier: GPL-2.0
/*
 * volatile_if used the ways checkpatch has an opinion about; the test
 * compares checkpatch's verdict on this file with its verdict on the same
 * file written with if.  The statement after each "bad" comment is meant
 * to be reported.
 */
#include <linux/compiler.h>

int a, b, c;
struct ops {
	void (*fn)(void);
} *s;

#define SET_C(x) do { volatile_if (READ_ONCE(a)) c = (x); } while (0)

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

	/* bad: assignment in the condition */
	volatile_if ((c = READ_ONCE(a)))
		WRITE_ONCE(b, 1);

	/* bad: unnecessary parentheses */
	volatile_if ((READ_ONCE(a) == c))
		WRITE_ONCE(b, 1);

	volatile_if (READ_ONCE(a)) {
		WRITE_ONCE(b, 1);
		c = 5;
	/* bad: an if after a brace */
	} volatile_if (READ_ONCE(b)) {
		WRITE_ONCE(a, 1);
		c = 6;
	}

	/* braces that a nested if needs */
	volatile_if (READ_ONCE(a)) {
		volatile_if (READ_ONCE(b))
			c = 7;
	} else {
		volatile_if (READ_ONCE(b))
			c = 8;
	}

	volatile_if (READ_ONCE(a))
		c = 9;
	else volatile_if (READ_ONCE(b) &&
		READ_ONCE(a))
		c = 10;

	volatile_if (s->fn) (void)s->fn();

	/* kfree(NULL) is safe: reported on the kfree() */
	volatile_if (s)
		kfree(s);
}
