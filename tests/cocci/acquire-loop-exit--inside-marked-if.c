/* acquire-loop-exit: the loop right before the barrier is its site, even
 * inside an if on a marked load (acquire-in-branch reports nothing). */
static void loop_in_if(int *a, int *b)
{
	if (READ_ONCE(*a)) {
		while (!READ_ONCE(*b))
			cpu_relax();
		smp_acquire__after_ctrl_dep();
	}
}
