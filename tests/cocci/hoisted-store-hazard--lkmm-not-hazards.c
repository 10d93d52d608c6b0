/* hoisted-store-hazard: control-dependencies.txt, the fixes and the shapes
 * that are not this hazard: nothing to report. */
int a, b, c;

/* the identical stores made smp_store_release() */
void lkmm_release(void)
{
	int q;

	q = READ_ONCE(a);
	if (q) {
		smp_store_release(&b, 1);
		do_something();
	} else {
		smp_store_release(&b, 1);
		do_something_else();
	}
}

/* different values: the stores cannot be merged */
void lkmm_different(void)
{
	int q;

	q = READ_ONCE(a);
	if (q % MAX) {
		WRITE_ONCE(b, 1);
		do_something();
	} else {
		WRITE_ONCE(b, 2);
		do_something_else();
	}
}

/* the store after the if: no control dependency at all (BUG in the doc) */
void lkmm_after(void)
{
	int q;

	q = READ_ONCE(a);
	if (q) {
		WRITE_ONCE(b, 1);
	} else {
		WRITE_ONCE(b, 2);
	}
	WRITE_ONCE(c, 1);
}
