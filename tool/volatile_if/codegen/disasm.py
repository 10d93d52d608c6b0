# SPDX-License-Identifier: GPL-2.0
"""Disassembly: an object file as functions of instructions, read from GNU
objdump (`-dr`, and `-l --inlines` for source lines), with the relocation
and the chain of inlined source locations of every instruction."""

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..common import run

# A source location chain, innermost first: ((file, line), ...)
Where = Tuple[Tuple[str, int], ...]

_SECTION = re.compile(r'^Disassembly of section (\S+):$')
_INSN = re.compile(r'^\s*([0-9a-f]+):\t(.*)$')
_RELOC = re.compile(r'^\s*([0-9a-f]+): (R_\w+)\s+(\S+)$')
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


def parse_code(text: str) -> List[Insn]:
	"""`objdump -dr [-l --inlines] --no-show-raw-insn` as instructions;
	data that objdump shows in code (.word, .long, ...) is left out."""
	insns, section, where, by_addr = [], '', (), {}
	for line in text.splitlines():
		m = _SECTION.match(line)
		if m:
			section = m.group(1)
			continue
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
	return insns


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

	def resolve(self, insn: Insn) -> Optional[Tuple[str, int]]:
		"""(section, address) a branch at @insn goes to, if it is in this
		object; None for a symbol defined elsewhere."""
		if not insn.reloc:
			target = insn.target
			return None if target is None else (insn.section, target)
		kind, expr = insn.reloc
		m = re.fullmatch(r'(.+?)(?:([+-])0x([0-9a-f]+))?', expr)
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


def disassemble(objdump: str, path: Path, lines: bool = False) -> Object:
	"""The functions of the object file @path; @lines adds the source
	locations (the object needs debug information)."""
	# riscv branches are relocated against .L labels: special symbols
	symbols = parse_symbols(run([objdump, '-tw', '--special-syms', path]).stdout)
	cmd = [objdump, '-dr', '--no-show-raw-insn']
	if lines:
		cmd += ['-l', '--inlines']
	insns = parse_code(run(cmd + [path]).stdout)
	# Sections are symbols too, for relocations against them.
	for sec in {i.section for i in insns}:
		symbols.append(Symbol(sec, sec, 0, 0, False))
	return Object(path, symbols, functions(symbols, insns))
