/* acquire-early-exit: a goto loop; the if that goes back is the early
 * exit, and the barrier is no orphan. */
static void wait_for(int *x)
{
again:
	if (!READ_ONCE(*x)) {
		cpu_relax();
		goto again;
	}
	smp_acquire__after_ctrl_dep();
}
