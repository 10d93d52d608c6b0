/* acquire-early-exit: an if that leaves, then the barrier */

/* net/netfilter/nf_conntrack_core.c: return, comment in between */
static void nf_ct_gc_expired(struct nf_conn *ct)
{
	if (!refcount_inc_not_zero(&ct->ct_general.use))
		return;

	/* load ->status after refcount increase */
	smp_acquire__after_ctrl_dep();

	if (nf_ct_should_gc(ct))
		nf_ct_kill(ct);
}

/* net/netfilter/nf_conntrack_standalone.c: unlikely(), return value */
static int ct_seq_show(struct nf_conn *ct)
{
	if (unlikely(!refcount_inc_not_zero(&ct->ct_general.use)))
		return 0;

	/* load ->status after refcount increase */
	smp_acquire__after_ctrl_dep();
	return 1;
}

/* kernel/sched/core.c: &&, goto, #ifdef and a long comment in between */
static int try_to_wake_up(struct task_struct *p, int wake_flags)
{
	smp_rmb();
	if (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))
		goto unlock;

#ifdef CONFIG_SMP
	/*
	 * Ensure we load p->on_cpu _after_ p->on_rq, otherwise it would be
	 * possible to, falsely, observe p->on_cpu == 0.
	 *
	 * Form a control-dep-acquire with p->on_rq == 0 above, to ensure
	 * schedule()'s deactivate_task() has 'happened'.
	 */
	smp_acquire__after_ctrl_dep();

	p->sched_remote_wakeup = 1;
#endif
unlock:
	return 0;
}

/* continue in a list walk, blank lines only */
static void walk(struct hlist_nulls_head *head)
{
	struct nf_conn *tmp;
	struct hlist_nulls_node *n;

	hlist_nulls_for_each_entry_rcu(tmp, n, head, hnnode) {
		if (!refcount_inc_not_zero(&tmp->ct_general.use))
			continue;


		smp_acquire__after_ctrl_dep();
		nf_ct_kill(tmp);
	}
}

/* break out of a switch case, ERR_PTR() comparison */
static int in_switch(void **slot, int cmd)
{
	void *v;

	switch (cmd) {
	case 1:
		v = READ_ONCE(*slot);
		if (v == ERR_PTR(-EAGAIN))
			break;
		smp_acquire__after_ctrl_dep();
		return 1;
	default:
		break;
	}
	return 0;
}

/* a block that ends in a jump */
static int block_exit(atomic_t *v)
{
	if (atomic_read(v) < 0) {
		pr_debug("negative\n");
		return -EINVAL;
	}
	smp_acquire__after_ctrl_dep();
	return 0;
}

/* a loop in a loop: continue inside the inner loop */
static void loops(atomic_t *v, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		while (j--) {
			if (likely(atomic_read(&v[j]) != i))
				continue;
			smp_acquire__after_ctrl_dep();
			WRITE_ONCE(v[i].counter, 0);
		}
	}
}
