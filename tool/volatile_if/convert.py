# SPDX-License-Identifier: GPL-2.0
"""Convert: scan -> rewrite -> series on a scratch worktree of a tree.

Input: a kernel tree (clean), the base patch, the review decisions
(tool/review: accepted sites are converted, dismissed ones listed).
Output: branches volatile-if/<tree>-base (HEAD plus base-patch) and
volatile-if/<tree> (the conversion) in that tree's repository, <tree>
being its directory's name, and the patch series in an output directory
(generated-patches/<version>/ by default).  The user's own
checkout, branch and files are never touched, nor are commits made on
convert's branches since it left them there.
"""

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import ctext, facts, review as review_, rewrite, scan, series, tree
from .common import Error, base_patch, generated_patches, progress
from .scan import Site	# in Result, whose field scan hides the module

# The identity of the example series committed in generated-patches/:
# its cover letter says it is an example, to be made again under the
# submitter's own name.
EXAMPLE_IDENTITY = 'Example Submitter <submitter@example.org>'
# Every commit gets this date, so the same tree gives the same series.
DATE = '2026-12-03T00:00:00+0000'


def branches(kernel: Path) -> Tuple[str, str]:
	"""The branches convert makes in @kernel's repository: the base (HEAD
	plus base-patch) and the conversion.  Named after the tree, so that
	worktrees of one repository do not share them."""
	return f'volatile-if/{kernel.name}-base', f'volatile-if/{kernel.name}'


def signer(kernel: Path, given: str = '') -> str:
	"""Who signs the series: @given ("Name <mail>", from --identity), else
	user.name and user.email of git config in @kernel's repository."""
	if given:
		series.identity_env(given, DATE)
		return given
	name, mail = (tree.config(kernel, key) for key in ('user.name', 'user.email'))
	if not (name and mail):
		raise Error('no one to sign the patches: pass --identity '
			    '"Name <mail>", or set user.name and user.email with '
			    f'git config in {kernel}')
	found = f'{name} <{mail}>'
	series.identity_env(found, DATE)
	return found


# In an output directory, the files convert wrote there last: a line
# "<sha256>  <name>" each.  Those, unchanged, are all it replaces.
WRITTEN = '.volatile-if-written'


def _digest(path: Path) -> str:
	return hashlib.sha256(path.read_bytes()).hexdigest()


def _written(out: Path) -> Dict[str, str]:
	"""name -> sha256 of the files convert last wrote to @out."""
	try:
		lines = (out / WRITTEN).read_text(errors='replace').splitlines()
	except FileNotFoundError:
		return {}
	return {name: digest for digest, _, name in
		(line.partition('  ') for line in lines) if name}


def check_out(out: Path) -> None:
	"""An Error unless every patch in @out is one convert wrote there, as
	it wrote it: the series is replaced whole, and nothing else may go."""
	written = _written(out)
	for p in sorted(out.glob('*.patch')):
		if written.get(p.name) != _digest(p):
			raise Error(f'{p} is not a patch convert wrote there, or it '
				    'was edited since: move it away, or pass another '
				    '--out DIR (nothing was changed)')


def write_out(out: Path, patches: Sequence[Path]) -> List[Path]:
	"""Move @patches into @out in place of the series convert wrote there
	before (check_out()); their new places."""
	for name in _written(out):
		(out / name).unlink(missing_ok=True)
	final = []
	for p in patches:
		final.append(out / p.name)
		os.replace(p, final[-1])
	listing = out / (WRITTEN + '.tmp')
	listing.write_text(''.join(f'{_digest(p)}  {p.name}\n' for p in final))
	os.replace(listing, out / WRITTEN)
	return final


def worktree_for(kernel: Path) -> Path:
	"""The scratch worktree of @kernel, as git lists it: with build/ (or
	a folder above it) a symbolic link, by the path the link leads to."""
	digest = hashlib.sha1(str(kernel).encode()).hexdigest()[:8]
	return (tree.WORK / f'convert-{kernel.name}-{digest}').resolve()


def _rewriting(wt: Path) -> Path:
	"""While this file is there, changes in @wt are convert's own, left by
	a run that stopped before its commits; else they are the user's, who
	may go on in @wt (convert --b4 says to)."""
	return wt.parent / f'{wt.name}.rewriting'


def prepare(kernel: Path) -> Tuple[Path, str, str]:
	"""A scratch worktree of @kernel at its HEAD plus base-patch (unless
	HEAD has it already), detached, held by this run, once its branches
	(branches()) are found free to move (tree.check_branches()).  Returns
	the worktree, the conversion branch and the base commit."""
	base_branch, branch = branches(kernel)
	head = tree.git(kernel, 'rev-parse', 'HEAD').strip()
	wt = worktree_for(kernel)
	tree.hold(wt.name)
	if (wt / '.git').exists() and not _rewriting(wt).exists() and \
	   tree.is_dirty(wt):
		raise Error(f'{wt} has uncommitted changes: commit or stash them '
			    'there first (nothing was changed)')
	tree.check_branches(kernel, (base_branch, branch), wt)
	progress(f'[convert] scratch worktree {wt} at {head[:12]}')
	_rewriting(wt).touch()
	tree.worktree_at(kernel, wt, head)
	if not tree.has_volatile_if(wt):
		progress('[convert] applying base-patch')
		tree.am(wt, tree.series(base_patch(kernel)))
	return wt, branch, tree.git(wt, 'rev-parse', 'HEAD').strip()


def conversions(worktree: Path, sites: Sequence[scan.Site],
		accepted: Dict[scan.Site, str]
		) -> Tuple[List[series.Conversion], List[scan.Site], List[Tuple[scan.Site, str]]]:
	"""Split @sites into those to convert (action convert, or accepted in
	review: @accepted maps them to the reviewer's reason), the other
	report-only sites, and (site, why) of the sites not converted because
	the code shows nothing after the branch for it to order."""
	convert, review, dropped = [], [], []
	defs = facts.Definitions(worktree)
	for s in sites:
		if s.action != 'convert' and s not in accepted:
			review.append(s)
			continue
		source = (worktree / s.file).read_text()
		try:
			found = facts.site_facts(source, s.line, s.column, s.idiom,
						 defs, s.file)
		except ctext.CTextError as e:
			raise Error(f'{s.file}:{s.line}: {e}') from None
		if not found.guards:
			dropped.append((s, f'{s.function}(): {found.why_not()}.'))
			continue
		convert.append(series.Conversion(s, found, accepted.get(s, '')))
	return convert, review, dropped


def apply(worktree: Path, convert: Sequence[series.Conversion]) -> None:
	by_file: Dict[str, list] = {}
	for c in convert:
		by_file.setdefault(c.site.file, []).append(
			(c.site.line, c.site.column, c.facts.split))
	for name, positions in sorted(by_file.items()):
		path = worktree / name
		try:
			path.write_text(rewrite.convert_all(path.read_text(), positions))
		except rewrite.RewriteError as e:
			raise Error(f'{name}: {e}') from None


@dataclass
class Result:
	worktree: Path
	branch: str
	patches: List[Path]
	converted: List[series.Conversion]
	review: List[scan.Site]
	scan: scan.ScanResult
	# Report-only sites dismissed in review, with the decision; decisions
	# that match no site any more, with why.
	dismissed: Optional[List[Tuple[Site, review_.Decision]]] = None
	stale: Optional[List[Tuple[review_.Decision, str]]] = None
	# The series written, for check, boot and codegen.
	series: Optional[tree.Series] = None


def convert(kernel: Path, out: Optional[Path], identity: str = '',
	    jobs: int = 2, since: str = '') -> Result:
	"""Convert the sites of @kernel (with @since, only those in files
	changed since that revision) and write the series to @out, from and
	signed off by @identity (default: git config's user in @kernel)."""
	kernel = tree.kernel_tree(kernel)
	identity = signer(kernel, identity)
	try:
		base_subject = tree.subject(tree.series(base_patch(kernel))[0])
	except Error:
		if not tree.has_volatile_if(kernel):
			raise
		base_subject = 'the series that adds volatile_if()'
	if tree.is_dirty(kernel):
		raise Error(f'{kernel} has uncommitted changes: commit or stash '
			    'them first (nothing was changed)')
	files = tree.changed_files(kernel, since) if since else None
	out = Path(out or generated_patches(kernel)).resolve()
	try:
		out.mkdir(parents=True, exist_ok=True)
		tempfile.TemporaryFile(dir=out).close()
	except OSError as e:
		raise Error(f'cannot write to {out} ({e.strerror}): pass --out DIR') from None
	check_out(out)
	env = dict(os.environ, **series.identity_env(identity, DATE))
	decisions = review_.Decisions()
	wt, branch, base = prepare(kernel)
	result = scan.scan(wt, files, jobs=jobs)
	decided = review_.split(wt, result.sites, decisions, files)
	convert_, review, dropped = conversions(
		wt, result.sites, {s: d.reason for s, d in decided.accepted})
	review = [s for s in review if s in decided.undecided]
	for d, why in decided.stale:
		progress(f'[convert] stale review decision, not applied: {d.key} '
			 f'({d.verdict}): {why}')
	progress(f'[convert] {len(convert_)} sites to convert, {len(review)} '
		 'left for review')
	apply(wt, convert_)
	for prefix, group in series.group(convert_).items():
		series.commit(wt, prefix, group, env, identity)
	# The branches move only now, both at once: a run stopped before
	# leaves them where they were.
	base_branch, _ = branches(kernel)
	tree.made_branches(kernel, {
		base_branch: base,
		branch: tree.git(wt, 'rev-parse', 'HEAD').strip()}, wt)
	tree.git(wt, 'checkout', '-q', branch)
	_rewriting(wt).unlink()
	# Write the series aside first, so an interrupted run leaves @out as
	# it was.
	staging = Path(tempfile.mkdtemp(prefix='.volatile-if-', dir=out))
	try:
		patches = series.format_patches(
			wt, base, staging, env,
			series.cover_letter(convert_, review, base_subject,
					    identity == EXAMPLE_IDENTITY,
					    decided.dismissed, dropped))
		final = write_out(out, patches)
	finally:
		shutil.rmtree(staging, ignore_errors=True)
	return Result(wt, branch, final, convert_, review, result,
		      decided.dismissed, decided.stale, tree.Series.of(final, base))
