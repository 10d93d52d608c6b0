/* documented-ctrl-dep: comments that name a control dependency */

/* kernel/events/ring_buffer.c __perf_output_begin(): the comment after the
 * outer if names the dependency; the inner if that leaves carries it */
static int perf_output_begin(struct perf_buffer *rb, unsigned int size)
{
	unsigned long tail, head;

	do {
		tail = READ_ONCE(rb->user_page->data_tail);
		head = local_read(&rb->head);
		if (!rb->overwrite) {
			if (unlikely(!ring_buffer_has_space(head, tail,
							    perf_data_size(rb),
							    size)))
				goto fail;
		}

		/*
		 * The above forms a control dependency barrier separating the
		 * @tail load above from the data stores below.
		 */
	} while (local_cmpxchg(&rb->head, head, head + size) != head);
	return 0;
fail:
	return -ENOSPC;
}

/* the comment right before the if */
static __poll_t poll(struct map *map)
{
	/*
	 * No barriers necessary because of the conditional instructions
	 * creating control dependencies.
	 */
	if (test_and_set_bit(FLAG_INFLIGHT, &map->flags))
		return 0;
	return 1;
}

/* the comment at the top of the branch */
static void top(int *a, int *b)
{
	if (READ_ONCE(*a)) {
		/* ctrl-dep: orders this store after the load */
		WRITE_ONCE(*b, 1);
	}
}

/* backed by a barrier: not reported */
static void backed(struct device *device)
{
	int stats_cnt = atomic_read(&device->dev_stats_ccnt);

	if (!device->dev_stats_valid || stats_cnt == 0)
		return;

	/*
	 * There is a LOAD-LOAD control dependency: such control dependencies
	 * require explicit read memory barriers.
	 */
	smp_rmb();
}

/* only the barrier's name in the comment: not a documented dependency */
static void named(int *a, int *b)
{
	/* see the smp_acquire__after_ctrl_dep() in the reader */
	if (READ_ONCE(*a))
		WRITE_ONCE(*b, 1);
}

/* converted: not reported */
static void converted(int *a, int *b)
{
	/* this forms a control dependency */
	volatile_if (READ_ONCE(*a)) {
		WRITE_ONCE(*b, 1);
	} else {
		WRITE_ONCE(*b, 2);
	}
}
