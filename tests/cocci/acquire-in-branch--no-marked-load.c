/* acquire-in-branch: lib/closure.c in 6.12, closure_put_after_sub(): the
 * condition tests a parameter, the load is in the caller
 * (atomic_sub_return_release()): reported, low. */
static inline void closure_put_after_sub(struct closure *cl, int flags)
{
	closure_put_after_sub_checks(flags);

	if (!(flags & CLOSURE_REMAINING_MASK)) {
		smp_acquire__after_ctrl_dep();

		cl->closure_get_happened = false;

		if (cl->fn && !(flags & CLOSURE_DESTRUCTOR)) {
			atomic_set(&cl->remaining,
				   CLOSURE_RUNNING + CLOSURE_REMAINING_INITIALIZER);
			closure_queue(cl);
		}
	}
}
