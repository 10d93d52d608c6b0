/* acquire-loop-exit: the loop left by an if on a local loaded in the loop */
static int wait_local(int *flag)
{
	int v;

	for (;;) {
		v = READ_ONCE(*flag);
		if (v)
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
	return v;
}
