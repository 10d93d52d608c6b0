# SPDX-License-Identifier: GPL-2.0
"""The code-generation checks: the objdump parser, the instruction table
and the control-dependency analysis on canned disassembly of every
architecture, and the committed results of scripts/bench-codegen (unit);
then a slice of its matrix, the corpus and the KUnit sites compiled by gcc
and clang now (slow)."""

import dataclasses
import importlib.machinery
import importlib.util
import json
import re
import textwrap
from pathlib import Path

import pytest

from volatile_if import arches, common, scan, tree
from volatile_if.codegen import (corpus, ctrldep, disasm, isa, recompile,
				 sites, survey)
from volatile_if.common import GENERATED_PATCHES, Error


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


# clang 14, arm64, plain if: the store to B hoisted above the test,
# the rest a cinc.
ARM64_HOISTED = '''
Disassembly of section .text:

0000000000000050 <cg_identical_stores>:
  50:	paciasp
  54:	ldr	w9, [x0]
  58:	mov	w8, #0x1                   	// #1
  5c:	cmp	w9, #0x0
  60:	str	w8, [x1]
  64:	cinc	w9, w8, eq	// eq = none
  68:	add	w9, w9, w3
  6c:	str	w9, [x2]
  70:	autiasp
  74:	ret
'''

# The same with volatile_if: cbnz from the asm goto before the store.
ARM64_ASM_GOTO = '''
Disassembly of section .text:

0000000000000068 <cg_identical_stores>:
  68:	paciasp
  6c:	ldrsw	x10, [x0]
  70:	mov	w8, #0x1                   	// #1
  74:	mov	w9, #0x1                   	// #1
  78:	cbnz	x10, 80 <cg_identical_stores+0x18>
  7c:	mov	w9, #0x2                   	// #2
  80:	bti	j
  84:	add	w9, w9, w3
  88:	str	w8, [x1]
  8c:	str	w9, [x2]
  90:	autiasp
  94:	ret
'''


@pytest.mark.unit
def test_arm64_hoisted_store_is_broken():
	v = analyse('arm64', ARM64_HOISTED, 'cg_identical_stores', 0x50, 0x28)
	assert v.status == 'broken'
	assert [(s.addr, s.status) for s in v.stores] == [(0x60, 'broken')]
	assert v.loads == [0x54] and v.insns == 10


@pytest.mark.unit
def test_arm64_asm_goto_branch_orders():
	v = analyse('arm64', ARM64_ASM_GOTO, 'cg_identical_stores', 0x68, 0x30,
		    required=True)
	assert v.status == 'guaranteed', v.why
	assert [s.addr for s in v.stores] == [0x88]
	# the longest path falls through the branch: all 12
	assert v.path == 12
	# the same machine code from a plain if (): the compiler's choice
	v = analyse('arm64', ARM64_ASM_GOTO, 'cg_identical_stores', 0x68, 0x30)
	assert v.status == 'compiler', v.why
	assert 'a conditional branch on the load at 6c, which the source ' \
		'does not require' in v.why
	# and without the branch, neither
	no_branch = ARM64_ASM_GOTO.replace('cbnz\tx10, 80', 'cbnz\tx11, 80')
	v = analyse('arm64', no_branch, 'cg_identical_stores', 0x68, 0x30,
		    required=True)
	assert v.status == 'broken', v.why


@pytest.mark.unit
def test_arm64_loop_reloads_and_barrier():
	listing = '''
	00000000000000b0 <cg_spin_wait>:
	  b0:	ldr	w2, [x0]
	  b4:	paciasp
	  b8:	sxtw	x2, w2
	  bc:	cbnz	x2, d4 <cg_spin_wait+0x24>
	  c0:	yield
	  c4:	ldr	w2, [x0]
	  c8:	sxtw	x2, w2
	  cc:	cbnz	x2, d4 <cg_spin_wait+0x24>
	  d0:	b	c0 <cg_spin_wait+0x10>
	  d4:	dmb	ishld
	  d8:	mov	w0, #0x1                   	// #1
	  dc:	autiasp
	  e0:	str	w0, [x1]
	  e4:	ret
	'''
	v = analyse('arm64', listing, 'cg_spin_wait', 0xb0, 0x38)
	assert v.status == 'guaranteed' and v.loads == [0xb0, 0xc4]
	# without the branches, the dmb ishld still orders the store, and
	# that is guaranteed whatever the source says
	no_branch = listing.replace('cbnz\tx2, d4', 'cbnz\tx9, d4')
	assert analyse('arm64', no_branch, 'cg_spin_wait', 0xb0, 0x38).status == 'guaranteed'
	# without the barrier, the branches order it: the compiler's choice
	branch_only = listing.replace('dmb\tishld', 'dmb\tishst')
	assert analyse('arm64', branch_only, 'cg_spin_wait', 0xb0, 0x38).status == 'compiler'
	no_fence = no_branch.replace('dmb\tishld', 'dmb\tishst')
	assert analyse('arm64', no_fence, 'cg_spin_wait', 0xb0, 0x38).status == 'broken'


@pytest.mark.unit
def test_arm_predicated_store():
	listing = '''
	00000000 <cg_article_basic>:
	   0:	ldr	r3, [r0]
	   4:	cmp	r3, #0
	   8:	movne	r3, #1
	   c:	strne	r3, [r1]
	  10:	bx	lr
	'''
	v = analyse('arm', listing, 'cg_article_basic', 0, 0x14)
	assert v.status == 'pred'
	# A value the load does not compute, stored under the condition code
	# that it does: ordered by the condition alone.
	constant = listing.replace('movne\tr3', 'mov\tr2').replace('strne\tr3', 'strne\tr2')
	v = analyse('arm', constant, 'cg_article_basic', 0, 0x14)
	assert [(s.addr, s.status) for s in v.stores] == [(0xc, 'pred')]
	v = analyse('arm', constant.replace('strne', 'str'), 'cg_article_basic', 0, 0x14)
	assert [(s.addr, s.status) for s in v.stores] == [(0xc, 'broken')]


@pytest.mark.unit
def test_defs_tested_look_past_a_predicated_def():
	"""if (a == 0 || b == 1): the cmpne sets the flags only where the
	cmp found a != 0, so both decide the beq."""
	g = graph_of('arm', '''
	Disassembly of section .text:

	00000000 <f>:
	   0:	ldr	r3, [r0]
	   4:	ldr	r2, [r1]
	   8:	cmp	r3, #0
	   c:	cmpne	r2, #1
	  10:	beq	18 <f+0x18>
	  14:	bx	lr
	  18:	bx	lr
	''', 'f', 0x1c)
	assert [g.insns[n].addr for n in ctrldep.defs_tested(g, 4)] == [0x8, 0xc]


@pytest.mark.unit
def test_a_branch_on_an_earlier_value_of_the_load_does_not_order():
	"""x3 holds what the load at 0 read before (in a previous round of a
	loop, given here at entry): once that load runs again, a branch on
	x3 tests the old value, and orders nothing after the new one."""
	listing = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldr	w2, [x0]
	   4:	cbnz	w3, c <f+0xc>
	   8:	ret
	   c:	mov	w4, #0x1
	  10:	str	w4, [x1]
	  14:	ret
	'''

	def verdict(text):
		return ctrldep.analyse(
			graph_of('arm64', text, 'f', 0x18),
			seed=lambda n, labels: 'a' in labels,
			ordered=lambda n, labels: 'b' in labels,
			init={'x0': frozenset('a'), 'x1': frozenset('b'),
			      'x3': frozenset({'@0'})}, branch_required=True).status
	assert verdict(listing) == 'broken'
	# the branch on the value this load read: ordered
	assert verdict(listing.replace('cbnz\tw3', 'cbnz\tw2')) == 'guaranteed'


@pytest.mark.unit
def test_arm_ldrd_pair_and_orrs():
	# volatile_if (u64 & (1ULL << 40)): the high half is the second register
	listing = '''
	00000278 <cg_u64_high>:
	 278:	push	{r4, r5}
	 27c:	mov	r2, #0
	 280:	ldrd	r4, [r0]
	 284:	and	r3, r5, #256	@ 0x100
	 288:	orrs	ip, r2, r3
	 28c:	bne	298 <cg_u64_high+0x20>
	 290:	pop	{r4, r5}
	 294:	bx	lr
	 298:	mov	r3, #1
	 29c:	str	r3, [r1]
	 2a0:	pop	{r4, r5}
	 2a4:	bx	lr
	'''
	assert analyse('arm', listing, 'cg_u64_high', 0x278, 0x30).status == 'compiler'
	low_only = listing.replace('and\tr3, r5', 'and\tr3, r4')
	assert analyse('arm', low_only, 'cg_u64_high', 0x278, 0x30,
		       required=True).status == 'guaranteed'
	constant = listing.replace('and\tr3, r5, #256', 'mov\tr3, #256')
	assert analyse('arm', constant, 'cg_u64_high', 0x278, 0x30).status == 'broken'


@pytest.mark.unit
def test_powerpc_select_is_broken_and_carry_is_followed():
	select = '''
	0000000000000090 <cg_identical_stores>:
	  90:	lwz     r3,0(r3)
	  94:	li      r7,1
	  98:	stw     r7,0(r4)
	  9c:	cntlzw  r3,r3
	  a0:	srwi    r3,r3,5
	  a4:	add     r3,r3,r6
	  a8:	addi    r3,r3,1
	  ac:	stw     r3,0(r5)
	  b0:	blr
	'''
	assert analyse('powerpc', select, 'cg_identical_stores', 0x90, 0x24).status == 'broken'
	# IS_ERR(): subfic sets the carry that subfe reads
	is_err = '''
	00000000000001c0 <cg_is_err>:
	 1c0:	ld      r3,0(r3)
	 1c4:	li      r5,-4096
	 1c8:	subfic  r3,r3,-4096
	 1cc:	subfe   r3,r5,r5
	 1d0:	neg     r3,r3
	 1d4:	cmpdi   cr7,r3,0
	 1d8:	bne     cr7,1e0 <cg_is_err+0x20>
	 1dc:	blr
	 1e0:	li      r3,1
	 1e4:	stw     r3,0(r4)
	 1e8:	blr
	'''
	assert analyse('powerpc', is_err, 'cg_is_err', 0x1c0, 0x2c).status == 'compiler'
	other_field = is_err.replace('bne     cr7,', 'bne     cr6,')
	assert analyse('powerpc', other_field, 'cg_is_err', 0x1c0, 0x2c).status == 'broken'


@pytest.mark.unit
def test_riscv_label_relocation_and_seqz():
	listing = '''
	0000000000000108 <cg_negation>:
	 108:	add	sp,sp,-16
	 10a:	sd	s0,8(sp)
	 10c:	add	s0,sp,16
	 10e:	lw	a5,0(a0)
	 110:	seqz	a5,a5
	 114:	bnez	a5,11c <.L33>
				114: R_RISCV_RVC_BRANCH	.L33
	 116:	ld	s0,8(sp)
	 118:	add	sp,sp,16
	 11a:	ret

	000000000000011c <.L33>:
	 11c:	ld	s0,8(sp)
	 11e:	li	a5,1
	 120:	sw	a5,0(a1)
	 122:	add	sp,sp,16
	 124:	ret
	'''
	# .L33 is not a symbol here: the printed target is used
	v = analyse('riscv', listing, 'cg_negation', 0x108, 0x1e, required=True)
	assert v.status == 'guaranteed' and [s.addr for s in v.stores] == [0x120]
	hoisted = listing.replace(' 11e:	li	a5,1\n', '').replace(
		' 10e:	lw	a5,0(a0)\n', ' 10e:	lw	a5,0(a0)\n 10f:	sw	zero,0(a1)\n')
	assert analyse('riscv', hoisted, 'cg_negation', 0x108, 0x1e).status == 'broken'


# `objdump -sr -j __bug_table` of a powerpc64le object (relative pointers,
# CONFIG_DEBUG_BUGVERBOSE: 12-byte entries, flags at +10) and of an arm one
# (absolute pointers, REL: the addend is in the data).
PPC_BUG_TABLE = """
x.o:     file format elf64-powerpcle

RELOCATION RECORDS FOR [__bug_table]:
OFFSET           TYPE              VALUE
0000000000000000 R_PPC64_REL32     .text+0x0000000000000010
0000000000000004 R_PPC64_REL32     .rodata.str1.1+0x0000000000000619
000000000000000c R_PPC64_REL32     .text+0x0000000000000018
0000000000000010 R_PPC64_REL32     .rodata.str1.1+0x0000000000000619

Contents of section __bug_table:
 0000 00000000 00000000 c5000000 00000000  ................
 0010 00000000 c8000900                    ........
"""
ARM_BUG_TABLE = """
x.o:     file format elf32-littlearm

RELOCATION RECORDS FOR [__bug_table]:
OFFSET   TYPE              VALUE
00000000 R_ARM_ABS32       .text
00000004 R_ARM_ABS32       .rodata.str

Contents of section __bug_table:
 0000 0c000000 3c000000 c5000000           ....<.......
"""


@pytest.mark.unit
def test_bug_table_tells_bug_from_warn():
	text = {'.text': ('.text', 0)}
	# the second entry's flags are 9: BUGFLAG_WARNING | BUGFLAG_NO_CUT_HERE
	assert disasm.bugs(disasm.Table(PPC_BUG_TABLE, text)) == {('.text', 0x10)}
	assert disasm.bugs(disasm.Table(ARM_BUG_TABLE, text)) == {('.text', 0xc)}
	assert disasm.bugs(disasm.Table('', text)) == frozenset()
	# __ex_table: (instruction, fixup) pairs
	ex = PPC_BUG_TABLE.replace('.rodata.str1.1+0x0000000000000619', '.text+0x8')
	assert disasm.fixups(disasm.Table(ex, text)) == {
		('.text', 0x10): ('.text', 0x8), ('.text', 0x18): ('.text', 0x8)}


# `objdump -sr -j __jump_table` of an arm64 object: relative entries of
# code, target and key (a relocation to data, not code).
ARM64_JUMP_TABLE = """
x.o:     file format elf64-littleaarch64

RELOCATION RECORDS FOR [__jump_table]:
OFFSET           TYPE              VALUE
0000000000000000 R_AARCH64_PREL32  .text
0000000000000004 R_AARCH64_PREL32  .text+0x0000000000000008
0000000000000008 R_AARCH64_PREL64  .bss+0x0000000000000018
0000000000000010 R_AARCH64_PREL32  .text+0x0000000000000004
0000000000000014 R_AARCH64_PREL32  .text+0x000000000000000c
0000000000000018 R_AARCH64_PREL64  gic_nonsecure_priorities

Contents of section __jump_table:
 0000 00000000 00000000 00000000 00000000  ................
 0010 00000000 00000000 00000000 00000000  ................
"""


@pytest.mark.unit
def test_a_static_key_goes_both_ways():
	listing = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	nop
	   4:	b	c <f+0xc>
	   8:	str	wzr, [x0]
	   c:	ret
	"""
	jumps = disasm.fixups(disasm.Table(ARM64_JUMP_TABLE,
					   {'.text': ('.text', 0)}))
	assert jumps == {('.text', 0): ('.text', 8), ('.text', 4): ('.text', 0xc)}
	assert graph_of('arm64', listing, 'f', 0x10).succs[:2] == [[1], [3]]
	# the nop may be a branch to the target, the branch a nop
	assert graph_of('arm64', listing, 'f', 0x10, jumps=jumps).succs[:2] == \
		[[1, 2], [2, 3]]


# `objdump -sr -j .altinstructions` of an arm64 object (6.12): struct
# alt_instr is 12 bytes, the instruction to patch first.  The first entry
# is alternative_has_cap_likely()'s branch, patched by a callback; the
# second has its replacement in .text too.
ARM64_ALTINSTRUCTIONS = """
x.o:     file format elf64-littleaarch64

RELOCATION RECORDS FOR [.altinstructions]:
OFFSET           TYPE              VALUE
0000000000000000 R_AARCH64_PREL32  .text+0x0000000000000004
0000000000000004 R_AARCH64_PREL32  alt_cb_patch_nops
000000000000000c R_AARCH64_PREL32  .text+0x0000000000000010
0000000000000010 R_AARCH64_PREL32  .text+0x0000000000000014

Contents of section .altinstructions:
 0000 00000000 00000000 1a800400 00000000  ................
 0010 00000000 00000404                    ........
"""


def alternatives_of(arch_name: str, table: str, labels, listing: str):
	"""disasm.alternatives() of @table, read with each layout of the
	instruction set of @arch_name, for the code of @listing."""
	return disasm.alternatives(
		lambda section: disasm.Table(table, labels),
		isa.get(arches.get(arch_name).isa).alternatives,
		disasm.parse_code(textwrap.dedent(listing)))


@pytest.mark.unit
def test_a_branch_the_alternatives_patch_goes_both_ways():
	"""arm64's atomics (6.1 and 6.12) branch over their LSE instruction
	to the LL/SC code until the alternatives make the branch a nop: both
	are paths."""
	listing = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldr	w1, [x0]
	   4:	b	c <f+0xc>
	   8:	cas	w1, w2, [x0]
	   c:	ret
	  10:	mrs	x0, cntvct_el0
	  14:	mrs	x0, cntvctss_el0
	"""
	alts = alternatives_of('arm64', ARM64_ALTINSTRUCTIONS,
			       {'.text': ('.text', 0)}, listing)
	assert {at: (alt.length, [i.addr for i in alt.insns])
		for at, alt in alts.items()} == \
		{('.text', 4): (4, []), ('.text', 0x10): (4, [0x14])}
	assert graph_of('arm64', listing, 'f', 0x10).succs[0] == [1]
	# the callback makes the branch a nop, which goes on to the cas (an
	# instruction on the path, as the nop is)
	g = graph_of('arm64', listing, 'f', 0x10, alternatives=alts)
	assert g.succs[0] == [1] and g.succs[1] == [3, 2] and g.size == 4
	assert ctrldep.longest_path(g) == 4


# xchg() (arch/arm64/include/asm/cmpxchg.h): an LL/SC loop and a barrier,
# replaced by a swpal and nops (the kernel's objects have them in .text
# after the functions, .subsection 1; here a section of their own)
ARM64_XCHG = """
Disassembly of section .text:

0000000000000000 <f>:
   0:	ldr	w8, [x0]
   4:	cbz	w8, 1c <f+0x1c>
   8:	prfm	pstl1strm, [x2]
   c:	ldxr	w3, [x2]
  10:	stxr	w4, w5, [x2]
  14:	cbnz	w4, c <f+0xc>
  18:	dmb	ish
  1c:	ret

Disassembly of section .altinstr_replacement:

0000000000000000 <.altinstr_replacement>:
   0:	swpal	w5, w3, [x2]
   4:	nop
   8:	nop
   c:	nop
  10:	nop
"""
ARM64_XCHG_TABLE = """
x.o:     file format elf64-littleaarch64

RELOCATION RECORDS FOR [.altinstructions]:
OFFSET           TYPE              VALUE
0000000000000000 R_AARCH64_PREL32  .text+0x0000000000000008
0000000000000004 R_AARCH64_PREL32  .altinstr_replacement

Contents of section .altinstructions:
 0000 00000000 00000000 13001414           ............
"""


@pytest.mark.unit
def test_a_replacement_of_several_instructions_is_a_path_of_its_own():
	"""On a CPU with LSE atomics, xchg() runs a swpal and nops where the
	LL/SC loop and its barrier were: a path from the branch before them
	through each instruction of the replacement to the return after
	them, at their source location; the function's size is its own."""
	listing = ARM64_XCHG.replace('   8:\tprfm', '/t/x.c:3\n   8:\tprfm')
	labels = {s: (s, 0) for s in ('.text', '.altinstr_replacement')}
	alts = alternatives_of('arm64', ARM64_XCHG_TABLE, labels, listing)
	assert {at: (alt.length, [i.text for i in alt.insns])
		for at, alt in alts.items()} == \
		{('.text', 8): (0x14, ['swpal w5, w3, [x2]'] + ['nop'] * 4)}
	plain = graph_of('arm64', listing, 'f', 0x20)
	g = graph_of('arm64', listing, 'f', 0x20, alternatives=alts)
	assert plain.succs[1] == [2, 7] and g.succs[1] == [2, 7, 8]
	assert g.succs[8:] == [[9], [10], [11], [12], [7]]
	assert [i.where for i in g.insns[8:]] == [(('/t/x.c', 3),)] * 5
	assert g.size == plain.size == 8
	assert ctrldep.longest_path(g) == ctrldep.longest_path(plain)
	# this_cpu_add(): the LL/SC loop starts at the code the stadd
	# replaces, and its branch back does not enter the replacement
	percpu = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldr	w8, [x0]
	   4:	cbz	w8, 18 <f+0x18>
	   8:	ldxr	w3, [x2]
	   c:	add	w3, w3, w1
	  10:	stxr	w4, w3, [x2]
	  14:	cbnz	w4, 8 <f+0x8>
	  18:	ret

	Disassembly of section .altinstr_replacement:

	0000000000000000 <.altinstr_replacement>:
	   0:	stadd	w1, [x2]
	   4:	nop
	   8:	nop
	   c:	nop
	"""
	alts = alternatives_of('arm64', ARM64_XCHG_TABLE.replace(
		'13001414', '13001010'), labels, percpu)
	plain = graph_of('arm64', percpu, 'f', 0x1c)
	g = graph_of('arm64', percpu, 'f', 0x1c, alternatives=alts)
	assert g.succs[1] == [2, 6, 7] and g.succs[5] == [6, 2]
	assert ctrldep.longest_path(g) == ctrldep.longest_path(plain) == 7


@pytest.mark.unit
def test_the_replacement_s_barrier_is_the_one_that_orders():
	"""A store after xchg() and no branch: ordered by its LL/SC code's dmb
	ish, and on a CPU with LSE atomics by the swpal that replaces it,
	which the kernel makes its full barrier.  A replacement without one
	(swp) leaves the store unordered on its path."""
	listing = ARM64_XCHG.replace('cbz\tw8, 1c <f+0x1c>', 'mov\tw6, w8') \
		.replace('  1c:\tret', '  1c:\tstr\twzr, [x1]\n  20:\tret')
	labels = {s: (s, 0) for s in ('.text', '.altinstr_replacement')}
	alts = alternatives_of('arm64', ARM64_XCHG_TABLE, labels, listing)
	assert analyse('arm64', listing, 'f', 0, 0x24).status == 'guaranteed'
	assert analyse('arm64', listing, 'f', 0, 0x24,
		       alternatives=alts).status == 'guaranteed'
	relaxed = listing.replace('swpal', 'swp')
	v = analyse('arm64', relaxed, 'f', 0, 0x24, alternatives=alternatives_of(
		'arm64', ARM64_XCHG_TABLE, labels, relaxed))
	assert (v.status, [x.addr for x in v.stores if x.status == 'broken']) \
		== ('broken', [0x1c])



@pytest.mark.unit
def test_a_replacement_at_the_entry_is_an_entry():
	"""Where an alternative patches a function's first instruction, a
	CPU with the feature starts the function at the replacement: an
	entry of its own, which does not run the instruction it replaces.
	A caller's copy (inline_calls()) enters both."""
	listing = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldar	w8, [x0]
	   4:	str	wzr, [x1]
	   8:	ret

	000000000000000c <h>:
	   c:	bl	0 <f>
	  10:	ret

	Disassembly of section .altinstr_replacement:

	0000000000000000 <.altinstr_replacement>:
	   0:	ldr	w8, [x0]
	"""
	labels = {s: (s, 0) for s in ('.text', '.altinstr_replacement')}
	alts = alternatives_of('arm64', ARM64_XCHG_TABLE.replace(
		'.text+0x0000000000000008', '.text').replace(
		'13001414', '13000404'), labels, listing)
	assert {at: alt.length for at, alt in alts.items()} == {('.text', 0): 4}
	g = graph_of('arm64', listing, 'f', 0xc, alternatives=alts)
	assert g.entries == [0, 3] and g.succs == [[1], [2], [], [1]]
	assert ctrldep.longest_path(g) == 3
	# the acquire orders the store on one path only
	v = analyse('arm64', listing, 'f', 0, 0xc, alternatives=alts)
	assert (v.status, [x.addr for x in v.stores]) == ('broken', [4])
	assert analyse('arm64', listing, 'f', 0, 0xc).status == 'guaranteed'
	inlined = inlined_of('arm64', listing, 'h', (('f', 0, 0xc), ('h', 0xc, 8)),
			     alternatives=alts)
	assert inlined.succs[0] == [2, 5]



@pytest.mark.unit
@pytest.mark.parametrize('order', [[1, 5], [5, 1]])
def test_a_loop_whose_head_is_patched_runs_once(order):
	"""A loop whose head an alternative patches (riscv's Zawrs wait: a
	`j` over the wait, a `nop` in its replacement) is entered at either,
	and its branch back goes to both.  The longest path runs the body
	once, by the code or by the replacement, whichever the walk meets
	first; it never runs both."""
	# 0: entry; 1: the j (to 3), 5: its nop (on to 2); 2: the wait;
	# 3: the test, 4: the exit, or back to 1 and 5
	succs = [order, [3], [3], [4, 1, 5], [], [2]]
	g = ctrldep.Graph([None] * 6, [], succs, replaces={5: 1})
	assert ctrldep.longest_path(g) == 5     # 0, 5, 2, 3, 4


# riscv's .alternative for the code of RISCV_ALTERNATIVES_CODE, as 6.12
# lays it out (16 bytes, locations relative to the field: ADD32/SUB32
# pairs) and as 6.1 does (36 bytes, pointers).
RISCV_ALTERNATIVE_612 = """
x.o:     file format elf64-littleriscv

RELOCATION RECORDS FOR [.alternative]:
OFFSET           TYPE              VALUE
0000000000000000 R_RISCV_ADD32     .L886^B1
0000000000000000 R_RISCV_SUB32     .L0
0000000000000004 R_RISCV_ADD32     .L888^B1
0000000000000004 R_RISCV_SUB32     .L0
000000000000000a R_RISCV_ADD16     .L889^B1
000000000000000a R_RISCV_SUB16     .L888^B1
0000000000000010 R_RISCV_ADD32     .L886^B2
0000000000000010 R_RISCV_SUB32     .L0
0000000000000014 R_RISCV_ADD32     .L888^B2
0000000000000014 R_RISCV_SUB32     .L0
000000000000001a R_RISCV_ADD16     .L889^B2
000000000000001a R_RISCV_SUB16     .L888^B2

Contents of section .alternative:
 0000 00000000 00000000 00000000 23000000  ............#...
 0010 00000000 00000000 00000000 24000000  ............$...
"""
RISCV_ALTERNATIVE_61 = """
x.o:     file format elf64-littleriscv

RELOCATION RECORDS FOR [.alternative]:
OFFSET           TYPE              VALUE
0000000000000000 R_RISCV_64        .L886^B1
0000000000000008 R_RISCV_64        .L888^B1
0000000000000018 R_RISCV_ADD64     .L889^B1
0000000000000018 R_RISCV_SUB64     .L888^B1
0000000000000024 R_RISCV_64        .L886^B2
000000000000002c R_RISCV_64        .L888^B2
000000000000003c R_RISCV_ADD64     .L889^B2
000000000000003c R_RISCV_SUB64     .L888^B2

Contents of section .alternative:
 0000 00000000 00000000 00000000 00000000  ................
 0010 00000000 00000000 00000000 00000000  ................
 0020 23000000 00000000 00000000 00000000  #...............
 0030 00000000 00000000 00000000 00000000  ................
 0040 00000000 24000000                    ....$...
"""
# riscv_has_extension_likely() jumps to its "no" label until the
# alternatives make the jump a nop (on a CPU with the extension);
# riscv_has_extension_unlikely() has a nop that becomes a jump to its
# "yes" label.  The replacements follow the function (.subsection 1).
RISCV_ALTERNATIVES_CODE = """
Disassembly of section .text:

0000000000000000 <f>:
   0:	lw	a5,0(a0)
   4:	j	c <f+0xc>
   8:	sw	a5,0(a1)
   c:	nop
  10:	ret
  14:	sw	zero,0(a1)
  18:	ret
  1c:	nop
  20:	j	14 <f+0x14>
"""
RISCV_LABELS = {'.L886^B1': ('.text', 4), '.L888^B1': ('.text', 0x1c),
		'.L889^B1': ('.text', 0x20), '.L886^B2': ('.text', 0xc),
		'.L888^B2': ('.text', 0x20), '.L889^B2': ('.text', 0x24),
		'.L0': ('.text', 0)}


@pytest.mark.unit
@pytest.mark.parametrize('table', [RISCV_ALTERNATIVE_612, RISCV_ALTERNATIVE_61])
def test_riscv_alternatives_go_where_their_replacement_goes(table):
	"""riscv's alternatives, in either kernel's layout: the jump that
	becomes a nop falls through too, the nop that becomes a jump goes to
	its target too; the stores behind them are on paths."""
	alts = alternatives_of('riscv', table, RISCV_LABELS,
			       RISCV_ALTERNATIVES_CODE)
	assert {at: (alt.length, [i.text for i in alt.insns])
		for at, alt in alts.items()} == \
		{('.text', 4): (4, ['nop']), ('.text', 0xc): (4, ['j 14 <f+0x14>'])}
	plain = graph_of('riscv', RISCV_ALTERNATIVES_CODE, 'f', 0x1c)
	assert plain.succs[:4] == [[1], [3], [3], [4]]
	g = graph_of('riscv', RISCV_ALTERNATIVES_CODE, 'f', 0x1c,
		     alternatives=alts)
	# 7 and 8: the replacements of the jump at 4 and of the nop at 0xc
	assert g.succs[:4] == [[1, 7], [3, 8], [3, 8], [4]]
	assert g.succs[7:] == [[2], [5]]
	assert not g.tail_calls
	# a replacement that jumps out of the function: a tail call there
	out = RISCV_ALTERNATIVES_CODE.replace(
		'j\t14 <f+0x14>', 'j\t0 <ext>\n\t\t\t20: R_RISCV_JAL\text')
	g = graph_of('riscv', out, 'f', 0x1c, alternatives=alternatives_of(
		'riscv', table, RISCV_LABELS, out))
	assert g.succs[8] == [] and g.tail_calls == {8}


@pytest.mark.unit
def test_a_conditional_tail_call_is_a_tail_call():
	"""A conditional branch to another function's entry, or through a
	register no switch explains (powerpc's bnectr), is a tail call where
	its condition holds: the callee's stores count as the function's.
	Followed as inlined, it goes on after the call as well as on."""
	listing = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldr	w8, [x0]
	   4:	cbnz	w8, 10 <g>
	   8:	str	wzr, [x1]
	   c:	ret

	0000000000000010 <g>:
	  10:	str	wzr, [x2]
	  14:	ret

	0000000000000018 <h>:
	  18:	bl	0 <f>
	  1c:	ret
	"""
	others = (('g', 0x10, 8), ('h', 0x18, 8))
	g = graph_of('arm64', listing, 'f', 0x10, others)
	assert g.succs[1] == [2] and g.tail_calls == {1} and not g.outside
	inlined = inlined_of('arm64', listing, 'h', (('f', 0, 0x10),) + others)
	# h's two, then f's copy: its cbnz goes on to the store and after
	# the call
	assert inlined.succs[3] == [4, 1] and 3 in inlined.tail_calls
	ppc = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	lwz     r9,0(r3)
	   4:	cmpwi   r9,0
	   8:	bnectr
	   c:	stw     r9,0(r4)
	  10:	blr
	"""
	g = graph_of('powerpc', ppc, 'f', 0x14)
	assert g.succs[2] == [3] and g.tail_calls == {2}


@pytest.mark.unit
def test_a_switch_goes_to_its_cases():
	"""A jump to a register goes where the code shows the cases of a
	switch: arm64's BTI landing pads, and the words of arm's table after
	its jump; where it shows none, it is a tail call."""
	arm64 = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldr	w8, [x0]
	   4:	cmp	w8, #0x2
	   8:	b.hi	28 <f+0x28>
	   c:	adr	x10, 18 <f+0x18>
	  10:	add	x10, x10, x8, lsl #2
	  14:	br	x10
	  18:	bti	j
	  1c:	str	wzr, [x1]
	  20:	bti	j
	  24:	ret
	  28:	ret
	"""
	g = graph_of('arm64', arm64, 'f', 0x2c)
	assert g.succs[5] == [6, 8] and 5 not in g.tail_calls
	# without cases, a jump to a register is a tail call: the callee's
	# stores count as the function's
	g = graph_of('arm64', arm64.replace('bti	j', 'nop'), 'f', 0x2c)
	assert g.succs[5] == [] and 5 in g.tail_calls
	# gcc, arm: the table's words hold the cases' addresses (REL: the
	# relocation's addend is the word)
	arm = """
	Disassembly of section .text:

	00000000 <f>:
	   0:	ldr	r3, [r0]
	   4:	cmp	r3, #1
	   8:	ldrls	pc, [pc, r3, lsl #2]
	   c:	b	20 <f+0x20>
	  10:	.word	0x00000018
			10: R_ARM_ABS32	.text
	  14:	.word	0x00000020
			14: R_ARM_ABS32	.text
	  18:	str	r3, [r1]
	  1c:	bx	lr
	  20:	bxls	lr
	  24:	bx	lr
	"""
	words = disasm.code_words(textwrap.dedent(arm))
	assert words == {('.text', 0x10): ('.text', 0x18),
			 ('.text', 0x14): ('.text', 0x20)}
	cases = frozenset(words.values())
	g = graph_of('arm', arm, 'f', 0x28, cases=cases)
	# a predicated return leaves, or goes on: it has no cases
	assert g.succs[2] == [3, 4, 6] and g.succs[6] == [7]
	assert graph_of('arm', arm, 'f', 0x28).succs[2] == [3]


# A switch's jump and three cases, for powerpc; 0x10 and 0x14 hold gcc's
# table, distances from 0x10 (the second is negative).
PPC_SWITCH = """
Disassembly of section .text:

0000000000000000 <f>:
   0:	lwz     r9,0(r3)
   4:	stw     r9,0(r4)
   8:	mtctr   r9
   c:	bctr
  10:	.long 0x8
  14:	.long 0xfffffff4
  18:	stw     r9,0(r4)
  1c:	blr
  20:	stw     r9,4(r4)
  24:	blr
"""


def objdump_table(fmt: str, section: str, relocs: str, contents: str) -> str:
	"""What `objdump -sr -j @section` prints: @relocs (OFFSET TYPE VALUE
	lines), then @contents, whole words of 4 bytes from offset 0."""
	words = contents.split()
	rows = [f' {n * 4:04x} ' + ' '.join(words[n:n + 4]) + ' '
		for n in range(0, len(words), 4)]
	return (f'x.o:     file format {fmt}\n\n'
		f'RELOCATION RECORDS FOR [{section}]:\nOFFSET TYPE VALUE\n'
		f'{textwrap.dedent(relocs)}\n'
		f'Contents of section {section}:\n' + '\n'.join(rows) + '\n')


@pytest.mark.unit
def test_switch_tables_in_data():
	"""The cases that riscv's and powerpc's switch tables hold, in .rodata
	or (powerpc gcc) in code after the jump, located by the .toc."""
	insns = disasm.parse_code(PPC_SWITCH)
	funcs = disasm.functions([disasm.Symbol('f', '.text', 0, 0x28, True)], insns)
	labels = {'.text': ('.text', 0), '.rodata': ('.rodata', 0),
		  '.L2': ('.text', 0x18), '.L3': ('.text', 0x20)}
	none = disasm.Table('', labels)

	def cases(rodata=none, toc=none, text=none):
		sections = {'.text': text, '.rodata': rodata}
		return sorted(a for _, a in disasm.switch_cases(
			set(), rodata, toc, sections.__getitem__, insns, funcs))

	# riscv gcc: each entry the case minus the table (ADD32, SUB32)
	riscv = objdump_table('elf64-littleriscv', '.rodata', """\
		0000000000000000 R_RISCV_ADD32     .L2
		0000000000000000 R_RISCV_SUB32     .L4
		0000000000000004 R_RISCV_ADD32     .L3
		0000000000000004 R_RISCV_SUB32     .L4""", '00000000 00000000')
	assert cases(rodata=disasm.Table(riscv, labels)) == [0x18, 0x20]
	# clang: absolute; a function's entry is no case
	riscv = objdump_table('elf64-littleriscv', '.rodata', """\
		0000000000000000 R_RISCV_64        .text+0x0000000000000020
		0000000000000008 R_RISCV_64        .text""", '0 0 0 0')
	assert cases(rodata=disasm.Table(riscv, labels)) == [0x20]

	# powerpc clang: two tables in .rodata, at 0 and 8, of distances from
	# each (REL32 of the case plus the entry's distance from the table)
	toc = disasm.Table(objdump_table('elf64-powerpcle', '.toc', """\
		0000000000000000 R_PPC64_ADDR64    .rodata+0x0000000000000008
		0000000000000008 R_PPC64_ADDR64    .rodata""", '0 0 0 0'), labels)
	rodata = disasm.Table(objdump_table('elf64-powerpcle', '.rodata', """\
		0000000000000000 R_PPC64_REL32     .text+0x0000000000000018
		0000000000000004 R_PPC64_REL32     .text+0x0000000000000024
		0000000000000008 R_PPC64_REL32     .text+0x0000000000000024
		000000000000000c R_PPC64_REL32     .text+0x0000000000000008""",
		'0 0 0 0'), labels)
	# (read from 0 on, the entry at 8 would give 0x1c)
	assert cases(rodata, toc) == [0x4, 0x18, 0x20, 0x24]
	# without the .toc, where the distances start is not known
	assert cases(rodata) == []

	# powerpc gcc: the table after the jump, up to the next instruction
	toc = disasm.Table(objdump_table('elf64-powerpcle', '.toc', """\
		0000000000000000 R_PPC64_ADDR64    .text+0x0000000000000010""",
		'0 0'), labels)
	text = disasm.Table(objdump_table(
		'elf64-powerpcle', '.text', '',
		'00002381 00002491 a603297d 2004804e 08000000 f4ffffff '
		'00002491 2000804e 04002491 2000804e'), labels)
	assert cases(toc=toc, text=text) == [0x4, 0x18]


@pytest.mark.unit
def test_a_bug_ends_the_path_a_warn_resumes():
	listing = """
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	lwz     r9,0(r3)
	   4:	cmpwi   r9,0
	   8:	beq     14 <f+0x14>
	   c:	bl      c <f+0xc>
	  10:	twui    r0,0
	  14:	stw     r9,0(r4)
	  18:	blr
	"""
	def after_trap(**tables) -> list:
		return graph_of('powerpc', listing, 'f', 0x1c, **tables).succs[4]

	assert after_trap(bugs=frozenset({('.text', 0x10)})) == []
	assert after_trap() == [5]
	# powerpc's WARN(): the kernel resumes at the trap's fixup
	assert after_trap(fixups={('.text', 0x10): ('.text', 0x18)}) == [6]
	# arm: the BUG() is a word objdump shows as data, between two
	# instructions
	assert after_trap(bugs=frozenset({('.text', 0x12)})) == []


# clang 19 for riscv: every local label a branch is relocated against is
# named ".L0 "; readelf gives the one meant by its value.
RISCV_SHARED_LABELS = """
Relocation section '.rela.text' at offset 0x44650 contains 2 entries:
    Offset             Info             Type               Symbol's Value  Symbol's Name + Addend
0000000000000004  0000050400000010 R_RISCV_BRANCH         0000000000000010 .L0  + 0
0000000000000008  0000157800000013 R_RISCV_CALL_PLT       0000000000000000 schedule + 0
"""


@pytest.mark.unit
def test_relocation_against_a_shared_label_name():
	insns = disasm.parse_code(textwrap.dedent("""\
		Disassembly of section .text:

		0000000000000000 <f>:
		   0:	lw	a5,0(a0)
		   4:	bnez	a5,4 <f+0x4>
					4: R_RISCV_BRANCH	.L0 
		   8:	sw	zero,0(a1)
		   c:	ret
		  10:	ret
		"""))
	assert insns[1].reloc == ('R_RISCV_BRANCH', '.L0')
	labels = [disasm.Symbol('.L0 ', '.text', v, 0, False) for v in (0x8, 0x10)]
	disasm.relocate(insns, RISCV_SHARED_LABELS, {'.L0': labels})
	assert insns[1].reloc == ('R_RISCV_BRANCH', '.text+0x10')


# cg_spin_wait() by gcc 12 for arm: the plain if () enters the loop at its
# test; volatile_if() tests once, then loops on a body that tests at its
# end.  Both run the body once in 22 and 21 instructions (the dmb and the
# ten nops are cpu_relax()).
ARM_SPIN_ROTATED = '''
00000070 <cg_spin_wait>:
  70:	b	a0 <cg_spin_wait+0x30>
  74:	dmb	ish
  78:	nop	{0}
  7c:	nop	{0}
  80:	nop	{0}
  84:	nop	{0}
  88:	nop	{0}
  8c:	nop	{0}
  90:	nop	{0}
  94:	nop	{0}
  98:	nop	{0}
  9c:	nop	{0}
  a0:	ldr	r3, [r0]
  a4:	cmp	r3, #0
  a8:	beq	74 <cg_spin_wait+0x4>
  ac:	dmb	ish
  b0:	mov	r3, #1
  b4:	str	r3, [r1]
  b8:	bx	lr
'''
ARM_SPIN_PEELED = '''
00000080 <cg_spin_wait>:
  80:	ldr	r3, [r0]
  84:	cmp	r3, #0
  88:	bne	c4 <cg_spin_wait+0x44>
  8c:	dmb	ish
  90:	nop	{0}
  94:	nop	{0}
  98:	nop	{0}
  9c:	nop	{0}
  a0:	nop	{0}
  a4:	nop	{0}
  a8:	nop	{0}
  ac:	nop	{0}
  b0:	nop	{0}
  b4:	nop	{0}
  b8:	ldr	r3, [r0]
  bc:	cmp	r3, #0
  c0:	beq	8c <cg_spin_wait+0xc>
  c4:	dmb	ish
  c8:	mov	r3, #1
  cc:	str	r3, [r1]
  d0:	bx	lr
'''


@pytest.mark.unit
def test_longest_path_runs_a_loop_once_however_it_is_laid_out():
	rotated = analyse('arm', ARM_SPIN_ROTATED, 'cg_spin_wait', 0x70, 0x4c)
	peeled = analyse('arm', ARM_SPIN_PEELED, 'cg_spin_wait', 0x80, 0x54)
	# the rotated loop's path goes back to its test to leave
	assert (rotated.path, peeled.path) == (22, 21)
	assert (rotated.insns, peeled.insns) == (19, 21)


@pytest.mark.unit
def test_x86_tso_only_asks_for_the_order():
	listing = '''
	0000000000000040 <cg_identical_stores>:
	  40:	mov    (%rdi),%eax
	  42:	movl   $0x1,(%rsi)
	  48:	test   %eax,%eax
	  4a:	je     56 <cg_identical_stores+0x16>
	  4c:	add    $0x1,%ecx
	  4f:	mov    %ecx,(%rdx)
	  51:	jmp    56 <cg_identical_stores+0x16>
				52: R_X86_64_PLT32	__x86_return_thunk-0x4
	  56:	add    $0x2,%ecx
	  59:	mov    %ecx,(%rdx)
	  5b:	jmp    60 <cg_identical_stores+0x20>
				5c: R_X86_64_PLT32	__x86_return_thunk-0x4
	'''
	v = analyse('x86_64', listing, 'cg_identical_stores', 0x40, 0x20)
	assert v.status == 'compiler' and v.path == 7
	assert 'TSO' in v.why
	v = analyse('x86_64', listing, 'cg_identical_stores', 0x40, 0x20,
		    required=True)
	assert v.status == 'guaranteed'
	before = textwrap.dedent(listing).replace(
		'  40:	mov    (%rdi),%eax\n  42:	movl   $0x1,(%rsi)',
				 '  40:	movl   $0x1,(%rsi)\n  42:	mov    (%rdi),%eax')
	assert analyse('x86_64', before, 'cg_identical_stores', 0x40, 0x20,
		       required=True).status == 'broken'


@pytest.mark.unit
@pytest.mark.parametrize('arch,mnemonic,operands,expect', [
	('arm64', 'ldp', 'x29, x30, [sp], #16',
	 dict(loaded={'x29', 'x30'}, defs={'sp'}, load=True)),
	('arm64', 'stxr', 'w3, x1, [x0]',
	 dict(defs={'x3'}, values={'x1'}, addr={'x0'}, store=True)),
	('arm64', 'ldaddal', 'w1, w0, [x2]',
	 dict(loaded={'x0'}, values={'x1', 'x0'}, load=True, store=True, acquire=True,
	      fence=True)),
	('arm64', 'csinc', 'w8, w8, wzr, eq', dict(defs={'x8'}, uses={'x8', 'flags'})),
	# the loads of atomic read-modify-writes: the destination gets the data
	('arm64', 'ldxr', 'w3, [x0]', dict(loaded={'x3'}, load=True, addr={'x0'})),
	('arm64', 'ldaxr', 'x3, [x0]', dict(loaded={'x3'}, load=True, acquire=True)),
	('arm64', 'cas', 'w3, w2, [x0]', dict(loaded={'x3'}, load=True, store=True,
					      fence=False)),
	('arm64', 'casal', 'x3, x2, [x0]', dict(loaded={'x3'}, load=True, acquire=True)),
	# xchg() with LSE atomics: a full barrier, with no dmb
	('arm64', 'swpal', 'w1, w2, [x0]', dict(loaded={'x2'}, load=True, store=True,
						fence=True)),
	('arm64', 'swpa', 'w1, w2, [x0]', dict(acquire=True, fence=False)),
	('arm64', 'ldadd', 'w1, w2, [x0]', dict(loaded={'x2'}, load=True, store=True,
						fence=False)),
	('arm', 'ldrex', 'r3, [r0]', dict(loaded={'r3'}, load=True, addr={'r0'})),
	('arm', 'ldrexd', 'r2, [r0]', dict(loaded={'r2', 'r3'}, load=True)),
	('powerpc', 'lwarx', 'r9,0,r3', dict(loaded={'r9'}, load=True, addr={'r3'})),
	('powerpc', 'ldarx', 'r9,0,r3', dict(loaded={'r9'}, load=True, addr={'r3'})),
	('powerpc', 'lbarx', 'r9,0,r3', dict(loaded={'r9'}, load=True)),
	('powerpc', 'lharx', 'r9,0,r3', dict(loaded={'r9'}, load=True)),
	('riscv', 'lr.w', 'a5,(a0)', dict(loaded={'a5'}, load=True, addr={'a0'})),
	('riscv', 'lr.d.aqrl', 'a5,(a0)', dict(loaded={'a5'}, load=True, acquire=True)),
	('riscv', 'amoadd.w', 'a5,a4,(a0)', dict(loaded={'a5'}, load=True, store=True)),
	('riscv', 'amoadd.w.aqrl', 'a5,a4,(a0)', dict(loaded={'a5'}, store=True,
						      fence=True)),
	('arm64', 'tbnz', 'w8, #31, 54 <f+0x24>', dict(flow='cond', cond={'x8'})),
	('arm64', 'str', 'x0, [sp, #16]', dict(store=True, slot='sp+16')),
	('arm64', 'dmb', 'ishst', dict(fence=False)),
	('arm', 'bls', '30 <f+0x30>', dict(flow='cond', cond={'flags'})),
	('arm', 'movweq', 'r0, #3', dict(predicated=True, uses={'r0', 'flags'})),
	('arm', 'orrs', 'ip, r2, r3', dict(defs={'ip', 'flags'}, uses={'r2', 'r3'})),
	('arm', 'pop', '{r4, pc}', dict(flow='ret')),
	('arm', 'bxmi', 'lr', dict(flow='cond', cond={'flags'})),
	('powerpc', 'stdu', 'r1,-32(r1)', dict(defs={'r1'}, store=True, values={'r1'})),
	('powerpc', 'lwzx', 'r9,r3,r4', dict(loaded={'r9'}, addr={'r3', 'r4'})),
	('powerpc', 'beqlr', 'cr7', dict(flow='cond', cond={'cr7'}, leaves=True)),
	('powerpc', 'beq', 'cr7,10 <f+0x10>', dict(flow='cond', leaves=False)),
	('arm', 'popeq', '{r4, pc}', dict(flow='cond', cond={'flags'},
					 leaves=True, indirect=False)),
	('arm', 'bxne', 'lr', dict(flow='cond', leaves=True)),
	('arm', 'ldrls', 'pc, [pc, r3, lsl #2]', dict(flow='cond', leaves=False,
						      indirect=True)),
	('powerpc', 'and.', 'r9,r9,r9', dict(defs={'r9', 'cr0'})),
	('powerpc', 'lwsync', '', dict(fence=True)),
	('riscv', 'amoswap.w.aq', 'a5,a4,(a0)', dict(loaded={'a5'}, values={'a4'},
						   acquire=True, store=True,
						   fence=False)),
	('riscv', 'fence', 'r,r', dict(fence=False)),
	('riscv', 'fence', 'r,rw', dict(fence=True)),
	('riscv', 'bnez', 'a5,a0 <f+0x10>', dict(cond={'a5'})),
	('x86_64', 'cmpl', '$0x0,(%rdi)', dict(loaded={'flags'}, load=True, addr={'rdi'})),
	('x86_64', 'xor', '%eax,%eax', dict(defs={'rax', 'flags'}, uses=set())),
	('x86_64', 'lock', 'addl $0x0,-0x4(%rsp)', dict(fence=True, store=True)),
	('x86_64', 'add', '%eax,(%rdx)', dict(load=True, store=True, values={'rax'})),
	('x86_64', 'lea', '0x4(%rdi),%rax', dict(defs={'rax'}, uses={'rdi'},
						load=False)),
	('x86_64', 'cmovne', '%edx,%eax', dict(defs={'rax'},
					       uses={'rax', 'rdx', 'flags'})),
	('x86_64', 'mfence', '', dict(fence=True)),
	('riscv', 'fence.tso', '', dict(fence=True)),
	('riscv', 'sc.w', 'a5,a4,(a0)', dict(defs={'a5'}, values={'a4'},
					     store=True, load=False)),
	('riscv', 'jr', 'ra', dict(flow='ret')),
	('riscv', 'jr', 'a5', dict(flow='indirect')),
	('powerpc', 'isel', 'r9,r10,r9,30', dict(uses={'r9', 'r10', 'cr7'})),
	('powerpc', 'isel', 'r9,r10,r9,2', dict(uses={'r9', 'r10', 'cr0'})),
	('arm', 'mov', 'pc, lr', dict(flow='ret')),
	('arm', 'popne', '{r4, r5}', dict(predicated=True, cond={'flags'},
					  loaded={'r4', 'r5'})),
	('arm', 'ldm', 'r3, {r4, r5}', dict(defs=set(), loaded={'r4', 'r5'})),
	('arm', 'ldmia', 'r3!, {r4, r5}', dict(defs={'r3'})),
])
def test_decoder(arch, mnemonic, operands, expect):
	sem = isa.decoder(arches.get(arch).isa).decode(
		disasm.Insn('.text', 0, mnemonic, operands))
	for key, value in expect.items():
		got = getattr(sem, key)
		assert (set(got) if isinstance(got, frozenset) else got) == value, key


@pytest.mark.unit
@pytest.mark.parametrize('reloc,where', [
	# x86: the addend is from the 4-byte operand's start, the jump from
	# its end
	(('R_X86_64_PLT32', 'foo-0x4'), ('.text', 0x40)),
	(('R_X86_64_PC32', '.text+0x3c'), ('.text', 0x40)),
	(('R_X86_64_PC32', '.text.unlikely+0x10'), ('.text.unlikely', 0x14)),
	(('R_AARCH64_CALL26', 'foo'), ('.text', 0x40)),
	(('R_AARCH64_JUMP26', '.text+0x48'), ('.text', 0x48)),
	(('R_X86_64_PLT32', 'ext-0x4'), None),
])
def test_resolve_a_relocated_branch(reloc, where):
	symbols = [disasm.Symbol('foo', '.text', 0x40, 8, True),
		   disasm.Symbol('.text', '.text', 0, 0, False),
		   disasm.Symbol('.text.unlikely', '.text.unlikely', 0, 0, False),
		   disasm.Symbol('ext', '*UND*', 0, 0, False)]
	obj = disasm.Object(Path('x.o'), symbols, {})
	assert obj.resolve(disasm.Insn('.text', 0x8, 'call', '0xd <f+0xd>',
				       reloc=reloc)) == where


@pytest.mark.unit
def test_every_instruction_set_named_has_a_module():
	for name in arches.CODEGEN_ARCHES:
		assert isa.get(arches.get(name).isa).name == arches.get(name).isa


@pytest.mark.unit
def test_loads_tested_follows_spills():
	listing = '''
	0000000000000000 <f>:
	   0:	ldr	w9, [x0]
	   4:	str	w9, [sp, #12]
	   8:	ldr	w8, [x3]
	   c:	ldr	w10, [sp, #12]
	  10:	add	w10, w10, w8
	  14:	cbnz	x10, 1c <f+0x1c>
	  18:	ret
	  1c:	ret
	'''
	arch = arches.get('arm64')
	insns = parse(listing)
	symbols = [disasm.Symbol('f', '.text', 0, 0x20, True)]
	obj = disasm.Object(Path('x.o'), symbols, disasm.functions(symbols, insns))
	g = ctrldep.graph(obj, obj.functions['f'], isa.decoder(arch.isa))
	# the reload counts too: READ_ONCE() of a local looks the same
	assert [g.insns[n].addr for n in ctrldep.loads_tested(g, 5)] == [0x0, 0x8, 0xc]


@pytest.mark.unit
def test_where_chain_of_inlined_code():
	listing = textwrap.dedent('''
	Disassembly of section .text:

	00000000000000b4 <lb_side1>:
	lb_side1():
	/o/../t/lib/volatile_if_kunit.c:398
	      c8:	lsr	w2, w2, #31
	__volatile_cond():
	/o/../t/arch/arm64/include/asm/barrier.h:222
	inlined by /o/../t/lib/volatile_if_kunit.c:398 (lb_side1)
	      cc:	cbnz	x2, d0 <lb_side1+0x1c>
	lb_side1():
	/o/../t/lib/volatile_if_kunit.c:399 (discriminator 2)
	      d0:	mov	w0, #0x1                   	// #1
	''')
	insns = disasm.parse_code(listing)
	assert [i.where for i in insns] == [
		(('/t/lib/volatile_if_kunit.c', 398),),
		(('/t/arch/arm64/include/asm/barrier.h', 222),
		 ('/t/lib/volatile_if_kunit.c', 398)),
		(('/t/lib/volatile_if_kunit.c', 399),)]


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


# volatile_if (!refcount_inc_not_zero(&ct->use)) return; WRITE_ONCE(...):
# the compiler's branches of the cmpxchg loop (LSE cas) are the site's,
# and the loads they test, the cas's included, its marked loads.
REFCOUNT_SITE = '''
Disassembly of section .text:

0000000000000000 <get>:
__refcount_add_not_zero():
/t/include/linux/refcount.h:147
inlined by /t/net/netfilter/nf_conntrack_core.c:744 (get)
   0:	ldr	w1, [x0]
/t/include/linux/refcount.h:150
inlined by /t/net/netfilter/nf_conntrack_core.c:744 (get)
   4:	cbz	w1, 24 <get+0x24>
   8:	add	w2, w1, #0x1
   c:	mov	w3, w1
  10:	cas	w3, w2, [x0]
  14:	cmp	w3, w1
  18:	mov	w1, w3
  1c:	b.ne	4 <get+0x4>
get():
/t/net/netfilter/nf_conntrack_core.c:746
  20:	str	wzr, [x5]
/t/net/netfilter/nf_conntrack_core.c:747
  24:	ret
'''


@pytest.mark.unit
def test_site_cmpxchg_loop_is_followed_to_its_loads():
	arch = arches.get('arm64')
	file = 'net/netfilter/nf_conntrack_core.c'
	reg = sites.Region({744}, {744, 745, 746})
	g = graph_of('arm64', REFCOUNT_SITE, 'get', 0x28)
	v, found, *_ = sites.site_verdict(arch, g, file, reg, True)
	assert v.status == 'guaranteed', v.why
	assert [g.insns[n].addr for n in found] == [0x4, 0x1c]
	assert v.loads == [0x0, 0x10]           # atomic_read() and the cas
	v, *_ = sites.site_verdict(arch, g, file, reg, False)
	assert v.status == 'compiler' and 'load at 0, 10' in v.why
	# the loop's exit no longer tests what the cas loaded
	g = graph_of('arm64', REFCOUNT_SITE.replace('cmp\tw3, w1', 'cmp\tw4, w1'),
		     'get', 0x28)
	v, *_ = sites.site_verdict(arch, g, file, reg, True)
	assert v.status == 'broken' and 'load at 10' in v.why
	# a leg that ends in a tail call (gcc's foo.part.0): a call to order
	tail = REFCOUNT_SITE.replace('str\twzr, [x5]',
				     'b\t0 <ext>\n\t\t\t20: R_AARCH64_JUMP26\text')
	v, *_ = sites.site_verdict(arch, graph_of('arm64', tail, 'get', 0x28),
					  file, reg, True)
	assert v.status == 'guaranteed' and [s.addr for s in v.stores] == [0x20]
	v, *_ = sites.site_verdict(arch, graph_of('arm64', tail.replace(
		'cmp\tw3, w1', 'cmp\tw4, w1'), 'get', 0x28), file, reg, True)
	assert v.status == 'broken'
	# no branch at the condition at all: the condition's loads are the
	# marked ones, and nothing orders the store
	g = graph_of('arm64', REFCOUNT_SITE.replace('cbz\tw1, 24', 'cbz\tw9, 24')
		     .replace('b.ne\t4', 'b\t4').replace(
			     '   4:', '/t/include/linux/refcount.h:150\n   4:')
		     .replace('inlined by /t/net/netfilter/nf_conntrack_core.c:744 '
			      '(get)\n   4:', '   4:'), 'get', 0x28)
	v, found, *_ = sites.site_verdict(arch, g, file, reg, True)
	assert v.status == 'broken', v.why


@pytest.mark.unit
def test_site_lr_sc_loops_riscv_powerpc():
	riscv = '''
	Disassembly of section .text:

	0000000000000000 <get>:
	get():
	/t/kernel/x.c:10
	   0:	lr.w	a5,(a0)
	   4:	beqz	a5,14 <get+0x14>
	   8:	addw	a4,a5,1
	   c:	sc.w	a3,a4,(a0)
	  10:	bnez	a3,0 <get>
	/t/kernel/x.c:11
	  14:	sw	zero,0(a1)
	  18:	ret
	'''
	arch = arches.get('riscv')
	reg = sites.Region({10}, {10, 11})
	g = graph_of('riscv', riscv, 'get', 0x1c)
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, True)
	assert v.status == 'guaranteed' and v.loads == [0x0], v.why
	g = graph_of('riscv', riscv.replace('beqz\ta5', 'beqz\ta6'), 'get', 0x1c)
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, True)
	assert v.status != 'guaranteed'
	ppc = riscv.replace('lr.w\ta5,(a0)', 'lwarx   r9,0,r3').replace(
		'beqz\ta5,14', 'beq     cr7,14').replace(
		'addw\ta4,a5,1', 'cmpwi   cr7,r9,0').replace(
		'sc.w\ta3,a4,(a0)', 'stwcx.  r9,0,r3').replace(
		'bnez\ta3,0', 'bne     0').replace(
		'sw\tzero,0(a1)', 'stw     r9,0(r4)').replace('ret', 'blr')
	# cmpwi after the beq: reorder so the compare comes first
	ppc = ppc.replace('   4:\tbeq     cr7,14 <get+0x14>\n\t   8:\tcmpwi   cr7,r9,0',
			  '   4:\tcmpwi   cr7,r9,0\n\t   8:\tbeq     cr7,14 <get+0x14>')
	arch = arches.get('powerpc')
	g = graph_of('powerpc', ppc, 'get', 0x1c)
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, True)
	assert v.status == 'guaranteed' and v.loads == [0x0], (v.status, v.why)
	g = graph_of('powerpc', ppc.replace('cmpwi   cr7,r9', 'cmpwi   cr7,r8'),
		     'get', 0x1c)
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, True)
	assert v.status != 'guaranteed'


@pytest.mark.unit
def test_site_branch_with_the_line_of_another_statement():
	"""clang 14 for powerpc returns early with a conditional return, which
	the line table gives the closing brace (lib/volatile_if_kunit.c's
	lb_side0()): the branch is the site's, since the value it tests is
	computed at the condition's line."""
	ppc = '''
	Disassembly of section .text:

	0000000000000000 <put>:
	put():
	/t/kernel/x.c:10
	   0:	lwz     r4,16(r3)
	/t/kernel/x.c:11
	   4:	cmpwi   r4,0
	/t/kernel/x.c:13
	   8:	bltlr
	   c:	li      r4,1
	/t/kernel/x.c:12
	  10:	stw     r4,0(r5)
	/t/kernel/x.c:13
	  14:	blr
	'''
	arch = arches.get('powerpc')
	# the closing brace is code the site orders, but has no test of its own
	reg = sites.Region({11}, {11, 12, 13})
	v, found, *_ = sites.site_verdict(arch, graph_of('powerpc', ppc, 'put', 0x18),
					  'kernel/x.c', reg, True)
	assert found == [2] and v.status == 'guaranteed' and v.loads == [0x0], \
		(found, v.status, v.why)
	# the compare made for another line: the branch is not the site's
	other = ppc.replace('/t/kernel/x.c:11', '/t/kernel/x.c:20')
	v, found, *_ = sites.site_verdict(arch, graph_of('powerpc', other, 'put', 0x18),
					  'kernel/x.c', reg, True)
	assert not found and v.status == 'broken', (found, v.status, v.why)


@pytest.mark.unit
def test_branch_of_the_ordered_code_on_a_value_of_the_condition():
	"""perf's __perf_output_begin() as gcc 12 -Os compiles it for powerpc,
	cut down: "backward" (an argument) is compared once, at the
	condition's line, and tested there and again by the ordered code's
	own if (line 15), on the path that skips the site (if (!overwrite) at
	line 10).  That branch is not the site's, so the path is not the
	site's to order.  Nor is one at a line before the condition."""
	ppc = '''
	Disassembly of section .text:

	0000000000000000 <put>:
	put():
	/t/kernel/x.c:11
	   0:	cmpdi   cr4,r6,0
	/t/kernel/x.c:9
	   4:	lwz     r9,0(r3)
	/t/kernel/x.c:10
	   8:	lwz     r10,4(r3)
	   c:	cmpwi   r10,0
	  10:	bne     1c <put+0x1c>
	/t/kernel/x.c:11
	  14:	cmpwi   r9,0
	  18:	beqlr
	/t/kernel/x.c:15
	  1c:	bne     cr4,24 <put+0x24>
	  20:	li      r4,1
	/t/kernel/x.c:16
	  24:	stw     r4,0(r5)
	  28:	blr
	'''
	arch = arches.get('powerpc')
	reg = sites.Region({11}, set(range(11, 17)))
	v, found, *_ = sites.site_verdict(arch, graph_of('powerpc', ppc, 'put', 0x2c),
					  'kernel/x.c', reg, True)
	assert found == [6] and v.status == 'guaranteed', (found, v.status, v.why)
	# at a line the site does not order, it would be the site's (a
	# conditional return at the closing brace), and the path through it
	# skips the load's test
	other = ppc.replace('/t/kernel/x.c:15', '/t/kernel/x.c:30')
	v, found, *_ = sites.site_verdict(arch, graph_of('powerpc', other, 'put', 0x2c),
					  'kernel/x.c', reg, True)
	assert found == [6, 7] and v.status == 'broken', (found, v.status, v.why)
	# at a line before the condition: a test of the next round of a loop,
	# not the site's
	loop = ppc.replace('/t/kernel/x.c:15', '/t/kernel/x.c:5')
	v, found, *_ = sites.site_verdict(arch, graph_of('powerpc', loop, 'put', 0x2c),
					  'kernel/x.c', reg, True)
	assert found == [6] and v.status == 'guaranteed', (found, v.status, v.why)


AFTER_SOURCE = """\
static void f(int *a, int *b, int *c)
{
	volatile_if (READ_ONCE(*a))
		WRITE_ONCE(*b, 1);
	WRITE_ONCE(*c, 2);
}
"""
# f() with the store after the statement (line 5) put ahead of the branch
AFTER_AHEAD = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	f():
	/t/kernel/x.c:3
	   0:	ldr	w3, [x0]
	/t/kernel/x.c:5
	   4:	mov	w4, #0x2
	   8:	str	w4, [x2]
	/t/kernel/x.c:3
	   c:	cbz	w3, 18 <f+0x18>
	/t/kernel/x.c:4
	  10:	mov	w4, #0x1
	  14:	str	w4, [x1]
	/t/kernel/x.c:6
	  18:	ret
'''


def after_verdict(listing: str, required: bool,
		  arch: str = 'arm64') -> ctrldep.Verdict:
	"""The verdict on AFTER_SOURCE's site in f() of @listing."""
	g = graph_of(arch, listing, 'f', 0x1c)
	v, *_ = sites.site_verdict(arches.get(arch), g, 'kernel/x.c',
				   sites.region(AFTER_SOURCE, 3), required)
	return v


@pytest.mark.unit
def test_store_ahead_of_the_site_branch():
	"""A store the site orders (of a leg, or after the statement) that the
	compiler put between the load and the site's branch is checked: it
	is on the site's path, though the path has not passed the branch."""
	assert sites.region(AFTER_SOURCE, 3).ordered == {3, 4, 5, 6}

	def stores(listing):
		v = after_verdict(listing, True)
		return v.status, {s.addr: s.status for s in v.stores}
	assert stores(AFTER_AHEAD) == \
		('broken', {0x8: 'broken', 0x14: 'guaranteed', 0x18: 'guaranteed'})
	# a leg's store lifted above the branch: the same
	leg = AFTER_AHEAD.replace('/t/kernel/x.c:5', '/t/kernel/x.c:4')
	assert stores(leg)[1][0x8] == 'broken'
	# after a branch on the load that is not the site's: the compiler's
	tested = AFTER_AHEAD.replace('   4:\tmov\tw4, #0x2',
				     '   4:\tcbz\tw3, 18 <f+0x18>')
	assert stores(tested)[1][0x8] == 'compiler'
	# below the branch: guaranteed
	below = AFTER_AHEAD.replace('   8:\tstr\tw4, [x2]', '   8:\tnop').replace(
		'  14:\tstr\tw4, [x1]', '  14:\tstr\tw4, [x2]')
	assert stores(below) == ('guaranteed', {0x14: 'guaranteed',
						0x18: 'guaranteed'})
	# a call at the condition's line ahead of the branch is the
	# condition's own, but a store there is checked
	call = below.replace('   4:\tmov\tw4, #0x2', '   4:\tbl\t0 <ext>').replace(
		'/t/kernel/x.c:5', '/t/kernel/x.c:3').replace('w3', 'w19')
	assert stores(call) == ('guaranteed', {0x14: 'guaranteed',
					       0x18: 'guaranteed'})
	lifted = AFTER_AHEAD.replace('/t/kernel/x.c:5', '/t/kernel/x.c:3')
	assert stores(lifted)[1][0x8] == 'broken'


# f() of AFTER_SOURCE with a conditional return that the compiler put
# ahead of the site's branch, testing something else than the load
# (powerpc: beqlr; arm: popeq {pc})
COND_RETURN = {'powerpc': '''
	Disassembly of section .text:

	0000000000000000 <f>:
	f():
	/t/kernel/x.c:3
	   0:	lwz     r9,0(r3)
	/t/kernel/x.c:6
	   4:	cmpwi   cr6,r6,0
	   8:	beqlr   cr6
	/t/kernel/x.c:3
	   c:	cmpwi   cr7,r9,0
	  10:	beq     cr7,1c <f+0x1c>
	/t/kernel/x.c:4
	  14:	li      r10,1
	  18:	stw     r10,0(r4)
	/t/kernel/x.c:5
	  1c:	li      r10,2
	  20:	stw     r10,0(r5)
	/t/kernel/x.c:6
	  24:	blr
''', 'arm': '''
	Disassembly of section .text:

	00000000 <f>:
	f():
	/t/kernel/x.c:3
	   0:	ldr	ip, [r0]
	/t/kernel/x.c:6
	   4:	cmp	r3, #0
	   8:	bxeq	lr
	/t/kernel/x.c:3
	   c:	cmp	ip, #0
	  10:	beq	1c <f+0x1c>
	/t/kernel/x.c:4
	  14:	mov	ip, #1
	  18:	str	ip, [r1]
	/t/kernel/x.c:5
	  1c:	mov	ip, #2
	  20:	str	ip, [r2]
	/t/kernel/x.c:6
	  24:	bx	lr
'''}


@pytest.mark.unit
@pytest.mark.parametrize('arch', ['powerpc', 'arm'])
def test_a_conditional_return_is_a_return(arch):
	"""A conditional return (powerpc's beqlr, arm's bxeq lr or popeq
	{pc}) is checked as the return it is where its condition holds: after
	the load and ahead of the site's branch it is broken unless it tests
	the load itself; and in a copy of a callee it goes on after the
	call."""
	listing = COND_RETURN[arch]
	v = after_verdict(listing, True, arch)
	assert v.status == 'broken' and \
		{s.addr: s.status for s in v.stores}[0x8] == 'broken', v.why
	on_load = listing.replace('cr6,r6,0', 'cr6,r9,0').replace('r3, #0',
								    'ip, #0')
	v = after_verdict(on_load, True, arch)
	assert {s.addr: s.status for s in v.stores}[0x8] == 'compiler', v.why
	# f() called from g(): the conditional return of f()'s copy goes on
	# after the call too
	call = {'powerpc': 'bl      0 <f>', 'arm': 'bl	0 <f>'}[arch]
	caller = listing + f'''
	00000028 <g>:
	  28:	{call}
	  2c:	{'blr' if arch == 'powerpc' else 'bx	lr'}
	'''
	inlined = inlined_of(arch, caller, 'g', (('f', 0, 0x28), ('g', 0x28, 8)))
	leaves = 2 + 2                  # the copy starts after g()'s two
	assert inlined.insns[leaves].addr == 0x8
	assert 1 in inlined.succs[leaves] and not inlined.sems[leaves].leaves


# f() with the leg's store (line 4) put above the load
LEG_ABOVE = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	f():
	/t/kernel/x.c:4
	   0:	mov	w4, #0x1
	   4:	str	w4, [x1]
	/t/kernel/x.c:3
	   8:	ldr	w3, [x0]
	   c:	cbz	w3, 18 <f+0x18>
	/t/kernel/x.c:5
	  10:	mov	w4, #0x2
	  14:	str	w4, [x2]
	/t/kernel/x.c:6
	  18:	ret
'''


@pytest.mark.unit
def test_store_above_the_load():
	"""A store the site orders that the compiler put above the condition's
	load is broken, at the top of a loop too, but not a store to the
	stack, nor a leg's store that comes before the next round's load."""
	def stores(listing):
		v = after_verdict(listing, False)
		return {s.addr: s.status for s in v.stores}
	assert stores(LEG_ABOVE) == {0x4: 'broken', 0x14: 'compiler',
				     0x18: 'compiler'}
	assert stores(LEG_ABOVE.replace('[x1]', '[sp, #-16]!')) == \
		{0x14: 'compiler', 0x18: 'compiler'}
	# every round stores before it loads
	loop = LEG_ABOVE.replace('  18:\tret', '  18:\tb\t0 <f>')
	assert stores(loop)[0x4] == 'broken'
	# the leg's store of one round, before the load of the next
	rounds = LEG_ABOVE.replace('  18:\tret', '  18:\tb\t8 <f+0x8>').replace(
		'   0:\tmov\tw4, #0x1\n\t   4:\tstr\tw4, [x1]\n',
		'   0:\tnop\n\t   4:\tnop\n').replace(
		'  14:\tstr\tw4, [x2]', '  14:\tstr\tw4, [x1]').replace(
		'/t/kernel/x.c:5', '/t/kernel/x.c:4')
	assert stores(rounds) == {0x14: 'compiler'}
	# code after the statement that a path from the entry reaches
	# around the load, and the next round's load after it, is not above
	# the load; a copy of the load that no path reaches changes nothing
	around = LEG_ABOVE.replace(
		'/t/kernel/x.c:4\n\t   0:\tmov\tw4, #0x1\n\t   4:\tstr\tw4, [x1]\n',
		'/t/kernel/x.c:1\n\t   0:\tcbz\tw2, 14 <f+0x14>\n\t   4:\tnop\n').replace(
		'   c:\tcbz\tw3, 18 <f+0x18>', '   c:\tcbz\tw3, 14 <f+0x14>').replace(
		'/t/kernel/x.c:6\n\t  18:\tret',
		'  18:\tb\t8 <f+0x8>\n\t/t/kernel/x.c:3\n'
		'\t  1c:\tldr\tw3, [x0]\n\t  20:\tcbz\tw3, 14 <f+0x14>')
	g = graph_of('arm64', around, 'f', 0x24)
	v, *_ = sites.site_verdict(arches.get('arm64'), g, 'kernel/x.c',
				   sites.region(AFTER_SOURCE, 3), False)
	assert {s.addr: s.status for s in v.stores} == {0x14: 'compiler'}
	# above the first of two tests of the condition (a && READ_ONCE(*p))
	two = LEG_ABOVE.replace('   0:\tmov\tw4, #0x1\n\t   4:\tstr\tw4, [x1]\n'
				'\t/t/kernel/x.c:3\n\t   8:\tldr\tw3, [x0]\n',
				'   0:\tstr\tw4, [x1]\n\t/t/kernel/x.c:3\n'
				'\t   4:\tcbz\tw2, 18 <f+0x18>\n'
				'\t   8:\tldr\tw3, [x0]\n')
	assert stores(two)[0x0] == 'broken'


# f() with a path that skips the site to code after it (a goto), and a
# block after the call of __stack_chk_fail() that jumps to the load
NORETURN_CALL = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	f():
	/t/kernel/x.c:1
	   0:	cbz	w2, 18 <f+0x18>
	/t/kernel/x.c:3
	   4:	ldr	w3, [x0]
	   8:	cbz	w3, 14 <f+0x14>
	/t/kernel/x.c:4
	   c:	mov	w4, #0x1
	  10:	str	w4, [x1]
	/t/kernel/x.c:6
	  14:	ret
	/t/kernel/x.c:5
	  18:	str	w4, [x2]
	  1c:	bl	0 <__stack_chk_fail>
			1c: R_AARCH64_CALL26	__stack_chk_fail
	  20:	b	4 <f+0x4>
'''


@pytest.mark.unit
def test_a_call_that_does_not_return_ends_the_path():
	"""No path goes on after a call of __stack_chk_fail(): the code that
	follows it is another path's (gcc 12 for arm puts there a block that
	jumps back into nci_ntf_packet()), so the store before the call is
	not one put above the load."""
	def made(listing):
		g = graph_of('arm64', listing, 'f', 0x24)
		v, *_ = sites.site_verdict(arches.get('arm64'), g, 'kernel/x.c',
					   sites.region(AFTER_SOURCE, 3), False)
		return g.succs[7], {s.addr: s.status for s in v.stores}
	assert made(NORETURN_CALL) == ([], {0x10: 'compiler', 0x14: 'compiler'})
	# any other call returns
	assert made(NORETURN_CALL.replace('__stack_chk_fail', 'ext')) == \
		([8], {0x10: 'compiler', 0x14: 'compiler', 0x18: 'broken',
		       0x1c: 'broken'})


@pytest.mark.unit
def test_store_of_a_merged_line_ahead_of_the_site_branch():
	"""clang 19 lifts the store that both legs make above the branch with
	line 0 (a location merged from the legs' lines): checked there, as
	the legs' own, unless the condition's line holds it."""
	def status(where):
		merged = AFTER_AHEAD.replace(
			'/t/kernel/x.c:5\n\t   4:\tmov\tw4, #0x2\n\t   8:\tstr',
			'/t/kernel/x.c:5\n\t   4:\tmov\tw4, #0x2\n\t' + where +
			'\n\t   8:\tstr')
		assert merged != AFTER_AHEAD
		v = after_verdict(merged, True)
		return {x.addr: x.status for x in v.stores}.get(0x8)
	assert status('/t/include/linux/atomic.h:42\n\tinlined by '
		      '/t/kernel/x.c:0') == 'broken'
	assert status('/t/kernel/x.c:0') == 'broken'
	# a merged line of a function the condition calls: the condition's
	assert status('/t/include/linux/atomic.h:42\n\tinlined by '
		      '/t/kernel/x.c:0\n\tinlined by /t/kernel/x.c:3') is None
	# of another file only: not the site's
	assert status('/t/include/linux/atomic.h:0') is None


@pytest.mark.unit
def test_store_to_the_address_the_load_read():
	"""clang 14 lifts the atomic_set(&ndev->state, ...) that both legs of
	if (atomic_read(&ndev->state) == ...) make in net/nfc/nci/ntf.c above
	the branch: a store to the address the load read, which coherence orders
	after it on every architecture."""
	lifted = AFTER_AHEAD.replace('   8:\tstr\tw4, [x2]', '   8:\tstr\tw4, [x0]')

	def first(listing):
		return after_verdict(listing, False).stores[0]
	s = first(lifted)
	assert (s.addr, s.status) == (0x8, 'guaranteed') and 'coherence' in s.why
	# another address, or the same register once it holds another one
	assert first(lifted.replace('str\tw4, [x0]', 'str\tw4, [x0, #4]')
		     ).status == 'broken'
	moved = lifted.replace('   4:\tmov\tw4, #0x2', '   4:\tadd\tx0, x0, #0x8')
	assert first(moved).status == 'broken'
	# powerpc: d-form, the base register set before the load
	ppc = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	f():
	/t/kernel/x.c:3
	   0:	addi    r9,r3,32
	   4:	lwz     r10,0(r9)
	   8:	cmplwi  r10,1
	   c:	li      r10,4
	/t/kernel/x.c:4
	  10:	stw     r10,0(r9)
	/t/kernel/x.c:3
	  14:	bnelr
	/t/kernel/x.c:6
	  18:	blr
	'''
	v = after_verdict(ppc, False, 'powerpc')
	assert v.stores[0].status == 'guaranteed', v.stores
	# two loads: coherence orders the store after the one it overwrites,
	# and only the compiler's branch after the other
	two = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	f():
	/t/kernel/x.c:3
	   0:	ldr	w3, [x0]
	   4:	ldr	w5, [x1]
	   8:	cbz	w3, 18 <f+0x18>
	/t/kernel/x.c:4
	   c:	str	w4, [x1]
	/t/kernel/x.c:3
	  10:	cbz	w5, 18 <f+0x18>
	/t/kernel/x.c:4
	  14:	nop
	/t/kernel/x.c:6
	  18:	ret
	'''
	v = after_verdict(two, False)
	assert v.stores[0].status == 'compiler', v.stores


# kernel/smp.c's __csd_lock_wait() on powerpc, gcc 12 -O2, cut down: the
# condition calls a function that loads the lock flag (READ_ONCE) and a
# tuning variable (a plain load, tested later on the path that waits on).
# A store of that path comes before the branch on the tuning variable; it
# is ordered after the flag's load, which is what the site orders after.
CSD_SOURCE = """\
static bool toolong(struct w *w)
{
	u64 timeout;

	unsigned int flags = READ_ONCE(w->flags);
	timeout = wait_timeout;

	if (!(flags & 1))
	if (timeout == 0)
	if (toolong(w))
		break;
	w->done = 1;
"""
CSD_SITE = '''
Disassembly of section .text:

0000000000000000 <wait>:
wait():
/t/kernel/x.c:5
inlined by /t/kernel/x.c:10 (wait)
   0:	lwz     r10,8(r3)
/t/kernel/x.c:6
inlined by /t/kernel/x.c:10 (wait)
   4:	ld      r31,0(r4)
/t/kernel/x.c:8
inlined by /t/kernel/x.c:10 (wait)
   8:	andi.   r10,r10,1
   c:	bne     18 <wait+0x18>
/t/kernel/x.c:12
  10:	stw     r9,0(r5)
  14:	blr
/t/kernel/x.c:10
  18:	std     r28,176(r1)
/t/kernel/x.c:9
inlined by /t/kernel/x.c:10 (wait)
  1c:	cmpdi   cr7,r31,0
  20:	beq     cr7,0 <wait>
  24:	blr
'''


@pytest.mark.unit
def test_site_plain_load_the_condition_tests_orders_nothing(tmp_path):
	(tmp_path / 'kernel').mkdir()
	(tmp_path / 'kernel' / 'x.c').write_text(CSD_SOURCE)
	source = sites.SourceLines(tmp_path)
	arch = arches.get('powerpc')
	reg = sites.Region({10}, {10, 11, 12})
	g = graph_of('powerpc', CSD_SITE, 'wait', 0x28)
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, False, source.marked)
	assert v.status == 'compiler' and v.loads == [0x0], (v.status, v.why)
	# every load the branches test, the tuning variable's included
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, False)
	assert v.status == 'broken' and 'load at 4 ' in v.why, v.why
	# with no marked load among them, all count
	(tmp_path / 'kernel' / 'x.c').write_text(CSD_SOURCE.replace('READ_ONCE', 'READ'))
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, False,
				  sites.SourceLines(tmp_path).marked)
	assert v.status == 'broken', v.why


CALL_SOURCE = """\
static bool get(int *p)
{
	return READ_ONCE(*p) != 0;
}
void f(int *a, int *b)
{
	if (get(a))
		WRITE_ONCE(*b, 1);
}
"""
# f() with get() not inlined, as gcc -Os leaves refcount_inc_not_zero()
CALL_SITE = '''
Disassembly of section .text:

0000000000000000 <get>:
get():
/t/kernel/y.c:3
   0:	ldr	w1, [x0]
   4:	cmp	w1, #0x0
   8:	cset	w0, ne	// ne = any
   c:	ret

0000000000000010 <f>:
f():
/t/kernel/y.c:7
  10:	stp	x29, x30, [sp, #-32]!
  14:	mov	x29, sp
  18:	str	x19, [sp, #16]
  1c:	mov	x19, x1
  20:	bl	0 <get>
  24:	cbz	w0, 30 <f+0x20>
/t/kernel/y.c:8
  28:	mov	w0, #0x1
  2c:	str	w0, [x19]
/t/kernel/y.c:9
  30:	ldr	x19, [sp, #16]
  34:	ldp	x29, x30, [sp], #32
  38:	ret
'''


@pytest.mark.unit
def test_site_load_in_a_function_not_inlined(tmp_path):
	(tmp_path / 'kernel').mkdir()
	(tmp_path / 'kernel' / 'y.c').write_text(CALL_SOURCE)
	marked = sites.SourceLines(tmp_path).marked
	arch = arches.get('arm64')
	symbols = [disasm.Symbol('get', '.text', 0, 0x10, True),
		   disasm.Symbol('f', '.text', 0x10, 0x2c, True),
		   disasm.Symbol('.text', '.text', 0, 0, False)]
	decoder = isa.decoder(arch.isa)

	def made(listing: str):
		"""The object of @listing and the graph of its f()."""
		insns = disasm.parse_code(textwrap.dedent(listing))
		obj = disasm.Object(Path('x.o'), symbols,
				    disasm.functions(symbols, insns))
		return obj, ctrldep.graph(obj, obj.functions['f'], decoder)

	obj, g = made(CALL_SITE)
	reg = sites.Region({7}, {7, 8, 9})
	v, *_ = sites.site_verdict(arch, g, 'kernel/y.c', reg, False, marked)
	assert v.status == 'broken' and 'test no load' in v.why, v.why
	inlined = ctrldep.inline_calls(obj, g, decoder)
	# the call goes into a copy of get(), inlined at the call's line, whose
	# return goes on after the call
	call, ret = 4, len(g.insns) + 3
	assert inlined.succs[call] == [len(g.insns)]
	assert inlined.insns[ret].where == (('/t/kernel/y.c', 3),
					    ('/t/kernel/y.c', 7))
	assert inlined.succs[ret] == [call + 1]
	v, found, _, h = sites.verdict(arch, obj, decoder, g, 'kernel/y.c', reg,
				    False, marked)
	assert v.status == 'compiler' and v.loads == [0x0], (v.status, v.why)
	assert [h.insns[b].addr for b in found] == [0x24]
	assert (v.insns, v.path) == (11, 11)    # f()'s own
	# no deeper than asked
	assert ctrldep.inline_calls(obj, g, decoder, depth=0) is g
	# the call on a path the graph does not have (a jump table's)
	g = dataclasses.replace(g, succs=[[10]] + g.succs[1:])
	v, *_ = sites.verdict(arch, obj, decoder, g, 'kernel/y.c', reg, False,
			      marked)
	assert v.status == 'unknown' and 'no path from the entry' in v.why, v.why
	# a callee that ends in a tail call: the function it jumps to returns
	# for the copy, which goes on after the call
	obj, g = made(CALL_SITE.replace('   c:\tret', '   c:\tb\t40 <put>'))
	inlined = ctrldep.inline_calls(obj, g, decoder)
	assert ret in inlined.tail_calls and inlined.succs[ret] == [call + 1]
	# the call is given the address a plain load read, as
	# csd_lock_wait_toolong(csd, ...) is: the branch tests that load
	# through the call, and the marked one is still the callee's
	obj, g = made(CALL_SITE.replace('  1c:\tmov\tx19, x1',
					'  1c:\tldr\tx0, [x0]'))
	v, *_ = sites.site_verdict(arch, g, 'kernel/y.c', reg, False, marked)
	assert v.status == 'broken' and 'load at 1c ' in v.why, v.why
	v, *_ = sites.verdict(arch, obj, decoder, g, 'kernel/y.c', reg, False,
			      marked)
	assert v.status == 'compiler' and v.loads == [0x0], (v.status, v.why)


# h(), which calls f() (not shown in CALL_SOURCE): with volatile_if the
# compiler inlines f() into it, with if () it tail-calls f().
H_INLINED = '''
0000000000000040 <h>:
get():
/t/kernel/y.c:3
inlined by /t/kernel/y.c:7 (h)
  40:	ldr	w2, [x0]
f():
/t/kernel/y.c:7
inlined by /t/kernel/y.c:12 (h)
  44:	cbz	w2, 50 <h+0x10>
/t/kernel/y.c:8
inlined by /t/kernel/y.c:12 (h)
  48:	mov	w0, #0x1
  4c:	str	w0, [x1]
h():
/t/kernel/y.c:13
  50:	ret
'''
H_CALLS = '''
0000000000000040 <h>:
h():
/t/kernel/y.c:12
  40:	b	10 <f>
'''
# h() with f() inlined as a plain if () may be: the store made on both
# paths, with the line of the leg or of h()'s statement before (clang).
H_STORES = '''
0000000000000040 <h>:
f():
/t/kernel/y.c:@
inlined by /t/kernel/y.c:12 (h)
  40:	mov	w0, #0x1
  44:	str	w0, [x1]
h():
/t/kernel/y.c:13
  48:	ret
'''


def _call_objects(root: Path):
	"""A maker of y.o's _Object from h()'s listing (and f()'s), with
	CALL_SOURCE as kernel/y.c under @root."""
	(root / 'kernel').mkdir()
	(root / 'kernel' / 'y.c').write_text(CALL_SOURCE)
	source = sites.SourceLines(root)
	symbols = [disasm.Symbol('get', '.text', 0, 0x10, True),
		   disasm.Symbol('f', '.text', 0x10, 0x2c, True),
		   disasm.Symbol('h', '.text', 0x40, 0x14, True),
		   disasm.Symbol('.text', '.text', 0, 0, False)]

	def made(h: str, f: str = CALL_SITE):
		insns = disasm.parse_code(textwrap.dedent(f + h))
		return sites._Object(arches.get('arm64'), disasm.Object(
			Path('y.o'), symbols, disasm.functions(symbols, insns)),
			source)
	return made


@pytest.mark.unit
def test_site_not_inlined_by_a_variant_is_not_compared(tmp_path):
	"""A function that has the site with volatile_if but not with if ()
	(which calls the function that does) gets no verdict or cost of if
	() there: its code is another function's.  One that has only the
	stores of the site with if () has it."""
	arch = arches.get('arm64')
	made = _call_objects(tmp_path)
	objects = {'volatile_if': made(H_INLINED), 'if': made(H_CALLS)}
	site = sites.Site('kernel/y.c', 7, 'test')
	reg = sites.Region({7}, {7, 8, 9})
	results = {r.function: r for r in sites._site_in(
		arch, objects, site, 'kernel/y.c', reg, 'gcc')}
	assert set(results) == {'f', 'h'}
	f, h = results['f'], results['h']
	assert f.unconverted is not None and f.delta is not None
	assert h.verdict.status == 'guaranteed', h.verdict.why
	assert h.unconverted is None and h.delta is None and \
		h.path_delta is None and h.elsewhere == ['if']
	assert h.json()['statuses'] == {'volatile_if': 'guaranteed',
					'if': sites.NOT_HERE}
	assert 'if' not in h.json()['variants']
	# but a site whose condition left no code is compared, and broken:
	# with the store of its leg
	objects['if'] = made(H_STORES.replace('@', '8'))
	h = sites._site_in(arch, objects, site, 'kernel/y.c', reg, 'gcc')[1]
	assert not h.elsewhere and h.unconverted.status == 'broken', h
	assert h.delta == 5 - 3
	# with no code of the site in any function (f() too made otherwise)
	objects['if'] = made(H_STORES.replace('@', '6'),
			     re.sub(r'y\.c:[789]', 'y.c:6', CALL_SITE))
	h = sites._site_in(arch, objects, site, 'kernel/y.c', reg, 'gcc')[1]
	assert not h.elsewhere and h.unconverted.status == 'broken', h


@pytest.mark.unit
def test_site_inlined_by_if_only_is_listed(tmp_path):
	"""The other way round: h() has the site with if () and calls f()
	for it with volatile_if.  _site_in() gives h() no result, so h() is
	listed as not compared; f(), which has it in both, is not."""
	made = _call_objects(tmp_path)
	objects = {'volatile_if': made(H_CALLS), 'if': made(H_INLINED)}
	reg = sites.Region({7}, {7, 8, 9})
	assert [r.function for r in sites._site_in(
		arches.get('arm64'), objects, sites.Site('kernel/y.c', 7, 'test'),
		'kernel/y.c', reg, 'gcc')] == ['f']
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == ['h']
	# the stores of the leg alone are the site's code too
	objects['if'] = made(H_STORES.replace('@', '8'))
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == ['h']
	objects['if'] = made(H_CALLS)
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == []
	assert sites.only_unconverted({'volatile_if': made(H_CALLS)},
				      'kernel/y.c', reg) == []


@pytest.mark.unit
def test_site_report_says_what_it_could_not_compare():
	report = sites.SiteReport(['arm64'], [], missing=[
		{'file': 'k/s.c', 'line': 9, 'origin': '0002-x.patch',
		 'arch': 'arm64', 'compiler': 'gcc'}], failed=[
		{'object': 'k/s.o', 'arch': 'arm64', 'compiler': 'clang',
		 'variant': 'rfc', 'why': 'error: x'}], only_if=[
		{'file': 'k/s.c', 'line': 9, 'function': 'a', 'arch': 'arm64',
		 'compiler': 'gcc'}])
	assert report.text().splitlines()[1:] == [
		'k/s.c:9 (0002-x.patch) on arm64 gcc: not found in the code',
		'k/s.c:9 a() on arm64 gcc: the site inlined with if () only, '
		'not compared',
		'k/s.o arm64 clang rfc: error: x: does not compile']


@pytest.mark.unit
def test_functions_inlined_by_if_only_are_on_the_page_until_rerun():
	"""bench-codegen lists them per site and build; a rerun of an
	architecture replaces what the earlier run listed for it."""
	bench = _bench_codegen()
	def only(function, arch):
		return {'file': 'k/s.c', 'line': 9, 'function': function,
			'arch': arch, 'compiler': 'gcc'}
	def failed(arch):
		return {'object': 'k/s.o', 'arch': arch, 'compiler': 'gcc',
			'variant': 'rfc', 'why': 'error: x'}
	results = {'sites': {'arches': ['arm64', 'arm'], 'missing': [],
			     'failed': [failed('arm64'), failed('arm')],
			     'sites': [],
			     'only_if': [only('a', 'arm64'), only('b', 'arm64'),
					 only('a', 'arm')]}}
	lines = bench.only_if(results['sites'])
	assert '- `k/s.c:9` (arm64 gcc): a(), b()' in lines
	assert '- `k/s.c:9` (arm gcc): a()' in lines
	bench.merge_sites(results, {'arches': ['arm64'], 'missing': [],
				    'failed': [], 'sites': [], 'only_if': []})
	assert results['sites']['only_if'] == [only('a', 'arm')]
	assert results['sites']['failed'] == [failed('arm')]
	bench.drop_stale_sites(results, [sites.Site('k/t.c', 9, 'x')])
	assert results['sites']['only_if'] == [] == bench.only_if(results['sites'])


@pytest.mark.unit
def test_page_names_each_command_once():
	"""A rerun with --keep or --corpus adds its command to those that made
	codegen.json, unless it is one of them."""
	also = _bench_codegen().also
	assert also('scripts/bench-codegen', 'scripts/bench-codegen --corpus') \
		== 'scripts/bench-codegen; scripts/bench-codegen --corpus'
	assert also('a; b', 'b') == 'a; b'
	assert also('a; b', 'a') == 'a; b'


@pytest.mark.unit
def test_survey_has_no_cell_where_the_plain_if_calls_the_site(tmp_path):
	"""The survey's cells are the plain if ()'s functions: not h() where
	it calls f() for the site (volatile_if inlined it), and h() where
	only if () inlined it, without a volatile_if() verdict there."""
	arch = arches.get('arm64')
	made = _call_objects(tmp_path)
	target = survey.Target(scan.Site('kernel/y.c', 7, 1, 'f',
					 'acquire-in-branch', 'convert', 'high',
					 ''), True)
	reg = sites.Region({7}, {7, 8, 9})

	def cells(conv: str, plain: str) -> dict:
		objects = {'volatile_if': made(conv), 'if': made(plain)}
		return {c.symbol: c for c in survey._cells(
			arch, 'gcc', 'O2', objects, target, reg)}
	got = cells(H_INLINED, H_CALLS)
	assert set(got) == {'f'} and got['f'].volatile.status == 'guaranteed'
	got = cells(H_CALLS, H_INLINED)
	assert set(got) == {'f', 'h'}, got
	assert got['h'].plain.status == 'compiler' and got['h'].volatile is None
	assert got['f'].volatile.status == 'guaranteed'


# clang 14, arm64, cg_unlikely_leg with the condition kept in a variable:
# the hint lost, the cold leg is the fall-through.
ARM64_HINT_LOST = '''
0000000000000000 <cg_unlikely_leg>:
   0:	paciasp
   4:	stp	x29, x30, [sp, #-32]!
   8:	str	x19, [sp, #16]
   c:	mov	x29, sp
  10:	ldr	w8, [x0]
  14:	mov	x19, x1
  18:	cmp	w8, #0x3
  1c:	b.ne	2c <cg_unlikely_leg+0x2c>  // b.any
  20:	mov	w8, #0x2                   	// #2
  24:	str	w8, [x2]
  28:	bl	0 <do_something>
			28: R_AARCH64_CALL26	do_something
  2c:	mov	w8, #0x1                   	// #1
  30:	str	w8, [x19]
  34:	ldr	x19, [sp, #16]
  38:	ldp	x29, x30, [sp], #32
  3c:	autiasp
  40:	ret
'''
# ... and as with if (): the hot path returns first.
ARM64_HINT_KEPT = '''
0000000000000000 <cg_unlikely_leg>:
   0:	ldr	w0, [x0]
   4:	cmp	w0, #0x3
   8:	b.eq	18 <cg_unlikely_leg+0x18>  // b.none
   c:	mov	w0, #0x1                   	// #1
  10:	str	w0, [x1]
  14:	ret
  18:	paciasp
  1c:	stp	x29, x30, [sp, #-32]!
  20:	mov	w0, #0x2                   	// #2
  24:	mov	x29, sp
  28:	str	w0, [x2]
  2c:	str	x1, [sp, #24]
  30:	bl	0 <do_something>
			30: R_AARCH64_CALL26	do_something
  34:	ldr	x1, [sp, #24]
  38:	mov	w0, #0x1                   	// #1
  3c:	str	w0, [x1]
  40:	ldp	x29, x30, [sp], #32
  44:	autiasp
  48:	ret
'''


@pytest.mark.unit
def test_cold_leg_after_return():
	arch = arches.get('arm64')
	case = corpus.Case('unlikely_leg', 'shapes.c', ('depends', 'hint'))
	symbols = [disasm.Symbol('cg_unlikely_leg', '.text', 0, 0x4c, True)]

	def laid_out(listing: str) -> bool:
		obj = disasm.Object(Path('x.o'), symbols,
				    disasm.functions(symbols, parse(listing)))
		return corpus.cold_leg_after_return(arch, obj, case)
	assert laid_out(ARM64_HINT_KEPT)
	assert not laid_out(ARM64_HINT_LOST)


@pytest.mark.unit
def test_riscv_call_pair_is_followed():
	listing = '''
	Disassembly of section .text:

	0000000000000000 <get>:
	   0:	lw	a0,0(a0)
	   4:	ret

	0000000000000008 <f>:
	   8:	auipc	ra,0x0
				8: R_RISCV_CALL_PLT	get
				8: R_RISCV_RELAX	*ABS*
	   c:	jalr	ra # 8 <f>
	  10:	ret
	'''
	insns = disasm.parse_code(textwrap.dedent(listing))
	# the jalr calls what the auipc's relocation names, not the auipc
	assert insns[3].reloc == ('R_RISCV_CALL_PLT', 'get')
	inlined = inlined_of('riscv', listing, 'f', (('get', 0, 8), ('f', 8, 0xc)))
	assert inlined.succs[1] == [3] and inlined.succs[4] == [2]
	assert [i.text for i in inlined.insns[3:]] == ['lw a0,0(a0)', 'ret']


# net/ipv4/fib_trie.c's fib_trie_get_first() as clang 19 builds it for
# riscv, cut down: the condition reads only through the rcu_dereference()d
# node; a branch on *pos, that the line table puts on the same line, tests
# a plain load the stores need not wait for.
RCU_SOURCE = """\
static struct node *child(struct node *pn)
{
	return rcu_dereference(pn->child);
}
void first(struct iter *it, struct node *pn, long *pos)
{
	struct node *n = child(pn);
	if (IS_TNODE(n))
		it->tnode = n;
	else
		it->tnode = pn;
}
"""
RCU_SITE = '''
Disassembly of section .text:

0000000000000000 <first>:
first():
/t/kernel/x.c:7
   0:	ld	t1,0(a2)
/t/kernel/x.c:3
inlined by /t/kernel/x.c:7 (first)
   4:	ld	a0,8(a1)
/t/kernel/x.c:8
   8:	lbu	a3,5(a0)
   c:	bnez	a3,18 <first+0x18>
/t/kernel/x.c:11
  10:	sd	a1,0(a4)
  14:	j	1c <first+0x1c>
/t/kernel/x.c:9
  18:	sd	a0,0(a4)
/t/kernel/x.c:8
  1c:	beqz	t1,24 <first+0x24>
  20:	nop
/t/kernel/x.c:12
  24:	nop
'''


@pytest.mark.unit
def test_site_load_through_a_marked_pointer_counts(tmp_path):
	(tmp_path / 'kernel').mkdir()
	(tmp_path / 'kernel' / 'x.c').write_text(RCU_SOURCE)
	arch = arches.get('riscv')
	reg = sites.Region({8}, {8, 9, 10, 11})
	g = graph_of('riscv', RCU_SITE, 'first', 0x28)
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, False,
				  sites.SourceLines(tmp_path).marked)
	assert v.status == 'compiler' and v.loads == [0x8], (v.status, v.why)
	# n not loaded by a marked access: every load the branches test counts
	(tmp_path / 'kernel' / 'x.c').write_text(
		RCU_SOURCE.replace('rcu_dereference', 'deref'))
	v, *_ = sites.site_verdict(arch, g, 'kernel/x.c', reg, False,
				  sites.SourceLines(tmp_path).marked)
	assert v.status == 'broken' and 'load at 0 ' in v.why, v.why

# lib/rcuref.c's rcuref_put_slowpath(), cut down: the site orders no store
# of its own function; its callers act on what it returns.
RETURNS = '''
Disassembly of section .text:

0000000000000000 <put>:
put():
/t/kernel/x.c:10
   0:	ldr	w1, [x0]
   4:	cbz	w1, 10 <put+0x10>
/t/kernel/x.c:11
   8:	mov	w0, #0x1
   c:	ret
/t/kernel/x.c:12
  10:	mov	w0, #0x0
  14:	ret
'''


@pytest.mark.unit
def test_site_return_is_ordered_as_the_callers_code():
	arch = arches.get('arm64')
	reg = sites.Region({10}, {10, 11, 12})
	v, *_ = sites.site_verdict(arch, graph_of('arm64', RETURNS, 'put', 0x18),
				  'kernel/x.c', reg, True)
	assert v.status == 'guaranteed' and \
		[(s.addr, s.text) for s in v.stores] == [(0xc, 'ret'), (0x14, 'ret')]
	# the branch made a select: what is returned depends on the load
	select = RETURNS.replace('cbz\tw1, 10 <put+0x10>', 'cmp\tw1, #0x0') \
		.replace('mov\tw0, #0x1', 'cset\tw0, ne')
	v, *_ = sites.site_verdict(arch, graph_of('arm64', select, 'put', 0x10),
				  'kernel/x.c', reg, True)
	assert v.status == 'dep' and v.stores[0].text == 'ret', v.why
	# it returns a constant: nothing orders the caller's code
	v, *_ = sites.site_verdict(
		arch, graph_of('arm64', select.replace('cset\tw0, ne', 'mov\tw0, #0x1'),
			       'put', 0x10), 'kernel/x.c', reg, True)
	assert v.status == 'broken', v.why


# perf's ring buffer on powerpc, gcc: the do-while loop peeled.  The
# first round loads the tail but skips the check (rb->overwrite) and goes
# round; the second loads it again and branches on that.  The first load's
# value is gone by then: not the evaluation the stores depend on.
PEELED = '''
Disassembly of section .text:

0000000000000000 <put>:
put():
/t/kernel/x.c:10
   0:	ldr	w1, [x0]
/t/kernel/x.c:9
   4:	cbnz	w3, c <put+0xc>
/t/kernel/x.c:10
   8:	cbz	w1, 1c <put+0x1c>
/t/kernel/x.c:11
   c:	str	wzr, [x5]
/t/kernel/x.c:10
  10:	ldr	w1, [x0]
  14:	cbz	w1, 1c <put+0x1c>
/t/kernel/x.c:11
  18:	str	wzr, [x6]
/t/kernel/x.c:12
  1c:	ret
'''


@pytest.mark.unit
def test_site_peeled_loop():
	arch = arches.get('arm64')
	reg = sites.Region({10}, {10, 11})
	v, *_ = sites.site_verdict(arch, graph_of('arm64', PEELED, 'put', 0x20),
					  'kernel/x.c', reg, True)
	assert v.status == 'guaranteed', v.why
	# the second round's branch tests no load: the first load is still
	# the one to order, and nothing does
	v, *_ = sites.site_verdict(
		arch, graph_of('arm64', PEELED.replace('  14:\tcbz\tw1', '  14:\tcbz\tw9'),
			       'put', 0x20), 'kernel/x.c', reg, True)
	assert v.status == 'broken', v.why
	# the first load's value still held (in w2) at the second branch
	v, *_ = sites.site_verdict(
		arch, graph_of('arm64', PEELED.replace('  10:\tldr\tw1, [x0]',
						       '  10:\tldr\tw2, [x0]').replace(
			'  14:\tcbz\tw1', '  14:\tcbz\tw2'), 'put', 0x20),
		'kernel/x.c', reg, True)
	assert v.status == 'broken' and 'load at 0 ' in v.why, v.why


# A far leg: the branch over it must land in the function.
FAR = '''
0000000000000000 <cg_far_leg>:
   0:	lwz     r9,0(r3)
   4:	cmpwi   cr7,r9,0
   8:	beq     cr7,14 <cg_far_leg+0x14>
   c:	stw     r9,0(r4)
  10:	blr
  14:	li      r9,0
  18:	stw     r9,0(r4)
  1c:	blr
'''


@pytest.mark.unit
def test_branch_target_outside_the_function_is_broken():
	good = analyse('powerpc', FAR, 'cg_far_leg', 0, 0x20, required=True)
	assert good.status == 'guaranteed', good.why
	# clang 14's wrong displacement for a far asm goto branch (issue 10)
	wrong = FAR.replace('beq     cr7,14 <cg_far_leg+0x14>',
			    'beq     cr7,ffffffffffff9c68 <cg_far_leg+0xffffffffffff9c68>')
	v = analyse('powerpc', wrong, 'cg_far_leg', 0, 0x20, required=True)
	assert v.status == 'broken'
	assert 'goes to .text+0xffffffffffff9c68, not to an instruction of ' \
		'cg_far_leg' in v.why
	# past the end of the function
	v = analyse('powerpc', FAR.replace('beq     cr7,14 <', 'beq     cr7,20 <'),
		    'cg_far_leg', 0, 0x20, required=True)
	assert v.status == 'broken' and 'not to an instruction' in v.why
	# a word of the function that objdump shows as data (arm's BUG())
	bug = FAR.replace('  1c:\tblr', '  1c:\t.word\t0xe7f001f2').replace(
		'beq     cr7,14 <', 'beq     cr7,1c <')
	v = analyse('powerpc', bug, 'cg_far_leg', 0, 0x20, required=True)
	assert v.status != 'broken', v.why


@pytest.mark.unit
def test_branch_to_a_function_entry_or_split_is_legal():
	listing = '''
	Disassembly of section .text:

	0000000000000000 <f>:
	   0:	ldr	w1, [x0]
	   4:	cbz	w1, 10 <g>
	   8:	cbnz	w1, 18 <f.part.0+0x4>
	   c:	ret

	0000000000000010 <g>:
	  10:	ret

	0000000000000014 <f.part.0>:
	  14:	nop
	  18:	ret
	'''
	others = [('g', 0x10, 4), ('f.part.0', 0x14, 8)]
	assert graph_of('arm64', listing, 'f', 0x10, others).outside == []
	# into the middle of g: not a tail call
	bad = listing.replace('cbz\tw1, 10 <g>', 'cbz\tw1, 12 <g+0x2>')
	g = graph_of('arm64', bad, 'f', 0x10, others)
	assert [n for n, _ in g.outside] == [1]
	# f.part.0 unknown: the branch into it goes nowhere known
	g = graph_of('arm64', listing, 'f', 0x10, [('g', 0x10, 4)])
	assert [n for n, _ in g.outside] == [2]


SOURCE = '''\
static void f(int *a, int *b)
{
	int r = READ_ONCE(*a);	/* "(" in a comment */

	volatile_if (r >= 0 &&
		     r != 3)
		WRITE_ONCE(*b, 1);
	else {
		WRITE_ONCE(*b, 2);
	}
	WRITE_ONCE(*a, 0);
}

static void g(int *a, int *b)
{
	for (;;) {
		volatile_if (READ_ONCE(*a) == ')')
			break;
		cpu_relax();
	}
	WRITE_ONCE(*b, 1);
out:
	WRITE_ONCE(*b, 2);
}
'''


@pytest.mark.unit
def test_region_legs_and_exits():
	# the legs and the store after the statement, to the closing brace
	r = sites.region(SOURCE, 5)
	assert r.condition == {5, 6} and r.ordered == set(range(6, 13))
	# break: the rest of the function, past a label too
	r = sites.region(SOURCE, 17)
	assert r.condition == {17} and r.ordered == set(range(17, 25))
	with pytest.raises(Error):
		sites.region(SOURCE, 3)


@pytest.mark.unit
def test_stores_of_a_call_in_the_condition_are_not_the_legs():
	barrier = 'arch/arm64/include/asm/barrier.h'
	cond = {4153}

	def called(*where):
		insn = disasm.Insn('.text', 0, 'str', where=where)
		return sites._called(insn, 'kernel/sched/core.c', cond)
	# ttwu_runnable(), inlined into the condition of try_to_wake_up()
	assert called(('/t/kernel/sched/core.c', 3712),
		      ('/t/kernel/sched/core.c', 4153))
	# a store of both legs, merged and given the if's line
	assert not called(('/t/' + barrier, 234),
			  ('/t/kernel/sched/core.c', 4153))
	assert not called(('/t/kernel/sched/core.c', 4153),)
	# a call in a leg
	assert not called(('/t/include/linux/sched.h', 20),
			  ('/t/kernel/sched/core.c', 4154))


PATCH = '''\
From 1 Mon Sep 17 00:00:00 2001
Subject: [PATCH] ipc/msg: Use volatile_if()

diff --git a/ipc/msg.c b/ipc/msg.c
--- a/ipc/msg.c
+++ b/ipc/msg.c
@@ -1210,7 +1210,7 @@ static long do_msgrcv(int msqid)
 		 * signal) it will either see the message and continue ...
 		 */
 		msg = READ_ONCE(msr_d.r_msg);
-		if (msg != ERR_PTR(-EAGAIN) &&
-		    x) {
+		volatile_if (msg != ERR_PTR(-EAGAIN) &&
+			     x) {
 			/* see MSG_BARRIER for purpose/pairing */
 			smp_acquire__after_ctrl_dep();
'''


@pytest.mark.unit
def test_patch_sites(tmp_path):
	p = tmp_path / '0001-ipc.patch'
	p.write_text(PATCH)
	assert sites.patch_sites(p) == [
		sites.Site('ipc/msg.c', 1213, '0001-ipc.patch')]
	p.write_text(PATCH.replace('+\t\t\t     x) {', '+\t\t\t     y) {'))
	with pytest.raises(Error, match='more than'):
		sites.patch_sites(p)
	# x != NULL written as x, as the conversion does: the same expression
	p.write_text(PATCH.replace('-\t\t    x) {', '-\t\t    x != NULL) {'))
	assert len(sites.patch_sites(p)) == 1
	p.write_text(PATCH.replace('-\t\t    x) {', '-\t\t    x == NULL) {'))
	with pytest.raises(Error, match='more than'):
		sites.patch_sites(p)


SPLIT = '''\
diff --git a/kernel/sched/core.c b/kernel/sched/core.c
--- a/kernel/sched/core.c
+++ b/kernel/sched/core.c
@@ -4152,8 +4152,10 @@ try_to_wake_up(struct task_struct *p)
 	smp_rmb();
-	if (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))
-		goto unlock;
+	volatile_if (READ_ONCE(p->on_rq)) {
+		if (ttwu_runnable(p, wake_flags))
+			goto unlock;
+	}
 
'''


@pytest.mark.unit
@pytest.mark.parametrize('added, ok', [
	(None, True),
	# not the same statement: another condition, code after the inner if,
	# the parts swapped
	(('+\t\tif (ttwu_runnable(p, wake_flags))', '+\t\tif (ttwu_runnable(p, flags))'),
	 False),
	(('goto unlock;\n+\t}', 'goto unlock;\n+\t\tx();\n+\t}'), False),
	(('READ_ONCE(p->on_rq)) {\n+\t\tif (ttwu_runnable(p, wake_flags))',
	  'ttwu_runnable(p, wake_flags)) {\n+\t\tif (READ_ONCE(p->on_rq))'), False),
])
def test_patch_sites_of_a_split_condition(tmp_path, added, ok):
	p = tmp_path / '0007-sched.patch'
	p.write_text(SPLIT.replace(*added) if added else SPLIT)
	if ok:
		assert sites.patch_sites(p) == [
			sites.Site('kernel/sched/core.c', 4153, '0007-sched.patch')]
	else:
		with pytest.raises(Error, match='more than'):
			sites.patch_sites(p)


@pytest.mark.unit
def test_retarget():
	argv = ['ccache', 'gcc', '-Wp,-MMD,lib/.x.o.d', '-nostdinc', '-Iinclude',
		'-O2', '-c', '-o', 'lib/x.o', '/t/lib/x.c']
	assert recompile.retarget(argv, Path('/c/y.c'), Path('/o/y.o'),
				  include=Path('/v'), defines=['A'], flags=['-F'],
				  debug=True) == [
		'ccache', 'gcc', '-nostdinc', '-I/v', '-Iinclude', '-O2', '-DA',
		'-F', '-g', '-c', '-o', '/o/y.o', '/c/y.c']


@pytest.mark.unit
def test_corpus_cases():
	cases = corpus.cases()
	names = [k.name for k in cases]
	assert len(names) == len(set(names))
	tags = {t for k in cases for t in k.tags}
	assert tags == {'depends', 'if-breaks', 'constant', 'far', 'hint'}
	for k in cases:
		assert ('depends' in k.tags) != ('constant' in k.tags), k
	# a compile error is the verdict of a whole file: a constant case
	# has its file to itself
	for k in cases:
		if 'constant' in k.tags:
			assert [x.name for x in cases if x.file == k.file] == [k.name]


@pytest.mark.unit
def test_compile_error_line():
	clang = Error('compiling x.c failed (exit 1)', textwrap.dedent("""\
		/t/tests/codegen/constant_or.c:14:2: error: call to __compiletime_assert_9 declared with 'error' attribute: volatile_cond() with a constant condition
		        volatile_if (q || 1 > 0)
		        ^
		1 error generated."""))
	assert corpus.compile_error(clang).startswith('/t/tests/codegen/constant_or.c:14:2: error: call')
	assert corpus.compile_error(Error('x failed', '')) == 'x failed'


@pytest.fixture(scope='module')
def codegen_tree(test_tree):
	"""The series worktree of the tests.  Not corpus.default_tree(): a
	test run would reset that under a running scripts/bench-codegen
	whenever the patches have changed."""
	return test_tree


# The suite's slice of scripts/bench-codegen's matrix, whose committed
# results (tool/docs/codegen.json) are checked below: gcc on every
# architecture, whose check builds test_cross_compile has prepared, and
# clang on arm64 and arm, where clang breaks every if-breaks case.  Each
# other clang build would cost a cold kernel prepare.
CLANG_SLICE = ('arm64', 'arm')


def _slice(worktree: Path, variants) -> list:
	def build(arch, compiler):
		return corpus.kernel_build(worktree, arches.get(arch), compiler)
	return [corpus.run(arches.CODEGEN_ARCHES, ['gcc'], variants, build=build),
		corpus.run(CLANG_SLICE, ['clang'], variants, build=build)]


def _matrix_holds(cases: dict, cells: list) -> None:
	"""What the corpus shows, on @cells (case, arch, compiler, variant,
	status, why) of @cases (name -> tags): volatile_if is guaranteed
	wherever the condition depends on the load, the far leg included; the
	cases the compilers break with if () are broken somewhere; a constant
	condition does not compile with volatile_if and gcc, and is broken on
	the weakly ordered architectures (no branch at all) with if (), and
	with volatile_if and clang, which has no check; on TSO it is ordered,
	by the compiler's order of the accesses or by volatile_if's barrier."""
	constant = {k for k, tags in cases.items() if 'constant' in tags}
	assert constant
	assert not [c for c in cells if c[4] == 'error' and c[0] not in constant]
	wrong = [c for c in cells if 'depends' in cases[c[0]] and
		 c[3] == 'volatile_if' and c[4] != 'guaranteed']
	assert not wrong
	for k, tags in cases.items():
		if 'if-breaks' in tags:
			assert any(c[4] == 'broken' for c in cells
				   if c[0] == k and c[3] == 'if'), k
		if 'constant' in tags:
			for c in cells:
				if c[0] != k:
					continue
				tso = arches.get(c[1]).tso
				if c[3] == 'volatile_if' and c[2] == 'gcc':
					assert c[4] == 'error' and 'constant' in c[5], c
				elif c[3] == 'volatile_if':
					assert c[4] == ('guaranteed' if tso else 'broken'), c
				else:
					assert c[4] == ('compiler' if tso else 'broken'), c


@pytest.mark.slow
def test_matrix(codegen_tree):
	"""Plain if and volatile_if, the slice above, compiled now."""
	runs = _slice(codegen_tree, corpus.CHECKED)
	for m in runs:
		print(m.text())
	_matrix_holds({k.name: k.tags for k in corpus.cases()},
		      [(c.case, c.arch, c.compiler, c.variant, c.verdict.status,
			c.verdict.why) for m in runs for c in m.cells])
	# likely() and unlikely() reach the branch: the cold leg stays out of
	# line (clang loses the hint of a value kept in a variable).  x86's
	# returns are jumps to a thunk, which this does not look for.
	hint = [k for k in corpus.cases() if 'hint' in k.tags]
	assert hint
	laid_out = {}
	for m in runs:
		for a in m.arches:
			arch = arches.get(a)
			if arch.tso:
				continue
			for c in m.compilers:
				objs = {f: disasm.disassemble(arch.objdump, corpus.object_path(
					codegen_tree.name, a, c, 'volatile_if', f))
					for f in {k.file for k in hint}}
				for k in hint:
					laid_out[k.name, a, c] = corpus.cold_leg_after_return(
						arch, objs[k.file], k)
	assert laid_out and all(laid_out.values()), laid_out


@pytest.mark.slow
def test_one_asm_is_not_enough_on_arm(codegen_tree):
	"""What base-patch 0001 says of an asm in the taken leg alone: gcc and
	clang for 32-bit ARM then execute a store of the other leg as a
	conditional STR, with no branch before it."""
	m = corpus.run(['arm'], corpus.COMPILERS, ['then-asm'],
		       build=lambda a, c: corpus.kernel_build(
			       codegen_tree, arches.get(a), c))
	for compiler in corpus.COMPILERS:
		stores = [s.text for c in m.cells if c.compiler == compiler and
			  c.verdict.status == 'pred'
			  for s in c.verdict.stores if s.status == 'pred']
		assert any(re.match(r'str(eq|ne)\s', x) for x in stores), \
			(compiler, m.text())


@pytest.mark.unit
def test_no_kunit_sites_without_the_test(tmp_path):
	"""A tree whose volatile_if() came without base-patch's KUnit test:
	the series' sites alone, not a traceback."""
	assert sites.kunit_sites(tmp_path) == []
	(tmp_path / sites.KUNIT_FILE).parent.mkdir(parents=True)
	(tmp_path / sites.KUNIT_FILE).write_text(
		f'static void {sites.KUNIT_FUNCTIONS[0]}(int *a)\n{{\n'
		'\tvolatile_if (READ_ONCE(*a))\n')
	assert [s.line for s in sites.kunit_sites(tmp_path)] == [3]


@pytest.mark.slow
def test_kunit_sites(codegen_tree):
	"""base-patch's litmus sites are guaranteed in the objects of the
	four weakly ordered architectures with gcc, and of CLANG_SLICE with
	clang (all four: tool/docs/codegen.json)."""
	kunit = sites.kunit_sites(codegen_tree)
	assert len(kunit) == len(sites.KUNIT_FUNCTIONS)
	reports = [sites.analyse(codegen_tree, kunit, compilers=['gcc']),
		   sites.analyse(codegen_tree, kunit, arch_names=CLANG_SLICE,
				 compilers=['clang'])]
	results = [r for report in reports for r in report.results]
	for report in reports:
		print(report.text())
		assert not report.missing
	got = {(r.site, r.arch, r.compiler) for r in results}
	assert got == {(s, a, 'gcc') for s in kunit for a in sites.WEAK} | \
		{(s, a, 'clang') for s in kunit for a in CLANG_SLICE}
	assert all(r.verdict.status == 'guaranteed' for r in results), \
		[(r.site, r.arch, r.compiler, r.verdict.why) for r in results
		 if r.verdict.status != 'guaranteed']


# The committed results of scripts/bench-codegen, all of its matrix.

DOCS = Path(__file__).resolve().parents[2] / 'tool' / 'docs'


def _bench_codegen():
	"""scripts/bench-codegen, which makes the page, as a module."""
	loader = importlib.machinery.SourceFileLoader(
		'bench_codegen', str(DOCS.parents[1] / 'scripts' / 'bench-codegen'))
	module = importlib.util.module_from_spec(
		importlib.util.spec_from_loader(loader.name, loader))
	loader.exec_module(module)
	return module


@pytest.fixture(scope='module')
def committed():
	return json.loads((DOCS / 'codegen.json').read_text())


@pytest.mark.unit
def test_committed_page_is_made_from_the_json(committed):
	assert (DOCS / 'codegen.md').read_text() == \
		_bench_codegen().page(committed) + '\n'


@pytest.mark.unit
def test_committed_matrix_is_of_the_corpus_and_holds(committed):
	m = committed['matrix']
	assert m['cases'] == {k.name: {'file': k.file, 'tags': list(k.tags)}
			      for k in corpus.cases()}
	assert set(m['arches']) == set(arches.CODEGEN_ARCHES)
	assert set(m['compilers']) == set(corpus.COMPILERS)
	cells = [(c['case'], c['arch'], c['compiler'], c['variant'],
		  c['status'], c['why']) for c in m['cells']]
	assert {c[:4] for c in cells} == {
		(k, a, c, v) for k in m['cases'] for a in m['arches']
		for c in m['compilers'] for v in m['variants']}
	_matrix_holds({k: v['tags'] for k, v in m['cases'].items()},
		      [c for c in cells if c[3] in corpus.CHECKED])


@pytest.mark.unit
def test_committed_sites_are_the_series_and_guaranteed(committed):
	"""Every site generated-patches/6.1 converts, and base-patch's litmus
	sites, on the four weakly ordered architectures and both compilers;
	volatile_if guaranteed at each."""
	s = committed['sites']
	assert not s['missing'] and not s['failed']
	converted = {(x.file, x.line) for p in tree.series(GENERATED_PATCHES)
		     for x in sites.patch_sites(p)}
	kunit = {x['function'] for x in s['sites']
		 if x['origin'].startswith('base-patch')}
	assert kunit == set(sites.KUNIT_FUNCTIONS)
	cells = {}
	for x in s['sites']:
		where = x['function'] if x['function'] in kunit else \
			(x['file'], x['line'])
		cells.setdefault(where, set()).add((x['arch'], x['compiler']))
	assert set(cells) == converted | kunit
	every = {(a, c) for a in sites.WEAK for c in corpus.COMPILERS}
	assert all(got == every for got in cells.values()), cells
	bad = [(x['file'], x['line'], x['arch'], x['compiler'])
	       for x in s['sites'] if x['volatile_if']['status'] != 'guaranteed']
	assert not bad


@pytest.mark.unit
def test_cost_split_by_what_the_plain_if_made():
	m = {'cells': [
		{'case': 'a', 'arch': 'arm', 'compiler': 'gcc', 'variant': 'if',
		 'status': 'compiler'},
		{'case': 'b', 'arch': 'arm', 'compiler': 'gcc', 'variant': 'if',
		 'status': 'pred'},
		{'case': 'c', 'arch': 'arm', 'compiler': 'gcc', 'variant': 'if',
		 'status': 'guaranteed'}]}
	costs = {'arm': {'gcc': {'volatile_if': {
		'a': {'path': 0, 'insns': 2}, 'b': {'path': 1, 'insns': 3},
		'c': {'path': -1, 'insns': 0}}}}}
	table = _bench_codegen().by_plain_if(m, costs, [('arm', 'gcc')])
	assert table[-2] == '| arm | gcc | 2 | path -0.5 / +0; size +1 / +2 ' \
		'| 1 | path +1 / +1; size +3 / +3 |'


@pytest.mark.unit
def test_merged_sites_keep_only_the_variants_not_rerun():
	"""A rerun's `not here` is not overwritten by the earlier run's
	numbers; variants the rerun did not compile are kept."""
	def site(statuses, insns):
		return {'file': 'a.c', 'line': 1, 'arch': 'arm64',
			'compiler': 'gcc', 'function': 'h',
			'variants': dict(insns), 'paths': dict(insns),
			'statuses': statuses}
	results = {'sites': {'arches': ['arm64'], 'missing': [], 'failed': [],
			     'only_if': [],
			     'sites': [site({'volatile_if': 'guaranteed',
					     'if': 'broken', 'rfc': 'guaranteed'},
					    {'volatile_if': 9, 'if': 4, 'rfc': 12})]}}
	report = {'arches': ['arm64'], 'missing': [], 'failed': [],
		  'only_if': [], 'sites': [site({'volatile_if': 'guaranteed',
				  'if': sites.NOT_HERE}, {'volatile_if': 9})]}
	_bench_codegen().merge_sites(results, report)
	(x,) = results['sites']['sites']
	assert x['statuses'] == {'volatile_if': 'guaranteed',
				 'if': sites.NOT_HERE, 'rfc': 'guaranteed'}
	assert x['variants'] == {'volatile_if': 9, 'rfc': 12}
	assert _bench_codegen().site_costs(results['sites']) == {}


def _message(patch: Path) -> str:
	"""A patch's commit message, its lines joined by single spaces."""
	body = patch.read_text().split('\n\n', 1)[1].split('\n---\n', 1)[0]
	return ' '.join(body.split())


BASE_SERIES = [pytest.param(d, id=d.name)
	       for d in sorted(common.BASE_PATCHES.iterdir()) if d.is_dir()]


@pytest.mark.unit
@pytest.mark.parametrize('series', BASE_SERIES)
def test_committed_costs_are_those_base_patch_gives(committed, series):
	"""The figures base-patch's messages give of the corpus are those of
	tool/docs/codegen.json: 0001 those of the generic volatile_cond()
	('per-leg'), each arch's 'with one asm' patch its own beside them."""
	costs = committed['case_costs']
	means = _bench_codegen().means
	weak = [(a, c) for a in sites.WEAK for c in corpus.COMPILERS]
	cases = {len(costs[a][c]['per-leg']) for a, c in weak}
	generic = {f: [means(costs[a][c], f)['per-leg'] for a, c in weak]
		   for f in ('insns', 'path')}
	patches = tree.series(series)
	first = _message(patches[0])
	got = re.search(r'Over (\d+) shapes .* grow by ([\d.]+) to ([\d.]+) '
			r'instructions on average, and their longest path by '
			r'([\d.]+) to ([\d.]+)\.', first)
	assert got, first
	assert [float(x) for x in got.groups()] == [
		cases.pop(), min(generic['insns']), max(generic['insns']),
		min(generic['path']), max(generic['path'])]
	assert not cases
	one_asm = [p for p in patches
		   if tree.subject(p).endswith('Implement volatile_cond() with '
					       'one asm')]
	assert {tree.subject(p).split(':')[0] for p in one_asm} == \
		{'arm64', 'powerpc/barrier', 'riscv'}
	for patch in one_asm:
		arch = tree.subject(patch).split(':')[0].split('/')[0]
		text = _message(patch)
		said = {}
		for less, cc, ours, theirs in re.findall(
				r'([\d.]+) (?:instructions? smaller on average )?'
				r'with (gcc|clang) \d+ \(\+([\d.]+)(?: over the plain '
				r'if \(\))? instead of \+([\d.]+)\)', text):
			said[cc, 'insns'] = (float(ours), float(theirs))
			assert float(less) == round(float(theirs) - float(ours), 2)
		for cc, ours, theirs in re.findall(
				r'longest path with (gcc|clang) is shorter \(\+([\d.]+) '
				r'instead of \+([\d.]+)\)', text):
			said[cc, 'path'] = (float(ours), float(theirs))
			assert float(ours) < float(theirs)
		assert {cc for cc, _ in said} == set(corpus.COMPILERS), text
		for (cc, field), figures in said.items():
			m = means(costs[arch][cc], field)
			assert figures == (m['volatile_if'], m['per-leg']), \
				(patch.name, cc, field)
