/* acquire-early-exit: a goto loop on a local that holds the load */
static int wait_count(atomic_t *v)
{
	int n;

retry:
	n = atomic_read(v);
	if (n == 0)
		goto retry;
	smp_acquire__after_ctrl_dep();
	return n;
}
