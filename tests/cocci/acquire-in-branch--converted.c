/* acquire-in-branch: sites that already use volatile_if are left alone */

/* converted, with an else branch: needs the macro file to parse */
static int both(int *a, int *b)
{
	volatile_if (READ_ONCE(*a) == 1) {
		smp_acquire__after_ctrl_dep();
		WRITE_ONCE(*b, 1);
	} else {
		WRITE_ONCE(*b, 2);
	}

	/* not converted yet, in the same function: still found */
	if (READ_ONCE(*b) == 3) {
		smp_acquire__after_ctrl_dep();
		return 3;
	}
	return 0;
}

/* converted, no else, single statement, and one left to convert */
static int no_else(int *a)
{
	volatile_if (READ_ONCE(*a))
		smp_acquire__after_ctrl_dep();

	if (atomic_read((atomic_t *)a) == 2) {
		smp_acquire__after_ctrl_dep();
		return 2;
	}
	return 0;
}

/* all converted */
static int all_done(int *a)
{
	volatile_if (!READ_ONCE(*a)) {
		return 0;
	} else {
		smp_acquire__after_ctrl_dep();
		return 1;
	}
}
