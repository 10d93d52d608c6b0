# SPDX-License-Identifier: GPL-2.0
"""series: subject prefixes, grouping, commit messages, recipients."""

import email
import os
import subprocess
import sys
from pathlib import Path

import pytest

from volatile_if import common, facts, recipients, series
from volatile_if.scan import Site

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('path, prefix', [
	('include/linux/refcount.h', 'locking/refcount'),
	('kernel/locking/rwsem.c', 'locking/rwsem'),
	('kernel/sched/core.c', 'sched/core'),
	('kernel/events/ring_buffer.c', 'perf/ring_buffer'),
	('net/netfilter/nf_conntrack_core.c', 'netfilter: conntrack'),
	('include/net/netfilter/nf_conntrack.h', 'netfilter: conntrack'),
	('ipc/msg.c', 'ipc/msg'),
	('kernel/smp.c', 'smp'),
	('kernel/signal.c', 'signal'),
	('drivers/xen/pvcalls-front.c', 'xen/pvcalls'),
	('drivers/irqchip/irq-apple-aic.c', 'irqchip/apple-aic'),
	('drivers/scsi/qla2xxx/qla_mr.c', 'scsi: qla2xxx'),
	('fs/smb/client/transport.c', 'smb: client'),
	('net/ipv4/fib_trie.c', 'ipv4: fib'),
	('sound/usb/usx2y/usbusx2yaudio.c', 'ALSA: usb-audio'),
	('drivers/gpu/drm/foo.c', 'gpu: drm'),
	# drivers/ with no line of its own: "<dir>: <subdir or stem>"
	('drivers/foo/bar.c', 'foo: bar'),
	('drivers/foo/bar/baz.c', 'foo: bar'),
	('lib/foo.c', 'lib/foo'),
])
def test_subject_prefix(path, prefix):
	assert series.subject_prefix(path) == prefix


def site(file, line, function, idiom='acquire-in-branch'):
	return Site(file, line, 1, function, idiom, 'convert', 'high', 'msg')


def conv(file, line, function, cond='READ_ONCE(x->y) == 1',
	 loads=('READ_ONCE(x->y)',), idiom='acquire-in-branch', **kwargs):
	f = facts.Facts(cond, [facts.Load(t) for t in loads], barrier=True,
			calls=['wake_up_q'], **kwargs)
	return series.Conversion(site(file, line, function, idiom), f)


def test_group_by_subsystem_in_path_order():
	groups = series.group([
		conv('net/netfilter/nf_conntrack_core.c', 815, 'b'),
		conv('ipc/msg.c', 1222, 'do_msgrcv'),
		conv('include/net/netfilter/nf_conntrack.h', 314, 'a'),
		conv('net/netfilter/nf_conntrack_core.c', 744, 'c'),
	])
	assert list(groups) == ['netfilter: conntrack', 'ipc/msg']
	assert [c.site.function for c in groups['netfilter: conntrack']] == ['a', 'c', 'b']


def test_message():
	text = series.message('ipc/msg', [conv('ipc/msg.c', 1222, 'do_msgrcv',
					       'msg != ERR_PTR(-EAGAIN)',
					       ['msg = READ_ONCE(msr_d.r_msg)'])],
			      'A U Thor <a@example.org>')
	subject, body = text.split('\n\n', 1)
	flat = ' '.join(body.split())
	assert subject == 'ipc/msg: Use volatile_if() for the control dependency in do_msgrcv()'
	assert 'the branch on "msg != ERR_PTR(-EAGAIN)" tests what msg = ' \
		'READ_ONCE(msr_d.r_msg) loaded' in flat
	assert 'followed by calls to wake_up_q()' in flat
	assert '(acquire-in-branch)' in flat
	# The per-arch facts of an acquire site, and nothing that cannot apply.
	assert 'on riscv only the conditional branch, since smp_rmb() there is ' \
		'fence r,r' in flat
	assert 'dmb ishld, dmb ish, lwsync' in flat
	assert 'conditional select' not in flat
	assert 'No miscompile of this code has been shown' in flat
	assert 'cocci/acquire-in-branch.cocci' in body
	assert body.endswith('\nSigned-off-by: A U Thor <a@example.org>\n')
	assert max(len(line) for line in body.splitlines()) <= 72


def test_message_names_a_load_in_a_callee_as_such():
	c = series.Conversion(site('kernel/smp.c', 410, '__csd_lock_wait', 'acquire-loop-exit'),
			      facts.Facts('csd_lock_wait_toolong(csd, ts0, &ts1, &bug_id)',
					  [facts.Load('flags = READ_ONCE(csd->node.u_flags)',
						      ['csd_lock_wait_toolong'],
						      '!(flags & CSD_FLAG_LOCK)')],
					  barrier=True, returns='to its callers'))
	flat = ' '.join(series.message('smp', [c], 'A <a@b.c>').split())
	assert 'depends on the load flags = READ_ONCE(csd->node.u_flags) in ' \
		'csd_lock_wait_toolong(), tested there by "!(flags & CSD_FLAG_LOCK)"' in flat
	assert 'branches on the value csd_lock_wait_toolong() returns' in flat
	assert 'bug_id =' not in flat


def test_message_without_a_barrier_or_exit_may_name_a_select():
	c = conv('kernel/x.c', 1, 'f', idiom='documented-ctrl-dep', leg_exits=False)
	c.facts.barrier = False
	flat = ' '.join(series.message('x', [c], 'A <a@b.c>').split())
	assert 'conditional select' in flat
	assert 'smp_rmb() there' not in flat
	assert 'nothing but the branch orders the load' in flat


def test_message_of_many_sites_names_them_all_or_counts():
	convs = [conv('net/netfilter/nf_conntrack_core.c', n, f'function_{n}')
		 for n in range(5)]
	subject = series.message('netfilter: conntrack', convs, 'A <a@b.c>').split('\n')[0]
	assert subject == 'netfilter: conntrack: Use volatile_if() for 5 control dependencies'
	two = [conv('kernel/smp.c', n, f'f{n}') for n in range(2)]
	assert series.message('smp', two, 'A <a@b.c>').split('\n')[0] == \
		'smp: Use volatile_if() for the control dependencies in f0() and f1()'


def test_wrap_at_72_columns():
	assert series._wrap('a' * 67 + ' bbbb') == 'a' * 67 + ' bbbb'
	assert series._wrap('a' * 68 + ' bbbb') == 'a' * 68 + '\nbbbb'


def test_subject_of_one_function_fits_in_75_columns():
	one = [conv('kernel/smp.c', 1, 'f' * 20)]
	assert series.message('smp', one, 'A <a@b.c>').split('\n')[0] == \
		f'smp: Use volatile_if() for the control dependency in {"f" * 20}()'
	# two sites of one function: it is named once
	two = [conv('kernel/smp.c', n, 'f' * 18) for n in (1, 2)]
	assert series.message('smp', two, 'A <a@b.c>').split('\n')[0] == \
		f'smp: Use volatile_if() for the control dependencies in {"f" * 18}()'
	# 76 columns: the count instead
	longer = [conv('kernel/smp.c', 1, 'f' * 21)]
	assert series.message('smp', longer, 'A <a@b.c>').split('\n')[0] == \
		'smp: Use volatile_if() for a control dependency'


def test_message_says_what_is_returned_and_stored_and_reviewed():
	c = conv('kernel/x.c', 1, 'f', returns='ret = 0',
		 stores=['p->a', 'p->b', 'p->a'])
	c = series.Conversion(c.site, c.facts, reason='the ring is the pairing')
	flat = ' '.join(series.message('x', [c], 'A <a@b.c>').split())
	assert 'the function returns 0, and its callers act on that value' in flat
	assert 'followed by the stores p->a and p->b and calls to ' \
		'wake_up_q()' in flat
	assert 'Reviewed: the ring is the pairing.' in flat


def _repo(path, git, commits):
	"""A repository at @path with @commits commits, each changing a.c."""
	git(path, 'init', '-q')
	for n in range(commits):
		(path / 'a.c').write_text(f'{n}\n')
		git(path, 'add', 'a.c')
		git(path, 'commit', '-qm', f'change {n}')


def test_cover_letter_has_everyone_once(tmp_path, git, monkeypatch):
	"""The cover letter goes to every patch's To:, and Cc:s the rest:
	no one is in both."""
	_repo(tmp_path, git, 3)
	answers = iter([(['A <a@x.org>'], ['B <b@x.org>']),
			(['B <b@x.org>'], ['C <c@x.org>', 'A <a@x.org>'])])
	monkeypatch.setattr(recipients, 'maintainers', lambda *a: next(answers))
	out = tmp_path / 'out'
	patches = series.format_patches(tmp_path, 'HEAD~2', out,
					dict(os.environ), ('Subject', 'Blurb'))
	heads = [email.message_from_string(p.read_text()) for p in patches]
	assert [tuple(' '.join(h[k].split()) for k in ('To', 'Cc'))
		for h in heads] == [
		('A <a@x.org>, B <b@x.org>', 'C <c@x.org>'),
		('A <a@x.org>', 'B <b@x.org>'),
		('B <b@x.org>', 'C <c@x.org>, A <a@x.org>')]


def test_finish_fills_the_cover_letter_once(tmp_path, git, monkeypatch):
	"""As scripts/export-base-patch runs it: the subject and blurb of a
	COVER file, in the letter git format-patch wrote; a letter filled in
	already, or a COVER without a blank line after its subject, is
	refused with what to do, and nothing is written."""
	_repo(tmp_path, git, 2)
	monkeypatch.setattr(recipients, 'maintainers',
			    lambda *a: (['A <a@x.org>'], []))
	out = tmp_path / 'out'
	git(tmp_path, 'format-patch', '-q', '--cover-letter', '-o', str(out),
	    'HEAD~1')
	patches = sorted(out.glob('*.patch'))
	cover = tmp_path / 'cover'
	cover.write_text('x: The subject\nand more\n\nThe body.\n')
	with pytest.raises(common.Error, match='subject on one line'):
		series.read_cover(cover)
	cover.write_text('x: The subject\n\nThe body.\n\nMore of it.\n')
	series.finish(tmp_path, patches, series.read_cover(cover))
	letter = email.message_from_string(patches[0].read_text())
	assert letter['Subject'] == '[PATCH 0/1] x: The subject'
	assert letter['To'] == 'A <a@x.org>'
	assert letter.get_payload().startswith('The body.\n\nMore of it.\n\n')
	before = [p.read_text() for p in patches]
	with pytest.raises(common.Error, match='filled in already'):
		series.finish(tmp_path, patches, series.read_cover(cover))
	assert [p.read_text() for p in patches] == before


@pytest.mark.parametrize('args, said', [
	([], 'usage: python3 -m volatile_if.series TREE COVER PATCH...'),
	(['.', 'no-such-cover', 'x.patch'],
	 "volatile_if.series: [Errno 2] No such file or directory: 'no-such-cover'"),
])
def test_as_a_program_fails_in_one_line(tmp_path, args, said):
	"""How scripts/export-base-patch runs it: bad arguments get one line
	on stderr and exit 1, not a traceback."""
	proc = subprocess.run([sys.executable, '-m', 'volatile_if.series', *args],
			      cwd=tmp_path, capture_output=True, text=True,
			      env=dict(os.environ, PYTHONPATH=str(common.REPO / 'tool')))
	assert (proc.returncode, proc.stdout, proc.stderr) == (1, '', said + '\n')


def test_identity():
	env = series.identity_env('A U Thor <a@example.org>', '2026-12-03T00:00:00+0000')
	assert env['GIT_AUTHOR_NAME'] == env['GIT_COMMITTER_NAME'] == 'A U Thor'
	assert env['GIT_COMMITTER_DATE'] == '2026-12-03T00:00:00+0000'
	with pytest.raises(common.Error, match='Name <email>'):
		series.identity_env('nobody', '2026-12-03T00:00:00+0000')


def test_series_value_keeps_the_cover_letter_apart():
	from volatile_if import tree
	files = [Path('o/0000-cover-letter.patch'), Path('o/0001-a.patch'),
		 Path('o/0002-b.patch')]
	s = tree.Series.of(files, 'abc')
	assert s.cover == files[0] and s.patches == tuple(files[1:]) and s.base == 'abc'
	assert tree.numbered(s) == tree.numbered(files) == files[1:]
	assert tree.Series.of(files[1:]).cover is None


@pytest.mark.parametrize('compound, split, said, not_said', [
	('first', False, 'the load in the first: the compiler has to branch on it',
	 'in a later one only'),
	('first', True, 'volatile_if() takes the load alone, and an if () in its '
	 'leg makes the call', 'joins its parts'),
	('later', False, 'the load in a later one only', 'has to branch on it'),
	('', False, None, 'joins its parts'),
])
def test_message_of_a_compound_condition(compound, split, said, not_said):
	c = conv('kernel/sched/core.c', 4153, 'try_to_wake_up',
		 'READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags)',
		 idiom='acquire-early-exit', compound=compound, split=split)
	flat = ' '.join(series.message('sched/core', [c], 'A <a@b.c>').split())
	if said:
		assert said in flat
	assert not_said not in flat
