# SPDX-License-Identifier: GPL-2.0
"""32-bit arm (A32 and T32, unified syntax), as GNU objdump prints it."""

import re
from typing import List

from . import base
from .base import FLAGS, NONE, Isa, Sem, split_operands

_CONDS = ('eq', 'ne', 'cs', 'hs', 'cc', 'lo', 'mi', 'pl', 'vs', 'vc',
	  'hi', 'ls', 'ge', 'lt', 'gt', 'le', 'al')
# bases whose name could otherwise be read as base + condition
_PLAIN = r'(mov[wt]?|mvn|add|adc|sub|sbc|rsb|rsc|and|orr|orn|eor|bic|' \
	 r'lsl|lsr|asr|ror|rrx|mul|mla|mls|[us]mull|[us]mlal|[us]xt[bh]|' \
	 r'[us]xta[bh]|[us]bfx|clz|rev(16|sh)?|rbit|[us]div|mrc2?|mrs|' \
	 r'b|bl|blx|bx|dmb|dsb|isb|nop|yield|wf[ei]|sev|udf|svc|bkpt|' \
	 r'vmov|vmrs|vmsr)'

ISA = Isa(
	name='arm',
	regs=r'\b(r[0-9]|r1[0-5]|sl|fp|ip|sp|lr|pc)\b',
	args=('r0', 'r1', 'r2', 'r3'),
	result='r0',
	clobbered=('r0', 'r1', 'r2', 'r3', 'ip', 'lr', 'flags'),
	stack=('sp', 'fp'),
	sp='sp',
	comment='@',
	load=r'ldr(b|h|sb|sh|d|t|bt|ht|sbt|sht)?|ldrex[bhd]?|lda(ex)?[bhd]?|'
	     r'ldm(ia|ib|da|db|fd|fa|ea|ed)?|pop|vldr|vpop|vldm\w*',
	store=r'str(b|h|d|t|bt|ht)?|strex[bhd]?|stl(ex)?[bhd]?|'
	      r'stm(ia|ib|da|db|fd|fa|ea|ed)?|push|vstr|vpush|vstm\w*',
	acquire=r'lda(ex)?[bhd]?',
	cond_branch=r'cbn?z',
	jump=r'b',
	call=r'bl|blx',
	ret=r'$^',
	indirect=r'bx',
	trap='udf',
	# Data processing that takes an "s" to set the flags; the others.
	sets_flags=r'cmp|cmn|tst|teq|(mov|mvn|add|adc|sub|sbc|rsb|rsc|and|orr|'
		   r'orn|eor|bic|lsl|lsr|asr|ror|rrx|mul|mla|umull|umlal|smull|'
		   r'smlal)s',
	reads_flags=r'adcs?|sbcs?|rscs?|rrxs?',
	no_dest=r'cmp|cmn|tst|teq|d[ms]b|isb|nop|yield|wf[ei]|sev|it[te]*|'
		r'pl[di]w?|svc|bkpt|clrex|mcrr?2?|cps\w*|msr|setend',
	reads_dest=r'movt|bfi|bfc|[us]mlals?',
	fence=r'd[ms]b( (?!\w*st$)\w+)?',
	aliases=((r'^r10$', 'sl'), (r'^r11$', 'fp'), (r'^r12$', 'ip'),
		 (r'^r13$', 'sp'), (r'^r14$', 'lr'), (r'^r15$', 'pc')),
)


class Decoder(base.Decoder):
	def _known(self, base: str) -> bool:
		return any(self.match(k, base) for k in (
			'load', 'store', 'cond_branch', 'no_dest', 'reads_dest',
			'call', 'indirect')) or bool(re.fullmatch(_PLAIN, base))

	def _split(self, m: str):
		"""arm (UAL) mnemonic -> (base, condition or None, "s" suffix)."""
		m = re.sub(r'\.[wn]$', '', m)
		for cond in (None,) + _CONDS:
			if cond and not m.endswith(cond):
				continue
			base = m[:-len(cond)] if cond else m
			if self._known(base):
				return base, cond, False
			if base.endswith('s') and self._known(base[:-1]) and \
			   self.match('sets_flags', base):
				return base[:-1], cond, True
		return m, None, False

	def sem(self, m: str, text: str) -> Sem:
		flags = frozenset({FLAGS})
		base, cond, suffix = self._split(m)
		sets = suffix or self.match('sets_flags', base)
		pred = flags if cond not in (None, 'al') else NONE
		if self.match('fence', f'{base} {text}'.strip()):
			return Sem(fence=True)
		ops = split_operands(text)
		regs = self.regs(text)
		if base == 'b':
			return Sem(flow='cond' if pred else 'jump', cond=pred)
		if base in ('bl', 'blx'):
			return Sem(flow='call', uses=frozenset(regs))
		if self.match('cond_branch', base):    # cbz, cbnz (Thumb)
			return Sem(flow='cond', cond=frozenset(regs[:1]))
		leaves = (base == 'bx' and regs == ['lr']) or \
			(base == 'mov' and regs[:1] == ['pc'] and regs[1:] == ['lr']) or \
			('pc' in regs and (base == 'pop' or base.startswith('ldm')))
		if leaves or base == 'bx' or (base.startswith('ldr') and regs[:1] == ['pc']):
			# A predicated return only leaves when its condition holds.
			kind = 'ret' if leaves else 'indirect'
			return Sem(flow='cond', cond=pred, indirect=not leaves,
				   leaves=leaves) if pred else Sem(flow=kind)
		if base in ('push', 'pop') or base.startswith(('ldm', 'stm')):
			return self._multiple(base, ops, pred)
		if self.match('load', base) or self.match('store', base):
			return self._bracket_access(base, ops, False, pred)
		sem = self._generic(base, ops, flags=flags, sets_flags=sets,
				    reads_flags=self.match('reads_flags', base))
		if base.startswith('mrc'):      # mrc p, op, Rt, ...: Rt is written
			sem = Sem(defs=frozenset(regs[:1]))
		if pred:
			# Not executing keeps the old value: read it, and the flags.
			sem = Sem(defs=sem.defs, uses=sem.uses | sem.defs | pred,
				  cond=pred, predicated=True)
		return sem

	def _multiple(self, base: str, ops: List[str], pred) -> Sem:
		listed = frozenset(r for o in ops if o.startswith('{')
				   for r in self.regs(o))
		addr = ['sp'] if base in ('push', 'pop') else self.regs(ops[0])
		load = base == 'pop' or base.startswith('ldm')
		# ldm r3!, {...} writes the address back; ldm r3, {...} does not
		wback = base in ('push', 'pop') or ops[0].endswith('!')
		return Sem(defs=frozenset(addr if wback else ()),
			   uses=frozenset(addr) | pred,
			   loaded=listed if load else NONE, load=load,
			   store=not load, addr=frozenset(addr),
			   values=NONE if load else listed, cond=pred,
			   predicated=bool(pred))
