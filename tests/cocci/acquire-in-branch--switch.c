/* acquire-in-branch: a switch on a marked load with the barrier in a case:
 * reported, volatile_if() cannot express a switch. */
static int on_switch(struct obj *o)
{
	switch (READ_ONCE(o->state)) {
	case STATE_READY:
		smp_acquire__after_ctrl_dep();
		return o->data;
	case STATE_DEAD:
		return -ENOENT;
	default:
		return -EAGAIN;
	}
}
