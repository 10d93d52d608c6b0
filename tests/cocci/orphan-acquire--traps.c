/* orphan-acquire: barriers that a conditional branch does order */

static int early_exit(int *a)
{
	if (!READ_ONCE(*a))
		return 0;
	foo();
	smp_acquire__after_ctrl_dep();
	return 1;
}

static int in_branch(int *a)
{
	if (READ_ONCE(*a)) {
		smp_acquire__after_ctrl_dep();
		return 1;
	}
	return 0;
}

static void after_loop(int *a)
{
	while (!READ_ONCE(*a))
		cpu_relax();
	smp_acquire__after_ctrl_dep();
}

static void after_do_loop(int *a)
{
	do {
		cpu_relax();
	} while (!READ_ONCE(*a));
	smp_acquire__after_ctrl_dep();
}

static int in_switch(int *a, int cmd)
{
	switch (cmd) {
	case 1:
		if (!READ_ONCE(*a))
			break;
		smp_acquire__after_ctrl_dep();
		return 1;
	}
	return 0;
}

/* named only in a comment: smp_acquire__after_ctrl_dep() */
static void comment_only(int *a)
{
	/* no smp_acquire__after_ctrl_dep() here */
	WRITE_ONCE(*a, 1);
}

/* converted early exit */
static int converted(int *a)
{
	volatile_if (!READ_ONCE(*a)) {
		return 0;
	} else {
		foo();
	}
	smp_acquire__after_ctrl_dep();
	return 1;
}
