# SPDX-License-Identifier: GPL-2.0
"""Disassembly: an object file as functions of instructions, read from GNU
objdump (`-dr`, and `-l --inlines` for source lines), with the relocation
and the chain of inlined source locations of every instruction."""

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import (Callable, Dict, FrozenSet, Iterator, List, Literal,
		    NamedTuple, Optional, Set, Tuple)

from ..common import run

# A source location chain, innermost first: ((file, line), ...)
Where = Tuple[Tuple[str, int], ...]
# a table of alternatives (isa.base.Isa.alternatives)
Layout = Tuple[str, str, int, int, int, int]

_SECTION = re.compile(r'^Disassembly of section (\S+):$')
_INSN = re.compile(r'^\s*([0-9a-f]+):\t(.*)$')
# a name may end in a space (clang 19's riscv labels, ".L0 ")
_RELOC = re.compile(r'^\s*([0-9a-f]+): (R_\w+)\s+(\S+)\s*$')
_LINE = re.compile(r'^(inlined by )?(\S+):(\d+)(?: \(discriminator \d+\))?'
		   r'(?: \(\w+\))?$')
_SYMBOL = re.compile(r'^([0-9a-f]+) (.{7}) (\S+)\t([0-9a-f]+) (.*)$')
_TARGET = re.compile(r'\b([0-9a-f]+) <([^>]+)>')


@dataclass
class Insn:
	section: str
	addr: int
	mnemonic: str
	operands: str = ''
	reloc: Optional[Tuple[str, str]] = None   # (type, symbol[+-addend])
	where: Where = ()

	@property
	def text(self) -> str:
		return f'{self.mnemonic} {self.operands}'.strip()

	@property
	def target(self) -> Optional[int]:
		"""The address objdump resolved a direct branch to."""
		m = _TARGET.search(self.operands)
		return int(m.group(1), 16) if m else None


@dataclass
class Function:
	name: str
	section: str
	start: int
	size: int
	insns: List[Insn] = field(default_factory=list)

	def contains(self, section: str, addr: int) -> bool:
		return section == self.section and \
			self.start <= addr < self.start + self.size


@dataclass
class Symbol:
	name: str
	section: str
	value: int
	size: int
	function: bool


def parse_symbols(text: str) -> List[Symbol]:
	"""`objdump -t` lines as symbols."""
	symbols = []
	for line in text.splitlines():
		m = _SYMBOL.match(line)
		if m:
			# powerpc64 puts the local entry point before the name
			name = re.sub(r'^0x[0-9a-f]+ ', '', m.group(5))
			symbols.append(Symbol(name, m.group(3), int(m.group(1), 16),
					      int(m.group(4), 16), 'F' in m.group(2)))
	return symbols


def _in_sections(text: str) -> Iterator[Tuple[str, str]]:
	"""(section, line) for each line of objdump's @text but the section
	headers."""
	section = ''
	for line in text.splitlines():
		m = _SECTION.match(line)
		if m:
			section = m.group(1)
		else:
			yield section, line


def parse_code(text: str) -> List[Insn]:
	"""`objdump -dr [-l --inlines] --no-show-raw-insn` as instructions;
	data that objdump shows in code (.word, .long, ...) is left out."""
	insns: List[Insn] = []
	where: Where = ()
	by_addr: Dict[Tuple[str, int], Insn] = {}
	for section, line in _in_sections(text):
		m = _RELOC.match(line)
		if m:
			insn = by_addr.get((section, int(m.group(1), 16)))
			# riscv pairs R_RISCV_RELAX with the real one: keep the first.
			if insn and not insn.reloc:
				insn.reloc = (m.group(2), m.group(3))
			elif not insn and m.group(2).startswith('R_X86_64') and \
			     insns and not insns[-1].reloc:
				# x86: the relocation is at the operand, not the opcode
				insns[-1].reloc = (m.group(2), m.group(3))
			continue
		m = _INSN.match(line)
		if m:
			mnemonic, _, operands = m.group(2).strip().partition(' ')
			if '\t' in mnemonic:
				mnemonic, _, rest = mnemonic.partition('\t')
				operands = (rest + ' ' + operands).strip()
			if mnemonic.startswith('.') or mnemonic in ('...', '(bad)'):
				continue
			insn = Insn(section, int(m.group(1), 16), mnemonic,
				    ' '.join(operands.split()), where=where)
			insns.append(insn)
			by_addr[section, insn.addr] = insn
			continue
		m = _LINE.match(line)
		if m:
			loc = (os.path.normpath(m.group(2)), int(m.group(3)))
			where = where + (loc,) if m.group(1) else (loc,)
	# riscv's call is the pair auipc, jalr; R_RISCV_CALL on the auipc
	# names the callee of both
	for a, b in zip(insns, insns[1:]):
		if a.reloc and a.reloc[0] in ('R_RISCV_CALL', 'R_RISCV_CALL_PLT') \
		   and b.mnemonic == 'jalr' and not b.reloc:
			b.reloc = a.reloc
	return insns


_WORD = re.compile(r'^\s*([0-9a-f]+):\t\.word\t0x([0-9a-f]+)')


def code_words(text: str) -> Dict[Tuple[str, int], Tuple[str, int]]:
	"""The words of data in code, in `objdump -dr` output @text, that a
	relocation makes locations: (section, address) -> (symbol, offset
	from it), the offset being the addend, or (REL) the word.  arm's
	switch tables are such words, right after the jump."""
	words: Dict[Tuple[str, int], int] = {}
	found = {}
	for section, line in _in_sections(text):
		m = _WORD.match(line)
		if m:
			words[section, int(m.group(1), 16)] = int(m.group(2), 16)
			continue
		m = _RELOC.match(line)
		at = (section, int(m.group(1), 16)) if m else None
		if m and at in words:
			name, _, addend = m.group(3).partition('+0x')
			found[at] = (name, int(addend, 16) if addend else words[at])
	return found


def functions(symbols: List[Symbol], insns: List[Insn]) -> Dict[str, Function]:
	"""The function symbols, each with the instructions in its range."""
	funcs = {s.name: Function(s.name, s.section, s.value, s.size)
		 for s in symbols if s.function and s.size}
	by_section: Dict[str, List[Function]] = {}
	for f in funcs.values():
		by_section.setdefault(f.section, []).append(f)
	for insn in insns:
		for f in by_section.get(insn.section, ()):
			if f.contains(insn.section, insn.addr):
				f.insns.append(insn)
				break
	return funcs


@dataclass
class Object:
	path: Path
	symbols: List[Symbol]
	functions: Dict[str, Function]
	# (section, address) of the BUG()s: traps that do not return
	bugs: FrozenSet[Tuple[str, int]] = frozenset()
	# (section, address) -> where the kernel resumes after a trap there
	fixups: Dict[Tuple[str, int], Tuple[str, int]] = field(default_factory=dict)
	# (section, address) of a static key's nop or branch -> where the
	# other state of the key goes (__jump_table)
	jumps: Dict[Tuple[str, int], Tuple[str, int]] = field(default_factory=dict)
	# the code locations that switch tables hold (switch_cases())
	cases: FrozenSet[Tuple[str, int]] = frozenset()
	# (section, address) of code that the kernel's alternatives may
	# replace at boot -> its replacement (alternatives())
	alternatives: Dict[Tuple[str, int], 'Alternative'] = \
		field(default_factory=dict)

	def resolve(self, insn: Insn) -> Optional[Tuple[str, int]]:
		"""(section, address) a branch at @insn goes to, if it is in this
		object; None for a symbol defined elsewhere."""
		if not insn.reloc:
			target = insn.target
			return None if target is None else (insn.section, target)
		kind, expr = insn.reloc
		m = re.fullmatch(r'(.+?)(?:([+-])0x([0-9a-f]+))?', expr)
		assert m        # any name matches
		name, sign, off = m.groups()
		addend = int(off, 16) * (-1 if sign == '-' else 1) if off else 0
		if kind in ('R_X86_64_PC32', 'R_X86_64_PLT32'):
			addend += 4   # relative to the end of the 4-byte operand
		for s in self.symbols:
			if s.name == name:
				if s.section in ('*UND*', '*ABS*'):
					return None
				return (s.section, s.value + addend)
		# a label the symbol table leaves out: what objdump printed
		target = insn.target
		return None if target is None else (insn.section, target)


def disassemble(objdump: str, path: Path, lines: bool = False,
		layouts: Tuple[Layout, ...] = ()) -> Object:
	"""The functions of the object file @path; @lines adds the source
	locations (the object needs debug information); @layouts are those of
	its instruction set's tables of alternatives (isa.base.Isa)."""
	# riscv branches are relocated against .L labels: special symbols
	headers = run([objdump, '-htw', '--special-syms', path]).stdout
	symbols = parse_symbols(headers)
	cmd = [objdump, '-dr', '--no-show-raw-insn']
	if lines:
		cmd += ['-l', '--inlines']
	listing = run(cmd + [path]).stdout
	insns = parse_code(listing)
	words = code_words(listing)
	named: Dict[str, List[Symbol]] = {}
	for s in symbols:
		named.setdefault(_caret(s.name).strip(), []).append(s)
	if any(i.reloc and len(named.get(_symbol_of(i.reloc[1]), ())) > 1
	       for i in insns):
		readelf = re.sub(r'objdump$', 'readelf', str(objdump))
		relocate(insns, run([readelf, '-rW', path]).stdout, named)
	# Sections are symbols too, for relocations against them.
	code = {i.section for i in insns}
	for sec in code:
		symbols.append(Symbol(sec, sec, 0, 0, False))
	tables = [name for name in ('__bug_table', '__ex_table', '__jump_table',
				    '.rodata', '.toc') +
		  tuple(layout[0] for layout in layouts)
		  if re.search(rf'^\s*\d+ {re.escape(name)}\s', headers, re.M)]
	# the code locations a table's relocations may name
	labels = {_caret(s.name).strip(): (s.section, s.value)
		  for s in symbols if s.section in code}
	read: Dict[str, Table] = {}

	def table(name: str, names: Dict[str, Tuple[str, int]] = labels) -> Table:
		if name not in read:
			read[name] = Table(run([objdump, '-sr', '-j', name, path]).stdout
					   if name in tables or name in code else '',
					   names)
		return read[name]
	funcs = functions(symbols, insns)
	arm = {(labels[name][0], labels[name][1] + off)
	       for name, off in words.values() if name in labels}
	# powerpc's .toc holds where a switch table starts: in code, or in
	# .rodata
	toc = table('.toc', {**labels, '.rodata': ('.rodata', 0)})
	return Object(path, symbols, funcs,
		      bugs(table('__bug_table')), fixups(table('__ex_table')),
		      fixups(table('__jump_table')),
		      switch_cases(arm, table('.rodata'), toc, table, insns, funcs),
		      alternatives(table, layouts, insns))


def callee(insn: Insn) -> Optional[str]:
	"""The symbol that the call at @insn is relocated against: the
	function it calls, when that is another section's."""
	return _symbol_of(insn.reloc[1]) if insn.reloc else None


def _symbol_of(expr: str) -> str:
	return re.sub(r'[+-]0x[0-9a-f]+$', '', expr)


_READELF_SECTION = re.compile(r"^Relocation section '\.rela?(\S+)'")
_READELF_RELOC = re.compile(r'^([0-9a-f]+)\s+[0-9a-f]+\s+(R_\w+)\s+([0-9a-f]+)\s+'
			    r'(.*?)\s*([+-])\s*([0-9a-f]+)$')


def relocate(insns: List[Insn], relocs: str, named: Dict[str, List[Symbol]]) -> None:
	"""Give the relocations of @insns against a name that several local
	symbols share (clang 19's riscv labels are all ".L0 ") the symbol
	they mean, as section+offset: the one at the value that @relocs
	(`readelf -rW`) gives, in the instruction's section if there are
	several there."""
	values: Dict[Tuple[str, int], int] = {}
	section = None
	for line in relocs.splitlines():
		m = _READELF_SECTION.match(line)
		if m:
			section = m.group(1)
			continue
		m = _READELF_RELOC.match(line)
		if m and section:
			addend = int(m.group(6), 16) * (-1 if m.group(5) == '-' else 1)
			values.setdefault((section, int(m.group(1), 16)),
					  int(m.group(3), 16) + addend)
	for i in insns:
		if not i.reloc or (i.section, i.addr) not in values:
			continue
		candidates = named.get(_symbol_of(i.reloc[1]), [])
		if len(candidates) < 2:
			continue
		value = values[i.section, i.addr]
		at = [s for s in candidates if s.value == value] or candidates
		s = next((s for s in at if s.section == i.section), at[0])
		i.reloc = (i.reloc[0], f'{s.section}+{value:#x}')


BUGFLAG_WARNING = 1         # include/asm-generic/bug.h
_TABLE_RELOC = re.compile(r'^([0-9a-f]+) (R_\w+)\s+(\S+?)(?:\+0x([0-9a-f]+))?\s*$', re.M)
_CONTENTS = re.compile(r'^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ){1,4})', re.M)


def _caret(name: str) -> str:
	"""A symbol name as objdump -r prints it: control characters as ^X
	(riscv's local labels, .L1^B2)."""
	return re.sub(r'[\x00-\x1f]', lambda m: '^' + chr(ord(m.group()) + 64), name)


class Table:
	"""A data section of locations in code, from `objdump -sr -j NAME`:
	its contents, and the code location (section, address) of each
	relocation against one of @labels (a code section or a symbol in one,
	name -> (section, value); riscv: the ADD of an ADD/SUB pair, whose SUB
	difference() takes away).  A REL object (32-bit arm) keeps the addend
	in the data, the others (RELA) in the relocation."""

	def __init__(self, text: str, labels: Dict[str, Tuple[str, int]]):
		self.data = bytearray()
		for m in _CONTENTS.finditer(text):
			chunk = bytes.fromhex(m.group(2).replace(' ', ''))
			at = int(m.group(1), 16)
			self.data[at:at + len(chunk)] = chunk
		self.order: Literal['little', 'big'] = \
			'little' if re.search(r'file format \S*(little|le\b)',
					      text) else 'big'
		self.code: Dict[int, Tuple[str, int]] = {}
		# offset -> the type of the relocation in self.code there
		self.kinds: Dict[int, str] = {}
		# offset -> the code location a SUB relocation there subtracts
		self.minus: Dict[int, Tuple[str, int]] = {}
		self.relocated = set()
		for off, kind, name, addend in _TABLE_RELOC.findall(text):
			off = int(off, 16)
			rel = kind.startswith('R_ARM_')
			self.relocated.add(off)
			if name not in labels:
				continue
			section, base = labels[name]
			loc = (section, base + (int(addend, 16) if addend else
						self.word(off, 4) if rel else 0))
			if off not in self.code:
				self.kinds[off] = kind
				self.code[off] = loc
			elif kind.startswith('R_RISCV_SUB'):
				self.minus[off] = loc

	def word(self, at: int, size: int) -> int:
		return int.from_bytes(self.data[at:at + size], self.order)

	def difference(self, at: int, size: int) -> int:
		"""The number in the @size bytes at @at or, where riscv relocates
		them (ADD and SUB), the difference of the two code locations."""
		if at in self.code and at in self.minus and \
		   self.code[at][0] == self.minus[at][0]:
			return self.code[at][1] - self.minus[at][1]
		return self.word(at, size)


def bugs(table: Table) -> FrozenSet[Tuple[str, int]]:
	"""The traps that @table (__bug_table) records as BUG(), not WARN():
	a struct bug_entry locates its trap; then with CONFIG_DEBUG_BUGVERBOSE
	come the file (a relocation) and a u16 line; then the u16 flags."""
	found = set()
	for off, trap in table.code.items():
		flags_at = off + (10 if off + 4 in table.relocated else 4)
		if flags_at + 2 <= len(table.data) and \
		   not table.word(flags_at, 2) & BUGFLAG_WARNING:
			found.add(trap)
	return frozenset(found)


# The relocation of a switch table's entry that holds the case's distance
# from the table's start (.long .LBB0_5-.LJTI0_0): clang's for powerpc.
_FROM_TABLE = ('R_PPC64_REL32',)


def switch_cases(arm: Set[Tuple[str, int]], rodata: Table, toc: Table,
		 table: Callable[[str], Table], insns: List[Insn],
		 funcs: Dict[str, Function]) -> FrozenSet[Tuple[str, int]]:
	"""The instructions, but function entries, that switch tables hold
	(arm64's cases are BTI landing pads instead; isa.py):
	- arm: words in code after the jump, relocated against code (@arm,
	  from code_words());
	- riscv: in @rodata, relocated against code (gcc: R_RISCV_ADD32 of the
	  case with R_RISCV_SUB32 of the table; clang: absolute);
	- powerpc: signed 32-bit distances from the table's start, which @toc
	  holds: in code right after the jump (gcc), or in @rodata relocated
	  R_PPC64_REL32 (clang).  A table ends where its distances stop
	  landing on an instruction, or at the next table."""
	found = set(arm)
	found |= {t for off, t in rodata.code.items()
		  if rodata.kinds[off] not in _FROM_TABLE}
	at_insn = {(i.section, i.addr) for i in insns}
	starts = set(toc.code.values())
	for section, start in sorted(starts):
		t = table(section)
		off = start
		while off == start or (section, off) not in starts:
			if t.kinds.get(off) in _FROM_TABLE:
				where, value = t.code[off]
				case = (where, value - (off - start))
			elif off in t.relocated or off + 4 > len(t.data):
				break
			else:
				distance = t.word(off, 4)
				case = (section, start + distance - (distance >> 31 << 32))
			if case not in at_insn:
				break
			found.add(case)
			off += 4
	return frozenset(found & at_insn) - {(f.section, f.start)
					     for f in funcs.values()}


class Alternative(NamedTuple):
	"""What the kernel's alternatives may put in place of the @length
	bytes of code at a location, at boot: @insns, or nops where a
	callback makes them (the objects do not hold its code)."""
	length: int
	insns: Tuple[Insn, ...]


def alternatives(table: Callable[[str], Table],
		 layouts: Tuple[Layout, ...],
		 insns: List[Insn]) -> Dict[Tuple[str, int], Alternative]:
	"""The locations of @insns that the tables of alternatives let the
	kernel patch at boot, each with its replacement (arm64's callbacks,
	such as the one that makes alternative_has_cap_likely()'s branch a
	nop: none).  @layouts are the tables' (isa.base.Isa.alternatives),
	@table(section) reads one: an entry of the layout's size, whose
	location fields have the layout's relocation type, locates the code
	it patches first, its replacement the layout's offset on, and has the
	length of either at another offset (both have one length: the
	kernel's macros make sure)."""
	at = {(i.section, i.addr): i for i in insns}
	found: Dict[Tuple[str, int], Alternative] = {}
	for section, kind, size, offset, length_at, length_size in layouts:
		t = table(section)
		for off, loc in t.code.items():
			if off % size or t.kinds[off] != kind:
				continue
			length = t.difference(off + length_at, length_size)
			start = t.code.get(off + offset)
			spans = [] if start is None else \
				[(start[0], start[1] + n) for n in range(length)]
			found[loc] = Alternative(length, tuple(at[x] for x in spans
							       if x in at))
	return found


def fixups(table: Table) -> Dict[Tuple[str, int], Tuple[str, int]]:
	"""Instruction -> the code location its entry of @table pairs it
	with: each entry locates the instruction, then the other location.
	__ex_table: where the kernel resumes after the instruction faults or
	traps (powerpc's WARN() resumes there, not after its trap).
	__jump_table: where a static key's nop (or branch) goes in the key's
	other state (the key's own relocation is to data, not code)."""
	found: Dict[Tuple[str, int], Tuple[str, int]] = {}
	fixup_at = set()
	for off in sorted(table.code):
		if off not in fixup_at and off + 4 in table.code:
			found.setdefault(table.code[off], table.code[off + 4])
			fixup_at.add(off + 4)
	return found
