# SPDX-License-Identifier: GPL-2.0
"""convert's scratch worktree: what a stopped run left there is reset,
what the user changed there is not, and two runs do not share it.  Its
output directory: the series it wrote there before is replaced, nothing
else is."""

from pathlib import Path

import pytest

from volatile_if import common, convert

pytestmark = pytest.mark.unit


@pytest.fixture
def kernel(tmp_path, git):
	"""A repository that has volatile_if already, as far as prepare()
	looks."""
	repo = tmp_path / 'linux'
	(repo / 'include/asm-generic').mkdir(parents=True)
	(repo / 'include/asm-generic/barrier.h').write_text('#define volatile_if(\n')
	(repo / 'a').write_text('1\n')
	for args in (['init', '-q'], ['add', '.'], ['commit', '-qm', 'base']):
		git(repo, *args)
	return repo


@pytest.fixture
def prepare(another_run, kernel, tmp_path):
	"""convert.prepare() of @kernel in another run, which holds the
	worktree until it is told to finish when @wait; else its exit code,
	output and errors."""
	def run(wait=False):
		proc = another_run(tmp_path / 'work', 'try:\n'
				   '	print(convert.prepare(Path(sys.argv[1]))[0], flush=True)\n'
				   'except common.Error as e:\n'
				   '	sys.exit(str(e))\n'
				   'sys.stdin.read()', kernel)
		if wait:
			assert proc.stdout.readline().strip()
			return proc
		out, err = proc.communicate('', timeout=60)
		return proc.returncode, out.strip(), err.strip()
	return run


def test_a_stopped_run_is_reset_the_users_work_is_not(prepare):
	rc, out, _ = prepare()
	assert rc == 0
	wt = Path(out)
	# a run that stopped after its rewrite, before its commits
	(wt / 'a').write_text('rewritten\n')
	assert prepare()[:2] == (0, out)
	assert (wt / 'a').read_text() == '1\n'
	# a run that made its commits, then the user's change
	convert._rewriting(wt).unlink()
	(wt / 'a').write_text('mine\n')
	rc, _, err = prepare()
	assert rc == 1 and err == f'{wt} has uncommitted changes: commit or ' \
		'stash them there first (nothing was changed)'
	assert (wt / 'a').read_text() == 'mine\n'


def test_two_runs_do_not_share_it(prepare):
	first = prepare(wait=True)
	try:
		rc, _, err = prepare()
		assert rc == 1 and err.endswith('is in use by another run: run '
						'again once that run has finished')
	finally:
		first.communicate('', timeout=60)
	assert prepare()[0] == 0


def test_work_behind_a_link(prepare, tmp_path):
	"""build/ may be a link to a bigger disk: a second run knows its own
	worktree among those git lists, by the path the link leads to."""
	(tmp_path / 'disk').mkdir()
	(tmp_path / 'work').symlink_to(tmp_path / 'disk')
	assert prepare()[0] == 0
	rc, out, err = prepare()
	assert rc == 0, err
	assert Path(out).parent == tmp_path / 'disk'


def series_of(tmp_path, *names):
	"""Patch files @names, written aside as format_patches() writes."""
	staging = tmp_path / 'staging'
	staging.mkdir(exist_ok=True)
	for n in names:
		(staging / n).write_text(f'{n}\n')
	return [staging / n for n in names]


def test_output_replaces_only_its_own_series(tmp_path):
	out = tmp_path / 'out'
	out.mkdir()
	(out / 'notes.txt').write_text('mine\n')
	convert.check_out(out)
	first = convert.write_out(out, series_of(tmp_path, '0000-c.patch',
						 '0001-a.patch', '0002-b.patch'))
	assert [p.name for p in first] == ['0000-c.patch', '0001-a.patch',
					   '0002-b.patch']
	convert.check_out(out)
	# a shorter series: the earlier one's 0002 goes, the user's file stays
	convert.write_out(out, series_of(tmp_path, '0000-c.patch', '0001-d.patch'))
	assert sorted(p.name for p in out.iterdir()) == [
		convert.WRITTEN, '0000-c.patch', '0001-d.patch', 'notes.txt']
	assert (out / 'notes.txt').read_text() == 'mine\n'
	convert.check_out(out)


@pytest.mark.parametrize('change', ['foreign', 'edited'])
def test_output_with_a_patch_of_someone_else_is_refused(tmp_path, change):
	out = tmp_path / 'out'
	out.mkdir()
	convert.write_out(out, series_of(tmp_path, '0001-a.patch'))
	if change == 'foreign':
		(out / '0002-mine.patch').write_text('mine\n')
		bad = '0002-mine.patch'
	else:
		(out / '0001-a.patch').write_text('edited\n')
		bad = '0001-a.patch'
	with pytest.raises(common.Error, match=f'{bad} is not a patch convert '
			   'wrote there, or it was edited since'):
		convert.check_out(out)
