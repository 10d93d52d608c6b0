# SPDX-License-Identifier: GPL-2.0
"""check: which objects an architecture's configuration builds, how they
are built, and whose sparse warnings are whose."""

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from volatile_if import arches, check, checkpatch, kbuild
from volatile_if.common import Error


@pytest.mark.unit
def test_object_for_a_header(tmp_path, git):
	"""A header's object is that of a .c file that includes it; a header
	no .c file includes is an Error saying where to name one."""
	git(tmp_path, 'init', '-q')
	(tmp_path / 'lib').mkdir()
	(tmp_path / 'lib' / 'x.c').write_text('#include <linux/x.h>\n')
	git(tmp_path, 'add', '.')
	assert kbuild.object_for(tmp_path, 'include/linux/x.h') == 'lib/x.o'
	assert kbuild.object_for(tmp_path, 'lib/y.c') == 'lib/y.o'
	with pytest.raises(Error, match='no .c file includes include/linux/y.h: '
			   'name an object'):
		kbuild.object_for(tmp_path, 'include/linux/y.h')


@pytest.mark.unit
def test_enables_reads_the_makefile_and_the_config(tmp_path):
	(tmp_path / 'drivers' / 'irqchip').mkdir(parents=True)
	(tmp_path / 'drivers' / 'irqchip' / 'Makefile').write_text(
		'obj-y\t\t\t+= irqchip.o\n'
		'obj-$(CONFIG_APPLE_AIC)\t\t+= irq-apple-aic.o\n'
		'obj-$(CONFIG_ARM_GIC)\t\t+= irq-gic.o \\\n'
		'\t\t\t\t   irq-gic-common.o\n')
	b = kbuild.KernelBuild(tmp_path, arches.get('x86_64'), 'check')
	b.out = tmp_path / 'out'
	b.out.mkdir()
	(b.out / '.config').write_text('CONFIG_ARM_GIC=y\n'
				       '# CONFIG_APPLE_AIC is not set\n')
	assert b.enables('drivers/irqchip/irqchip.o')
	assert not b.enables('drivers/irqchip/irq-apple-aic.o')
	# a name on a continuation line of the rule
	assert b.enables('drivers/irqchip/irq-gic-common.o')
	(b.out / '.config').write_text('CONFIG_APPLE_AIC=y\n')
	assert b.enables('drivers/irqchip/irq-apple-aic.o')
	assert not b.enables('drivers/irqchip/irq-gic-common.o')


class FakeBuild:
	"""A KernelBuild whose make is canned: objects in @broken fail,
	@output is what make prints; it records each make it is asked for."""

	label = 'fake'

	def __init__(self, tree, enabled, broken=(), output=''):
		self.tree = tree
		self.out = tree / 'out'
		self.enabled = enabled
		self.broken = broken
		self.output = output
		self.makes = []

	def enables(self, obj):
		return obj in self.enabled

	def make(self, *targets, log=None):
		self.makes.append(targets)
		failed = [t for t in targets if t in self.broken]
		if failed:
			raise Error('make failed', f'{failed[0][:-2]}.c:1:1: error: oops\n'
					  'make: *** [Makefile:2012: lib] Error 2')
		return subprocess.CompletedProcess(targets, 0, self.output)

	def build(self, *targets):
		self.make('-k', *targets)


@pytest.mark.unit
def test_objects_build_in_one_make_unless_one_fails(tmp_path):
	objects = ['kernel/smp.o', 'lib/bcd.o', 'drivers/irqchip/irq-apple-aic.o']
	b = FakeBuild(tmp_path, enabled=objects[:2])
	assert check.build_objects(b, objects) == {
		'kernel/smp.o': 'ok', 'lib/bcd.o': 'ok',
		'drivers/irqchip/irq-apple-aic.o': check.NOT_BUILT}
	assert b.makes == [('-k', 'kernel/smp.o', 'lib/bcd.o')]

	# One broken object: each is built again on its own, to tell which.
	b = FakeBuild(tmp_path, enabled=objects[:2], broken=['lib/bcd.o'])
	built = check.build_objects(b, objects)
	assert built['kernel/smp.o'] == 'ok'
	assert built['lib/bcd.o'] == 'lib/bcd.c:1:1: error: oops'
	assert b.makes[1:] == [('-k', 'kernel/smp.o'), ('-k', 'lib/bcd.o')]


@pytest.mark.unit
def test_sparse_warnings_go_to_their_files(tmp_path):
	# One make for every file; each warning goes to the file it names,
	# once, however many objects include it.
	warning = ('../include/linux/refcount.h:{}:9: warning: context '
		   'imbalance in \'refcount_dec_and_lock\'')
	b = FakeBuild(tmp_path, enabled=(), output='\n'.join([
		'  CHECK   ../lib/refcount.c',
		'../lib/refcount.c:12:5: warning: symbol \'x\' was not declared.',
		warning.format(30), '  CHECK   ../kernel/smp.c', warning.format(31),
		'../kernel/smp.c:9:1: error: bad constant expression']))
	found = check.sparse_warnings(b, ['include/linux/refcount.h', 'kernel/smp.c',
					  'lib/refcount.c'])
	assert len(b.makes) == 1 and b.makes[0][0] == 'C=2'
	assert sorted(b.makes[0][1:]) == ['kernel/smp.o', 'lib/refcount.o']
	assert found == {
		'include/linux/refcount.h': [
			'warning: context imbalance in \'refcount_dec_and_lock\''],
		'kernel/smp.c': ['error: bad constant expression'],
		'lib/refcount.c': ['warning: symbol \'x\' was not declared.']}


class SparseBuild(FakeBuild):
	"""A build whose sparse (make C=2) warns once for each line `warn:
	...` of lib/a.c, as the worktree has it checked out."""

	def make(self, *targets, log=None):
		self.makes.append(targets)
		lines = (self.tree / 'lib/a.c').read_text().splitlines()
		return subprocess.CompletedProcess(targets, 0, '\n'.join(
			f'../lib/a.c:{n}:1: warning: {line[6:]}'
			for n, line in enumerate(lines, 1) if line.startswith('warn: ')))


@pytest.mark.unit
def test_new_sparse_warnings_are_those_the_series_adds(tmp_path, git):
	"""Warnings on the tree with the series, less those on it without:
	one the series adds is new, one it keeps (on another line) or
	removes is not; the worktree ends where it was."""
	(tmp_path / 'lib').mkdir()
	source = tmp_path / 'lib/a.c'
	git(tmp_path, 'init', '-q', '-b', 'series')
	source.write_text('warn: kept\nwarn: removed\n')
	git(tmp_path, 'add', '.')
	git(tmp_path, 'commit', '-q', '-m', 'base')
	source.write_text('int x;\nwarn: kept\nwarn: added\n')
	git(tmp_path, 'commit', '-q', '-am', 'the series')
	b = SparseBuild(tmp_path, enabled=())
	assert check.new_sparse_warnings(tmp_path, 1, [(b, ['lib/a.c'])]) == \
		{'lib/a.c': ['warning: added']}
	assert len(b.makes) == 2 and b.makes[0][0] == 'C=2'
	assert git(tmp_path, 'rev-parse', '--abbrev-ref', 'HEAD').strip() == 'series'
	assert 'warn: added' in source.read_text()


@pytest.mark.unit
def test_a_check_fails_on_any_finding():
	good = checkpatch.Verdict(Path('0001.patch'))
	ok = check.CheckResult({'0001.patch': good}, {'lib/a.c': []},
			       {'lib/a.o': {'x86_64': 'ok', 'arm64': check.NOT_BUILT}})
	assert ok.ok
	for bad in (replace(ok, checkpatch={'0001.patch': replace(good, warnings=1)}),
		    replace(ok, checkpatch={'0001.patch': replace(good, errors=1)}),
		    replace(ok, checkpatch={'0001.patch': replace(good, checks=1)}),
		    replace(ok, new_sparse={'lib/a.c': ['warning: x']}),
		    replace(ok, builds={'lib/a.o': {'x86_64': 'lib/a.c:1:1: error: y'}})):
		assert not bad.ok
