/* acquire-early-exit: lib/rcuref.c in 6.12, rcuref_put_slowpath(): the
 * branch on atomic_try_cmpxchg_release()'s result */
static bool rcuref_put_slowpath(rcuref_t *ref, unsigned int cnt)
{
	if (likely(cnt == RCUREF_NOREF)) {
		if (!atomic_try_cmpxchg_release(&ref->refcnt, &cnt, RCUREF_DEAD))
			return false;

		/*
		 * The caller can safely schedule the object for
		 * deconstruction. Provide acquire ordering.
		 */
		smp_acquire__after_ctrl_dep();
		return true;
	}
	return false;
}
