# SPDX-License-Identifier: GPL-2.0
"""The instruction sets whose machine code codegen reads, a module each:
its grammar (an Isa: register names, the argument and call-clobbered
registers, the mnemonics that load, store, branch, set flags, fence...)
and its Decoder, which knows its operands as GNU objdump prints them.
arches.Arch.isa names one, so that a new architecture is an entry in
arches.py and, if its instruction set is new, a module here.
"""

from typing import Optional

from ...common import Error
from . import arm, arm64, powerpc, riscv, x86
from .base import Decoder, Isa

# Isa.name -> its module
_MODULES = {m.ISA.name: m for m in (arm64, arm, powerpc, riscv, x86)}


def _module(name: Optional[str]):
	"""@name's module; None is an architecture's with no isa entry."""
	try:
		return _MODULES[name or '']
	except KeyError:
		raise Error(f'no instruction set module for {name!r}; known: '
			    f'{", ".join(_MODULES)}') from None


def get(name: Optional[str]) -> Isa:
	"""The grammar of the instruction set called @name (arches.Arch.isa)."""
	return _module(name).ISA


def decoder(name: Optional[str]) -> Decoder:
	"""A decoder of the instruction set called @name (arches.Arch.isa)."""
	m = _module(name)
	return m.Decoder(m.ISA)
