# SPDX-License-Identifier: GPL-2.0
"""Kernel trees: checking them, and scratch worktrees holding patch series:
on the pristine source that scripts/setup committed, or the series tree (a
tree's HEAD, base-patch and a series) that check, boot and codegen build."""

import email
import fcntl
import hashlib
import os
import re
from pathlib import Path
from dataclasses import dataclass
from typing import (Callable, Dict, Iterable, List, Optional, Sequence,
		    Tuple, Union)

from .common import BUILD, Error, base_patch, git, git_or_none, progress

PRISTINE = 'pristine'
WORK = BUILD / 'work'

# Commits made here do not depend on who runs the tool or when.
_COMMITTER = {
	'GIT_COMMITTER_NAME': 'volatile-if',
	'GIT_COMMITTER_EMAIL': 'volatile-if@localhost',
}


def kernel_tree(path: Path) -> Path:
	"""@path, resolved, if it is the top of a kernel source tree in git."""
	path = Path(path).resolve()
	makefile = path / 'Makefile'
	if not (makefile.is_file() and (path / 'Kconfig').is_file() and
		(path / 'scripts' / 'checkpatch.pl').is_file() and
		'VERSION =' in makefile.read_text(errors='replace')[:2000]):
		raise Error(f'{path} is not the top of a kernel tree; pass --tree '
			    'DIR, or run scripts/setup for the default one')
	if not (path / '.git').exists():
		raise Error(f'{path} is not a git repository: run "git init && '
			    'git add -f -A && git commit" in it first')
	return path


def config(repo: Path, key: str) -> str:
	"""git config's value of @key in @repo, '' where it is not set."""
	return (git_or_none(repo, 'config', key) or '').strip()


def is_dirty(tree: Path) -> bool:
	"""Whether @tree has uncommitted changes to tracked files."""
	return bool(git(tree, 'status', '--porcelain', '--untracked-files=no'))


def changed_files(tree: Path, rev: str) -> List[str]:
	"""The .c and .h files of @tree that differ between @rev and its work
	tree (for a clean tree, @rev..HEAD) and still exist, sorted."""
	out = git(tree, 'diff', '--name-only', rev, '--', '*.c', '*.h',
		  what=f'git diff {rev} (is it a revision of {tree}?)')
	return sorted(f for f in out.split() if (Path(tree) / f).is_file())


# A diff's hunk header: old start, old count, new start, new count (a
# count left out is 1).
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@', re.M)


def line_after(repo: Path, rev: str, file: str) -> Callable[[int], int]:
	"""Where a line of @file as of @rev is in @repo's work tree: moved by
	the lines that the changes above it add or remove.  A line that a
	change rewrites goes to the same line of the new text, or its last."""
	out = git(repo, 'diff', '-U0', rev, '--', file,
		  what=f'git diff {rev} (is it a revision of {repo}?)')
	hunks = [tuple(int(n) if n else 1 for n in m.groups())
		 for m in HUNK.finditer(out)]

	def moved(line: int) -> int:
		delta = 0
		for old, n_old, new, n_new in hunks:
			if line < old or (n_old == 0 and line == old):
				break           # above it (n_old 0: added after old)
			if line < old + n_old:
				return new + min(line - old, max(n_new - 1, 0))
			delta += n_new - n_old
		return line + delta
	return moved


def is_cover_letter(patch: Path) -> bool:
	"""Whether @patch is the cover letter git format-patch writes."""
	return Path(patch).name.startswith('0000-')


def commit_message(patch: Path) -> str:
	"""The commit message of @patch, a file git format-patch wrote: what
	comes between its mail headers and the "---" above the diffstat."""
	return patch.read_text().split('\n\n', 1)[1].split('\n---\n', 1)[0]


@dataclass(frozen=True)
class Series:
	"""A series as convert hands it to check, boot and codegen: its
	numbered patches in order, its cover letter (None: none) and the commit
	they apply to ('' where not known)."""
	patches: Tuple[Path, ...]
	cover: Optional[Path] = None
	base: str = ''

	@classmethod
	def of(cls, files: Iterable[Path], base: str = '') -> 'Series':
		"""The series of @files, a cover letter among them or not."""
		files = list(files)
		cover = next((Path(p) for p in files if is_cover_letter(p)), None)
		return cls(tuple(Path(p) for p in files if not is_cover_letter(p)),
			   cover, base)


def numbered(patches: Union[Series, Iterable[Path]]) -> List[Path]:
	"""The patches of @patches (a Series, or files that may include a
	cover letter) without the cover letter."""
	if isinstance(patches, Series):
		return list(patches.patches)
	return list(Series.of(patches).patches)


def series(directory: Path) -> List[Path]:
	"""The patches of a series directory, in order: its quilt-style
	'series' file if there is one, else its numbered *.patch files."""
	listing = directory / 'series'
	if listing.is_file():
		names = [line.split('#')[0].strip() for line in
			 listing.read_text(errors='replace').splitlines()]
		patches = [directory / n for n in names if n]
		for p in patches:
			if not p.is_file():
				raise Error(f'{listing} names {p.name}, which is not '
					    f'a file in {directory}: fix that line')
		return patches
	return sorted(p for p in directory.glob('[0-9]*.patch')
		      if not is_cover_letter(p))


def subject(patch: Path) -> str:
	"""The subject of a git format-patch file, without [PATCH ...]."""
	return bare_subject(email.message_from_bytes(patch.read_bytes())['Subject'])


def bare_subject(header: str) -> str:
	"""A Subject: header unfolded, without its [PATCH ...] prefix."""
	return re.sub(r'^\[PATCH[^]]*\] ', '', ' '.join(str(header).split()))


def am(tree: Path, patches: Iterable[Path]) -> None:
	"""git am @patches onto @tree; on failure, abort and say which."""
	env = dict(os.environ, **_COMMITTER)
	for patch in patches:
		try:
			git(tree, 'am', '-q', '--committer-date-is-author-date',
			    str(patch), env=env, what=f'git am {patch.name}')
		except Error as e:
			# No am in progress: git did not take the file for a patch
			applying = git(tree, 'rev-parse', '--path-format=absolute',
				       '--git-path', 'rebase-apply').strip()
			if not Path(applying).is_dir():
				raise Error(f'{patch} is not a patch git am can read: '
					    'pass a folder of git format-patch '
					    'output', e.details) from None
			git(tree, 'am', '--abort', env=env)
			raise Error(f'{patch} does not apply to {tree}', e.details) from None


def _stamp(base: str, patches: List[Path]) -> str:
	h = hashlib.sha256(base.encode())
	for p in patches:
		h.update(p.name.encode() + b'\0' + p.read_bytes())
	return h.hexdigest()


# The commit this tool last left each of its branches at, as a ref of its
# own: a branch at any other commit holds someone's work (b4 prep
# --edit-cover amends, a fix committed on top), which a run must not
# reset.
MADE = 'refs/volatile-if/made/'


def _commit(tree: Path, ref: str) -> str:
	"""The commit @ref names in @tree, '' if there is no such ref."""
	return (git_or_none(tree, 'rev-parse', '-q', '--verify',
			    f'{ref}^{{commit}}') or '').strip()


def check_branches(tree: Path, branches: Sequence[str],
		   own: Path) -> Dict[str, str]:
	"""An Error if one of @branches of @tree is checked out in a worktree
	but @own, or is at a commit this tool did not leave it at
	(made_branches()); else the commit of each, '' for none."""
	for block in git(tree, 'worktree', 'list', '--porcelain').split('\n\n'):
		lines = block.splitlines()
		if not lines or lines[0] == f'worktree {own}':
			continue
		for b in branches:
			if f'branch refs/heads/{b}' in lines:
				raise Error(f'branch {b} is checked out in '
					    f'{lines[0].split(" ", 1)[1]}: check out '
					    'another branch there first')
	tips = {b: _commit(tree, f'refs/heads/{b}') for b in branches}
	for b, tip in tips.items():
		if tip and tip != _commit(tree, MADE + b):
			raise Error(f'branch {b} of {tree} is not where this tool '
				    'left it (a commit of yours?): rename it (git '
				    f'branch -m {b} {b}-mine) or delete it, then run '
				    'again (nothing was changed)')
	return tips


def made_branches(tree: Path, tips: Dict[str, str], own: Path) -> None:
	"""Point each branch of @tips at its commit, and note that this tool
	left it there, in one transaction: an interrupted run leaves both as
	they were.  The branches are checked again first (check_branches()),
	since a run takes minutes, and git refuses the transaction if one
	moves in between."""
	was = check_branches(tree, list(tips), own)
	try:
		git(tree, 'update-ref', '--stdin', stdin=''.join(
			(f'update refs/heads/{b} {c} {was[b]}\n' if was[b] else
			 f'create refs/heads/{b} {c}\n') +
			f'update {MADE}{b} {c}\n' for b, c in tips.items()))
	except Error as e:
		raise Error(f'{e}: no branch was moved; run again',
			    e.details) from None


def has_volatile_if(tree: Path, rev: str = 'HEAD') -> bool:
	"""Whether @rev of @tree has the base patch already."""
	barrier = git(tree, 'show', f'{rev}:include/asm-generic/barrier.h',
		      what='git show barrier.h')
	return '#define volatile_if(' in barrier


def worktree_at(tree: Path, path: Path, rev: str) -> None:
	"""Make @path a worktree of @tree with @rev checked out, detached:
	add it, or reset it from whatever a run of ours left there, an
	interrupted git am or checkout included."""
	if (path / '.git').exists():
		gitdir = Path(git(path, 'rev-parse', '--absolute-git-dir').strip())
		# Only a killed git of ours can have left these in our worktree.
		(gitdir / 'index.lock').unlink(missing_ok=True)
		if (gitdir / 'rebase-apply').exists():
			git(path, 'am', '--abort')
		git(path, 'checkout', '-q', '-f', '--detach', rev)
	else:
		path.parent.mkdir(parents=True, exist_ok=True)
		_room_for(tree, path.parent, rev)
		git(tree, 'worktree', 'prune')
		git(tree, 'worktree', 'add', '-q', '--detach', str(path), rev)


def _room_for(tree: Path, where: Path, rev: str) -> None:
	"""Fail now, not with half a checkout, if @where's file system lacks
	the room for @rev of @tree: its files, each rounded up to a block."""
	block = 4096
	need = sum(-(-int(line.split()[3]) // block) * block
		   for line in git(tree, 'ls-tree', '-r', '-l', rev).splitlines()
		   if line.split()[1] == 'blob')
	fs = os.statvfs(where)
	free = fs.f_bavail * fs.f_frsize
	if free < need:
		gib = 1 << 30
		raise Error(f'{where}: {free / gib:.1f} GiB free, a worktree of '
			    f'{Path(tree).name} needs {need / gib:.1f} GiB: free some '
			    'space there, then run again')


# The lock files of the worktrees this process uses, held shared until it
# exits.
_in_use: list = []


def _flock(lock, how: int, name: str) -> None:
	try:
		fcntl.flock(lock, how | fcntl.LOCK_NB)
	except BlockingIOError:
		progress(f'[work] waiting for another run to make {name}')
		fcntl.flock(lock, how)


def _lockfile(name: str):
	WORK.mkdir(parents=True, exist_ok=True)
	return open(WORK / f'{name}.lock', 'w')


def hold(name: str) -> None:
	"""Hold build/work/@name.lock exclusively until this run exits, or
	stop: another run holds it."""
	lock = _lockfile(name)
	try:
		fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
	except BlockingIOError:
		lock.close()
		raise Error(f'{WORK / name} is in use by another run: run again '
			    'once that run has finished') from None
	_in_use.append(lock)


def scratch_worktree(tree: Path, name: str, patches: List[Path],
		     base: str = PRISTINE) -> Path:
	"""A worktree of @tree under build/work/@name holding @base plus
	@patches, applied with git am.  It is reused as it is when base and
	patches have not changed, so that builds in it stay incremental.
	A run makes it under an exclusive lock, and uses it under a shared one
	until it exits: a run that finds it being made waits, and one that
	needs other patches in it while another run uses it stops, instead of
	changing the files under that run."""
	path = WORK / name
	stampfile = WORK / f'{name}.stamp'
	base = git(tree, 'rev-parse', base).strip()
	stamp = _stamp(base, patches)
	lock = _lockfile(name)

	def ready() -> bool:
		return path.is_dir() and stampfile.is_file() and \
			stampfile.read_text() == stamp and not is_dirty(path)
	try:
		_flock(lock, fcntl.LOCK_SH, name)
		if not ready():
			try:
				fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
			except BlockingIOError:
				pass	# in use, or being made, maybe with these
			else:
				stampfile.unlink(missing_ok=True)
				worktree_at(tree, path, base)
				am(path, patches)
				stampfile.write_text(stamp)
			_flock(lock, fcntl.LOCK_SH, name)
			if not ready():
				raise Error(f'{path} is in use by another run, with '
					    'other patches: run again once that run has '
					    'finished')
	except BaseException:
		lock.close()
		raise
	_in_use.append(lock)
	return path


def series_tree(kernel: Path, patches: Sequence[Path]) -> Path:
	"""A scratch worktree of @kernel's HEAD with base-patch, unless HEAD
	has it already, and @patches."""
	base = [] if has_volatile_if(kernel) else series(base_patch(kernel))
	return scratch_worktree(kernel, f'{kernel.name}-series',
				base + list(patches), base='HEAD')
