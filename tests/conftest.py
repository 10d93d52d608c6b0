# SPDX-License-Identifier: GPL-2.0
"""Fixtures shared by the tests: the kernel trees, and the builds that are
expensive enough to make once per session."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'tool'))

from volatile_if import arches, check, common, kunit_qemu, tree  # noqa: E402


# Fixtures that need the unpacked kernel tree: a test using one is in the
# `tree` tier, whatever else it is marked.
TREE_FIXTURES = {'pristine', 'test_tree', 'other_tree', 'check_build',
		 'kunit_run'}


def pytest_collection_modifyitems(config, items):
	for item in items:
		if TREE_FIXTURES & set(getattr(item, 'fixturenames', ())):
			item.add_marker(pytest.mark.tree)


def _once(make):
	"""A per-session cache of make(key); an Error fails the test that
	asked, with its one-line message."""
	done = {}

	def get(key):
		if key not in done:
			try:
				done[key] = make(key)
			except common.Error as e:
				done[key] = e
		if isinstance(done[key], common.Error):
			pytest.fail(f'{done[key]}\n{done[key].details}')
		return done[key]
	return get


@pytest.fixture(scope='session')
def git():
	"""git with @args in a test's repository, as a committer of its own
	(the machine may have no identity); its output."""
	def run(repo, *args):
		return tree.git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t',
				*args)
	return run


# The driver, run as a user runs it.
TOOL = [sys.executable, str(common.REPO / 'tool' / 'volatile-if')]


@pytest.fixture(scope='session')
def tool():
	"""tool/volatile-if with @args, its output captured; keyword arguments
	go to subprocess.run.  tool.argv is the command without arguments."""
	def run(*args, **kwargs):
		return subprocess.run(TOOL + [str(a) for a in args],
				      capture_output=True, text=True, **kwargs)
	run.argv = TOOL
	return run


@pytest.fixture(scope='session')
def another_run():
	"""Start @code in a Python process of its own, as another run of the
	driver (a worktree's lock is a process's): common, convert and tree
	imported, tree.WORK set to @work, sys.argv[1:] @args; stdin, stdout
	and stderr are pipes."""
	def start(work, code, *args):
		prelude = ('import sys\nfrom pathlib import Path\n'
			   f'sys.path.insert(0, {str(common.REPO / "tool")!r})\n'
			   'from volatile_if import common, convert, tree\n'
			   f'tree.WORK = Path({str(work)!r})\n')
		return subprocess.Popen([sys.executable, '-c', prelude + code,
					 *map(str, args)], stdin=subprocess.PIPE,
					stdout=subprocess.PIPE,
					stderr=subprocess.PIPE, text=True)
	return start


@pytest.fixture(scope='session')
def pristine():
	"""The tree scripts/setup unpacked, tag 'pristine' on the source."""
	try:
		return tree.kernel_tree(common.DEFAULT_TREE)
	except common.Error as e:
		pytest.fail(str(e))


@pytest.fixture(scope='session')
def test_tree(pristine):
	"""pristine + base-patch + generated-patches, applied with git am: the
	worktree (and builds) that volatile-if check and boot use too."""
	try:
		return tree.series_tree(pristine, tree.series(common.GENERATED_PATCHES))
	except common.Error as e:
		pytest.fail(f'{e}\n{e.details}')


def _other_tree(version: str):
	"""(patches, worktree) of kernel @version: its pristine tree with
	base-patch/VERSION and, where one is committed, generated-patches/VERSION
	applied with git am."""
	try:
		kernel = tree.kernel_tree(common.BUILD / f'linux-{version}')
	except common.Error as e:
		raise common.Error(f'{e} (scripts/setup {version} unpacks it)',
				   e.details)
	patches = tree.series(common.BASE_PATCHES / version)
	generated = common.GENERATED / version
	if generated.is_dir():
		patches += tree.series(generated)
	return patches, tree.scratch_worktree(kernel, f'linux-{version}-base',
					      patches)


@pytest.fixture(scope='session')
def other_tree():
	"""version -> (patches, worktree) of a kernel version but the default
	one: _other_tree()."""
	return _once(_other_tree)


@pytest.fixture(scope='session')
def check_build(test_tree):
	"""arch name -> the test tree configured (defconfig + check.config)
	and prepared for that architecture."""
	return _once(lambda name: check.build(test_tree, arches.get(name)).prepare())


@pytest.fixture(scope='session')
def kunit_run(test_tree):
	"""arch name -> the KUnit run of the test tree under QEMU."""
	return _once(lambda name: kunit_qemu.run_kunit(test_tree,
							arches.get(name)))
