# SPDX-License-Identifier: GPL-2.0
"""Series: turn converted sites into one commit per subsystem and write
them out with git format-patch and a cover letter.

Input: a worktree on the branch to commit to, the sites to convert, the
report-only sites left for review.  Output: a directory of patches.

Run as a program (scripts/export-base-patch), it finishes a series that
git format-patch --cover-letter wrote: the cover letter's subject and
blurb from COVER (its first line is the subject and a blank line follows,
as in a branch description), and the recipients of every patch:
    python3 -m volatile_if.series TREE COVER PATCH...
"""

import os
import re
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from . import recipients
from .common import Error, git, table
from .tree import is_cover_letter
from .facts import Facts, names
from .review import Decision
from .scan import Site

# The subject prefix the kernel uses for a path: data/subject-prefixes.
PREFIXES: Sequence[Tuple[str, str]] = table('subject-prefixes')

# What each idiom relies on, for the commit message.
WHY = {
	'acquire-in-branch':
		'smp_acquire__after_ctrl_dep() in its branch builds an ACQUIRE on '
		'that control dependency',
	'acquire-early-exit':
		'where it does not leave early, smp_acquire__after_ctrl_dep() '
		'after it builds an ACQUIRE on that control dependency',
	'acquire-loop-exit':
		'it leaves the loop, and smp_acquire__after_ctrl_dep() after the '
		'loop builds an ACQUIRE on that control dependency',
	'documented-ctrl-dep':
		'the comment next to it says that the stores after it are ordered '
		'by this control dependency, with no barrier to back it',
}



def subject_prefix(path: str) -> str:
	"""The subject prefix for a change to @path: the first of PREFIXES
	that matches, else "<dir>: <subdir>" for drivers, "<dir>/<stem>"
	otherwise."""
	stem = Path(path).stem
	for prefix, subject in PREFIXES:
		if path.startswith(prefix):
			return subject.format(stem=stem)
	parts = Path(path).parts
	if parts[0] == 'drivers' and len(parts) > 2:
		return f'{parts[1]}: {parts[2] if len(parts) > 3 else stem}'
	return f'{parts[0]}/{stem}'


@dataclass(frozen=True)
class Conversion:
	"""A site to convert, and what the code says about it."""
	site: Site
	facts: Facts
	reason: str = ''       # why a reviewer accepted a report-only site

	@property
	def condition(self) -> str:
		return self.facts.condition


def group(conversions: Sequence[Conversion]) -> 'OrderedDict[str, List[Conversion]]':
	"""Conversions by subject prefix, in path order."""
	groups: 'OrderedDict[str, List[Conversion]]' = OrderedDict()
	for c in sorted(conversions, key=lambda c: (c.site.file, c.site.line)):
		groups.setdefault(subject_prefix(c.site.file), []).append(c)
	return groups


def _functions(conversions: Sequence[Conversion]) -> str:
	names = list(OrderedDict.fromkeys(f'{c.site.function}()' for c in conversions))
	if len(names) == 1:
		return names[0]
	return ', '.join(names[:-1]) + ' and ' + names[-1]


def _wrap(text: str, width: int = 72) -> str:
	words, lines, line = text.split(), [], ''
	for w in words:
		if line and len(line) + 1 + len(w) > width:
			lines.append(line)
			line = w
		else:
			line = f'{line} {w}' if line else w
	return '\n'.join(lines + [line])


def _item(s: Site, text: str) -> List[str]:
	"""A site of the cover letter's lists, and what is said of it."""
	return [f'  {s.file}:{s.line} {s.function}() [{s.idiom}]',
		'      ' + _wrap(text, 66).replace('\n', '\n      ')]


def _load_text(c: Conversion) -> str:
	f = c.facts
	if not f.loads:
		return 'tests a value whose load the tool did not find in the code'
	load = f.loads[0]
	if load.through:
		return (f'depends on {load.describe()}.  volatile_if() branches on '
			f'the value {load.through[0]}() returns; the test inside it '
			'stays a plain if')
	if '=' in load.text.split('(')[0]:
		return 'tests what ' + ' and '.join(l.text for l in f.loads) + ' loaded'
	return f'tests the load {load.text}'


def _guarded_text(c: Conversion) -> str:
	f = c.facts
	what = []
	if f.stores:
		what.append('the store' + ('s ' if len(f.stores) > 1 else ' ') +
			    names(list(dict.fromkeys(f.stores))))
	if f.calls:
		what.append('calls to ' + names([f'{n}()' for n in f.calls]))
	path = ('On the path that smp_acquire__after_ctrl_dep() orders'
		if f.barrier else 'Past the branch')
	text = f'{path}, ' + (f'it is followed by {" and ".join(what)}' if what else 'nothing follows it')
	if f.returns == 'to its callers':
		text += ('; then the function returns to its callers, whose code '
			 'after the call the branch orders too')
	elif f.returns:
		text += (f'; then the function returns {f.returns.split(" = ")[-1]}, '
			 'and its callers act on that value')
	return text + '.'


def _paragraph(c: Conversion) -> str:
	f = c.facts
	text = (f'In {c.site.function}(), the branch on "{f.condition}" '
		f'{_load_text(c)}.  {_guarded_text(c)}  It is a control '
		f'dependency: {WHY[c.site.idiom]} ({c.site.idiom}).')
	if f.split:
		text += ('  The condition is the load && a call, whose result '
			 'the load does not decide.  So volatile_if() takes the '
			 'load alone, and an if () in its leg makes the call.  It '
			 'is the same statement, and volatile_if() branches on the '
			 'load itself, not on what the call returned.')
	elif f.compound == 'first':
		text += ('  The condition joins its parts with && or ||, the '
			 'load in the first: the compiler has to branch on it '
			 'before it evaluates the rest or picks a leg, so both legs '
			 'come after a branch on the load.')
	elif f.compound == 'later':
		text += ('  The condition joins its parts with && or ||, the '
			 'load in a later one only: where an earlier part decides, '
			 'the load is not made, and nothing orders the leg after it.')
	if c.reason:
		text += f'  Reviewed: {c.reason}.'
	return _wrap(text)


def _arch_text(conversions: Sequence[Conversion]) -> List[str]:
	"""What orders the sites today, per architecture, and what
	volatile_if() changes: only what is true of these sites."""
	acquire = any(c.facts.barrier for c in conversions)
	bare = any(not c.facts.barrier for c in conversions)
	out = []
	if acquire:
		out.append(
			'What orders the load before what follows today, where '
			'smp_acquire__after_ctrl_dep() follows the branch: on x86, '
			's390 and sparc64 (TSO) the CPU itself; on arm64, arm and '
			'powerpc that barrier, since smp_rmb() there (dmb ishld, dmb '
			'ish, lwsync) orders earlier loads before later stores too; '
			'on riscv only the conditional branch, since smp_rmb() there '
			'is fence r,r, which does not order later stores.  So the '
			'machine\'s ordering depends on volatile_if() only on riscv; '
			'everywhere, what changes is what the compiler may do.')
	if bare:
		out.append(
			'Where no barrier follows the branch, nothing but the branch '
			'orders the load before what follows on arm64, arm, powerpc '
			'and riscv; on x86, s390 and sparc64 (TSO) the CPU does.')
	text = ('volatile_if() gives the compiler no choice: each leg starts '
		'with its own empty volatile asm with a memory clobber (on '
		'arm64, powerpc and riscv, which have no conditional store, only '
		'the taken leg), so to choose a leg the compiler must emit a '
		'conditional branch on the condition, and the legs\' stores stay '
		'after it; on x86, s390 and sparc64 it is a compiler barrier '
		'only.  A plain if promises neither')
	if acquire:
		text += (', though smp_acquire__after_ctrl_dep() on the ordered '
			 'path is a compiler barrier too and already keeps the '
			 'stores there after it')
	text += '.'
	if any(not c.facts.leg_exits and not c.facts.barrier for c in conversions):
		text += ('  Without it a compiler may turn such a branch into a '
			 'conditional select, or lift a store both legs make above it.')
	text += ('  No miscompile of this code has been shown: the change makes '
		 'the dependency one the compiler is told about.')
	out.append(text)
	return [_wrap(t) for t in out]


def message(prefix: str, conversions: Sequence[Conversion], identity: str) -> str:
	"""The commit message for one subsystem's conversions: what the code
	says about each site, and what volatile_if() changes, per
	architecture."""
	many = len(conversions) > 1
	subject = (f'{prefix}: Use volatile_if() for the control '
		   f'dependenc{"ies" if many else "y"} in {_functions(conversions)}')
	if len(subject) > 75:
		subject = (f'{prefix}: Use volatile_if() for '
			   f'{len(conversions) if many else "a"} control '
			   f'dependenc{"ies" if many else "y"}')
	paragraphs = [_paragraph(c) for c in conversions] + _arch_text(conversions)
	rules = sorted({f'cocci/{c.site.idiom}.cocci' for c in conversions})
	paragraphs.append(_wrap(f'Generated by tool/volatile-if with '
				f'{", ".join(rules)}.'))
	return f'{subject}\n\n' + '\n\n'.join(paragraphs) + \
		f'\n\nSigned-off-by: {identity}\n'


def identity_env(identity: str, date: str) -> Dict[str, str]:
	m = re.fullmatch(r'\s*(.+?)\s*<([^<>\s]+@[^<>\s]+)>\s*', identity)
	if not m:
		raise Error(f'identity {identity!r} is not "Name <email>": '
			    'fix --identity')
	name, email = m.groups()
	env = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': email,
	       'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': email,
	       'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_DATE': date}
	# git has rules of its own (a name of quotes alone is none): ask it
	# now, not at the first commit, minutes of scanning later.
	proc = subprocess.run(['git', 'var', 'GIT_AUTHOR_IDENT'], text=True,
			      env=dict(os.environ, **env), capture_output=True)
	if proc.returncode:
		why = (proc.stderr.strip().splitlines() or ['git refuses it'])[0]
		raise Error(f'identity {identity!r}: {why.removeprefix("fatal: ")}: '
			    'fix --identity')
	return env


def commit(worktree: Path, prefix: str, conversions: Sequence[Conversion],
	   env: Dict[str, str], identity: str) -> None:
	files = sorted({c.site.file for c in conversions})
	git(worktree, 'add', '-f', '--', *files, env=env)
	git(worktree, 'commit', '-q', '-F', '-', env=env,
	    stdin=message(prefix, conversions, identity),
	    what=f'git commit for {prefix}')


def cover_letter(conversions: Sequence[Conversion], review: Sequence[Site],
		 base_subject: str, example: bool = False,
		 dismissed: Sequence[Tuple[Site, Decision]] = (),
		 dropped: Sequence[Tuple[Site, str]] = ()) -> Tuple[str, str]:
	"""(subject, body) of the cover letter; @example: the series is the
	project's example output, signed with a made-up identity; @dismissed:
	(site, review decision) of the sites a reviewer dismissed."""
	n = len(conversions)
	body = []
	if example:
		body += [_wrap(
			'This is example output of tool/volatile-if, signed with a '
			'made-up identity: it is not for sending as it is.  To '
			'submit it, run "tool/volatile-if convert" again under your '
			'own name (git config user.name and user.email, or '
			'--identity), so that the From: header and the sign-off are '
			'yours.'), '']
	body += [_wrap(
		f'These patches convert the {n} control dependencies that the '
		'semantic patches of cocci/ find in this tree to volatile_if(), so '
		'that the compiler can neither drop the conditional branch they '
		'rely on nor lift stores out of it.  They depend on the series '
		f'that adds volatile_if(), starting with "{base_subject}".'),
		'', 'Converted:', '']
	for c in sorted(conversions, key=lambda c: (c.site.file, c.site.line)):
		body.append(f'  {c.site.file}:{c.site.line} {c.site.function}() '
			    f'[{c.site.idiom}]')
	body += ['', _wrap(
		'Left for review: the rules report these sites but do not convert '
		'them; each needs a person to decide.'), '']
	for s in sorted(review):
		body += _item(s, s.message)
	if not review:
		body.append('  (none)')
	if dismissed:
		body += ['', _wrap('Dismissed: the rules report these sites too, '
				   'and a reviewer found no control dependency to '
				   'keep there, for the reason given.'), '']
		for s, d in sorted(dismissed, key=lambda x: x[0]):
			body += _item(s, d.reason)
	if dropped:
		body += ['', _wrap('Not converted: the rules mark these sites for '
				   'conversion, but the code shows nothing for a '
				   'control dependency to order.'), '']
		for s, why in sorted(dropped):
			body += _item(s, why)
	body += ['', _wrap('Generated by tool/volatile-if convert from the '
			   'semantic patches in cocci/.')]
	return ('Use volatile_if() for the control dependencies the kernel '
		'relies on', '\n'.join(body))


def format_patches(worktree: Path, base: str, out: Path, env: Dict[str, str],
		   cover: Tuple[str, str]) -> List[Path]:
	"""git format-patch base..HEAD with a cover letter into @out (a new,
	empty directory), recipients from get_maintainer.pl."""
	git(worktree, 'format-patch', '-q', '--cover-letter', '--no-signature',
	    '--zero-commit', '-o', str(out), f'{base}..HEAD', env=env)
	patches = sorted(out.glob('*.patch'))
	finish(worktree, patches, cover)
	return patches


def finish(tree: Path, patches: Sequence[Path],
	   cover: Tuple[str, str]) -> None:
	"""Fill in the cover letter among @patches, which git format-patch
	--cover-letter wrote, with @cover's (subject, body), and address
	every patch from @tree's MAINTAINERS."""
	letters = [p for p in patches if is_cover_letter(p)]
	if len(letters) != 1:
		raise Error(f'{len(letters)} cover letters among the patches, '
			    'not 1: run git format-patch with --cover-letter')
	text = letters[0].read_text()
	if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
		raise Error(f'{letters[0]} is filled in already: write the series '
			    'again with git format-patch --cover-letter')
	subject, body = cover
	letters[0].write_text(text.replace('*** SUBJECT HERE ***', subject)
			      .replace('*** BLURB HERE ***', body))
	recipients.address(tree, patches)


def read_cover(path: Path) -> Tuple[str, str]:
	"""(subject, body) of a cover letter written as a branch description
	is: the subject, a blank line, the body."""
	subject, _, body = path.read_text().strip().partition('\n\n')
	if not subject or not body or '\n' in subject:
		raise Error(f'{path}: write the subject on one line, then a blank '
			    'line and the body')
	return subject, body


if __name__ == '__main__':
	if len(sys.argv) < 4:
		sys.exit('usage: python3 -m volatile_if.series TREE COVER PATCH...')
	try:
		finish(Path(sys.argv[1]), [Path(p) for p in sys.argv[3:]],
		       read_cover(Path(sys.argv[2])))
	except (Error, OSError) as e:
		sys.exit(f'volatile_if.series: {e}')
