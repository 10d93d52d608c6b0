# SPDX-License-Identifier: GPL-2.0
"""What an instruction does, as far as a control dependency cares: which
registers (and flags) it writes from which, what it loads and stores
through which address registers, where control goes, and whether it is a
barrier.  The per-architecture facts are the Isa records of arches.py;
this module knows the operand grammars of GNU objdump.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import FrozenSet, List, Optional

from .arches import Isa
from .disasm import Insn

NONE: FrozenSet[str] = frozenset()
FLAGS = 'flags'
_ARM_CONDS = ('eq', 'ne', 'cs', 'hs', 'cc', 'lo', 'mi', 'pl', 'vs', 'vc',
	      'hi', 'ls', 'ge', 'lt', 'gt', 'le', 'al')
# arm: bases whose name could otherwise be read as base + condition
_ARM_PLAIN = r'(mov[wt]?|mvn|add|adc|sub|sbc|rsb|rsc|and|orr|orn|eor|bic|' \
	     r'lsl|lsr|asr|ror|rrx|mul|mla|mls|[us]mull|[us]mlal|[us]xt[bh]|' \
	     r'[us]xta[bh]|[us]bfx|clz|rev(16|sh)?|rbit|[us]div|mrc2?|mrs|' \
	     r'b|bl|blx|bx|dmb|dsb|isb|nop|yield|wf[ei]|sev|udf|svc|bkpt|' \
	     r'vmov|vmrs|vmsr)'
_X86_PREFIXES = {'lock', 'rep', 'repz', 'repe', 'repnz', 'repne', 'notrack',
		 'cs', 'ds', 'ss', 'es', 'fs', 'gs', 'bnd', 'data16', 'addr32'}
_X86_REGS = {}
for _r in 'abcd':
	for _n in (f'{_r}l', f'{_r}h', f'{_r}x', f'e{_r}x', f'r{_r}x'):
		_X86_REGS[_n] = f'r{_r}x'
for _r in ('si', 'di', 'bp', 'sp'):
	for _n in (f'{_r}l', _r, f'e{_r}', f'r{_r}'):
		_X86_REGS[_n] = f'r{_r}'
for _n in range(8, 16):
	for _s in ('', 'd', 'w', 'b'):
		_X86_REGS[f'r{_n}{_s}'] = f'r{_n}'


@dataclass(frozen=True)
class Sem:
	"""The effect of one instruction.  Registers in @defs get values
	computed from @uses; those in @loaded get the value read from memory
	(and from @uses, if also in @defs)."""
	defs: FrozenSet[str] = NONE
	uses: FrozenSet[str] = NONE
	loaded: FrozenSet[str] = NONE
	load: bool = False
	store: bool = False
	addr: FrozenSet[str] = NONE     # registers the address is computed from
	values: FrozenSet[str] = NONE   # registers a store writes
	slot: Optional[str] = None      # the stack slot accessed, e.g. 'sp+16'
	flow: str = 'next'              # next cond jump call ret indirect trap
	cond: FrozenSet[str] = NONE     # what a branch or a predicate tests
	predicated: bool = False        # arm: executes only if @cond holds
	fence: bool = False             # orders earlier loads before later stores
	acquire: bool = False


def _arm_next(reg: str) -> str:
	names = [f'r{n}' for n in range(10)] + ['sl', 'fp', 'ip', 'sp', 'lr']
	return names[names.index(reg) + 1]


def split_operands(text: str) -> List[str]:
	"""Operands at the top level of @text, split at commas."""
	ops, depth, cur = [], 0, ''
	for ch in text:
		if ch in '[({':
			depth += 1
		elif ch in '])}':
			depth -= 1
		if ch == ',' and depth == 0:
			ops.append(cur.strip())
			cur = ''
		else:
			cur += ch
	if cur.strip():
		ops.append(cur.strip())
	return ops


class Decoder:
	"""Sem for the instructions of one architecture."""

	def __init__(self, isa: Isa):
		self.isa = isa
		self.pat = {k: re.compile(getattr(isa, k)) for k in (
			'load', 'store', 'cond_branch', 'jump', 'call', 'ret',
			'indirect', 'sets_flags', 'reads_flags', 'no_dest',
			'reads_dest', 'acquire', 'atomic', 'fence')}
		self.reg = re.compile(isa.regs)
		self.aliases = [(re.compile(a), b) for a, b in isa.aliases]
		self._decode = lru_cache(maxsize=None)(self._decode_text)

	def match(self, kind: str, mnemonic: str) -> bool:
		return bool(self.pat[kind].fullmatch(mnemonic))

	def canonical(self, name: str) -> Optional[str]:
		if self.isa.syntax == 'att':
			name = _X86_REGS.get(name.lstrip('%'), name.lstrip('%'))
		for a, b in self.aliases:
			name = a.sub(b, name)
		return None if name in self.isa.zero else name

	def regs(self, text: str) -> List[str]:
		found = (self.canonical(m.group(0)) for m in self.reg.finditer(text))
		return [r for r in found if r]

	def decode(self, insn: Insn) -> Sem:
		return self._decode(insn.mnemonic, insn.operands)

	def _decode_text(self, mnemonic: str, operands: str) -> Sem:
		operands = operands.split(self.isa.comment)[0].strip()
		# A branch target, "1c <f+0x1c>": not registers (riscv: "a0").
		operands = re.sub(r'\s*\b[0-9a-f]+ <[^>]*>', '', operands)
		handler = getattr(self, '_' + self.isa.syntax)
		return handler(mnemonic.lower(), operands)

	# Architectures whose first operand is the destination.

	def _slot(self, base: str, offset: str) -> Optional[str]:
		if base in self.isa.stack:
			return f'{base}{int(offset or "0", 0):+d}'
		return None

	def _generic(self, m: str, ops: List[str], *, flags: FrozenSet[str],
		     sets_flags: bool = False, reads_flags: bool = False) -> Sem:
		"""A data-processing instruction: dest first, unless no_dest."""
		regs = [self.regs(o) for o in ops]
		defs, uses = set(), set()
		if ops and regs[0] and not self.match('no_dest', m):
			defs.add(regs[0][0])
			uses.update(regs[0][1:])
			if self.match('reads_dest', m):
				uses.add(regs[0][0])
			rest = regs[1:]
		else:
			rest = regs
		for r in rest:
			uses.update(r)
		if sets_flags:
			defs |= flags
		if reads_flags:
			uses |= flags
		return Sem(defs=frozenset(defs), uses=frozenset(uses))

	def _arm64(self, m: str, text: str) -> Sem:
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

	def _bracket_access(self, m: str, ops: List[str], atomic: bool,
			    cond: FrozenSet[str] = NONE) -> Sem:
		"""arm64 and arm loads and stores: [base, offset]{!}, post-index."""
		idx = next((i for i, o in enumerate(ops) if o.startswith('[')), None)
		if idx is None:     # literal (pc-relative) load
			return Sem(load=True, loaded=frozenset(self.regs(ops[0])))
		mem = re.match(r'\[([^\]]*)\](!?)', ops[idx])
		addr = self.regs(mem.group(1))
		writeback = bool(mem.group(2)) or idx + 1 < len(ops)
		before = [r for o in ops[:idx] for r in self.regs(o)]
		if re.fullmatch(r'(ld|st)r(ex)?d', m) and len(before) == 1 + \
		   m.startswith('strex'):
			before.append(_arm_next(before[-1]))   # Rt2 is Rt + 1
		parts = [p.strip() for p in mem.group(1).split(',')]
		slot = None
		if not writeback and addr and len(parts) <= 2 and \
		   (len(parts) == 1 or parts[1].startswith('#')):
			slot = self._slot(addr[0], parts[1][1:] if len(parts) > 1 else '')
		defs = {addr[0]} if writeback and addr else set()
		uses = {addr[0]} if writeback and addr else set()
		store_excl = re.fullmatch(r'stl?x[rp][bh]?|stl?ex[bhd]?|strex[bhd]?', m)
		load = atomic or self.match('load', m)
		if atomic:
			# ld<op> Rs, Rt, [Xn] and swp: Rt gets the old value;
			# cas Rs, Rt, [Xn]: Rs does.
			got = before[:1] if m.startswith('cas') else before[1:]
			values = before
		elif load:
			got, values = before, []
		elif store_excl:
			defs.add(before[0])
			got, values = [], before[1:]
		else:
			got, values = [], before
		return Sem(defs=frozenset(defs), uses=frozenset(uses) | cond,
			   loaded=frozenset(got), load=load,
			   store=atomic or not load, addr=frozenset(addr),
			   values=frozenset(values), slot=slot,
			   acquire=self.match('acquire', m), cond=cond,
			   predicated=bool(cond))

	def _arm_known(self, base: str) -> bool:
		return any(self.match(k, base) for k in (
			'load', 'store', 'cond_branch', 'no_dest', 'reads_dest',
			'call', 'indirect')) or bool(re.fullmatch(_ARM_PLAIN, base))

	def _arm_split(self, m: str):
		"""arm (UAL) mnemonic -> (base, condition or None, "s" suffix)."""
		m = re.sub(r'\.[wn]$', '', m)
		for cond in (None,) + _ARM_CONDS:
			if cond and not m.endswith(cond):
				continue
			base = m[:-len(cond)] if cond else m
			if self._arm_known(base):
				return base, cond, False
			if base.endswith('s') and self._arm_known(base[:-1]) and \
			   self.match('sets_flags', base):
				return base[:-1], cond, True
		return m, None, False

	def _arm(self, m: str, text: str) -> Sem:
		flags = frozenset({FLAGS})
		base, cond, suffix = self._arm_split(m)
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
			return Sem(flow='cond', cond=pred) if pred else Sem(flow=kind)
		if base in ('push', 'pop') or base.startswith(('ldm', 'stm')):
			return self._arm_multiple(base, ops, pred)
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

	def _arm_multiple(self, base: str, ops: List[str], pred) -> Sem:
		listed = frozenset(r for o in ops if o.startswith('{')
				   for r in self.regs(o))
		addr = ['sp'] if base in ('push', 'pop') else self.regs(ops[0])
		load = base == 'pop' or base.startswith('ldm')
		return Sem(defs=frozenset(addr), uses=frozenset(addr) | pred,
			   loaded=listed if load else NONE, load=load,
			   store=not load, addr=frozenset(addr),
			   values=NONE if load else listed, cond=pred,
			   predicated=bool(pred))

	def _powerpc(self, m: str, text: str) -> Sem:
		m = m.rstrip('+-')
		if self.match('fence', f'{m} {text}'.strip()):
			return Sem(fence=True)
		ops = split_operands(text)
		crs = re.findall(r'\bcr[0-7]\b', text)
		if m == 'bcl':              # bcl 20,31,$+4: reads the pc
			return Sem(defs=frozenset({'lr'}))
		if self.match('cond_branch', m):
			if m.startswith('bd'):
				return Sem(flow='cond', cond=frozenset({'ctr'}),
					   defs=frozenset({'ctr'}), uses=frozenset({'ctr'}))
			field = crs[0] if crs else 'cr0'
			bi = re.search(r'4\*(cr[0-7])', text)
			return Sem(flow='cond', cond=frozenset({bi.group(1) if bi else field}))
		for kind in ('jump', 'call', 'ret', 'indirect'):
			if self.match(kind, m):
				return Sem(flow=kind)
		regs = self.regs(text)
		record = frozenset({'cr0'}) if m.endswith('.') else NONE
		if self.match('load', m) or self.match('store', m):
			return self._ppc_access(m, ops, record)
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

	def _ppc_access(self, m: str, ops: List[str], record: FrozenSet[str]) -> Sem:
		load = self.match('load', m)
		update = re.fullmatch(r'(l[bhwd][za]?|st[bhwd])ux?', m)
		regs = [self.regs(o) for o in ops]
		first = regs[0][:1] if regs else []
		d_form = re.fullmatch(r'(-?\w+)\((r\d+)\)', ops[-1]) if ops else None
		if d_form:
			addr = [self.canonical(d_form.group(2))]
			slot = None if update else self._slot(addr[0], d_form.group(1)
							      if d_form.group(1).lstrip('-').isdigit() else '')
		else:
			addr = [r for o in regs[1:] for r in o]
			slot = None
		base = addr[:1] if update else []
		return Sem(defs=frozenset(base) | record, uses=frozenset(base),
			   loaded=frozenset(first) if load else NONE, load=load,
			   store=not load, addr=frozenset(addr),
			   values=NONE if load else frozenset(first), slot=slot)

	def _riscv(self, m: str, text: str) -> Sem:
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
			addr = [self.canonical(mem.group(2))] if mem else []
			slot = self._slot(addr[0], mem.group(1)) if addr else None
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
				   slot=slot, acquire=self.match('acquire', m))
		return self._generic(m, ops, flags=NONE)

	# x86-64, AT&T syntax: the destination is the last operand.

	def _att(self, m: str, text: str) -> Sem:
		flags = frozenset({FLAGS})
		words = (m + ' ' + text).split(' ')
		locked = False
		while words and words[0] in _X86_PREFIXES:
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
		if self.match('ret', m) or m in ('ud2', 'int3', 'hlt'):
			return Sem(flow='ret' if self.match('ret', m) else 'trap')
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
		slot = None
		if mem:
			sm = re.fullmatch(r'(-?0x[0-9a-f]+|-?\d+)?\(%(\w+)\)', mem[0])
			if sm:
				slot = self._slot(self.canonical(sm.group(2)), sm.group(1))
		return Sem(defs=frozenset(outs), uses=frozenset(uses),
			   loaded=frozenset(outs) if load else NONE, load=load,
			   store=store, addr=addr if (load or store) else NONE,
			   values=frozenset(uses) if store else NONE, slot=slot,
			   fence=fence)
