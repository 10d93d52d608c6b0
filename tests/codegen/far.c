// SPDX-License-Identifier: GPL-2.0
/*
 * A leg longer than a short conditional branch reaches: 8192 stores, 64 KB
 * of code or more on every architecture, against +-4 KB for riscv's
 * branches, +-32 KB for powerpc's and arm64's tbz.  The branch that skips
 * the leg has to reach past it, as the compiler's own branches do; an asm
 * goto branch the compiler cannot see into does not (issue 10: clang
 * encodes a wrong displacement for ppc64le, GNU as and clang's riscv
 * assembler refuse it).
 */
#include "codegen.h"

#define CG_W1(n)	WRITE_ONCE(*b, (n));
#define CG_W4(n)	CG_W1(n) CG_W1((n) + 1) CG_W1((n) + 2) CG_W1((n) + 3)
#define CG_W16(n)	CG_W4(n) CG_W4((n) + 4) CG_W4((n) + 8) CG_W4((n) + 12)
#define CG_W64(n)	CG_W16(n) CG_W16((n) + 16) CG_W16((n) + 32) \
			CG_W16((n) + 48)
#define CG_W256(n)	CG_W64(n) CG_W64((n) + 64) CG_W64((n) + 128) \
			CG_W64((n) + 192)
#define CG_W1024(n)	CG_W256(n) CG_W256((n) + 256) CG_W256((n) + 512) \
			CG_W256((n) + 768)
#define CG_W8192(n)	CG_W1024(n) CG_W1024((n) + 1024) \
			CG_W1024((n) + 2048) CG_W1024((n) + 3072) \
			CG_W1024((n) + 4096) CG_W1024((n) + 5120) \
			CG_W1024((n) + 6144) CG_W1024((n) + 7168)

/* codegen: depends far */
void cg_far_leg(int *a, int *b, int *c)
{
	volatile_if (LOAD(a)) {
		CG_W8192(1)
	} else {
		WRITE_ONCE(*b, 0);
	}
	WRITE_ONCE(*c, 1);
}
