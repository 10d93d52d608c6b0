# SPDX-License-Identifier: GPL-2.0
"""64-bit RISC-V, as GNU objdump prints it."""

import re

from . import base
from .base import NONE, Isa, Sem, split_operands

ISA = Isa(
	name='riscv',
	regs=r'\b(zero|ra|sp|gp|tp|t[0-6]|s[0-9]|s1[01]|a[0-7]|fp)\b',
	args=tuple(f'a{n}' for n in range(8)),
	result='a0',
	clobbered=('ra',) + tuple(f't{n}' for n in range(7)) +
		  tuple(f'a{n}' for n in range(8)),
	stack=('sp', 's0'),
	sp='sp',
	comment='#',
	load=r'l[bhwd]u?|lr\.[wd](\.aq|\.rl|\.aqrl)?',
	store=r's[bhwd]|sc\.[wd](\.aq|\.rl|\.aqrl)?',
	atomic=r'amo\w+\.[wd](\.aq|\.rl|\.aqrl)?',
	acquire=r'lr\.[wd]\.aq(rl)?|amo\w+\.[wd]\.aq(rl)?',
	# what xchg() and atomic_add_return() are made of (asm/cmpxchg.h,
	# asm/atomic.h): sequentially consistent AMOs
	barrier_rmw=r'amo\w+\.[wd]\.aqrl',
	cond_branch=r'b(eq|ne|lt|ge|ltu|geu|gt|le|gtu|leu)|b(eq|ne|lt|ge|gt|le)z',
	jump=r'j',
	call=r'jalr?',
	ret=r'ret',
	indirect=r'jr',
	trap=r'(c\.)?ebreak',
	no_dest=r'fence(\.i|\.tso)?|nop|ecall|csr[wsc]i?|sfence\.vma|wfi|'
		r'pause|cbo\.\w+|prefetch\.\w',
	# fence with a read before and a write after it; fence.tso; bare fence
	fence=r'fence(\.tso|( [iorw]*r[iorw]*,[iorw]*w[iorw]*)?)',
	aliases=((r'^fp$', 's0'),),
	zero=('zero',),
	# struct alt_entry: 6.12: s32 old_offset, s32 alt_offset, u16
	# vendor_id, u16 alt_len, u32 patch_id; 6.1 (packed): void *old_ptr,
	# void *alt_ptr, unsigned long vendor_id, alt_len, u32 errata_id
	alternatives=(('.alternative', 'R_RISCV_ADD32', 16, 4, 10, 2),
		      ('.alternative', 'R_RISCV_64', 36, 8, 24, 8)),
)


class Decoder(base.Decoder):
	def sem(self, m: str, text: str) -> Sem:
		if self.match('fence', f'{m} {text}'.strip()):
			return Sem(fence=True)
		ops = split_operands(text)
		regs = self.regs(text)
		if self.match('cond_branch', m):
			return Sem(flow='cond', cond=frozenset(regs))
		if m == 'jr' and regs == ['ra']:
			return Sem(flow='ret')
		for kind in ('jump', 'call', 'ret', 'indirect'):
			if self.match(kind, m):
				return Sem(flow=kind)
		atomic = self.match('atomic', m)
		if atomic or self.match('load', m) or self.match('store', m):
			mem = re.fullmatch(r'(-?\d+)?\((\w+)\)', ops[-1])
			# (zero): an absolute address, no register
			addr = self.regs(mem.group(2)) if mem else []
			place, slot = self._place(addr[0], mem.group(1)) \
				if mem and addr else (None, None)
			first = regs[:1]
			load = atomic or self.match('load', m)
			if atomic:        # amo<op> rd, rs2, (rs1)
				return Sem(loaded=frozenset(first), load=True, store=True,
					   addr=frozenset(addr), values=frozenset(regs[1:2]),
					   acquire=self.match('acquire', m))
			if m.startswith('sc.'):
				return Sem(defs=frozenset(first), store=True,
					   addr=frozenset(addr), values=frozenset(regs[1:2]))
			return Sem(loaded=frozenset(first) if load else NONE, load=load,
				   store=not load, addr=frozenset(addr),
				   values=NONE if load else frozenset(first),
				   slot=slot, place=place,
				   acquire=self.match('acquire', m))
		return self._generic(m, ops, flags=NONE)
