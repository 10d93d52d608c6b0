# SPDX-License-Identifier: GPL-2.0
"""The analysis of the converted sites (codegen/sites.py) on canned objects:
which branches and loads are the site's, what is ordered after them, code
that a variant inlines and another calls, and where a patch's sites are."""

import dataclasses
import re
import textwrap
from pathlib import Path

import pytest

from volatile_if import arches, scan
from volatile_if.codegen import ctrldep, disasm, isa, recompile, sites, survey
from volatile_if.common import Error

from canned import graph_of, inlined_of


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
	# but not a spill there, or a store to a local, which no other CPU
	# sees: through the stack pointer, or through x29 where the function
	# makes it its frame pointer; elsewhere x29 is a general register
	legs = ('guaranteed', {0x14: 'guaranteed', 0x18: 'guaranteed'})
	assert stores(AFTER_AHEAD.replace('[x2]', '[sp, #8]', 1)) == legs
	local = AFTER_AHEAD.replace('[x2]', '[x29, #8]', 1)
	assert stores(local)[1][0x8] == 'broken'
	assert stores(local.replace('   4:\tmov\tw4, #0x2',
				    '   4:\tmov\tx29, sp')) == legs


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
	stack frame, nor a leg's store that comes before the next round's
	load."""
	def stores(listing):
		v = after_verdict(listing, False)
		return {s.addr: s.status for s in v.stores}
	assert stores(LEG_ABOVE) == {0x4: 'broken', 0x14: 'compiler',
				     0x18: 'compiler'}
	assert stores(LEG_ABOVE.replace('[x1]', '[sp, #-16]!')) == \
		{0x14: 'compiler', 0x18: 'compiler'}
	assert stores(LEG_ABOVE.replace('[x1]', '[x29, #16]'))[0x4] == 'broken'
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
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == {'h': {}}
	# what the other variants did there: bool as if (), per-leg as v2
	objects.update(bool=made(H_INLINED), **{'per-leg': made(H_CALLS)})
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == {
		'h': {'bool': True, 'per-leg': False}}
	del objects['bool'], objects['per-leg']
	# the stores of the leg alone are the site's code too
	objects['if'] = made(H_STORES.replace('@', '8'))
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == {'h': {}}
	objects['if'] = made(H_CALLS)
	assert sites.only_unconverted(objects, 'kernel/y.c', reg) == {}
	assert sites.only_unconverted({'volatile_if': made(H_CALLS)},
				      'kernel/y.c', reg) == {}


@pytest.mark.unit
def test_site_report_says_what_it_could_not_compare():
	report = sites.SiteReport(['arm64'], ['gcc', 'clang'], [], missing=[
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
