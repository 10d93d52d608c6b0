/* orphan-acquire: static inline code in a header */
#ifndef _FIXTURE_ORPHAN_H
#define _FIXTURE_ORPHAN_H

/* ordered: the early exit orders the barrier */
static inline bool ordered(const atomic_t *v)
{
	if (unlikely(atomic_read(v) == 0))
		return false;
	smp_acquire__after_ctrl_dep();
	return true;
}

/* orphan: the if above the barrier does not leave */
static inline int orphan(const atomic_t *v, int *w)
{
	int r = atomic_read(v);

	if (r && *w)
		*w = r;
	smp_acquire__after_ctrl_dep();
	return r;
}

#endif
