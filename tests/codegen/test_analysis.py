# SPDX-License-Identifier: GPL-2.0
"""The control-dependency analysis (codegen/ctrldep.py, corpus.py) on canned
disassembly of every architecture: the verdicts on stores and their paths,
and what an object's tables change in its graph (BUG() and WARN(), static
keys, alternatives, switches, tail calls)."""

import textwrap
from pathlib import Path

import pytest

from volatile_if import arches
from volatile_if.codegen import corpus, ctrldep, disasm, isa

from canned import alternatives_of, analyse, graph_of, inlined_of, parse


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
	decoder = isa.decoder(arches.get('arm64').isa)
	case = corpus.Case('unlikely_leg', 'shapes.c', ('depends', 'hint'))
	symbols = [disasm.Symbol('cg_unlikely_leg', '.text', 0, 0x4c, True)]

	def laid_out(listing: str) -> bool:
		obj = disasm.Object(Path('x.o'), symbols,
				    disasm.functions(symbols, parse(listing)))
		return corpus.cold_leg_after_return(decoder, obj, case)
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
