# SPDX-License-Identifier: GPL-2.0
"""Every architecture of arches.py compiles code that uses volatile_if()
through its own asm/barrier.h, with Debian's cross gcc and its defconfig.

mips and alpha had no volatile_cond() of their own in v1 and paid smp_mb()
at every volatile_if(): their lb_side1(), one READ_ONCE() and a volatile_if()
with the same WRITE_ONCE() in both legs, must now branch and hold no full
barrier but the one alpha's READ_ONCE() itself has.  The same object
compiled with a plain if () in place of volatile_if() (codegen's "if"
variant) is the control: there gcc 12 merges the two stores into one after
no branch, on both, so a volatile_if() that let it do the same would fail.

Debian's 6.1 tree (6.1.192) does not build for alpha at all: its `make
prepare` stops in arch/alpha/include/asm/pgtable.h, which calls
page_table_check_pte_clear() with two arguments where the function takes
three.  alpha is built on 6.12 instead, with base-patch/6.12."""

import re
import subprocess
from pathlib import Path

import pytest

from volatile_if import arches, check
from volatile_if.codegen import corpus, recompile

OBJECT = 'lib/volatile_if_kunit.o'

# What an objdump line of lb_side1() looks like for the two architectures
# that codegen does not read: (conditional branch, full barrier, full
# barriers that READ_ONCE() brings).
ONCE_FALLBACK = {
	'mips': (r'b(eq|ne|gez|gtz|lez|ltz)z?l?', r'sync', 0),
	'alpha': (r'b(eq|ne|lt|le|gt|ge|lbc|lbs)', r'mb', 1),
}


def mnemonics(objdump: str, obj, function: str) -> list:
	"""The mnemonics of @function in @obj, in order."""
	out = subprocess.run([objdump, '-d', '--no-show-raw-insn', str(obj)],
			     capture_output=True, text=True, check=True).stdout
	body = re.search(rf'^[0-9a-f]+ <{function}>:\n(.*?)(?:\n\n|\Z)', out,
			 re.M | re.S)
	assert body, f'{function} not in {obj}'
	return [line.split('\t')[1].split()[0] for line in body.group(1).splitlines()
		if line.count('\t') >= 1 and line.split('\t')[1].strip()]


# (tree version, arch): the default tree (6.1) for every architecture but
# alpha, which it cannot build; alpha on 6.12
BUILDS = [('6.1', a) for a in arches.ARCHES if a != 'alpha'] + [('6.12', 'alpha')]


@pytest.mark.slow
@pytest.mark.parametrize('version, arch', BUILDS)
def test_kunit_object_builds(check_build, other_tree, tmp_path, version, arch):
	if version == '6.1':
		build = check_build(arch)
	else:
		build = check.build(other_tree(version)[1], arches.get(arch)).prepare()
	build.build(OBJECT)
	obj = build.out / OBJECT
	assert obj.stat().st_size > 0
	if arch not in ONCE_FALLBACK:
		return
	branch, barrier, once = ONCE_FALLBACK[arch]
	objdump = arches.get(arch).objdump
	ops = mnemonics(objdump, obj, 'lb_side1')
	assert any(re.fullmatch(branch, op) for op in ops), ops
	assert sum(bool(re.fullmatch(barrier, op)) for op in ops) == once, ops
	argv = recompile.recorded(build, OBJECT)
	plain = recompile.compile_c(build, argv, Path(argv[-1]), tmp_path / 'if.o',
				    include=corpus.CORPUS / 'variants' / 'if')
	ops = mnemonics(objdump, plain, 'lb_side1')
	assert not any(re.fullmatch(branch, op) for op in ops), ops
