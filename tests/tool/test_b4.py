# SPDX-License-Identifier: GPL-2.0
"""b4: the branch convert --b4 leaves is one that b4 prep manages, and
`b4 send -o` (offline) writes the same patches as convert."""

import os
import re
import shutil
import subprocess

import pytest
from pathlib import Path

from volatile_if import b4, recipients, series, tree
from volatile_if.common import Error

IDENTITY = 'A U Thor <author@example.org>'
DATE = '2026-12-03T00:00:00+0000'

pytestmark = pytest.mark.skipif(not shutil.which('b4'),
				reason='b4 is not installed (apt-get install b4)')


def git(repo, *args, env=None):
	return subprocess.run(['git', '-C', str(repo), *args], check=True,
			      capture_output=True, text=True,
			      env=env or os.environ).stdout


@pytest.fixture
def small_series(tmp_path):
	"""A git repository with a base branch and two commits on another,
	and the series of those commits as convert writes it: format-patch
	with a cover letter, recipients added."""
	repo = tmp_path / 'repo'
	repo.mkdir()
	env = dict(os.environ, **series.identity_env(IDENTITY, DATE))
	git(repo, 'init', '-q', '-b', 'main', env=env)
	(repo / 'a.c').write_text('int a;\n\nvoid f(void)\n{\n\tif (READ_ONCE(a))\n\t\ta = 2;\n}\n')
	git(repo, 'add', 'a.c', env=env)
	git(repo, 'commit', '-q', '-m', 'base', env=env)
	git(repo, 'branch', 'series-base', env=env)
	base = git(repo, 'rev-parse', 'HEAD').strip()
	git(repo, 'checkout', '-q', '-b', 'series', env=env)
	for n, (old, new) in enumerate((('\tif (', '\tvolatile_if ('), ('a = 2', 'a = 3'))):
		(repo / 'a.c').write_text((repo / 'a.c').read_text().replace(old, new))
		git(repo, 'commit', '-q', '-a', '-m',
		    f'lib/a: Change {n}\n\nBecause {n}.\n\nSigned-off-by: {IDENTITY}\n', env=env)
	out = tmp_path / 'ours'
	git(repo, 'format-patch', '-q', '--cover-letter', '--no-signature',
	    '--zero-commit', '-o', str(out), f'{base}..HEAD', env=env)
	patches = sorted(out.glob('*.patch'))
	letter = patches[0]
	letter.write_text(letter.read_text()
			  .replace('*** SUBJECT HERE ***', 'Change a twice')
			  .replace('*** BLURB HERE ***', 'Two changes to a.\n\n  a.c:5 f() [x]'))
	recipients.add_recipients(patches[1], ['Maint Ainer <m@example.org>'], ['list@example.org'])
	recipients.add_recipients(patches[2], ['Other One <o@example.org>'], [])
	recipients.add_recipients(letter, ['Maint Ainer <m@example.org>', 'Other One <o@example.org>'],
			      ['list@example.org'])
	return repo, base, env, patches


def test_b4_send_writes_the_same_patches(small_series, tmp_path):
	repo, base, env, ours = small_series
	branch = b4.prep(repo, repo, base, 'series-base', ours[0], IDENTITY, env)
	assert branch == 'b4/volatile-if-repo'
	assert git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').strip() == branch
	# b4 itself sees a prep-managed branch with our cover letter.
	info = subprocess.run(['b4', 'prep', '--show-info'], cwd=repo, capture_output=True,
			      text=True)
	assert info.returncode == 0, info.stderr
	assert 'cover-strategy: commit' in info.stdout + info.stderr
	assert 'base-branch: series-base' in info.stdout + info.stderr
	# The tree is the series' own.
	assert git(repo, 'diff', 'series', branch) == ''

	sent = b4.send_offline(repo, tmp_path / 'sent')
	assert len(sent) == 3
	assert b4.compare(ours, sent) == []
	cover = sent[0].read_text() if '0-3' in sent[0].name else \
		next(p for p in sent if '0-' in p.name).read_text()
	assert 'Two changes to a.' in cover and 'X-Mailer: b4' in cover

	# The comparison sees a difference in a subject and in a body, and a
	# lost recipient.
	changed = tmp_path / 'changed'
	changed.mkdir()
	for p in ours:
		shutil.copy(p, changed / p.name)
	text = (changed / ours[2].name).read_text()
	assert '] lib/a: Change 1\n' in text
	(changed / ours[2].name).write_text(text.replace('a = 3', 'a = 4').replace(
		'] lib/a: Change 1\n', '] lib/a: Change one\n'))
	recipients.add_recipients(changed / ours[1].name, ['New Person <new@example.org>'], [])
	diffs = b4.compare(sorted(changed.glob('*.patch')), sent)
	assert "patch 2: subject 'lib/a: Change one' != 'lib/a: Change 1'" in diffs
	assert any('bodies differ' in d and 'patch 2' in d for d in diffs)
	assert any("b4 does not send to ['new@example.org']" in d for d in diffs)
	# convert --b4 makes the same comparison: the series passes, the
	# changed one stops it with the first difference, every one in the
	# details.
	assert b4.check_sent(repo, ours) == 3
	with pytest.raises(Error, match=re.escape(
			"b4 send would not send the series convert wrote (patch 1: "
			"b4 does not send to ['new@example.org']): send the files "
			f"of {changed} with git send-email instead")) as e:
		b4.check_sent(repo, sorted(changed.glob('*.patch')))
	assert 'patch 2: the bodies differ' in e.value.details


def test_identity_for_b4_only_in_the_worktree(small_series, tmp_path):
	repo, base, env, ours = small_series
	git(repo, 'config', 'user.name', 'Someone Else')
	git(repo, 'config', 'user.email', 'else@example.org')
	wt = tmp_path / 'wt'
	git(repo, 'worktree', 'add', '-q', '--detach', str(wt), 'series-base')
	assert b4.ensure_identity(wt, IDENTITY)
	assert git(wt, 'config', 'user.name').strip() == 'A U Thor'
	assert git(wt, 'config', 'user.email').strip() == 'author@example.org'
	# The repository's own checkout keeps its identity.
	assert git(repo, 'config', 'user.email').strip() == 'else@example.org'
	assert not b4.ensure_identity(wt, IDENTITY)


SITES_C = '''\
// SPDX-License-Identifier: GPL-2.0
#include <linux/atomic.h>

int vif_b4_in_branch(int *flag, int *data)
{
	if (READ_ONCE(*flag) == 1) {
		smp_acquire__after_ctrl_dep();
		WRITE_ONCE(*data, 0);
	}
	return -1;
}

void vif_b4_documented(int *flag, int *data)
{
	if (!READ_ONCE(*flag))
		WRITE_ONCE(*data, 1);
	/*
	 * The above forms a control dependency with the store in it:
	 * no barrier is needed.
	 */
}

void vif_b4_hoisted(atomic_t *v, int *data)
{
	if (atomic_read(v) == 1)
		WRITE_ONCE(*data, 2);
	else
		WRITE_ONCE(*data, 2);
}

void vif_b4_undecided(atomic_t *v, int *data)
{
	if (atomic_read(v) == 3)
		WRITE_ONCE(*data, 3);
	else
		WRITE_ONCE(*data, 3);
}
'''


@pytest.fixture
def small_kernel(tmp_path, pristine):
	"""A kernel-like git tree that convert takes: the files it checks,
	get_maintainer.pl and MAINTAINERS, a barrier.h that has volatile_if()
	(so that base-patch is not applied) and one C file with four sites."""
	root = tmp_path / 'kernel'
	for d in ('Documentation', 'arch', 'drivers', 'fs', 'init', 'ipc',
		  'kernel', 'include/asm-generic', 'scripts', 'lib'):
		(root / d).mkdir(parents=True)
		(root / d / '.keep').write_text('')
	for f in ('COPYING', 'CREDITS', 'Kbuild', 'README', 'Kconfig'):
		(root / f).write_text('\n')
	(root / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 1\n')
	for f in ('MAINTAINERS', 'scripts/get_maintainer.pl', 'scripts/checkpatch.pl'):
		shutil.copy(pristine / f, root / f)
	(root / 'include/asm-generic/barrier.h').write_text(
		'#define volatile_if(cond) if (volatile_cond(cond))\n')
	(root / 'lib/vif_b4.c').write_text(SITES_C)
	env = dict(os.environ, **series.identity_env(IDENTITY, DATE))
	git(root, 'init', '-q', '-b', 'main', env=env)
	git(root, 'add', '-A', env=env)
	git(root, 'commit', '-q', '-m', 'a small kernel', env=env)
	return root


def test_convert_b4_on_a_small_kernel(tool, small_kernel, tmp_path):
	decisions = tmp_path / 'decisions'
	review = ('review', '--tree', small_kernel, '--decisions', decisions)
	assert tool(*review, '--accept', 'lib/vif_b4.c:15', '--reason',
		    'the store to data in the branch').returncode == 0
	assert tool(*review, '--dismiss', 'lib/vif_b4.c:25', '--reason',
		    'both legs store one constant').returncode == 0
	d = (decisions / 'dismissed').read_text()
	(decisions / 'dismissed').write_text(
		d + '\nsite: lib/vif_b4.c:vif_b4_gone:READ_ONCE(*x)\n'
		'idiom: hoisted-store-hazard\nreason: gone since\n')

	out = tmp_path / 'out'
	env = dict(os.environ, VOLATILE_IF_REVIEW=str(decisions))
	proc = tool('convert', '--tree', small_kernel, '--out', out, '--identity',
		    IDENTITY, '--b4', env=env)
	worktree = None
	try:
		assert proc.returncode == 0, proc.stderr
		worktree = Path(re.search(r'branch \S+ in (\S+)', proc.stdout).group(1))
		assert '2 sites converted in 1 patches, 1 left for review, 1 dismissed' \
			in proc.stdout
		assert '1 review decisions are stale and were not applied' in proc.stdout
		assert 'stale review decision, not applied: ' \
			'lib/vif_b4.c:vif_b4_gone:READ_ONCE(*x)' in proc.stderr
		ours = sorted(out.glob('*.patch'))
		cover = ours[0].read_text()
		left, dismissed = cover.split('\nDismissed:')
		assert 'lib/vif_b4.c:33 vif_b4_undecided() [hoisted-store-hazard]' in left
		assert '\n  lib/vif_b4.c:25 vif_b4_hoisted() [hoisted-store-hazard]\n' \
			'      both legs store one constant\n' in dismissed
		patch = ours[1].read_text()
		assert '+\tvolatile_if (!READ_ONCE(*flag))\n' in patch
		assert 'Reviewed: the store to data in the branch.' in \
			' '.join(patch.split())
		assert 'volatile_if (atomic_read' not in patch

		assert 'b4: branch b4/volatile-if-kernel, checked out in' in proc.stdout
		assert 'b4 send -o gives the series above (1 message)' in proc.stdout
		assert git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').strip() == \
			'b4/volatile-if-kernel'
		sent = b4.send_offline(worktree, tmp_path / 'sent')
		assert len(sent) == 1 and b4.compare(ours, sent) == []
		# b4 sends one patch with the cover letter under its "---": the
		# comparison sees a change to either, and a lost recipient
		changed = tmp_path / 'changed'
		changed.mkdir()
		for p in ours:
			shutil.copy(p, changed / p.name)
		mine = [changed / p.name for p in ours]
		mine[1].write_text(patch.replace('+\tvolatile_if (!READ_ONCE(*flag))\n',
						 '+\tvolatile_if (!READ_ONCE(*flags))\n'))
		mine[0].write_text(cover.replace('These patches convert',
						 'These patches change'))
		recipients.add_recipients(mine[0], ['New Person <new@example.org>'], [])
		diffs = b4.compare(mine, sent)
		assert len(diffs) == 3
		assert 'the patch: the bodies differ' in diffs[0]
		assert 'the cover letter is not under' in diffs[1]
		assert diffs[2] == "the cover letter: b4 does not send to " \
			"['new@example.org']"

		# Run again: the branches are where the last run left them, and
		# it goes on.  Then the submitter goes on on the b4 branch (b4
		# prep --edit-cover amends, a fix on top): a run that would
		# reset it stops before any work.
		rerun = ('convert', '--tree', small_kernel, '--out', tmp_path / 'again',
			 '--identity', IDENTITY, '--b4')
		assert tool(*rerun, env=env).returncode == 0
		git(worktree, 'commit', '-q', '--allow-empty', '-m', 'my fix',
		    env=dict(os.environ, **series.identity_env(IDENTITY, DATE)))
		mine = git(worktree, 'rev-parse', 'HEAD')
		proc = tool(*rerun, env=env)
		assert proc.returncode == 1 and proc.stderr == \
			'volatile-if: branch b4/volatile-if-kernel of ' \
			f'{small_kernel} is not where this tool left it (a commit ' \
			'of yours?): rename it (git branch -m b4/volatile-if-kernel ' \
			'b4/volatile-if-kernel-mine) or delete it, then run again ' \
			'(nothing was changed)\n'
		assert git(worktree, 'rev-parse', 'HEAD') == mine
		assert git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').strip() == \
			'b4/volatile-if-kernel'
	finally:
		if worktree and worktree.is_dir() and \
		   worktree.parent == tree.WORK.resolve():
			git(small_kernel, 'worktree', 'remove', '--force', str(worktree))
