/* acquire-in-branch: the shapes of the branch and of the condition */
#define STATE_READY 1

/* ipc/mqueue.c: block, READ_ONCE() compared, comment before the barrier */
static int wq_sleep(struct ext_wait_queue *ewp)
{
	int retval;

	for (;;) {
		schedule();
		if (READ_ONCE(ewp->state) == STATE_READY) {
			/* see MQ_BARRIER for purpose/pairing */
			smp_acquire__after_ctrl_dep();
			retval = 0;
			goto out;
		}
	}
out:
	return retval;
}

/* ipc/msg.c: comparison with ERR_PTR(), blank line after the barrier */
static long do_msgrcv(struct msg_receiver *msr_d)
{
	struct msg_msg *msg;

	msg = READ_ONCE(msr_d->r_msg);
	if (msg != ERR_PTR(-EAGAIN)) {
		/* see MSG_BARRIER for purpose/pairing */
		smp_acquire__after_ctrl_dep();

		goto out_unlock1;
	}
	return 0;
out_unlock1:
	return 1;
}

/* kernel/locking/rwsem.c: negation, condition over two lines */
static long rwsem_read(struct rw_semaphore *sem)
{
	if (!(atomic_long_read(&sem->count) &
	     (RWSEM_WRITER_MASK | RWSEM_FLAG_HANDOFF))) {
		/* Provide lock ACQUIRE */
		smp_acquire__after_ctrl_dep();
		return 1;
	}
	return 0;
}

/* likely(), single statement branch */
static void single(int *flag)
{
	if (likely(READ_ONCE(*flag)))
		smp_acquire__after_ctrl_dep();
	do_work();
}

/* unlikely() and &&, barrier inside the then branch of an if/else */
static int then_else(int *a, int *b)
{
	if (unlikely(READ_ONCE(*a) && READ_ONCE(*b) == 2)) {
		smp_acquire__after_ctrl_dep();
		return 1;
	} else {
		WRITE_ONCE(*b, 3);
	}
	return 0;
}

/* barrier in the else branch (block) */
static int in_else(int *a)
{
	if (READ_ONCE(*a) == 0) {
		return -EAGAIN;
	} else {
		smp_acquire__after_ctrl_dep();
		return 0;
	}
}

/* barrier in the else branch, single statement */
static void in_else_single(int *a)
{
	if (!READ_ONCE(*a))
		cpu_relax();
	else
		smp_acquire__after_ctrl_dep();
}

/* kernel/signal.c: inside a loop, unlikely(), barrier then break */
static struct sighand_struct *lock_sighand(struct task_struct *tsk)
{
	struct sighand_struct *sighand;

	for (;;) {
		sighand = rcu_dereference(tsk->sighand);
		if (unlikely(sighand == NULL)) {
			/*
			 * Pairs with the smp_store_release() in __exit_signal().
			 */
			smp_acquire__after_ctrl_dep();
			break;
		}
		spin_lock(&sighand->siglock);
	}
	return sighand;
}

/* nested in a switch inside a while loop */
static int in_switch(int *a, int cmd)
{
	while (cmd--) {
		switch (cmd) {
		case 1:
			if (atomic_read((atomic_t *)a) > 2) {
				smp_acquire__after_ctrl_dep();
				return 1;
			}
			break;
		default:
			break;
		}
	}
	return 0;
}

/* a macro as the condition, the barrier after other statements */
static int macro_cond(struct page *page)
{
	if (PageLocked(page)) {
		count++;
		smp_acquire__after_ctrl_dep();
		return 1;
	}
	return 0;
}
