/* acquire-in-branch: the barrier under "else if (param)": the first if,
 * which tests the load, is the site (with an else branch: patch mode
 * writes if (volatile_cond(...))). */
static int else_if(int *state, int *data, bool fast)
{
	if (READ_ONCE(*state) == 1) {
		return 0;
	} else if (fast) {
		smp_acquire__after_ctrl_dep();
		return *data;
	}
	return -1;
}
