/* acquire-loop-exit: loops followed by the barrier */

/* kernel/smp.c: for (;;) left by if (...) break; */
static void __csd_lock_wait(struct __call_single_data *csd)
{
	int bug_id = 0;
	u64 ts0, ts1;

	ts1 = ts0 = sched_clock();
	for (;;) {
		if (csd_lock_wait_toolong(csd, ts0, &ts1, &bug_id))
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
}

/* spin loop on its own condition: report only */
static void spin(int *flag)
{
	while (!READ_ONCE(*flag))
		cpu_relax();
	smp_acquire__after_ctrl_dep();
}

/* do-while spin loop: report only */
static void spin_do(atomic_t *v)
{
	do {
		cpu_relax();
	} while (atomic_read(v) != 0);
	/* pairs with the release in the waker */
	smp_acquire__after_ctrl_dep();
}

/* do { } while (0) left by a break in a block: convert (the loop must
 * also be able to fall through its end: see the limitation in the rule) */
static int do_once(int *a)
{
	do {
		if (likely(READ_ONCE(*a) == 1)) {
			pr_debug("ready\n");
			break;
		}
		cpu_relax();
	} while (0);
	smp_acquire__after_ctrl_dep();
	return 0;
}

/* while (1) with the break in an inner loop and in a switch: only the
 * outer break leaves the loop the barrier follows */
static void nested(int *a, int *b, int cmd)
{
	while (1) {
		for (;;) {
			if (READ_ONCE(*b))
				break;
		}
		switch (cmd) {
		case 1:
			if (READ_ONCE(*b) == 1)
				break;
			cmd = 0;
			break;
		default:
			break;
		}
		if (unlikely(READ_ONCE(*a) == 2 && cmd))
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
}

/* an iterator loop left by a break */
static struct item *find(struct list_head *head)
{
	struct item *it;

	list_for_each_entry(it, head, node) {
		if (READ_ONCE(it->ready))
			break;
	}
	smp_acquire__after_ctrl_dep();
	return it;
}

/* a loop that exits both ways: the if is converted, the condition reported */
static void both(int *a, int *b)
{
	while (!READ_ONCE(*a)) {
		if (READ_ONCE(*b) == ERR_PTR(-EINTR))
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
}

/* already converted: nothing */
static void converted(int *a)
{
	for (;;) {
		volatile_if (READ_ONCE(*a))
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
}
