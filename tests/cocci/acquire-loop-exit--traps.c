/* acquire-loop-exit: what is not this idiom */

/* the if in the loop does not leave it */
static void no_break(int *a, int *b)
{
	for (;;) {
		if (READ_ONCE(*a))
			WRITE_ONCE(*b, 1);
		if (need_resched())
			return;
	}
	smp_acquire__after_ctrl_dep();
}

/* the barrier is not right after the loop */
static void not_after(int *a, int *b)
{
	for (;;) {
		if (READ_ONCE(*a))
			break;
	}
	WRITE_ONCE(*b, 1);
	smp_acquire__after_ctrl_dep();
}

/* named only in a comment */
static void comment_only(int *a)
{
	while (!READ_ONCE(*a))
		cpu_relax();
	/* smp_acquire__after_ctrl_dep() is implied by the caller */
}

/* the break leaves a switch, inside a loop with a constant condition */
static void switch_only(int *a, int cmd)
{
	while (1) {
		switch (cmd) {
		case 0:
			if (READ_ONCE(*a))
				break;
			return;
		}
		cmd++;
	}
	smp_acquire__after_ctrl_dep();
}

/* two sites in one function, one of them already converted */
static void half(int *a, int *b)
{
	for (;;) {
		volatile_if (READ_ONCE(*a) == 1) {
			break;
		} else {
			cpu_relax();
		}
	}
	smp_acquire__after_ctrl_dep();

	for (;;) {
		if (READ_ONCE(*b) == 2)
			break;
		cpu_relax();
	}
	/* comments between the loop and the barrier do not matter */

	smp_acquire__after_ctrl_dep();
}
