/* orphan-acquire: smp_cond_load_acquire() as asm-generic builds it: the
 * helper supplies the branch, the barrier is no orphan. */
static int cond_load_acquire(int *ptr)
{
	int _val;

	_val = smp_cond_load_relaxed(ptr, VAL != 0);
	smp_acquire__after_ctrl_dep();
	return _val;
}
