/* hoisted-store-hazard: conditions wrapped in likely() or &&, and misses */

static void wrapped(atomic_t *v, struct foo *f)
{
	if (likely(atomic_read(v) && f->enabled)) {
		WRITE_ONCE(f->state, 1);
		kick(f);
	} else {
		WRITE_ONCE(f->state, 1);
	}
}

/* a store only in one branch: the control dependency orders it */
static void one_branch(atomic_t *v, struct foo *f)
{
	if (atomic_read(v)) {
		WRITE_ONCE(f->state, 1);
	} else {
		kick(f);
	}
}

/* the local variable is reloaded before the if */
static void reloaded(int *a, int *b)
{
	int q = 0;

	q = READ_ONCE(*a);
	q = *b;
	if (q) {
		WRITE_ONCE(*b, 1);
	} else {
		WRITE_ONCE(*b, 1);
	}
}
