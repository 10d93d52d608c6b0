/* acquire-in-branch: what is not this idiom, or only in part */

/* the barrier is only named in a comment */
static int comment_only(int *a)
{
	if (READ_ONCE(*a)) {
		/* no smp_acquire__after_ctrl_dep() needed: we hold the lock */
		return 1;
	}
	return 0;
}

/* the barrier is under an inner if: only the inner if is the site */
static int inner(int *a, int *b)
{
	if (READ_ONCE(*a)) {
		if (READ_ONCE(*b)) {
			smp_acquire__after_ctrl_dep();
			return 2;
		}
		return 1;
	}
	return 0;
}

/* the barrier follows the if, it is not in a branch */
static void after(int *a)
{
	if (READ_ONCE(*a))
		cpu_relax();
	smp_acquire__after_ctrl_dep();
}

/* a different barrier in the branch */
static void other_barrier(int *a)
{
	if (READ_ONCE(*a))
		smp_rmb();
}
