/* acquire-in-branch: an early exit on a parameter inside an if on the
 * load: the if on the load is the site, not the early exit. */
static int exit_inside(struct obj *o, bool nowait)
{
	if (READ_ONCE(o->ready)) {
		if (nowait)
			return -EAGAIN;
		smp_acquire__after_ctrl_dep();
		return o->data;
	}
	return 0;
}
