# SPDX-License-Identifier: GPL-2.0
"""The code-generation checks: the objdump parser, the instruction table
and the control-dependency analysis on canned disassembly of every
architecture (fast), then the matrix of the corpus and the KUnit sites
compiled by gcc and clang (slow)."""

import textwrap
from pathlib import Path

import pytest

from volatile_if import (arches, codegen, codegen_sites, ctrldep, disasm, isa,
			 recompile)
from volatile_if.common import Error


def parse(listing: str) -> list:
	"""The instructions of a .text listing of `objdump -dr`."""
	text = textwrap.dedent(listing)
	if 'Disassembly of section' not in text:
		text = 'Disassembly of section .text:\n' + text
	return disasm.parse_code(text)


def analyse(arch_name: str, listing: str, name: str, start: int,
	    size: int) -> ctrldep.Verdict:
	"""The corpus verdict on function @name of an `objdump -dr` @listing:
	loads through the first argument marked, stores through the second
	ordered."""
	arch = arches.get(arch_name)
	insns = parse(listing)
	symbols = [disasm.Symbol(name, '.text', start, size, True),
		   disasm.Symbol('.text', '.text', 0, 0, False),
		   disasm.Symbol('__x86_return_thunk', '*UND*', 0, 0, False)]
	obj = disasm.Object(Path('canned.o'), symbols,
			    disasm.functions(symbols, insns))
	return codegen.analyse_function(arch, obj, name, isa.Decoder(arch.isa))


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


def test_arm64_hoisted_store_is_broken():
	v = analyse('arm64', ARM64_HOISTED, 'cg_identical_stores', 0x50, 0x28)
	assert v.status == 'broken'
	assert [(s.addr, s.status) for s in v.stores] == [(0x60, 'broken')]
	assert v.loads == [0x54] and v.insns == 10


def test_arm64_asm_goto_branch_orders():
	v = analyse('arm64', ARM64_ASM_GOTO, 'cg_identical_stores', 0x68, 0x30)
	assert v.status == 'ok', v.why
	assert [s.addr for s in v.stores] == [0x88]
	# the longest path falls through the branch: all 12
	assert v.path == 12


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
	assert v.status == 'ok' and v.loads == [0xb0, 0xc4]
	# without the branches, the dmb ishld still orders the store
	no_branch = listing.replace('cbnz\tx2, d4', 'cbnz\tx9, d4')
	assert analyse('arm64', no_branch, 'cg_spin_wait', 0xb0, 0x38).status == 'ok'
	no_fence = no_branch.replace('dmb\tishld', 'dmb\tishst')
	assert analyse('arm64', no_fence, 'cg_spin_wait', 0xb0, 0x38).status == 'broken'


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
	assert analyse('arm', listing, 'cg_u64_high', 0x278, 0x30).status == 'ok'
	low_only = listing.replace('and\tr3, r5', 'and\tr3, r4')
	assert analyse('arm', low_only, 'cg_u64_high', 0x278, 0x30).status == 'ok'
	constant = listing.replace('and\tr3, r5, #256', 'mov\tr3, #256')
	assert analyse('arm', constant, 'cg_u64_high', 0x278, 0x30).status == 'broken'


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
	assert analyse('powerpc', is_err, 'cg_is_err', 0x1c0, 0x2c).status == 'ok'
	other_field = is_err.replace('bne     cr7,', 'bne     cr6,')
	assert analyse('powerpc', other_field, 'cg_is_err', 0x1c0, 0x2c).status == 'broken'


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
	v = analyse('riscv', listing, 'cg_negation', 0x108, 0x1e)
	assert v.status == 'ok' and [s.addr for s in v.stores] == [0x120]
	hoisted = listing.replace(' 11e:	li	a5,1\n', '').replace(
		' 10e:	lw	a5,0(a0)\n', ' 10e:	lw	a5,0(a0)\n 10f:	sw	zero,0(a1)\n')
	assert analyse('riscv', hoisted, 'cg_negation', 0x108, 0x1e).status == 'broken'


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
	assert v.status == 'ok' and v.path == 7
	before = textwrap.dedent(listing).replace(
		'  40:	mov    (%rdi),%eax\n  42:	movl   $0x1,(%rsi)',
				 '  40:	movl   $0x1,(%rsi)\n  42:	mov    (%rdi),%eax')
	assert analyse('x86_64', before, 'cg_identical_stores', 0x40, 0x20).status == 'broken'


@pytest.mark.parametrize('arch,mnemonic,operands,expect', [
	('arm64', 'ldp', 'x29, x30, [sp], #16',
	 dict(loaded={'x29', 'x30'}, defs={'sp'}, load=True)),
	('arm64', 'stxr', 'w3, x1, [x0]',
	 dict(defs={'x3'}, values={'x1'}, addr={'x0'}, store=True)),
	('arm64', 'ldaddal', 'w1, w0, [x2]',
	 dict(loaded={'x0'}, values={'x1', 'x0'}, load=True, store=True, acquire=True)),
	('arm64', 'csinc', 'w8, w8, wzr, eq', dict(defs={'x8'}, uses={'x8', 'flags'})),
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
	('powerpc', 'beqlr', 'cr7', dict(flow='cond', cond={'cr7'})),
	('powerpc', 'and.', 'r9,r9,r9', dict(defs={'r9', 'cr0'})),
	('powerpc', 'lwsync', '', dict(fence=True)),
	('riscv', 'amoswap.w.aq', 'a5,a4,(a0)', dict(loaded={'a5'}, values={'a4'},
						   acquire=True, store=True)),
	('riscv', 'fence', 'r,r', dict(fence=False)),
	('riscv', 'fence', 'r,rw', dict(fence=True)),
	('riscv', 'bnez', 'a5,a0 <f+0x10>', dict(cond={'a5'})),
	('x86_64', 'cmpl', '$0x0,(%rdi)', dict(loaded={'flags'}, load=True, addr={'rdi'})),
	('x86_64', 'xor', '%eax,%eax', dict(defs={'rax', 'flags'}, uses=set())),
	('x86_64', 'lock', 'addl $0x0,-0x4(%rsp)', dict(fence=True, store=True)),
	('x86_64', 'add', '%eax,(%rdx)', dict(load=True, store=True, values={'rax'})),
])
def test_decoder(arch, mnemonic, operands, expect):
	sem = isa.Decoder(arches.get(arch).isa).decode(
		disasm.Insn('.text', 0, mnemonic, operands))
	for key, value in expect.items():
		got = getattr(sem, key)
		assert (set(got) if isinstance(got, frozenset) else got) == value, key


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
	g = ctrldep.graph(obj, obj.functions['f'], isa.Decoder(arch.isa))
	# the reload counts too: READ_ONCE() of a local looks the same
	assert [g.insns[n].addr for n in ctrldep.loads_tested(g, 5)] == [0x0, 0x8, 0xc]


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


def test_region_legs_and_exits():
	r = codegen_sites.region(SOURCE, 5)
	assert r.condition == {5, 6} and r.ordered == set(range(6, 11))
	# break: the rest of the function is ordered, up to a label
	r = codegen_sites.region(SOURCE, 17)
	assert r.condition == {17} and r.ordered == set(range(17, 22))
	with pytest.raises(Error):
		codegen_sites.region(SOURCE, 3)


def test_stores_of_a_call_in_the_condition_are_not_the_legs():
	barrier = 'arch/arm64/include/asm/barrier.h'
	cond = {4153}

	def called(*where):
		insn = disasm.Insn('.text', 0, 'str', where=where)
		return codegen_sites._called(insn, 'kernel/sched/core.c', cond,
					     barrier)
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


def test_patch_sites(tmp_path):
	p = tmp_path / '0001-ipc.patch'
	p.write_text(PATCH)
	assert codegen_sites.patch_sites(p) == [
		codegen_sites.Site('ipc/msg.c', 1213, '0001-ipc.patch')]
	p.write_text(PATCH.replace('+\t\t\t     x) {', '+\t\t\t     y) {'))
	with pytest.raises(Error, match='more than'):
		codegen_sites.patch_sites(p)


def test_retarget():
	argv = ['ccache', 'gcc', '-Wp,-MMD,lib/.x.o.d', '-nostdinc', '-Iinclude',
		'-O2', '-c', '-o', 'lib/x.o', '/t/lib/x.c']
	assert recompile.retarget(argv, Path('/c/y.c'), Path('/o/y.o'),
				  include=Path('/v'), defines=['A'], debug=True) == [
		'ccache', 'gcc', '-nostdinc', '-I/v', '-Iinclude', '-O2', '-DA',
		'-g', '-c', '-o', '/o/y.o', '/c/y.c']


def test_corpus_cases():
	cases = codegen.cases()
	names = [k.name for k in cases]
	assert len(names) == len(set(names))
	tags = {t for k in cases for t in k.tags}
	assert tags == {'depends', 'if-breaks', 'constant'}
	for k in cases:
		assert ('depends' in k.tags) != ('constant' in k.tags), k


@pytest.mark.slow
def test_matrix(check_build, test_tree):
	"""gcc and clang, plain if and volatile_if, on the five architectures:
	volatile_if orders wherever the condition depends on the load; the
	cases the compilers break with if () are broken somewhere."""
	def build(arch, compiler):
		if compiler == 'gcc':
			return check_build(arch)
		return codegen.kernel_build(test_tree, arches.get(arch), compiler)
	m = codegen.run(codegen.ARCHES, codegen.COMPILERS, codegen.CHECKED,
			build=build)
	print(m.text())
	cells = m.cells
	assert not [c for c in cells if c.verdict.status == 'error'], m.text()
	wrong = [f'{c.case} {c.arch} {c.compiler}: {c.verdict.status}: {c.verdict.why}'
		 for c in cells for k in m.cases
		 if k.name == c.case and 'depends' in k.tags and
		 c.variant == 'volatile_if' and c.verdict.status != 'ok']
	assert not wrong
	for k in m.cases:
		if 'if-breaks' in k.tags:
			assert any(c.verdict.status == 'broken' for c in cells
				   if c.case == k.name and c.variant == 'if'), k.name
		if 'constant' in k.tags:
			seen = {c.verdict.status for c in cells if c.case == k.name}
			print(f'{k.name} (constant condition): {sorted(seen)}')


@pytest.mark.slow
def test_kunit_sites(test_tree):
	"""base-patch's litmus sites have the branch between load and stores
	in the arm64 objects of both compilers."""
	report = codegen_sites.analyse(test_tree, codegen_sites.kunit_sites(test_tree))
	print(report.text())
	assert len(report.results) == 6 and not report.missing
	assert all(r.verdict.status == 'ok' for r in report.results), report.text()
