/* acquire-early-exit: what is not this idiom */

/* the body does not leave: orphan-acquire, not this class */
static void no_leave(int *a)
{
	if (!READ_ONCE(*a))
		cpu_relax();
	smp_acquire__after_ctrl_dep();
}

/* the body leaves only on some paths */
static int partly(int *a, int *b)
{
	if (READ_ONCE(*a)) {
		if (READ_ONCE(*b))
			return 1;
	}
	smp_acquire__after_ctrl_dep();
	return 0;
}

/* a statement between the if and the barrier */
static int between(int *a, int *b)
{
	if (!READ_ONCE(*a))
		return 0;
	WRITE_ONCE(*b, 1);
	smp_acquire__after_ctrl_dep();
	return 1;
}

/* the barrier only in a comment */
static int comment_only(int *a)
{
	if (!READ_ONCE(*a))
		return 0;
	/* smp_acquire__after_ctrl_dep() is not needed, see above */
	return 1;
}

/* already converted, with an else in the function, and one still to do */
static int converted(int *a, int *b)
{
	volatile_if (!READ_ONCE(*a))
		return 0;
	smp_acquire__after_ctrl_dep();

	volatile_if (READ_ONCE(*b) == 1) {
		WRITE_ONCE(*a, 1);
	} else {
		WRITE_ONCE(*a, 2);
	}

	if (READ_ONCE(*b) == 2)
		goto out;
	smp_acquire__after_ctrl_dep();
	return 2;
out:
	return 3;
}
