/* acquire-early-exit: kernel/sched/core.c in 6.12, try_to_wake_up(): the
 * early exit leaves a scoped_guard(); the load is the first operand of
 * the &&: converted, high. */
int try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags)
{
	int cpu, success = 0;

	scoped_guard (raw_spinlock_irqsave, &p->pi_lock) {
		if (!ttwu_state_match(p, state, &success))
			break;

		smp_rmb();
		if (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))
			break;

#ifdef CONFIG_SMP
		/* Form a control-dep-acquire with p->on_rq == 0 above. */
		smp_acquire__after_ctrl_dep();

		WRITE_ONCE(p->__state, TASK_WAKING);
#endif
	}
	return success;
}
