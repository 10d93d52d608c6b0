/* hoisted-store-hazard: identical stores in both branches */

/* control-dependencies.txt: the load in a local variable */
static void doc_example(int *a, int *b)
{
	int q;

	q = READ_ONCE(*a);
	if (q) {
		barrier();
		WRITE_ONCE(*b, 1);
		do_something();
	} else {
		barrier();
		WRITE_ONCE(*b, 1);
		do_something_else();
	}
}

/* the load in the condition, a plain store to memory */
static void plain(struct foo *f, atomic_t *v)
{
	if (atomic_read(v) > 1) {
		f->flag = 1;
		wake_up(f);
	} else {
		f->flag = 1;
	}
}

/* not a hazard: different values, a local variable, no marked load */
static int negative(int *a, int *b, struct foo *f)
{
	int x;

	if (READ_ONCE(*a)) {
		WRITE_ONCE(*b, 1);
		x = 1;
	} else {
		WRITE_ONCE(*b, 2);
		x = 1;
	}
	if (f->count) {
		WRITE_ONCE(*b, 3);
	} else {
		WRITE_ONCE(*b, 3);
	}
	return x;
}

/* converted: volatile_if keeps the stores inside */
static void converted(int *a, int *b)
{
	volatile_if (READ_ONCE(*a)) {
		WRITE_ONCE(*b, 1);
		do_something();
	} else {
		WRITE_ONCE(*b, 1);
	}
}
