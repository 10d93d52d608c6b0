# SPDX-License-Identifier: GPL-2.0
"""Codegen: is the branch of a control dependency in the machine code?

  corpus.py     the corpus tests/codegen/ x architectures x compilers x
		volatile_cond() variants, as a matrix of verdicts
  sites.py      the converted sites, in the kernel objects that hold them
  survey.py     every site the rules report, plain if () and volatile_if(),
		per arch, compiler and optimisation level
  recompile.py  a C file compiled with the command kbuild recorded
  disasm.py     an object file as functions of instructions (objdump),
		with the traps __bug_table and __ex_table say do not return
		or resume elsewhere
  ctrldep.py    the verdict: are the stores ordered after the loads?
  isa/          what an instruction does, one module per instruction set
		(its grammar and decoder); arches.Arch.isa names one
"""
