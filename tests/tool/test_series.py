# SPDX-License-Identifier: GPL-2.0
"""series: subject prefixes, grouping, commit messages, recipients."""

import pytest

from volatile_if import common, series
from volatile_if.scan import Site


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
	('drivers/xen/pvcalls-front.c', 'drivers/pvcalls-front'),
	('drivers/irqchip/irq-apple-aic.c', 'irqchip/apple-aic'),
])
def test_subject_prefix(path, prefix):
	assert series.subject_prefix(path) == prefix


def site(file, line, function, idiom='acquire-in-branch'):
	return Site(file, line, 1, function, idiom, 'convert', 'high', 'msg')


def conv(file, line, function, cond='READ_ONCE(x->y) == 1', load='READ_ONCE(x->y)'):
	return series.Conversion(site(file, line, function), cond, load)


def test_group_by_subsystem_in_path_order():
	groups = series.group([
		conv('net/netfilter/nf_conntrack_core.c', 815, 'b'),
		conv('ipc/msg.c', 1222, 'do_msgrcv'),
		conv('include/net/netfilter/nf_conntrack.h', 314, 'a'),
		conv('net/netfilter/nf_conntrack_core.c', 744, 'c'),
	])
	assert list(groups) == ['netfilter: conntrack', 'ipc/msg']
	assert [c.site.function for c in groups['netfilter: conntrack']] == ['a', 'c', 'b']


@pytest.mark.parametrize('condition, body, load', [
	('READ_ONCE(ewp->state) == STATE_READY', '', 'READ_ONCE(ewp->state)'),
	('!(atomic_long_read(&sem->count) & (A | B))', '', 'atomic_long_read(&sem->count)'),
	('msg != ERR_PTR(-EAGAIN)', '\tmsg = READ_ONCE(msr_d.r_msg);\n',
	 'msg = READ_ONCE(msr_d.r_msg)'),
	('old == i', '\tint old = atomic_fetch_sub_release(i, &r->refs);\n', ''),
])
def test_find_load(condition, body, load):
	assert series.find_load(condition, body) == load


def test_message():
	text = series.message('ipc/msg', [conv('ipc/msg.c', 1222, 'do_msgrcv',
					       'msg != ERR_PTR(-EAGAIN)',
					       'msg = READ_ONCE(msr_d.r_msg)')],
			      'A U Thor <a@example.org>')
	subject, body = text.split('\n\n', 1)
	assert subject == 'ipc/msg: Use volatile_if() for the control dependency in do_msgrcv()'
	assert 'msg != ERR_PTR(-EAGAIN)' in body
	assert 'msg = READ_ONCE(msr_d.r_msg)' in body
	assert '(acquire-in-branch)' in body
	assert 'cocci/acquire-in-branch.cocci' in body
	assert body.endswith('\nSigned-off-by: A U Thor <a@example.org>\n')
	assert max(len(line) for line in body.splitlines()) <= 75


def test_message_of_many_sites_names_them_all_or_counts():
	convs = [conv('net/netfilter/nf_conntrack_core.c', n, f'function_{n}')
		 for n in range(5)]
	subject = series.message('netfilter: conntrack', convs, 'A <a@b.c>').split('\n')[0]
	assert subject == 'netfilter: conntrack: Use volatile_if() for 5 control dependencies'
	two = [conv('kernel/smp.c', n, f'f{n}') for n in range(2)]
	assert series.message('smp', two, 'A <a@b.c>').split('\n')[0] == \
		'smp: Use volatile_if() for the control dependencies in f0() and f1()'


def test_identity():
	env = series.identity_env('A U Thor <a@example.org>', '2026-12-03T00:00:00+0000')
	assert env['GIT_AUTHOR_NAME'] == env['GIT_COMMITTER_NAME'] == 'A U Thor'
	assert env['GIT_COMMITTER_DATE'] == '2026-12-03T00:00:00+0000'
	with pytest.raises(common.Error, match='Name <email>'):
		series.identity_env('nobody', '2026-12-03T00:00:00+0000')


def test_add_recipients(tmp_path):
	patch = tmp_path / '0001-x.patch'
	patch.write_text('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.c>\n'
			 'Subject: [PATCH 1/2] ipc/msg: Use volatile_if() for the\n'
			 ' control dependency\n\nbody\n')
	series.add_recipients(patch, ['M One <m1@x.org>', 'M Two <m2@x.org>'],
			      ['list@vger.kernel.org'])
	assert patch.read_text() == (
		'From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.c>\n'
		'Subject: [PATCH 1/2] ipc/msg: Use volatile_if() for the\n'
		' control dependency\nTo: M One <m1@x.org>,\n    M Two <m2@x.org>\n'
		'Cc: list@vger.kernel.org\n\nbody\n')
