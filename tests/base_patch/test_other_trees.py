# SPDX-License-Identifier: GPL-2.0
"""base-patch of every kernel version but the default one (6.1, which
tests/test_patches.py checks), and its generated series where one is
committed, apply to that version's pristine tree with git am, in that
order, and are clean by that tree's checkpatch.  scripts/setup VERSION
unpacks the tree; `make test` does."""

import subprocess

import pytest

from volatile_if import checkpatch, common, tree

VERSIONS = sorted(p.name for p in common.BASE_PATCHES.iterdir()
		  if p.is_dir() and p != common.BASE_PATCH)


@pytest.fixture(scope='module', params=VERSIONS)
def version_tree(request, other_tree):
	"""(version, its patches, pristine tree + base-patch/VERSION +
	generated-patches/VERSION applied with git am)."""
	return (request.param, *other_tree(request.param))


@pytest.mark.tree
def test_applies_with_git_am(version_tree):
	version, patches, wt = version_tree
	log = subprocess.run(['git', '-C', wt, 'log', '--reverse', '--format=%s',
			      'pristine..HEAD'], check=True, capture_output=True,
			     text=True).stdout.splitlines()
	assert log == [tree.subject(p) for p in patches]


@pytest.mark.tree
def test_checkpatch_strict(version_tree):
	version, patches, wt = version_tree
	for patch in patches:
		verdict = checkpatch.checkpatch(wt, patch)
		assert (verdict.errors, verdict.warnings, verdict.checks) == (0, 0, 0), \
			f'{patch.name}:\n{verdict.output}'


@pytest.mark.tree
def test_kernel_copy_of_the_rules_is_cocci(version_tree):
	"""The base patch of each version ships cocci/ unchanged."""
	version, patches, wt = version_tree
	for rule in sorted(common.COCCI.glob('*.cocci')) + [common.COCCI / 'volatile_if.h']:
		shipped = wt / 'scripts/coccinelle/locks' / rule.name
		assert shipped.read_text() == rule.read_text(), rule.name
