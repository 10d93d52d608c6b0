/* acquire-in-branch: the condition tests atomic_inc_not_zero(), which
 * branches on its load itself: reported, medium. */
static struct obj *get_obj(struct obj *o)
{
	if (atomic_inc_not_zero(&o->refs)) {
		smp_acquire__after_ctrl_dep();
		return o;
	}
	return NULL;
}
