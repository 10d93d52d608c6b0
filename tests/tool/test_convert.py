# SPDX-License-Identifier: GPL-2.0
"""convert's scratch worktree: what a stopped run left there is reset,
what the user changed there is not, and two runs do not share it."""

from pathlib import Path

import pytest

from volatile_if import convert

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
