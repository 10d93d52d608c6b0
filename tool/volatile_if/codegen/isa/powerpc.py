# SPDX-License-Identifier: GPL-2.0
"""64-bit powerpc, as GNU objdump prints it."""

import re
from typing import FrozenSet, List

from . import base
from .base import NONE, Isa, Sem, split_operands

ISA = Isa(
	name='powerpc',
	regs=r'\b(r([0-9]|[12][0-9]|3[01])|cr[0-7]|lr|ctr)\b',
	args=tuple(f'r{n}' for n in range(3, 11)),
	result='r3',
	clobbered=('r0',) + tuple(f'r{n}' for n in range(3, 13)) +
		  ('ctr', 'lr', 'ca', 'cr0', 'cr1', 'cr5', 'cr6', 'cr7'),
	stack=('r1', 'r31'),
	sp='r1',
	comment='#',
	load=r'l(bz|hz|ha|wz|wa|d)u?x?|l(hbr|wbr|dbr)x|l[bhwd]arx|lmw|lq',
	store=r'st[bhwd]u?x?|st(hbr|wbr|dbr)x|st[bhwd]cx\.|stmw|stq',
	cond_branch=r'(bdn?z[tf]?|b(eq|ne|lt|gt|le|ge|so|ns|un|nu|nl|ng))'
		    r'(lr|ctr)?l?[+-]?|bc(lr|ctr)?l?[+-]?',
	jump=r'b',
	call=r'bl|bctrl|blrl',
	ret=r'blr',
	indirect=r'bctr',
	trap=r'trap|twui|tdui',
	# The carry (XER[CA]); Decoder knows the condition register fields.
	sets_flags=r'(addic|subfic|addc|subfc|adde|subfe|add[zm]e|subf[zm]e|'
		   r'sra[wd]i?)\.?',
	reads_flags=r'(adde|subfe|add[zm]e|subf[zm]e)\.?',
	no_dest=r'cmp\w*|mt(lr|ctr|spr|xer|crf|ocrf|msrd?)|(hw|lw|pte|i)?sync|'
		r'eieio|nop|tw\w*|td\w*|dcb\w*|icbi|trap|sc|rfid|st\w+',
	reads_dest=r'rl[wd]imi|ins[rl][wd]i',
	fence=r'(hw|lw|pte)?sync( [01])?',
)


class Decoder(base.Decoder):
	def sem(self, m: str, text: str) -> Sem:
		m = m.rstrip('+-')
		if self.match('fence', f'{m} {text}'.strip()):
			return Sem(fence=True)
		ops = split_operands(text)
		crs = re.findall(r'\bcr[0-7]\b', text)
		if m == 'bcl':              # bcl 20,31,$+4: reads the pc
			return Sem(defs=frozenset({'lr'}))
		if self.match('cond_branch', m):
			leaves = m.endswith('lr')       # beqlr: a conditional return
			if m.startswith('bd'):
				return Sem(flow='cond', cond=frozenset({'ctr'}),
					   defs=frozenset({'ctr'}), uses=frozenset({'ctr'}),
					   leaves=leaves)
			field = crs[0] if crs else 'cr0'
			bi = re.search(r'4\*(cr[0-7])', text)
			return Sem(flow='cond', leaves=leaves,
				   cond=frozenset({bi.group(1) if bi else field}))
		for kind in ('jump', 'call', 'ret', 'indirect'):
			if self.match(kind, m):
				return Sem(flow=kind)
		regs = self.regs(text)
		record = frozenset({'cr0'}) if m.endswith('.') else NONE
		if self.match('load', m) or self.match('store', m):
			return self._access(m, ops, record)
		if m in ('mflr', 'mfctr'):
			return Sem(defs=frozenset(regs[:1]), uses=frozenset({m[2:]}))
		if m in ('mtlr', 'mtctr'):
			return Sem(defs=frozenset({m[2:]}), uses=frozenset(regs[:1]))
		if re.fullmatch(r'cmp\w*', m):
			field = crs[0] if crs else 'cr0'
			gprs = [r for r in regs if r.startswith('r')]
			return Sem(defs=frozenset({field}), uses=frozenset(gprs))
		if m in ('mfcr', 'mfocrf'):
			return Sem(defs=frozenset(regs[:1]),
				   uses=frozenset(f'cr{n}' for n in range(8)))
		if re.fullmatch(r'isel(lt|gt|eq)?|setn?bcr?|setb', m):
			bi = re.search(r'cr[0-7]', ops[-1]) if ops else None
			field = bi.group(0) if bi else f'cr{int(ops[-1]) // 4}' \
				if ops and ops[-1].isdigit() else 'cr0'
			gprs = [r for r in regs[1:] if r.startswith('r')]
			return Sem(defs=frozenset(regs[:1]),
				   uses=frozenset(gprs) | {field})
		carry = frozenset({'ca'})
		sem = self._generic(m, ops, flags=carry,
				    sets_flags=self.match('sets_flags', m),
				    reads_flags=self.match('reads_flags', m))
		return Sem(defs=sem.defs | record, uses=sem.uses)

	def _access(self, m: str, ops: List[str], record: FrozenSet[str]) -> Sem:
		load = self.match('load', m)
		update = re.fullmatch(r'(l[bhwd][za]?|st[bhwd])ux?', m)
		regs = [self.regs(o) for o in ops]
		first = regs[0][:1] if regs else []
		d_form = re.fullmatch(r'(-?\w+)\((r\d+)\)', ops[-1]) if ops else None
		place = slot = None
		if d_form:
			addr = self.regs(d_form.group(2))
			if addr and not update:
				place, slot = self._place(addr[0], d_form.group(1))
		else:
			addr = [r for o in regs[1:] for r in o]
		base = addr[:1] if update else []
		return Sem(defs=frozenset(base) | record, uses=frozenset(base),
			   loaded=frozenset(first) if load else NONE, load=load,
			   store=not load, addr=frozenset(addr),
			   values=NONE if load else frozenset(first), slot=slot,
			   place=place)
