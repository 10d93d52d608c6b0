# SPDX-License-Identifier: GPL-2.0
"""arm64 (AArch64), as GNU objdump prints it."""

from . import base
from .base import FLAGS, Isa, Sem, split_operands

ISA = Isa(
	name='arm64',
	regs=r'\b([xw]([0-9]|[12][0-9]|30)|w?sp|[xw]zr)\b',
	args=tuple(f'x{n}' for n in range(8)),
	result='x0',
	clobbered=tuple(f'x{n}' for n in range(18)) + ('x30', 'flags'),
	stack=('sp', 'x29'),
	sp='sp',
	comment='//',
	load=r'ldr(b|h|sb|sh|sw)?|ldur(b|h|sb|sh|sw)?|ldp(sw)?|ldnp|'
	     r'lda?x[rp][bh]?|ldar[bh]?|ldapr[bh]?|ldapur\w*|ldlar[bh]?|'
	     r'ldtr\w*',
	store=r'str[bh]?|stur[bh]?|stn?p|stl?x[rp][bh]?|stl?l?r[bh]?|stlur[bh]?|'
	      r'sttr[bh]?',
	atomic=r'(ld(add|clr|eor|set|[su]max|[su]min)|swp|casp?)(a|al|l)?[bh]?|'
	       r'st(add|clr|eor|set|[su]max|[su]min)l?[bh]?',
	# the LSE atomics with acquire and release: "the full barrier case
	# is generated as ... acquire+release" (asm/cmpxchg.h)
	barrier_rmw=r'(ld(add|clr|eor|set|[su]max|[su]min)|swp|casp?)al[bh]?',
	acquire=r'ldar[bh]?|ldapr[bh]?|ldapur\w*|ldax[rp][bh]?|ldlar[bh]?|'
		r'(ld(add|clr|eor|set|[su]max|[su]min)|swp|casp?)(a|al)[bh]?',
	cond_branch=r'b\.\w+|cbn?z|tbn?z',
	jump=r'b',
	call=r'bl|blr|blra[ab]z?',
	ret=r'ret|reta[ab]|eret',
	indirect=r'br|bra[ab]z?',
	trap='brk',
	sets_flags=r'cmp|cmn|tst|adds|subs|ands|bics|negs|ngcs|adcs|sbcs|'
		   r'ccm[pn]|fc?cmpe?',
	reads_flags=r'b\.\w+|csel|csinc|csinv|csneg|csetm?|cinc|cinv|cneg|'
		    r'ccm[pn]|adcs?|sbcs?|ngcs?|fcsel',
	no_dest=r'cmp|cmn|tst|ccm[pn]|fc?cmpe?|prfu?m|msr|d[ms]b|isb|hint|nop|'
		r'yield|wf[ei]|sevl?|bti|pacia\w*|autia\w*|xpaclri|hvc|svc|'
		r'smc|dc|ic|tlbi|at|clrex|esb|csdb|sb|p?ssbb',
	reads_dest=r'movk|bfi|bfxil|bfm|bfc',
	# dmb/dsb, except the store-store only ones (ishst, st, ...)
	fence=r'd[ms]b (?!\w*st$)\w+',
	landing=r'bti jc?',
	aliases=((r'^w(\d+)$', r'x\1'), (r'^wsp$', 'sp')),
	zero=('xzr', 'wzr'),
	# struct alt_instr: s32 orig_offset, s32 alt_offset, u16 cpucap,
	# u8 orig_len, u8 alt_len (0 for a callback's)
	alternatives=(('.altinstructions', 'R_AARCH64_PREL32', 12, 4, 10, 1),),
)


class Decoder(base.Decoder):
	def sem(self, m: str, text: str) -> Sem:
		flags = frozenset({FLAGS})
		if self.match('fence', f'{m} {text}'.strip()):
			return Sem(fence=True)
		ops = split_operands(text)
		if self.match('cond_branch', m):
			cond = flags if m.startswith('b.') else frozenset(self.regs(ops[0]))
			return Sem(flow='cond', cond=cond)
		for kind in ('jump', 'call', 'ret', 'indirect'):
			if self.match(kind, m):
				return Sem(flow=kind, uses=frozenset(self.regs(text)))
		atomic = self.match('atomic', m)
		if atomic or self.match('load', m) or self.match('store', m):
			return self._bracket_access(m, ops, atomic)
		return self._generic(m, ops, flags=flags,
				     sets_flags=self.match('sets_flags', m),
				     reads_flags=self.match('reads_flags', m))
