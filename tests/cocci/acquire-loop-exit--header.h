/* acquire-loop-exit: static inline code in a header */
#ifndef _FIXTURE_WAIT_H
#define _FIXTURE_WAIT_H

static inline void wait_ready(const int *flag, int *stop)
{
	for (;;) {
		if (likely(READ_ONCE(*flag)) && !READ_ONCE(*stop))
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
}

#endif
