/* acquire-in-branch: as nested-outer, the load through a local */
static int nested_outer_local(atomic_t *count, int *data, int flags)
{
	int v = atomic_read(count);

	if (v > 0) {
		if (flags & 1) {
			smp_acquire__after_ctrl_dep();
			return *data;
		}
		return 0;
	}
	return -EBUSY;
}
