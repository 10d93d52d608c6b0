# SPDX-License-Identifier: GPL-2.0
"""b4: leave the converted series as a branch that `b4 prep` manages, so
that the submitter goes on with b4 (`b4 prep --edit-cover`, `b4 trailers
-u`, `b4 send`).

Input: the worktree convert committed to, the base commit, the cover
letter it wrote.  Output: the branch b4/volatile-if-<tree>, checked out in
that worktree: the base, an empty commit holding the cover letter in b4's
form (subject, body, To:/Cc: trailers, b4's tracking data; its "commit"
cover strategy), then the conversion commits; and checked: what `b4 send`
would send from it, written offline, is the series convert wrote.
"""

import email
import email.policy
import email.utils
import hashlib
import json
import os
import re
import tempfile
from email.message import EmailMessage
from pathlib import Path
from typing import Dict, List, Tuple, cast

from . import convert, series, tree
from .common import Error, require, run

# b4 0.12 (b4/ez.py): where the tracking data starts in the cover commit.
MAGIC_MARKER = '--- b4-submit-tracking ---'


def branch_name(kernel: Path) -> str:
	return f'b4/volatile-if-{re.sub(r"[^A-Za-z0-9]+", "-", kernel.name).strip("-").lower()}'


def check_branch(kernel: Path) -> None:
	"""An Error if the b4 branch of @kernel has work on it that a run of
	convert --b4 would reset (tree.check_branches())."""
	kernel = tree.kernel_tree(kernel)
	tree.check_branches(kernel, [branch_name(kernel)],
			    convert.worktree_for(kernel))


def read_cover(patch: Path, author: str) -> Tuple[str, str, List[str], List[str]]:
	"""(subject, body, To, Cc) of a git format-patch cover letter: the
	subject without [PATCH ...], the body without the shortlog and
	diffstat that git added after it (they start with "@author (N):")."""
	# policy.default makes an EmailMessage; typeshed says Message.
	msg = cast(EmailMessage, email.message_from_bytes(
		patch.read_bytes(), policy=email.policy.default))
	subject = re.sub(r'^\[PATCH[^]]*\] ', '', ' '.join(str(msg['Subject']).split()))
	text = msg.get_content()
	m = re.search(rf'^{re.escape(author)} \(\d+\):$', text, re.M)
	if not m:
		raise Error(f'{patch}: no shortlog of {author} after the cover letter text')
	body = text[:m.start()].strip()

	def addresses(field):
		return [email.utils.formataddr(a) for a in
			email.utils.getaddresses([str(v) for v in msg.get_all(field, [])])
			if a[1]]
	return subject, body, addresses('To'), addresses('Cc')


def cover_message(subject: str, body: str, to: List[str], cc: List[str],
		  tracking: Dict) -> str:
	"""The cover commit's message as b4 prep stores it: the cover letter,
	To:/Cc: trailers (b4 send addresses the series from them), and the
	tracking data after b4's marker."""
	trailers = [f'To: {a}' for a in to] + [f'Cc: {a}' for a in cc]
	cover = f'{subject}\n\n{body}\n'
	if trailers:
		cover += '\n' + '\n'.join(trailers) + '\n'
	return (cover + '\n' + MAGIC_MARKER + '\n'
		'# This section is used internally by b4 prep for tracking purposes.\n'
		+ json.dumps(tracking, indent=2))


def ensure_identity(worktree: Path, identity: str) -> bool:
	"""b4 takes the submitter (From:, the envelope, what it leaves out of
	Cc:) from git config user.name and user.email; when that is not
	@identity, the series' author, b4 would send the patches under another
	name.  So give @worktree alone (git config --worktree) @identity.
	Returns whether it had to."""
	m = re.fullmatch(r'\s*(.+?)\s*<([^<>\s]+)>\s*', identity)
	if not m:
		raise Error(f'identity {identity!r} is not "Name <email>"')
	name, mail = m.groups()
	if (tree.config(worktree, 'user.name'), tree.config(worktree, 'user.email')) == (name, mail):
		return False
	tree.git(worktree, 'config', 'extensions.worktreeConfig', 'true')
	tree.git(worktree, 'config', '--worktree', 'user.name', name)
	tree.git(worktree, 'config', '--worktree', 'user.email', mail)
	return True


def prep(kernel: Path, worktree: Path, base: str, base_branch: str,
	 cover: Path, identity: str, env: Dict[str, str]) -> str:
	"""Make the b4 branch of @kernel in @worktree (whose HEAD is the
	converted series on @base, the tip of @base_branch) and check it out
	there; @cover is the cover letter convert wrote, @identity and @env
	(the GIT_AUTHOR_* and GIT_COMMITTER_* of convert) sign it.  Returns
	the branch."""
	require('b4', 'b4')
	branch = branch_name(kernel)
	head = tree.git(worktree, 'rev-parse', 'HEAD').strip()
	name = re.sub(r'\s*<.*', '', identity).strip()
	subject, body, to, cc = read_cover(cover, name)
	# b4 makes the change-id from the date, the name and randomness; here
	# it comes from the series, so that the same series gets the same id.
	digest = hashlib.sha1(f'{base}\0{head}'.encode()).hexdigest()[:12]
	slug = branch.split('/', 1)[1]
	tracking = {'series': {
		'revision': 1,
		'change-id': f'{env["GIT_AUTHOR_DATE"][:10].replace("-", "")}-{slug}-{digest}',
		'base-branch': base_branch,
		'prefixes': [],
	}}
	# b4 finds the cover commit with git log --since=1.year: it gets the
	# date of now, not the series' fixed one.
	cover_env = {k: v for k, v in env.items() if k != 'GIT_COMMITTER_DATE'}
	commits = tree.git(worktree, 'rev-list', '--reverse', f'{base}..{head}').split()
	tree.check_branches(kernel, [branch], worktree)
	# Made detached, the branch moved to it at the end: stopped half way,
	# a run leaves the branch as it was.
	tree.git(worktree, 'checkout', '-q', '--detach', base)
	tree.git(worktree, 'commit', '-q', '--allow-empty', '--no-verify', '-F', '-',
		 env=cover_env, stdin=cover_message(subject, body, to, cc, tracking))
	if commits:
		tree.git(worktree, 'cherry-pick', '--allow-empty', *commits, env=cover_env)
	tip = tree.git(worktree, 'rev-parse', 'HEAD').strip()
	tree.made_branches(kernel, {branch: tip}, worktree)
	tree.git(worktree, 'checkout', '-q', branch)
	tree.git(worktree, 'config', f'branch.{branch}.b4-prep-cover-strategy', 'commit')
	ensure_identity(worktree, identity)
	return branch


def send_offline(worktree: Path, out: Path) -> List[Path]:
	"""`b4 send -o @out` in @worktree: the messages b4 would send, written
	to files, with no network: SMTP (a command that is never run) instead
	of the web endpoint b4 picks in a kernel tree, no patatt signature."""
	env = _config_env({'sendemail.smtpserver': '/bin/false',
			   'b4.send-no-patatt-sign': 'yes'})
	run(['b4', '--offline-mode', 'send', '--no-sign', '-o', out],
	    cwd=worktree, env=env, what='b4 send -o')
	return sorted(Path(out).glob('*.eml'))


def _config_env(settings: Dict[str, str]) -> Dict[str, str]:
	env = dict(os.environ)
	n = int(env.get('GIT_CONFIG_COUNT', '0'))
	for key, value in settings.items():
		env[f'GIT_CONFIG_KEY_{n}'] = key
		env[f'GIT_CONFIG_VALUE_{n}'] = value
		n += 1
	env['GIT_CONFIG_COUNT'] = str(n)
	return env


def _message(path: Path):
	return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def _without_signature(text: str) -> str:
	at = text.rfind('\n-- \n')
	return text[:at + 1] if at >= 0 else text


def _recipients(msg) -> set:
	return {a[1] for f in ('To', 'Cc') for a in email.utils.getaddresses(
		[str(v) for v in msg.get_all(f, [])])}


def _blurb(cover) -> str:
	"""The text of a git format-patch cover letter, before the shortlog."""
	text = cover.get_content()
	m = re.search(r'^\S.* \(\d+\):$', text, re.M)
	return text[:m.start() if m else len(text)].strip()


def _same(where: str, a, b, body_a: str, body_b: str) -> List[str]:
	diffs = []
	ours, theirs = (tree.bare_subject(m['Subject']) for m in (a, b))
	if ours != theirs:
		diffs.append(f'{where}: subject {ours!r} != {theirs!r}')
	if email.utils.parseaddr(str(a['From'])) != email.utils.parseaddr(str(b['From'])):
		diffs.append(f'{where}: From {a["From"]} != {b["From"]}')
	lost = _recipients(a) - _recipients(b)
	if lost:
		diffs.append(f'{where}: b4 does not send to {sorted(lost)}')
	if body_a != body_b:
		diffs.append(f'{where}: the bodies differ:\n--- convert\n{body_a}\n'
			     f'--- b4\n{body_b}')
	return diffs


def compare(ours: List[Path], sent: List[Path]) -> List[str]:
	"""How the messages b4 wrote (@sent) differ from the series convert
	wrote (@ours, cover letter first), after what b4 makes itself: the
	headers (Message-Id, Date, threading, X-Mailer, the [PATCH n/m]
	prefix, To: and Cc: for the whole series), its signature, and the
	cover letter's tail (shortlog, diffstat, base-commit, change-id).
	What must be the same: each subject, From:, each patch's body, the
	cover letter's text, and every recipient of ours among b4's.  b4 sends
	a one-patch series as that patch with the cover letter under its
	"---" and base-commit and change-id after the diff.  An empty list:
	they are the same."""
	ours_m = [_message(p) for p in ours]
	sent_m = [_message(p) for p in sent]
	patch = lambda m: _without_signature(m.get_content()).rstrip('\n')  # noqa: E731
	if len(ours_m) == 2 and len(sent_m) == 1:
		cover, a, b = ours_m[0], ours_m[1], sent_m[0]
		head, _, rest = patch(b).partition('\n---\n')
		under, _, tail = rest.partition('\n---\n')
		# ... and base-commit, change-id and "Best regards," after the diff.
		tail = re.sub(r'\n+---\nbase-commit: .*\Z', '', tail, flags=re.S)
		diffs = _same('the patch', a, b, patch(a), f'{head}\n---\n{tail}')
		if under.strip() != _blurb(cover):
			diffs.append('the cover letter is not under the patch\'s "---":\n'
				     f'--- convert\n{_blurb(cover)}\n--- b4\n{under.strip()}')
		lost = _recipients(cover) - _recipients(b)
		if lost:
			diffs.append(f'the cover letter: b4 does not send to {sorted(lost)}')
		return diffs
	if len(ours_m) != len(sent_m):
		return [f'{len(ours_m)} messages of convert, {len(sent_m)} of b4']

	def number(msg) -> int:
		m = re.search(r'(\d+)/\d+', str(msg['Subject']))
		assert m	# b4 numbers a series of 2 or more: [PATCH n/m]
		return int(m.group(1))
	sent_m.sort(key=number)
	diffs = _same('the cover letter', ours_m[0], sent_m[0], _blurb(ours_m[0]),
		      sent_m[0].get_content().split('\n---\n', 1)[0].strip())
	for n, (a, b) in enumerate(zip(ours_m[1:], sent_m[1:]), 1):
		diffs += _same(f'patch {n}', a, b, patch(a), patch(b))
	return diffs


def check_sent(worktree: Path, patches: List[Path]) -> int:
	"""An Error if what `b4 send` would send from @worktree's branch is
	not the series convert wrote (@patches, cover letter first), which
	check and boot tested: b4 writes its messages offline to a
	temporary folder (send_offline()), and compare() reads both.  Else
	the number of b4's messages."""
	with tempfile.TemporaryDirectory(prefix='volatile-if-b4-') as out:
		sent = send_offline(worktree, Path(out))
		diffs = compare(patches, sent)
	if diffs:
		raise Error(f'b4 send would not send the series convert wrote '
			    f'({diffs[0].splitlines()[0]}): send the files of '
			    f'{patches[0].parent} with git send-email instead',
			    '\n'.join(diffs))
	return len(sent)


def after_convert(kernel: Path, result, identity: str = '') -> str:
	"""`convert --b4`: the b4 branch for the series that convert.convert()
	returned as @result, checked out in its worktree, and checked against
	that series (check_sent()).  Returns what to tell the user."""
	kernel = tree.kernel_tree(kernel)
	identity = convert.signer(kernel, identity)
	base_branch = convert.branches(kernel)[0]
	base = tree.git(result.worktree, 'rev-parse', base_branch).strip()
	env = series.identity_env(identity, convert.DATE)
	branch = prep(kernel, result.worktree, base, base_branch,
		      result.patches[0], identity, env)
	n = check_sent(result.worktree, result.patches)
	mails = f'{n} message' + ('s' if n != 1 else '')
	return (f'b4: branch {branch}, checked out in {result.worktree}; '
		f'b4 send -o gives the series above ({mails}): go on there '
		'with "b4 prep --edit-cover", "b4 prep --auto-to-cc", "b4 send"')
