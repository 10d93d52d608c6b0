// SPDX-License-Identifier: GPL-2.0
/*
 * The shapes of the kernel's control dependencies that volatile_if()
 * converts: early exits, loop exits, ACQUIRE by smp_acquire__after_ctrl_dep(),
 * error pointers, negations, comparisons, calls and 64-bit conditions.
 */
#include "codegen.h"

/* codegen: depends */
void cg_early_return(int *a, int *b, int *c)
{
	volatile_if (!LOAD(a))
		return;
	WRITE_ONCE(*b, 1);
}

/* codegen: depends */
void cg_early_goto(int *a, int *b, int *c)
{
	volatile_if (LOAD(a) == 2)
		goto out;
	WRITE_ONCE(*b, 1);
	do_something();
out:
	WRITE_ONCE(*c, 0);
}

/* The first non-zero element; the store after the loop is ordered after
 * every load the loop made.  clang unrolls the loop and makes the last test
 * a select.
 * codegen: depends if-breaks */
void cg_loop_break(int *a, int *b, int *c)
{
	int i;

	for (i = 0; i < 8; i++) {
		volatile_if (LOAD(&a[i]))
			break;
	}
	WRITE_ONCE(*b, 1);
	WRITE_ONCE(*c, i);
}

/* Wait for a flag, then ACQUIRE: the alternative is smp_cond_load_acquire().
 * smp_acquire__after_ctrl_dep() is smp_rmb(), which on riscv (fence r,r) does
 * not order the store: the control dependency does.
 * codegen: depends */
void cg_spin_wait(int *a, int *b, int *c)
{
#ifdef CODEGEN_ACQUIRE
	smp_cond_load_acquire(a, VAL);
#else
	for (;;) {
		volatile_if (LOAD(a))
			break;
		cpu_relax();
	}
	smp_acquire__after_ctrl_dep();
#endif
	WRITE_ONCE(*b, 1);
}

/* codegen: depends */
void cg_acquire_in_branch(int *a, int *b, int *c)
{
	volatile_if (LOAD(a) == 1) {
		smp_acquire__after_ctrl_dep();
		WRITE_ONCE(*b, 1);
		WRITE_ONCE(c[0], READ_ONCE(c[1]));
	}
}

/* ipc/msg.c: a message, or ERR_PTR(-EAGAIN) while there is none.
 * codegen: depends */
void cg_err_ptr(void **a, int *b, int *c)
{
	void *msg = LOAD(a);

	volatile_if (msg != ERR_PTR(-EAGAIN))
		WRITE_ONCE(*b, 1);
}

/* codegen: depends */
void cg_is_err(void **a, int *b, int *c)
{
	volatile_if (IS_ERR(LOAD(a)))
		WRITE_ONCE(*b, 1);
}

/* codegen: depends */
void cg_negation(int *a, int *b, int *c)
{
	volatile_if (!LOAD(a))
		WRITE_ONCE(*b, 1);
}

/* refcount: old == i.
 * codegen: depends */
void cg_compare(int *a, int *b, int *c)
{
	volatile_if (LOAD(a) == 3)
		WRITE_ONCE(*b, 1);
}

/* lib/volatile_if_kunit.c lb_side0: r >= 0.
 * codegen: depends */
void cg_sign(int *a, int *b, int *c)
{
	volatile_if (LOAD(a) >= 0)
		WRITE_ONCE(*b, 1);
}

/* rwsem: no writer bits.
 * codegen: depends */
void cg_mask(long *a, int *b, int *c)
{
	volatile_if (!(LOAD(a) & 5))
		WRITE_ONCE(*b, 1);
}

static __always_inline bool ready(int *a)
{
	return LOAD(a) > 0;
}

/* A bool returned by an (inline) call, like ring_buffer_has_space().
 * codegen: depends */
void cg_bool_call(int *a, int *b, int *c)
{
	volatile_if (ready(a))
		WRITE_ONCE(*b, 1);
}

/* try_to_wake_up(): the && branches on the load before the call.
 * codegen: depends */
void cg_and_call(int *a, int *b, int *c)
{
	volatile_if (LOAD(a) && ext_check(c))
		WRITE_ONCE(*b, 1);
}

/* On 32-bit, both halves decide.
 * codegen: depends */
void cg_u64(u64 *a, int *b, int *c)
{
	volatile_if (LOAD64(a))
		WRITE_ONCE(*b, 1);
}

/* On 32-bit, only the high half decides.
 * codegen: depends */
void cg_u64_high(u64 *a, int *b, int *c)
{
	volatile_if (LOAD64(a) & (1ULL << 40))
		WRITE_ONCE(*b, 1);
}

/* codegen: depends if-breaks */
void cg_u64_identical(u64 *a, int *b, int *c, int x)
{
	volatile_if (LOAD64(a)) {
		WRITE_ONCE(*b, 1);
		*c = x + 1;
	} else {
		WRITE_ONCE(*b, 1);
		*c = x + 2;
	}
}

/* likely() and unlikely() work as in if (): the leg they make cold is laid
 * out after the hot path's return.  clang drops the hint of a value kept in
 * a variable.
 * codegen: depends hint */
void cg_unlikely_leg(int *a, int *b, int *c)
{
	volatile_if (unlikely(LOAD(a) == 3)) {
		WRITE_ONCE(*c, 2);
		do_something();
	}
	WRITE_ONCE(*b, 1);
}

/* codegen: depends hint */
void cg_likely_leg(int *a, int *b, int *c)
{
	volatile_if (likely(LOAD(a))) {
		WRITE_ONCE(*b, 1);
	} else {
		WRITE_ONCE(*c, 2);
		do_something();
	}
}
