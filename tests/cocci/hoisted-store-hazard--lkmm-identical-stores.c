/* hoisted-store-hazard: control-dependencies.txt, the "identical stores"
 * example, on globals: medium. */
int a, b;

void lkmm_identical(void)
{
	int q;

	q = READ_ONCE(a);
	if (q) {
		barrier();
		WRITE_ONCE(b, 1);
		do_something();
	} else {
		barrier();
		WRITE_ONCE(b, 1);
		do_something_else();
	}
}
