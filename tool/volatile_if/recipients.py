# SPDX-License-Identifier: GPL-2.0
"""Who a patch goes to: get_maintainer.pl as a submitter runs it, the
LKMM's maintainers and linux-arch on every patch (each relies on
volatile_if()'s semantics), and the To:/Cc: headers that say so."""

import os
import re
import tempfile
from pathlib import Path
from typing import List, Sequence, Tuple

from .common import git_or_none, run
from .tree import is_cover_letter


LKMM_ENTRY = 'LINUX KERNEL MEMORY CONSISTENCY MODEL (LKMM)'
LINUX_ARCH = 'linux-arch@vger.kernel.org'


def lkmm(maintainers_text: str) -> Tuple[List[str], List[str]]:
	"""(maintainers, reviewers) of the LKMM entry of a MAINTAINERS file."""
	m = re.search(rf'^{re.escape(LKMM_ENTRY)}\n((?:[A-Z]:.*\n)+)', maintainers_text, re.M)
	if not m:
		return [], []
	lines = m.group(1).splitlines()
	return ([l[2:].strip() for l in lines if l.startswith('M:')],
		[l[2:].strip() for l in lines if l.startswith('R:')])


def parse_get_maintainer(out: str) -> Tuple[List[str], List[str]]:
	"""(To, Cc) from get_maintainer.pl's lines 'address (role:...)':
	maintainers and supporters to, reviewers, lists and commit signers
	cc, as a submitter would send it."""
	to, cc = [], []
	for line in out.splitlines():
		m = re.match(r'^(.*?) \(([\w ]+?)[:)]', line)
		if not m:
			continue
		role = m.group(2)
		if role in ('maintainer', 'supporter'):
			to.append(m.group(1))
		elif role != 'unknown':
			cc.append(m.group(1))
	return to, cc


def _get_maintainer(tree: Path, args: Sequence[str]) -> str:
	# get_maintainer.pl lists commit signers with equal counts in Perl's
	# hash order, which is random per run unless the seed is fixed: the
	# same tree must give the same recipients.
	env = dict(os.environ, PERL_HASH_SEED='0', PERL_PERTURB_KEYS='0')
	return run(['perl', 'scripts/get_maintainer.pl', *args], cwd=tree,
		   env=env, what='scripts/get_maintainer.pl').stdout


def diff_of(patch: str) -> str:
	"""@patch from its first diff on.  get_maintainer.pl matches the K:
	keywords of MAINTAINERS in the commit message too, and ours name the
	architectures whose ordering they discuss: "riscv" alone would make
	RISC-V's maintainers the To: of every patch."""
	m = re.search(r'^diff --git ', patch, re.M)
	return patch[m.start():] if m else patch


def has_history(tree: Path) -> bool:
	"""Whether @tree's repository has history for get_maintainer.pl --git
	to read (more than the one commit scripts/setup makes)."""
	count = git_or_none(tree, 'rev-list', '--count', '--max-count=2', 'HEAD')
	return (count or '').strip() == '2'


def maintainers(tree: Path, patches: Sequence[Path],
		files: Sequence[str] = ()) -> Tuple[List[str], List[str]]:
	"""(To, Cc) for @patches, touching @files: get_maintainer.pl as a
	submitter runs it (roles, reviewers, lists; --git where the tree has
	history).  With no maintainer found, To is the maintainers of the
	nearest parent directory that has some, else the LKMM's.  The LKMM
	maintainers and reviewers and linux-arch are on every patch: each
	relies on volatile_if()'s semantics."""
	git = ['--git'] if has_history(tree) else ['--no-git', '--no-git-fallback']
	with tempfile.TemporaryDirectory() as tmp:
		diffs = []
		for i, p in enumerate(patches):
			diffs.append(Path(tmp) / f'{i}.diff')
			diffs[-1].write_text(diff_of(p.read_text()))
		to, cc = parse_get_maintainer(_get_maintainer(tree, [*git, *map(str, diffs)]))
	lkmm_m, lkmm_r = lkmm((tree / 'MAINTAINERS').read_text(errors='replace'))
	if not to:
		for f in files:
			parent = Path(f).parent
			while not to and str(parent) not in ('.', ''):
				to = parse_get_maintainer(_get_maintainer(
					tree, ['--no-git', '--no-git-fallback', '-f',
					       f'{parent}/']))[0]
				parent = parent.parent
	if not to:
		to = list(lkmm_m)
	for a in lkmm_m + lkmm_r + [LINUX_ARCH]:
		if a not in to and a not in cc:
			cc.append(a)
	return to, cc


def _headers(field: str, addresses: Sequence[str]) -> str:
	if not addresses:
		return ''
	return f'{field}: ' + ',\n    '.join(addresses) + '\n'


def add_recipients(patch: Path, to: Sequence[str], cc: Sequence[str]) -> None:
	"""Put To: and Cc: after the Subject: header (and its folded lines)."""
	head, sep, body = patch.read_text().partition('\n\n')
	lines = head.split('\n')
	i = next(n for n, l in enumerate(lines) if l.startswith('Subject:')) + 1
	while i < len(lines) and lines[i][:1] in (' ', '\t'):
		i += 1
	extra = (_headers('To', to) + _headers('Cc', cc)).rstrip('\n')
	if extra:
		lines.insert(i, extra)
	patch.write_text('\n'.join(lines) + sep + body)


def touched(patch: Path) -> List[str]:
	"""The files a patch changes, from its diff headers."""
	return sorted(set(re.findall(r'^\+\+\+ b/(\S+)$', patch.read_text(), re.M)))


def address(tree: Path, patches: Sequence[Path]) -> None:
	"""Give each of @patches the To: and Cc: of maintainers() in @tree,
	and a cover letter among them everyone a patch is to, and the
	others as Cc."""
	letters = [p for p in patches if is_cover_letter(p)]
	everyone_to: List[str] = []
	everyone_cc: List[str] = []
	for p in patches:
		if p in letters:
			continue
		to, cc = maintainers(tree, [p], touched(p))
		add_recipients(p, to, cc)
		everyone_to += [a for a in to if a not in everyone_to]
		everyone_cc += [a for a in cc if a not in everyone_cc]
	for letter in letters:
		add_recipients(letter, everyone_to,
			       [a for a in everyone_cc if a not in everyone_to])
