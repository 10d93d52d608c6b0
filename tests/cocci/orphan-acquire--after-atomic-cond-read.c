/* orphan-acquire: atomic_cond_read_relaxed() supplies the branch */
static void wait_zero(atomic_t *v)
{
	atomic_cond_read_relaxed(v, !VAL);
	smp_acquire__after_ctrl_dep();
}
