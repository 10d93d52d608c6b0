/* documented-ctrl-dep: comments that do not document a conditional */

/* the comment is about a store, no if near it */
static void no_if(struct cmdq *cmdq, u32 prod)
{
	atomic_read(&cmdq->owner_prod);
	/*
	 * Control dependency ordering from the entries becoming valid.
	 */
	writel_relaxed(prod, cmdq->prod_reg);
}

/* a comment unrelated to ordering, before an if */
static int unrelated(int *a)
{
	/* check the value */
	if (READ_ONCE(*a))
		return 1;
	return 0;
}

/* the documented if is followed by smp_acquire__after_ctrl_dep() */
static int backed(int *a)
{
	/* control dependency on *a */
	if (!READ_ONCE(*a))
		return 0;
	smp_acquire__after_ctrl_dep();
	return 1;
}

/* a comment about the code above is not about the if below it */
static void above(int *a, int *b, int size)
{
	if (!READ_ONCE(*a)) {
		if (unlikely(READ_ONCE(*b) < size))
			return;
	}

	/*
	 * The above forms a control dependency with the stores below.
	 */

	if (size > 2)
		WRITE_ONCE(*b, size);
}
