# SPDX-License-Identifier: GPL-2.0
"""x86-64, in the AT&T syntax of GNU objdump: the destination is the last
operand."""

import re
from typing import Optional

from . import base
from .base import FLAGS, NONE, Isa, Sem, split_operands

_PREFIXES = {'lock', 'rep', 'repz', 'repe', 'repnz', 'repne', 'notrack',
	     'cs', 'ds', 'ss', 'es', 'fs', 'gs', 'bnd', 'data16', 'addr32'}
_REGS = {}
for _r in 'abcd':
	for _n in (f'{_r}l', f'{_r}h', f'{_r}x', f'e{_r}x', f'r{_r}x'):
		_REGS[_n] = f'r{_r}x'
for _r in ('si', 'di', 'bp', 'sp'):
	for _n in (f'{_r}l', _r, f'e{_r}', f'r{_r}'):
		_REGS[_n] = f'r{_r}'
for _i in range(8, 16):
	for _s in ('', 'd', 'w', 'b'):
		_REGS[f'r{_i}{_s}'] = f'r{_i}'

ISA = Isa(
	name='x86',
	regs=r'%\w+',
	args=('rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9'),
	result='rax',
	clobbered=('rax', 'rcx', 'rdx', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11',
		   'flags'),
	stack=('rsp', 'rbp'),
	sp='rsp',
	comment='#',
	load=r'pop[q]?',
	store=r'push[q]?',
	cond_branch=r'j(?!mp)[a-z]+',
	jump=r'jmp[q]?',
	call=r'call[q]?',
	ret=r'ret[q]?',
	indirect=r'$^',
	trap=r'ud2|int3|hlt',
	sets_flags=r'(add|sub|and|or|xor|cmp|test|inc|dec|neg|sh[lr]|sa[lr]|'
		   r'ro[lr]|adc|sbb|bt[src]?|i?mul|bs[fr]|tzcnt|lzcnt|popcnt|'
		   r'cmpxchg|xadd)[bwlq]?',
	reads_flags=r'j(?!mp)[a-z]+|set[a-z]+|cmov[a-z]+|(adc|sbb)[bwlq]?',
	no_dest=r'(cmp|test|bt)[bwlq]?|push[q]?|nop[wlq]?|endbr64|[lms]fence|'
		r'pause|prefetch\w*|clflush',
	reads_dest=r'(add|sub|and|or|xor|adc|sbb|sh[lr]|sa[lr]|ro[lr]|imul|'
		   r'inc|dec|neg|not|bt[src]|xadd|xchg|cmov[a-z]+)[bwlq]?',
	atomic=r'(xchg|cmpxchg|xadd)[bwlq]?',
	fence=r'[lm]fence|lock .*',
)


class Decoder(base.Decoder):
	def canonical(self, name: str) -> Optional[str]:
		"""The 64-bit register of which %@name is a part."""
		name = name.lstrip('%')
		return super().canonical(_REGS.get(name, name))

	def sem(self, m: str, text: str) -> Sem:
		flags = frozenset({FLAGS})
		words = (m + ' ' + text).split(' ')
		locked = False
		while words and words[0] in _PREFIXES:
			locked |= words[0] == 'lock'
			words = words[1:]
		if not words:
			return Sem()
		m, text = words[0], ' '.join(words[1:])
		if self.match('cond_branch', m):
			return Sem(flow='cond', cond=flags)
		if self.match('jump', m):
			return Sem(flow='indirect' if text.startswith('*') else 'jump')
		if self.match('call', m):
			return Sem(flow='call')
		if self.match('ret', m):
			return Sem(flow='ret')
		if m.startswith('nop') or m == 'endbr64':
			return Sem()
		ops = split_operands(text)
		fence = locked or self.match('fence', m)

		def is_mem(o):
			o = o.lstrip('*')
			return not o.startswith('$') and not re.fullmatch(r'%\w+', o)
		regs = [self.regs(o) for o in ops]
		if self.match('load', m) or self.match('store', m):   # pop, push
			load = self.match('load', m)
			r = frozenset(regs[0]) if regs else NONE
			return Sem(defs=frozenset({'rsp'}), uses=frozenset({'rsp'}),
				   loaded=r if load else NONE, load=load, store=not load,
				   addr=frozenset({'rsp'}), values=NONE if load else r)
		if m.startswith('lea'):
			return Sem(defs=frozenset(regs[-1]), uses=frozenset(regs[0]))
		if m.startswith(('xor', 'sub')) and len(ops) == 2 and ops[0] == ops[1]:
			return Sem(defs=frozenset(regs[0]) | flags)
		no_dest = self.match('no_dest', m)
		dst = None if no_dest or not ops else ops[-1]
		srcs = ops if dst is None else ops[:-1]
		outs = set(flags if self.match('sets_flags', m) else ())
		uses = {r for o in srcs if not is_mem(o) for r in self.regs(o)}
		if self.match('reads_flags', m):
			uses |= flags
		mem = [o for o in ops if is_mem(o)]
		addr = frozenset(r for o in mem for r in self.regs(o))
		store = dst is not None and is_mem(dst)
		rmw = self.match('reads_dest', m) or self.match('atomic', m)
		load = any(is_mem(o) for o in srcs) or (store and rmw)
		if dst is not None and not store:
			outs.update(self.regs(dst))
			if rmw:
				uses.update(self.regs(dst))
		place = slot = None
		if mem:
			sm = re.fullmatch(r'(-?0x[0-9a-f]+|-?\d+)?\(%(\w+)\)', mem[0])
			base = self.canonical(sm.group(2)) if sm else None
			if sm and base:
				place, slot = self._place(base, sm.group(1))
		return Sem(defs=frozenset(outs), uses=frozenset(uses),
			   loaded=frozenset(outs) if load else NONE, load=load,
			   store=store, addr=addr if (load or store) else NONE,
			   values=frozenset(uses) if store else NONE, slot=slot,
			   place=place, fence=fence)
