/* acquire-in-branch: the load is tested by the outer if, the barrier sits
 * under an inner if on a parameter: the outer if is the site. */
static int nested_outer(struct obj *o, bool wait)
{
	if (READ_ONCE(o->ready)) {
		o->seen++;
		if (wait) {
			smp_acquire__after_ctrl_dep();
			return o->data;
		}
	}
	return -EAGAIN;
}
