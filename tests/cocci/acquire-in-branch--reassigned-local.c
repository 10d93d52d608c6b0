/* acquire-in-branch: the local last assigned before the if does not hold
 * the load any more: reported, low. */
static int reassigned(int *flag, int *data)
{
	int v;

	v = READ_ONCE(*flag);
	v = compute(v);
	if (v) {
		smp_acquire__after_ctrl_dep();
		return *data;
	}
	return 0;
}
