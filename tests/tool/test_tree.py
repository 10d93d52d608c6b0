# SPDX-License-Identifier: GPL-2.0
"""Scratch worktrees and the tool's branches: two runs that make the same
worktree take turns, one that needs other patches in one another run uses
stops, one that would fill the disk is not started, a branch someone else
moved is left alone, and git gc between runs changes nothing the tool
reads."""

import fcntl
import os
import threading

import pytest

from volatile_if import common, tree

pytestmark = pytest.mark.unit


@pytest.fixture
def repo(tmp_path, monkeypatch, git):
	"""A repository at its base commit, and one patch: @repo/p/*.patch."""
	monkeypatch.setattr(tree, 'WORK', tmp_path / 'work')
	repo = tmp_path / 'repo'
	repo.mkdir()
	git(repo, 'init', '-q')
	(repo / 'a').write_text('1\n')
	git(repo, 'add', 'a')
	git(repo, 'commit', '-qm', 'base')
	(repo / 'a').write_text('2\n')
	git(repo, 'commit', '-qam', 'change')
	git(repo, 'format-patch', '-q', '-1', '-o', str(repo / 'p'))
	git(repo, 'reset', '-q', '--hard', 'HEAD~1')
	return repo


def test_a_run_waits_while_another_makes_the_worktree(repo, tmp_path):
	patches = sorted((repo / 'p').iterdir())
	made = []

	def run():
		made.append(tree.scratch_worktree(repo, 'w', patches, base='HEAD'))
	(tmp_path / 'work').mkdir()
	with open(tmp_path / 'work' / 'w.lock', 'w') as making:
		fcntl.flock(making, fcntl.LOCK_EX)
		t = threading.Thread(target=run)
		t.start()
		t.join(1)
		# the other run holds the lock: nothing made yet
		assert t.is_alive() and not (tmp_path / 'work' / 'w').exists()
	t.join(30)
	assert made == [tmp_path / 'work' / 'w']
	assert (made[0] / 'a').read_text() == '2\n'


def test_a_branch_named_like_the_tag(repo, git):
	"""A branch of the submitter's named pristine: git warns that the
	name is ambiguous, on stderr, which is no part of the revision; the
	tag, which git prefers, is the base."""
	git(repo, 'tag', 'pristine')
	git(repo, 'commit', '-q', '--allow-empty', '-m', 'mine')
	git(repo, 'branch', 'pristine')
	patches = sorted((repo / 'p').iterdir())
	made = tree.scratch_worktree(repo, 'w', patches)
	assert (made / 'a').read_text() == '2\n'
	assert git(made, 'rev-parse', 'HEAD~1').strip() == \
		git(repo, 'rev-parse', 'refs/tags/pristine').strip()


def test_a_run_stops_for_other_patches_in_a_worktree_in_use(repo, tmp_path,
							  another_run):
	patches = sorted((repo / 'p').iterdir())

	def user():
		"""Another run that uses the worktree with @patches till it is told
		to finish."""
		proc = another_run(tmp_path / 'work',
				   'tree.scratch_worktree(Path(sys.argv[1]), "w", '
				   '[Path(sys.argv[2])], base="HEAD")\n'
				   'print("in use", flush=True)\n'
				   'sys.stdin.read()', repo, *patches)
		assert proc.stdout.readline() == 'in use\n'
		return proc
	first = user()
	# a second with the same patches uses it beside the first
	second = user()
	for run in (second, first):
		with pytest.raises(common.Error, match='w is in use by another run, '
				   'with other patches: run again once'):
			tree.scratch_worktree(repo, 'w', [], base='HEAD')
		assert (tmp_path / 'work' / 'w' / 'a').read_text() == '2\n'
		run.communicate('', timeout=30)
	tree.scratch_worktree(repo, 'w', [], base='HEAD')
	assert (tmp_path / 'work' / 'w' / 'a').read_text() == '1\n'


def test_no_worktree_without_room_for_its_files(tmp_path, monkeypatch, git):
	repo = tmp_path / 'repo'
	repo.mkdir()
	git(repo, 'init', '-q')
	(repo / 'a').write_text('x' * 10000)	# three 4 KiB blocks
	(repo / 'b').write_text('y')		# one
	git(repo, 'add', 'a', 'b')
	git(repo, 'commit', '-qm', 'base')

	def free_blocks(n):
		real = os.statvfs(tmp_path)
		monkeypatch.setattr(tree.os, 'statvfs', lambda _: os.statvfs_result(
			(4096, 4096, real.f_blocks, n, n, *real[5:])))
	free_blocks(3)
	with pytest.raises(common.Error, match=r'0\.0 GiB free, a worktree of repo '
			   r'needs 0\.0 GiB: free some space there'):
		tree.worktree_at(repo, tmp_path / 'work' / 'w', 'HEAD')
	assert not (tmp_path / 'work' / 'w').exists()
	free_blocks(4)
	tree.worktree_at(repo, tmp_path / 'work' / 'w', 'HEAD')
	assert (tmp_path / 'work' / 'w' / 'a').stat().st_size == 10000


def test_branches_move_only_where_the_tool_left_them(repo, tmp_path, git):
	"""A branch of the tool's that someone moved, or checked out in
	another worktree, is theirs: check_branches() stops the run, and
	made_branches() checks again before it moves one."""
	own = tmp_path / 'own'
	base = git(repo, 'rev-parse', 'HEAD').strip()
	assert tree.check_branches(repo, ['t/x'], own) == {'t/x': ''}
	tree.made_branches(repo, {'t/x': base}, own)
	assert git(repo, 'rev-parse', 't/x').strip() == base
	assert tree.check_branches(repo, ['t/x'], own) == {'t/x': base}
	git(repo, 'commit', '-q', '--allow-empty', '-m', 'mine')
	mine = git(repo, 'rev-parse', 'HEAD').strip()
	git(repo, 'branch', '-f', 't/x', mine)
	moved = 'branch t/x of .* is not where this tool left it'
	with pytest.raises(common.Error, match=moved):
		tree.check_branches(repo, ['t/y', 't/x'], own)
	with pytest.raises(common.Error, match=moved):
		tree.made_branches(repo, {'t/x': base}, own)
	assert git(repo, 'rev-parse', 't/x').strip() == mine
	git(repo, 'branch', '-D', '-q', 't/x')
	tree.made_branches(repo, {'t/x': base}, own)
	git(repo, 'worktree', 'add', '-q', str(tmp_path / 'other'), 't/x')
	with pytest.raises(common.Error, match='branch t/x is checked out in '
			   f'{tmp_path / "other"}'):
		tree.check_branches(repo, ['t/x'], own)
	tree.check_branches(repo, ['t/x'], tmp_path / 'other')


def test_a_branch_moved_while_it_is_made(repo, tmp_path, git, monkeypatch):
	"""A commit on the branch between made_branches()' check and its
	update: git refuses the transaction, and the commit stays."""
	own = tmp_path / 'own'
	base = git(repo, 'rev-parse', 'HEAD').strip()
	tree.made_branches(repo, {'t/x': base}, own)
	checked = tree.check_branches

	def check_then_commit(*args):
		tips = checked(*args)
		git(repo, 'commit', '-q', '--allow-empty', '-m', 'mine')
		git(repo, 'branch', '-f', 't/x', 'HEAD')
		return tips
	monkeypatch.setattr(tree, 'check_branches', check_then_commit)
	with pytest.raises(common.Error, match='update-ref failed .*t/x'):
		tree.made_branches(repo, {'t/x': base}, own)
	assert git(repo, 'log', '-1', '--format=%s', 't/x').strip() == 'mine'


def test_a_gc_between_runs(repo, tmp_path, git, monkeypatch):
	"""git gc between two runs packs the refs and the objects and prunes
	what nothing reaches: the scratch worktree is still the one made,
	reused without another git am, and the tool's branch is still where
	it left it."""
	patches = sorted((repo / 'p').iterdir())
	own = tmp_path / 'own'
	made = tree.scratch_worktree(repo, 'w', patches, base='HEAD')
	tip = git(made, 'rev-parse', 'HEAD').strip()
	tree.made_branches(repo, {'t/x': tip}, own)
	git(repo, 'gc', '-q', '--prune=now')
	assert not (repo / '.git' / 'refs' / 'heads' / 't' / 'x').exists()

	def am(*args):
		pytest.fail('the worktree was made again')
	monkeypatch.setattr(tree, 'am', am)
	assert tree.scratch_worktree(repo, 'w', patches, base='HEAD') == made
	assert git(made, 'rev-parse', 'HEAD').strip() == tip
	assert tree.check_branches(repo, ['t/x'], own) == {'t/x': tip}
	base = git(repo, 'rev-parse', tip + '^').strip()
	tree.made_branches(repo, {'t/x': base}, own)
	assert git(repo, 'rev-parse', 't/x').strip() == base


def test_am_says_which_patch_and_why(repo, tmp_path, git):
	"""A file that is no patch, and a patch that does not apply: each
	its own line, and no am left in progress."""
	junk = tmp_path / '0001-junk.patch'
	junk.write_text('this is not a patch\n')
	with pytest.raises(common.Error, match='0001-junk.patch is not a patch '
			   'git am can read'):
		tree.am(repo, [junk])
	(repo / 'a').write_text('3\n')
	git(repo, 'commit', '-qam', 'other')
	patch, = sorted((repo / 'p').iterdir())
	with pytest.raises(common.Error, match=f'{patch.name} does not apply'):
		tree.am(repo, [patch])
	assert not (repo / '.git' / 'rebase-apply').exists()


def test_series_file(tmp_path):
	"""A quilt-style series file gives the order, comments and all; a name
	in it with no file is an error that names the line's patch."""
	for n in ('0001-a.patch', '0002-b.patch'):
		(tmp_path / n).write_text('')
	(tmp_path / 'series').write_bytes(b'0002-b.patch # \xe9\n\n0001-a.patch\n')
	assert tree.series(tmp_path) == [tmp_path / '0002-b.patch',
					 tmp_path / '0001-a.patch']
	(tmp_path / 'series').write_text('0001-a.patch\n0003-c.patch\n')
	with pytest.raises(common.Error, match='names 0003-c.patch, which is '
			   'not a file in'):
		tree.series(tmp_path)
