/* acquire-in-branch: static inline code in a header (--include-headers) */
#ifndef _FIXTURE_REFCOUNT_H
#define _FIXTURE_REFCOUNT_H

/* include/linux/refcount.h: the condition is on a local variable */
static inline __must_check bool __refcount_sub_and_test(int i, refcount_t *r, int *oldp)
{
	int old = atomic_fetch_sub_release(i, &r->refs);

	if (oldp)
		*oldp = old;

	if (old == i) {
		smp_acquire__after_ctrl_dep();
		return true;
	}

	if (unlikely(old < 0 || old - i < 0))
		refcount_warn_saturate(r, REFCOUNT_SUB_UAF);

	return false;
}

#endif
