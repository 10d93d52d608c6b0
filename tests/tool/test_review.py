# SPDX-License-Identifier: GPL-2.0
"""review: keys, decisions files, stale decisions, the non-interactive
forms, and the interactive one under a real terminal (a pty)."""

import json
import os
import pty
import select
import subprocess
import time

import pytest

from volatile_if import review
from volatile_if.scan import Site

pytestmark = pytest.mark.unit      # canned trees and scans only

SOURCE = '''\
// SPDX-License-Identifier: GPL-2.0
#include <linux/atomic.h>

static int flag, data, other;

void vif_documented(void)
{
	/* This forms a control dependency with the store below. */
	if (READ_ONCE(flag) &&   /* the flag */
	    READ_ONCE(other) > 1) {
		WRITE_ONCE(data, 1);
	}
}

void vif_hoisted(atomic_t *v)
{
	if (atomic_read(v) == 1)
		WRITE_ONCE(data, 2);
	else
		WRITE_ONCE(data, 2);
}

void vif_converted(void)
{
	if (READ_ONCE(flag) == 1) {
		smp_acquire__after_ctrl_dep();
		WRITE_ONCE(data, 3);
	}
}
'''

DOC = Site('drivers/vif.c', 9, 1, 'vif_documented', 'documented-ctrl-dep',
	   'report', 'medium', 'a comment before it says it forms a control dependency')
HOIST = Site('drivers/vif.c', 17, 1, 'vif_hoisted', 'hoisted-store-hazard',
	     'report', 'medium', 'both branches perform the store WRITE_ONCE(data, 2)')
CONV = Site('drivers/vif.c', 25, 1, 'vif_converted', 'acquire-in-branch',
	    'convert', 'high', 'an ACQUIRE in the branch')

DOC_KEY = 'drivers/vif.c:vif_documented:READ_ONCE(flag) && READ_ONCE(other) > 1'
HOIST_KEY = 'drivers/vif.c:vif_hoisted:atomic_read(v) == 1'


@pytest.fixture
def fixture(tmp_path):
	"""A tree with one file, its canned scan, an empty decisions folder."""
	root = tmp_path / 'tree'
	(root / 'drivers').mkdir(parents=True)
	(root / 'drivers/vif.c').write_text(SOURCE)
	sites = tmp_path / 'sites.json'
	sites.write_text(json.dumps({'root': str(root), 'sites': [
		s.json() for s in (DOC, HOIST, CONV)]}))
	return root, sites, tmp_path / 'decisions'


def test_condition_is_normalised():
	lines = SOURCE.splitlines(keepends=True)
	assert review.condition(lines, DOC) == 'READ_ONCE(flag) && READ_ONCE(other) > 1'
	assert review.condition(lines, HOIST) == 'atomic_read(v) == 1'
	assert review.normalise('( a ->b /* x */ )  ==\n\t1') == '(a ->b) == 1'


def test_key_survives_line_moves_and_reformatting(fixture, tmp_path):
	root, _, _ = fixture
	moved = tmp_path / 'moved'
	(moved / 'drivers').mkdir(parents=True)
	text = SOURCE.replace('void vif_documented', '\n\n\nvoid vif_documented') \
		.replace('&&   /* the flag */\n\t    READ_ONCE', '&& READ_ONCE')
	(moved / 'drivers/vif.c').write_text(text)
	site = Site(DOC.file, DOC.line + 3, 1, DOC.function, DOC.idiom,
		    DOC.action, DOC.confidence, DOC.message)
	assert review.site_key(moved, site) == review.site_key(root, DOC) == DOC_KEY


def test_split_and_stale(fixture):
	root, _, directory = fixture
	d = review.Decisions(directory)
	d.decide(DOC_KEY, 'documented-ctrl-dep', 'accepted', 'orders the store')
	d.decide(HOIST_KEY, 'acquire-in-branch', 'dismissed', 'not one')
	d.decide('drivers/vif.c:vif_gone:READ_ONCE(x)', 'documented-ctrl-dep',
		 'dismissed', 'gone since')
	d.decide('drivers/vif.c:vif_converted:READ_ONCE(flag) == 1',
		 'acquire-in-branch', 'dismissed', 'wrongly')
	d.decide('other/file.c:f:READ_ONCE(y)', 'documented-ctrl-dep',
		 'accepted', 'elsewhere')
	sp = review.split(root, [DOC, HOIST, CONV], review.Decisions(directory),
			  scanned=['drivers/vif.c'])
	assert [(s, d.reason) for s, d in sp.accepted] == [(DOC, 'orders the store')]
	assert sp.dismissed == []
	# The idiom changed: undecided again, and the decision is stale.
	assert sp.undecided == [HOIST]
	stale = {d.key: why for d, why in sp.stale}
	assert set(stale) == {HOIST_KEY, 'drivers/vif.c:vif_gone:READ_ONCE(x)',
			      'drivers/vif.c:vif_converted:READ_ONCE(flag) == 1'}
	assert 'now reported as hoisted-store-hazard' in stale[HOIST_KEY]
	assert 'rules convert this site now' in \
		stale['drivers/vif.c:vif_converted:READ_ONCE(flag) == 1']
	# A whole-tree scan: the decision for a file not in this tree is stale too.
	sp = review.split(root, [DOC, HOIST, CONV], review.Decisions(directory))
	assert 'other/file.c:f:READ_ONCE(y)' in {d.key for d, _ in sp.stale}


def test_a_newer_kernel_s_decision_is_not_stale_in_an_older_tree(fixture):
	root, _, directory = fixture
	(root / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 1\n')
	d = review.Decisions(directory)
	d.decide('drivers/vif.c:vif_new:READ_ONCE(x)', 'documented-ctrl-dep',
		 'dismissed', 'new in 6.12', '6.12')
	d.decide('drivers/vif.c:vif_gone:READ_ONCE(x)', 'documented-ctrl-dep',
		 'dismissed', 'gone since 6.1', '6.1')
	sp = review.split(root, [DOC, HOIST, CONV], review.Decisions(directory))
	assert sp.kernel == '6.1'
	assert [d.key for d, _ in sp.stale] == ['drivers/vif.c:vif_gone:READ_ONCE(x)']
	(root / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 13\n')
	sp = review.split(root, [DOC, HOIST, CONV], review.Decisions(directory))
	assert len(sp.stale) == 2


def test_decisions_file_round_trip(tmp_path):
	d = review.Decisions(tmp_path)
	d.decide('a.c:f:x == 1', 'documented-ctrl-dep', 'dismissed', ' a  reason\n')
	d.decide('a.c:f:y', 'hoisted-store-hazard', 'accepted', '', '6.12')
	text = (tmp_path / 'dismissed').read_text()
	assert text.endswith('\nsite: a.c:f:x == 1\nidiom: documented-ctrl-dep\n'
			     'reason: a reason\n')
	assert (tmp_path / 'accepted').read_text().endswith('kernel: 6.12\n')
	again = review.Decisions(tmp_path)
	assert list(again) == list(d)
	# a reason wrapped by hand goes on, indented, on the next lines
	with open(tmp_path / 'dismissed', 'a') as f:
		f.write('\nsite: a.c:f:w\nidiom: documented-ctrl-dep\n'
			'reason: read twice,\n  and then\n\tonce more\n')
	assert review.Decisions(tmp_path).get('a.c:f:w').reason == \
		'read twice, and then once more'
	with pytest.raises(review.Error):
		d.decide('a.c:f:z', 'documented-ctrl-dep', 'dismissed', '  ')
	(tmp_path / 'accepted').write_text('site: a.c:f:y\nidiom: no-such-idiom\n')
	with pytest.raises(review.Error, match='accepted:1: unknown idiom'):
		review.Decisions(tmp_path)


def test_decisions_where_they_cannot_be(tmp_path):
	"""A decisions path that is a file, a verdict file that is a folder,
	bytes that are not UTF-8: one line each, and nothing left behind."""
	(tmp_path / 'file').write_text('')
	with pytest.raises(review.Error, match='file is not a directory: pass '
			   '--decisions DIR'):
		review.Decisions(tmp_path / 'file')
	with pytest.raises(review.Error, match='cannot make .*file/sub'):
		review.Decisions(tmp_path / 'file' / 'sub').save()
	(tmp_path / 'd' / 'accepted').mkdir(parents=True)
	with pytest.raises(review.Error, match='accepted is a directory'):
		review.Decisions(tmp_path / 'd')
	(tmp_path / 'd' / 'accepted').rmdir()
	d = review.Decisions(tmp_path / 'd')
	(tmp_path / 'd' / 'dismissed').mkdir()
	with pytest.raises(review.Error, match='cannot write .*dismissed'):
		d.decide('a.c:f:y', 'hoisted-store-hazard', 'accepted', '')
	assert sorted(p.name for p in (tmp_path / 'd').iterdir()) == \
		['accepted', 'dismissed']
	(tmp_path / 'd' / 'dismissed').rmdir()
	(tmp_path / 'd' / 'accepted').write_bytes(b'site: a.c:f:y\nreason: caf\xe9\n')
	with pytest.raises(review.Error, match='accepted: not UTF-8 .byte 25.'):
		review.Decisions(tmp_path / 'd')


def test_sites_json_with_a_wrong_type(tmp_path):
	bad = tmp_path / 'sites.json'
	bad.write_text(json.dumps({'sites': [{
		'file': 'a.c', 'line': 'abc', 'idiom': 'hoisted-store-hazard',
		'message': 'm', 'action': 'report', 'confidence': 'low',
		'function': 'f', 'column': 0}]}))
	with pytest.raises(review.Error, match="is not the output of .*"
			   "site 'a.c':'abc'"):
		review.sites_from_json(bad)


def test_evidence_from_codegen_json(tmp_path):
	path = tmp_path / 'codegen.json'
	path.write_text(json.dumps({'sites': {'arch': 'arm64', 'sites': [
		{'file': 'drivers/vif.c', 'function': 'vif_hoisted', 'line': 17,
		 'compiler': 'clang', 'statuses': {'if': 'broken', 'volatile_if': 'ok'}},
		{'file': 'drivers/vif.c', 'function': 'other', 'line': 3,
		 'compiler': 'gcc', 'statuses': {'if': 'ok', 'volatile_if': 'ok'}}]}}))
	evidence = review.load_evidence([path, tmp_path / 'survey.json'])
	assert evidence[('drivers/vif.c', 'vif_hoisted')] == [review.Verdict(
		'codegen.json', 'arm64', 'clang', '', 17, 'broken', 'ok')]
	text = review.describe(tmp_path, HOIST, HOIST_KEY, evidence)
	assert text.endswith('codegen.json: arm64 clang: if broken, volatile_if ok')
	# a verdict of another line of the function says which
	evidence[('drivers/vif.c', 'vif_hoisted')].append(review.Verdict(
		'survey.json', 'riscv', 'gcc', '-O2', 19, 'ok', 'ok'))
	text = review.describe(tmp_path, HOIST, HOIST_KEY, evidence)
	assert 'survey.json: riscv gcc -O2: if ok, volatile_if ok (line 19)' in text
	assert 'LKMM class: a store inside a leg, made in both legs' in text


def test_non_interactive_forms(tool, fixture):
	root, sites, directory = fixture
	args = ('review', '--sites', sites, '--decisions', directory)
	# No terminal: the list, and nothing asked or written.
	proc = tool(*args, stdin=subprocess.DEVNULL)
	assert proc.returncode == 0, proc.stderr
	assert f'undecided drivers/vif.c:9 vif_documented() [documented-ctrl-dep]\n' \
		f'          key: {DOC_KEY}' in proc.stdout
	assert 'vif_converted' not in proc.stdout
	assert not directory.exists()

	proc = tool(*args, '--dismiss', HOIST_KEY)
	assert proc.returncode == 1 and 'needs a reason' in proc.stderr
	proc = tool(*args, '--dismiss', HOIST_KEY, '--reason', 'a local, no reader')
	assert proc.returncode == 0, proc.stderr
	proc = tool(*args, '--accept', 'drivers/vif.c:9', '--reason', 'orders the store')
	assert proc.returncode == 0, proc.stderr
	assert proc.stdout == f'accepted: {DOC_KEY}\n'
	proc = tool(*args, '--accept', 'drivers/vif.c:25')
	assert proc.returncode == 1 and 'no report-only site' in proc.stderr

	listed = tool(*args, '--list').stdout
	assert 'accepted  drivers/vif.c:9 vif_documented() [documented-ctrl-dep]' in listed
	assert f'dismissed drivers/vif.c:17 vif_hoisted() [hoisted-store-hazard]\n' \
		f'          key: {HOIST_KEY}\n          reason: a local, no reader' in listed
	assert 'undecided' not in listed and 'stale' not in listed


class Terminal:
	"""A program run under a pty: what it wrote, and answers to it."""

	def __init__(self, argv):
		self.pid, self.fd = pty.fork()
		if self.pid == 0:
			os.execv(argv[0], argv)
		self.seen = ''

	def expect(self, text, timeout=30):
		end = time.monotonic() + timeout
		while text not in self.seen:
			left = end - time.monotonic()
			ready = select.select([self.fd], [], [], max(0, left))[0]
			if not ready:
				raise AssertionError(f'no {text!r} in:\n{self.seen}')
			try:
				chunk = os.read(self.fd, 4096).decode(errors='replace')
			except OSError:
				chunk = ''
			if not chunk:
				raise AssertionError(f'ended without {text!r}:\n{self.seen}')
			self.seen += chunk.replace('\r\n', '\n')
		at = self.seen.index(text) + len(text)
		before, self.seen = self.seen[:at], self.seen[at:]
		return before

	def send(self, line):
		os.write(self.fd, (line + '\n').encode())

	def wait(self):
		try:
			while os.read(self.fd, 4096):
				pass
		except OSError:
			pass
		return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def test_review_under_a_terminal(tool, fixture):
	root, sites, directory = fixture
	argv = tool.argv + ['review', '--sites', str(sites), '--decisions',
			    str(directory)]
	third = Site('drivers/vif.c', 25, 1, 'vif_converted', 'documented-ctrl-dep',
		     'report', 'low', 'a comment says so')
	data = json.loads(sites.read_text())
	data['sites'].append(third.json())
	sites.write_text(json.dumps(data))

	term = Terminal(argv)
	shown = term.expect('Decide this site [a,d,s,q,?]? ')
	assert shown.lstrip().startswith('(1/3) drivers/vif.c:9 vif_documented() '
					 '[documented-ctrl-dep]')
	assert '>     9 \tif (READ_ONCE(flag) &&'.expandtabs(8) in shown
	assert '>    10 \t    READ_ONCE(other) > 1) {'.expandtabs(8) in shown
	assert '     11 \t\tWRITE_ONCE(data, 1);'.expandtabs(8) in shown
	assert 'LKMM class: documented, with no barrier' in shown
	term.send('?')
	assert 'd - dismiss' in term.expect('Decide this site [a,d,s,q,?]? ')
	term.send('a')
	term.expect('for the commit message)? ')
	term.send('the store to data after the branch')
	# Written at once, before the next question is answered.
	assert 'drivers/vif.c:17 vif_hoisted()' in term.expect('Decide this site [a,d,s,q,?]? ')
	assert (directory / 'accepted').read_text().endswith(
		f'\nsite: {DOC_KEY}\nidiom: documented-ctrl-dep\n'
		'reason: the store to data after the branch\n')
	term.send('d')
	term.expect('for the cover letter)? ')
	term.send('')
	term.expect('for the cover letter)? ')
	term.send('both legs store the same constant to data; no reader orders on it')
	term.expect('Decide this site [a,d,s,q,?]? ')
	term.send('q')
	assert term.wait() == 0
	header = review.HEADER['accepted'] + review._COMMON_HEADER
	assert (directory / 'accepted').read_text() == header + (
		f'\nsite: {DOC_KEY}\nidiom: documented-ctrl-dep\n'
		'reason: the store to data after the branch\n')
	assert (directory / 'dismissed').read_text() == \
		review.HEADER['dismissed'] + review._COMMON_HEADER + (
			f'\nsite: {HOIST_KEY}\nidiom: hoisted-store-hazard\n'
			'reason: both legs store the same constant to data; no '
			'reader orders on it\n')

	# A rerun asks only about the site left undecided.
	term = Terminal(argv)
	shown = term.expect('Decide this site [a,d,s,q,?]? ')
	assert shown.lstrip().startswith('(1/1) drivers/vif.c:25 vif_converted()')
	assert 'vif_documented' not in shown and 'vif_hoisted' not in shown
	term.send('s')
	assert '0 accepted, 0 dismissed, 1 left undecided' in term.expect('left undecided')
	assert term.wait() == 0

	# Once it is decided too, a rerun asks nothing.
	proc = tool('review', '--sites', sites, '--decisions', directory,
		    '--dismiss', 'drivers/vif.c:25', '--reason', 'converted anyway')
	assert proc.returncode == 0, proc.stderr
	term = Terminal(argv)
	assert 'Every report-only site is decided (1 accepted, 2 dismissed).' in \
		term.expect('dismissed).')
	assert term.wait() == 0


def test_cover_letter_lists_dismissed_sites_with_their_reasons():
	from volatile_if import series
	dismissed = review.Decision(HOIST_KEY, HOIST.idiom, 'dismissed',
				    'both legs store a constant no one orders on')
	subject, body = series.cover_letter([], [DOC], 'base', dismissed=[(HOIST, dismissed)])
	left, gone = body.split('Dismissed:')
	assert 'drivers/vif.c:9 vif_documented() [documented-ctrl-dep]' in left
	assert 'vif_hoisted' not in left
	assert '\n  drivers/vif.c:17 vif_hoisted() [hoisted-store-hazard]\n' \
		'      both legs store a constant no one orders on\n' in gone
	assert max(len(line) for line in body.splitlines()) <= 72
	assert 'Dismissed' not in series.cover_letter([], [DOC], 'base')[1]
