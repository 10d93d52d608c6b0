/* Canned shapes for tests/tool/test_facts.py, after kernel code. */
static inline bool ready(const struct s *p)
{
	return test_bit(READY_BIT, &p->flags);
}

static inline bool only_reads(const struct s *p)
{
	if (!ready(p))
		return false;

	/* Pairs with publish(). */
	smp_acquire__after_ctrl_dep();

	return READ_ONCE(p->timeout) > 0;
}

static inline bool put_and_test(int i, struct s *p)
{
	int old = atomic_fetch_sub_release(i, &p->refs);

	if (old == i) {
		smp_acquire__after_ctrl_dep();
		return true;
	}
	return false;
}

static bool toolong(struct s *p, int *id)
{
	unsigned int flags = READ_ONCE(p->flags);

	if (!(flags & LOCKED))
		return true;
	*id = atomic_inc_return(&count);
	return false;
}

static void wait(struct s *p)
{
	int id = 0;

	for (;;) {
		if (toolong(p, &id))	/* "if (" in a comment */
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
}

int take(struct s *p, struct q *q)
{
	int ret;
	u64 head, tail;

	tail = READ_ONCE(q->user->tail);
	head = local_read(&q->head);
	if (unlikely(!has_space(head, tail, size(q))))
		goto fail;
	q->data[head] = 1;
	WRITE_ONCE(p->state, 2);
	return 0;
fail:
	ret = -ENOSPC;
	return ret;
}
