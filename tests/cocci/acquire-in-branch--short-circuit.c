/* acquire-in-branch: include/linux/refcount.h in 6.12: the loaded value is
 * the first operand of a &&, so a branch on it comes before either leg on
 * every path: converted, high. */
static inline __must_check __signed_wrap
bool __refcount_sub_and_test(int i, refcount_t *r, int *oldp)
{
	int old = atomic_fetch_sub_release(i, &r->refs);

	if (oldp)
		*oldp = old;

	if (old > 0 && old == i) {
		smp_acquire__after_ctrl_dep();
		return true;
	}

	if (unlikely(old <= 0 || old - i < 0))
		refcount_warn_saturate(r, REFCOUNT_SUB_UAF);

	return false;
}

/* The load is in the second operand only: where "fast" decides, it is not
 * made and nothing orders the leg: reported, medium. */
static int later_operand(int *a, bool fast)
{
	if (fast || READ_ONCE(*a)) {
		smp_acquire__after_ctrl_dep();
		return 1;
	}
	return 0;
}
