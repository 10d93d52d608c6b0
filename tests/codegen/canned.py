# SPDX-License-Identifier: GPL-2.0
"""Canned objects for the code-generation tests: an `objdump -dr` listing
made into instructions, an object, a control-flow graph (ctrldep.graph()),
or the corpus verdict on one of its functions."""

import textwrap
from pathlib import Path

from volatile_if import arches
from volatile_if.codegen import corpus, ctrldep, disasm, isa


def parse(listing: str) -> list:
	"""The instructions of a .text listing of `objdump -dr`."""
	text = textwrap.dedent(listing)
	if 'Disassembly of section' not in text:
		text = 'Disassembly of section .text:\n' + text
	return disasm.parse_code(text)


def analyse(arch_name: str, listing: str, name: str, start: int,
	    size: int, required: bool = False, **tables) -> ctrldep.Verdict:
	"""The corpus verdict on function @name of an `objdump -dr` @listing:
	loads through the first argument marked, stores through the second
	ordered; @required: built with a variant that requires the branch
	(volatile_if), else as a plain if (); @tables: the object's
	(disasm.Object's alternatives, ...)."""
	arch = arches.get(arch_name)
	insns = parse(listing)
	symbols = [disasm.Symbol(name, '.text', start, size, True),
		   disasm.Symbol('.text', '.text', 0, 0, False),
		   disasm.Symbol('__x86_return_thunk', '*UND*', 0, 0, False)]
	obj = disasm.Object(Path('canned.o'), symbols,
			    disasm.functions(symbols, insns), **tables)
	return corpus.analyse_function(arch, obj, name, isa.decoder(arch.isa),
					 branch_required=required)


def alternatives_of(arch_name: str, table: str, labels, listing: str):
	"""disasm.alternatives() of @table, read with each layout of the
	instruction set of @arch_name, for the code of @listing."""
	return disasm.alternatives(
		lambda section: disasm.Table(table, labels),
		isa.get(arches.get(arch_name).isa).alternatives,
		disasm.parse_code(textwrap.dedent(listing)))


def object_of(listing: str, functions, **tables) -> disasm.Object:
	"""The object of an `objdump -dr` @listing whose .text holds
	@functions, (name, start, size) each, with the object's @tables
	(disasm.Object's bugs, fixups, jumps, words, alternatives)."""
	insns = disasm.parse_code(textwrap.dedent(listing))
	symbols = [disasm.Symbol(n, '.text', a, z, True) for n, a, z in functions] + \
		[disasm.Symbol('.text', '.text', 0, 0, False),
		 disasm.Symbol('ext', '*UND*', 0, 0, False)]
	return disasm.Object(Path('x.o'), symbols,
			     disasm.functions(symbols, insns), **tables)


def graph_of(arch_name: str, listing: str, name: str, size: int,
	     others=(), **tables) -> ctrldep.Graph:
	"""The graph of function @name (at 0, @size bytes) of @listing, with
	@others: (name, start, size) of further functions in .text, and the
	object's @tables (object_of())."""
	obj = object_of(listing, ((name, 0, size),) + tuple(others), **tables)
	arch = arches.get(arch_name)
	return ctrldep.graph(obj, obj.functions[name], isa.decoder(arch.isa))


def inlined_of(arch_name: str, listing: str, name: str, functions,
	       **tables) -> ctrldep.Graph:
	"""The graph of function @name of object_of(@listing, @functions,
	@tables) with its calls followed (ctrldep.inline_calls())."""
	obj = object_of(listing, functions, **tables)
	decoder = isa.decoder(arches.get(arch_name).isa)
	return ctrldep.inline_calls(
		obj, ctrldep.graph(obj, obj.functions[name], decoder), decoder)
