/* acquire-early-exit: static inline code in a header (--include-headers) */
#ifndef _FIXTURE_NF_CONNTRACK_H
#define _FIXTURE_NF_CONNTRACK_H

/* include/net/netfilter/nf_conntrack.h */
static inline bool nf_ct_should_gc(const struct nf_conn *ct)
{
	if (!nf_ct_is_confirmed(ct))
		return false;

	/* load ct->timeout after is_confirmed() test.
	 * Pairs with __nf_conntrack_confirm().
	 */
	smp_acquire__after_ctrl_dep();

	return nf_ct_is_expired(ct) && !nf_ct_is_dying(ct);
}

#endif
