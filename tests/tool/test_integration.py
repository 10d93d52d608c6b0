# SPDX-License-Identifier: GPL-2.0
"""scan -> convert -> check end to end, on a small fixture: a scratch tree
with base-patch and tests/tool/fixture/ (one file, three sites) on top."""

import json

import pytest

from volatile_if import common, tree

FIXTURE = tree.series(common.REPO / 'tests/tool/fixture')


@pytest.fixture(scope='module')
def fixture_tree(pristine):
	return tree.scratch_worktree(pristine, 'fixture',
				     tree.series(common.BASE_PATCH) + FIXTURE)


@pytest.mark.slow
def test_scan_convert_check(tool, fixture_tree, tmp_path):
	def volatile_if(*args):
		proc = tool(*args)
		assert proc.returncode == 0, proc.stderr
		return proc.stdout

	found = json.loads(volatile_if('scan', '--tree', fixture_tree, '--since', 'HEAD~1',
				       '--json'))
	assert [(s['file'], s['function'], s['idiom'], s['action']) for s in found['sites']] == [
		('lib/vif_fixture.c', 'vif_fixture_in_branch', 'acquire-in-branch', 'convert'),
		('lib/vif_fixture.c', 'vif_fixture_early_exit', 'acquire-early-exit', 'convert'),
		('lib/vif_fixture.c', 'vif_fixture_loop', 'acquire-loop-exit', 'convert'),
	]

	out = tmp_path / 'series'
	volatile_if('convert', '--tree', fixture_tree, '--since', 'HEAD~1', '--out', out,
		    '--identity', 'A U Thor <author@example.org>')
	patches = sorted(out.glob('*.patch'))
	assert [p.name for p in patches] == [
		'0000-cover-letter.patch',
		'0001-lib-vif_fixture-Use-volatile_if-for-3-control-depend.patch']
	diff = patches[1].read_text()
	assert diff.count('\n-\tif (') == 2 and diff.count('\n+\tvolatile_if (') == 2
	assert '-\t\tif (READ_ONCE(*flag) &&\n-\t\t    READ_ONCE(*out) >= 0)' in diff
	assert '+\t\tvolatile_if (READ_ONCE(*flag) &&\n+\t\t\t     READ_ONCE(*out) >= 0)' in diff
	for name in ('vif_fixture_in_branch', 'vif_fixture_early_exit', 'vif_fixture_loop'):
		assert name in patches[0].read_text()

	# Idempotent and deterministic: the same tree gives the same bytes.
	again = tmp_path / 'again'
	volatile_if('convert', '--tree', fixture_tree, '--since', 'HEAD~1', '--out', again,
		    '--identity', 'A U Thor <author@example.org>')
	assert [p.read_bytes() for p in sorted(again.glob('*.patch'))] == \
		[p.read_bytes() for p in patches]

	report = volatile_if('check', '--tree', fixture_tree, '--patches', out,
			     '--arch', 'x86_64')
	assert 'checkpatch: 0001-lib-vif_fixture-Use-volatile_if-for-3-control-depend.patch: ' \
		'0 errors, 0 warnings' in report
	assert 'sparse:' not in report
	assert [line.split() for line in report.splitlines()[-2:]] == [
		['object', 'x86_64'], ['lib/vif_fixture.o', 'ok']]
