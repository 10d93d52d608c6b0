# SPDX-License-Identifier: GPL-2.0
"""recipients: get_maintainer.pl's roles, the LKMM entry, the fallbacks
when no maintainer is found, and the To:/Cc: headers."""

from pathlib import Path

import pytest

from volatile_if import recipients

pytestmark = pytest.mark.unit


def test_add_recipients(tmp_path):
	patch = tmp_path / '0001-x.patch'
	patch.write_text('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.c>\n'
			 'Subject: [PATCH 1/2] ipc/msg: Use volatile_if() for the\n'
			 ' control dependency\n\nbody\n')
	recipients.add_recipients(patch, ['M One <m1@x.org>', 'M Two <m2@x.org>'],
			      ['list@vger.kernel.org'])
	assert patch.read_text() == (
		'From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.c>\n'
		'Subject: [PATCH 1/2] ipc/msg: Use volatile_if() for the\n'
		' control dependency\nTo: M One <m1@x.org>,\n    M Two <m2@x.org>\n'
		'Cc: list@vger.kernel.org\n\nbody\n')


GET_MAINTAINER = """\
Peter Zijlstra <peterz@infradead.org> (maintainer:LOCKING PRIMITIVES)
Boqun Feng <boqun.feng@gmail.com> (reviewer:LOCKING PRIMITIVES)
Pablo Neira Ayuso <pablo@netfilter.org> (supporter:NETFILTER)
Jane Dev <jane@example.org> (commit_signer:3/5=60%,authored:2/5=40%)
netfilter-devel@vger.kernel.org (open list:NETFILTER)
linux-kernel@vger.kernel.org (open list)
"""

MAINTAINERS = """\
LINUX KERNEL MEMORY CONSISTENCY MODEL (LKMM)
M:	Alan Stern <stern@rowland.harvard.edu>
M:	Will Deacon <will@kernel.org>
R:	Akira Yokosawa <akiyks@gmail.com>
L:	linux-kernel@vger.kernel.org
F:	tools/memory-model/

LIS3LV02D ACCELEROMETER DRIVER
M:	Someone Else <else@example.org>
"""


def test_parse_get_maintainer_roles():
	to, cc = recipients.parse_get_maintainer(GET_MAINTAINER)
	assert to == ['Peter Zijlstra <peterz@infradead.org>',
		      'Pablo Neira Ayuso <pablo@netfilter.org>']
	assert cc == ['Boqun Feng <boqun.feng@gmail.com>', 'Jane Dev <jane@example.org>',
		      'netfilter-devel@vger.kernel.org', 'linux-kernel@vger.kernel.org']


def test_lkmm_entry():
	assert recipients.lkmm(MAINTAINERS) == (
		['Alan Stern <stern@rowland.harvard.edu>', 'Will Deacon <will@kernel.org>'],
		['Akira Yokosawa <akiyks@gmail.com>'])
	assert recipients.lkmm('OTHER\nM:\tX <x@y.z>\n') == ([], [])


PATCH = """\
From 0 Mon Sep 17 00:00:00 2001
Subject: [PATCH] ipc/msg: Use volatile_if() for the control dependency

On riscv only the conditional branch orders them.
---
 ipc/msg.c | 2 +-

diff --git a/ipc/msg.c b/ipc/msg.c
--- a/ipc/msg.c
+++ b/ipc/msg.c
@@ -1,1 +1,1 @@
-	if (x)
+	volatile_if (x)
"""


def test_get_maintainer_reads_the_diff_not_the_message():
	# "riscv" in the message is a K: keyword of RISC-V ARCHITECTURE
	diff = recipients.diff_of(PATCH)
	assert diff.startswith('diff --git a/ipc/msg.c') and 'riscv' not in diff
	assert diff == PATCH[PATCH.index('diff --git'):]
	assert recipients.diff_of('no diff\n') == 'no diff\n'


@pytest.fixture
def canned_tree(tmp_path, monkeypatch):
	(tmp_path / 'MAINTAINERS').write_text(MAINTAINERS)
	(tmp_path / '0001-x.patch').write_text(PATCH)
	answers = {}

	def get_maintainer(tree, args):
		# a patch is asked about by its diff alone
		key = args[-1]
		if key.endswith('.diff'):
			assert Path(key).read_text() == recipients.diff_of(PATCH)
			key = '0001-x.patch'
		return answers.get(key, 'linux-kernel@vger.kernel.org (open list)\n')
	monkeypatch.setattr(recipients, '_get_maintainer', get_maintainer)
	monkeypatch.setattr(recipients, 'has_history', lambda tree: False)
	return tmp_path, answers


def test_no_maintainer_falls_back_to_the_parent_then_the_lkmm(canned_tree):
	tree, answers = canned_tree
	to, cc = recipients.maintainers(tree, [tree / '0001-x.patch'], ['ipc/msg.c'])
	# Never LKML alone: the LKMM maintainers are To, linux-arch is Cc.
	assert to == ['Alan Stern <stern@rowland.harvard.edu>', 'Will Deacon <will@kernel.org>']
	assert cc == ['linux-kernel@vger.kernel.org', 'Akira Yokosawa <akiyks@gmail.com>',
		      'linux-arch@vger.kernel.org']
	answers['net/netfilter/'] = 'Pablo Neira Ayuso <pablo@netfilter.org> (maintainer:NETFILTER)\n'
	to, cc = recipients.maintainers(tree, [tree / '0001-x.patch'],
				    ['net/netfilter/nf_conntrack_core.c'])
	assert to == ['Pablo Neira Ayuso <pablo@netfilter.org>']
	assert 'Will Deacon <will@kernel.org>' in cc and 'linux-arch@vger.kernel.org' in cc


def test_maintainers_found_keep_the_lkmm_on_cc(canned_tree):
	tree, answers = canned_tree
	answers['0001-x.patch'] = GET_MAINTAINER
	to, cc = recipients.maintainers(tree, [tree / '0001-x.patch'], ['kernel/locking/rwsem.c'])
	assert to[0] == 'Peter Zijlstra <peterz@infradead.org>'
	assert cc[-4:] == ['Alan Stern <stern@rowland.harvard.edu>',
			   'Will Deacon <will@kernel.org>',
			   'Akira Yokosawa <akiyks@gmail.com>', 'linux-arch@vger.kernel.org']
