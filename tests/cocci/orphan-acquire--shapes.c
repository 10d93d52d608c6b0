/* orphan-acquire: barriers that no conditional branch orders */

/* straight-line code */
static int straight(int *a)
{
	int v = READ_ONCE(*a);

	smp_acquire__after_ctrl_dep();
	return v;
}

/* after an if whose body does not leave */
static void no_leave(int *a, int *b)
{
	if (READ_ONCE(*a))
		WRITE_ONCE(*b, 1);
	/* the if above does not leave: this orders nothing */
	smp_acquire__after_ctrl_dep();
}

/* after an if/else, neither branch leaves */
static void if_else(int *a, int *b)
{
	if (READ_ONCE(*a)) {
		WRITE_ONCE(*b, 1);
	} else {
		WRITE_ONCE(*b, 2);
	}
	smp_acquire__after_ctrl_dep();
}

/* header-like static inline, the first statement */
static inline void first(void)
{
	smp_acquire__after_ctrl_dep();
}
