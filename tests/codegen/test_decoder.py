# SPDX-License-Identifier: GPL-2.0
"""Reading objdump's output: the instruction decoders of codegen/isa/, one
row per instruction, relocated branch targets, labels and the line table
of inlined code (codegen/disasm.py)."""

import textwrap
from pathlib import Path

import pytest

from volatile_if import arches
from volatile_if.codegen import disasm, isa


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
