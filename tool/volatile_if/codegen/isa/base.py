"""What the ISA modules share: an instruction's effect as far as a control
dependency cares (Sem: which registers and flags it writes from which, what
it loads and stores through which address registers, where control goes,
whether it is a barrier), the grammar of an ISA (Isa), and the Decoder
that each ISA module subclasses with its operand grammar.
"""

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import FrozenSet, List, Optional, Tuple

from ..disasm import Insn

NONE: FrozenSet[str] = frozenset()
FLAGS = 'flags'


@dataclass(frozen=True)
class Isa:
	"""How to read an architecture's machine code in GNU objdump's syntax,
	for the control-dependency analysis of ctrldep.py.  Mnemonic patterns
	are regular expressions matched against the whole mnemonic (for arm:
	without its condition and flag-setting suffixes)."""
	name: str                 # its module, as arches.Arch.isa names it
	regs: str                 # a general register name, as objdump prints it
	args: tuple               # integer argument registers, in order
	result: str               # the register a function returns a value in
	clobbered: tuple          # what a call may change (registers and flags)
	stack: tuple              # registers that address spill slots
	sp: str                   # the stack pointer, which is only ever that
	comment: str              # where objdump's trailing comments start
	load: str                 # mnemonics that read memory into registers
	store: str                # mnemonics that write registers to memory
	cond_branch: str          # conditional branches
	jump: str                 # direct unconditional branches
	call: str
	ret: str
	indirect: str             # unconditional branches to a register
	# unconditional traps, as BUG() and WARN() use: whether one returns
	# is the object's __bug_table's to say (disasm.Object.bugs)
	trap: str = '$^'
	sets_flags: str = '$^'    # mnemonics that set the condition flags
	reads_flags: str = '$^'   # mnemonics that test them
	no_dest: str = '$^'       # first operand is a source, not a destination
	reads_dest: str = '$^'    # destination is read too (a partial write)
	acquire: str = '$^'       # loads that order later accesses after them
	atomic: str = '$^'        # read-modify-write of memory
	# 'mnemonic operands' of barriers that order earlier loads before
	# later stores, which makes a control dependency unnecessary.
	fence: str = '$^'
	# read-modify-writes that are such a barrier too: those that make the
	# kernel's fully ordered atomics (xchg(), atomic_add_return()) with no
	# barrier beside them
	barrier_rmw: str = '$^'
	# 'mnemonic operands' of the landing pads of indirect branches (arm64
	# BTI's "bti j"): where a switch's jump table may send one
	landing: str = '$^'
	aliases: tuple = ()       # (regex, canonical name) pairs
	# the layouts of the kernel's tables of alternatives, one per kernel
	# version: (section, relocation type of an entry's location fields,
	# entry size, offset of the replacement's location, offset and size
	# of the length of the code it replaces)
	alternatives: tuple = ()
	zero: tuple = ()          # registers that always read as zero


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
	place: Optional[str] = None     # the address as base+offset: 'x21+32'
	flow: str = 'next'              # next cond jump call ret indirect trap
	cond: FrozenSet[str] = NONE     # what a branch or a predicate tests
	predicated: bool = False        # arm: executes only if @cond holds
	fence: bool = False             # orders earlier loads before later stores
	acquire: bool = False
	landing: bool = False           # an indirect branch may land here
	indirect: bool = False          # flow cond: to a register (arm's ldrls pc)
	leaves: bool = False            # flow cond: a return (popeq {pc}, beqlr)


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
	"""Sem for the instructions of one ISA: its module subclasses this
	with sem(), which reads its operand grammar."""

	def __init__(self, isa: Isa):
		self.isa = isa
		self.pat = {k: re.compile(getattr(isa, k)) for k in (
			'load', 'store', 'cond_branch', 'jump', 'call', 'ret',
			'indirect', 'trap', 'sets_flags', 'reads_flags', 'no_dest',
			'reads_dest', 'acquire', 'atomic', 'fence', 'barrier_rmw',
			'landing')}
		self.reg = re.compile(isa.regs)
		self.aliases = [(re.compile(a), b) for a, b in isa.aliases]
		self._decode = lru_cache(maxsize=None)(self._decode_text)

	def match(self, kind: str, mnemonic: str) -> bool:
		return bool(self.pat[kind].fullmatch(mnemonic))

	def canonical(self, name: str) -> Optional[str]:
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
		if self.match('trap', mnemonic.lower()):
			return Sem(flow='trap')
		if self.match('landing', f'{mnemonic.lower()} {operands}'.strip()):
			return Sem(landing=True)
		sem = self.sem(mnemonic.lower(), operands)
		if self.match('barrier_rmw', mnemonic.lower()):
			return replace(sem, fence=True)
		return sem

	def sem(self, m: str, text: str) -> Sem:
		"""The effect of mnemonic @m (lower case) on operands @text,
		without comment and branch target symbols."""
		raise NotImplementedError

	# Architectures whose first operand is the destination.

	def _place(self, base: str, offset: Optional[str]
		   ) -> Tuple[Optional[str], Optional[str]]:
		"""(place, slot) of an access to @base + @offset: the address
		as a register and a number, where the offset is one (not a
		symbol's relocation), and the same where @base addresses the
		stack."""
		try:
			place = f'{base}{int(offset or "0", 0):+d}'
		except ValueError:
			return None, None
		return place, place if base in self.isa.stack else None

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

	def _bracket_access(self, m: str, ops: List[str], atomic: bool,
			    cond: FrozenSet[str] = NONE) -> Sem:
		"""arm64 and arm loads and stores: [base, offset]{!}, post-index."""
		idx = next((i for i, o in enumerate(ops) if o.startswith('[')), None)
		if idx is None:     # literal (pc-relative) load
			return Sem(load=True, loaded=frozenset(self.regs(ops[0])))
		mem = re.match(r'\[([^\]]*)\](!?)', ops[idx])
		assert mem      # objdump closes the bracket it opens
		addr = self.regs(mem.group(1))
		writeback = bool(mem.group(2)) or idx + 1 < len(ops)
		before = [r for o in ops[:idx] for r in self.regs(o)]
		if re.fullmatch(r'(ld|st)r(ex)?d', m) and len(before) == 1 + \
		   m.startswith('strex'):
			before.append(_arm_next(before[-1]))   # Rt2 is Rt + 1
		parts = [p.strip() for p in mem.group(1).split(',')]
		place = slot = None
		if not writeback and addr and len(parts) <= 2 and \
		   (len(parts) == 1 or parts[1].startswith('#')):
			place, slot = self._place(addr[0], parts[1][1:] if len(parts) > 1 else '')
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
			   values=frozenset(values), slot=slot, place=place,
			   acquire=self.match('acquire', m), cond=cond,
			   predicated=bool(cond))
