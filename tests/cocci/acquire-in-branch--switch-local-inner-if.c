/* acquire-in-branch: a switch on a local that holds the load, the barrier
 * under an if on a parameter inside the case: the switch is the site. */
static int switch_local(struct obj *o, bool keep)
{
	int s = smp_load_acquire(&o->gen);

	s = READ_ONCE(o->state);
	switch (s) {
	case STATE_READY:
		if (keep) {
			smp_acquire__after_ctrl_dep();
			o->held = 1;
		}
		break;
	default:
		break;
	}
	return s;
}
