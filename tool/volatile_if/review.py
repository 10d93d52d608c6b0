# SPDX-License-Identifier: GPL-2.0
"""Review: decide the report-only sites, one at a time, and keep the
decisions in the repository.

Input: the sites of a scan (or a `scan --json` file) and the tree they are
in.  Output: tool/review/accepted and tool/review/dismissed, which convert
reads: accepted sites are converted, dismissed ones are listed in the
cover letter with their reason, the others are left for review.

A decision is keyed by the file, the function and the site's condition
with its whitespace and comments normalised away, never by the line
number, so that it survives lines moving and the next kernel version.  A
decision whose site is gone, or whose site is now of another idiom or
converted by the rules themselves, is stale: it is reported and never
applied.
"""

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, TextIO, Tuple

from . import rewrite, scan
from .common import REPO, Error, kernel_version, version_key

DECISIONS = REPO / 'tool' / 'review'
VERDICTS = ('accepted', 'dismissed')
EVIDENCE = (REPO / 'tool' / 'docs' / 'codegen.json',
	    REPO / 'tool' / 'docs' / 'survey.json')

# What the LKMM makes of each idiom's dependency.
LKMM_CLASS = {
	'acquire-in-branch': 'a store inside a leg: the LKMM orders it by the '
		'control dependency itself',
	'acquire-early-exit': 'an early exit: the stores after the if are in '
		'no leg of it, so the LKMM does not count the dependency; only '
		'the hardware (and the branch staying a branch) orders them',
	'acquire-loop-exit': 'a loop exit: the stores after the loop are in no '
		'leg of the if, so the LKMM does not count the dependency; only '
		'the hardware (and the branch staying a branch) orders them',
	'hoisted-store-hazard': 'a store inside a leg, made in both legs: the '
		'compiler may merge the two stores and hoist them above the '
		'branch, out of the dependency',
	'documented-ctrl-dep': 'documented, with no barrier: a comment says the '
		'branch orders what follows, and nothing else does',
	'orphan-acquire': 'no control dependency: smp_acquire__after_ctrl_dep() '
		'that no branch precedes',
}

HEADER = {
	'accepted': '''\
# Report-only sites that a reviewer accepted: tool/volatile-if convert
# converts them to volatile_if(), and the reason goes into the commit
# message (say what the dependency orders).
''',
	'dismissed': '''\
# Report-only sites that a reviewer dismissed: tool/volatile-if convert
# leaves them alone and lists them in the cover letter with the reason.
''',
}
_COMMON_HEADER = '''\
#
# Written by "tool/volatile-if review"; editing by hand is fine.  One
# block per site, blocks separated by an empty line:
#
#	site: file:function:condition
#	idiom: the rule that reported it
#	reason: one line
#	kernel: the version of the tree it was decided on
#
# The condition is the site's, its whitespace and comments normalised, so
# that a decision survives line moves and the next kernel version.  In an
# older tree, a site that is not there is not yet there: not stale.
'''


def normalise(text: str) -> str:
	"""@text with comments dropped, whitespace runs made one space, and
	no space inside parentheses and brackets."""
	text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
	text = re.sub(r'//[^\n]*', ' ', text)
	text = ' '.join(text.split())
	text = re.sub(r'([(\[]) ', r'\1', text)
	return re.sub(r' ([)\]])', r'\1', text)


_CONTROL = re.compile(r'(?:volatile_if|if|while|for|switch)\s*\(')


def condition(lines: Sequence[str], site: scan.Site) -> str:
	"""The normalised condition of @site in @lines (a file's lines with
	their newlines): the parenthesised expression of the if (or loop)
	that spatch reported, or, for a site that is no control statement,
	the statement there up to its semicolon."""
	row, col = site.line - 1, site.column
	if row >= len(lines):
		raise Error(f'{site.file}:{site.line}: no such line: is the scan '
			    'of another tree?')
	text = lines[row]
	m = _CONTROL.match(text, col)
	if m:
		end_row, end_col = rewrite.condition_end(lines, row, col)
		body = ''.join(lines[row:end_row + 1])
		start = m.end()
		stop = len(body) - len(lines[end_row]) + end_col
		return normalise(body[start:stop])
	rest = ''.join(lines[row:row + 10])[col:]
	return normalise(rest.split(';', 1)[0])


def make_key(file: str, function: str, cond: str) -> str:
	return f'{file}:{function}:{cond}'


def site_key(root: Path, site: scan.Site,
	     cache: Optional[Dict[str, List[str]]] = None) -> str:
	"""The key of @site, whose file is below @root."""
	cache = {} if cache is None else cache
	if site.file not in cache:
		try:
			text = (Path(root) / site.file).read_text(errors='replace')
		except OSError as e:
			raise Error(f'cannot read {site.file} below {root} '
				    f'({e.strerror}): pass the scanned tree with '
				    '--tree') from None
		cache[site.file] = text.splitlines(keepends=True)
	return make_key(site.file, site.function,
			condition(cache[site.file], site))


@dataclass(frozen=True)
class Decision:
	key: str
	idiom: str
	verdict: str       # accepted | dismissed
	reason: str
	kernel: str = ''   # the version of the tree it was decided on

	@property
	def file(self) -> str:
		return self.key.split(':', 1)[0]


def _parse(path: Path, verdict: str) -> List[Decision]:
	out: List[Decision] = []
	record: Dict[str, str] = {}
	start = 0

	def flush():
		if not record:
			return
		missing = {'site', 'idiom'} - set(record)
		if missing:
			raise Error(f'{path}:{start}: a block without '
				    f'{" and ".join(sorted(missing))}: fix the file')
		if record['idiom'] not in scan.IDIOMS:
			raise Error(f'{path}:{start}: unknown idiom '
				    f'{record["idiom"]!r}: fix the file')
		if record['site'].count(':') < 2:
			raise Error(f'{path}:{start}: site is not '
				    '"file:function:condition": fix the file')
		out.append(Decision(record['site'], record['idiom'], verdict,
				    record.get('reason', ''),
				    record.get('kernel', '')))
		record.clear()

	try:
		text = path.read_text()
	except UnicodeDecodeError as e:
		raise Error(f'{path}: not UTF-8 (byte {e.start}): fix the '
			    'file') from None
	last = None
	for n, line in enumerate(text.splitlines(), 1):
		if line.startswith('#'):
			continue
		if not line.strip():
			flush()
			last = None
			continue
		if line[:1] in ' \t' and last:
			record[last] += ' ' + line.strip()
			continue
		m = re.fullmatch(r'(site|idiom|reason|kernel):\s*(.*)', line)
		if not m:
			raise Error(f'{path}:{n}: expected "site:", "idiom:", '
				    '"reason:" or "kernel:": fix the file')
		if not record:
			start = n
		last = m.group(1)
		record[last] = m.group(2).strip()
	flush()
	return out


class Decisions:
	"""The decisions of a directory: key -> Decision."""

	def __init__(self, directory: Optional[Path] = None):
		self.dir = Path(directory or os.environ.get('VOLATILE_IF_REVIEW')
				or DECISIONS)
		self.by_key: Dict[str, Decision] = {}
		if self.dir.exists() and not self.dir.is_dir():
			raise Error(f'{self.dir} is not a directory: pass '
				    '--decisions DIR')
		for verdict in VERDICTS:
			path = self.dir / verdict
			if path.is_dir():
				raise Error(f'{path} is a directory, where the '
					    f'{verdict} sites go: move it away')
			if path.is_file():
				for d in _parse(path, verdict):
					self.by_key[d.key] = d

	def get(self, key: str) -> Optional[Decision]:
		return self.by_key.get(key)

	def __iter__(self):
		return iter(sorted(self.by_key.values(), key=lambda d: d.key))

	def decide(self, key: str, idiom: str, verdict: str, reason: str,
		   kernel: str = '') -> Decision:
		"""Record a decision made on a tree of version @kernel and write
		the files at once."""
		if verdict not in VERDICTS:
			raise ValueError(verdict)
		reason = ' '.join(reason.split())
		if verdict == 'dismissed' and not reason:
			raise Error('a dismissal needs a reason (--reason TEXT)')
		d = Decision(key, idiom, verdict, reason, kernel)
		self.by_key[key] = d
		self.save()
		return d

	def save(self) -> None:
		try:
			self.dir.mkdir(parents=True, exist_ok=True)
		except OSError as e:
			raise Error(f'cannot make {self.dir} ({e.strerror}): pass '
				    '--decisions DIR') from None
		for verdict in VERDICTS:
			blocks = [f'site: {d.key}\nidiom: {d.idiom}\n' +
				  (f'reason: {d.reason}\n' if d.reason else '') +
				  (f'kernel: {d.kernel}\n' if d.kernel else '')
				  for d in self if d.verdict == verdict]
			text = HEADER[verdict] + _COMMON_HEADER
			if blocks:
				text += '\n' + '\n'.join(blocks)
			path = self.dir / verdict
			tmp = path.with_name(f'.{verdict}.tmp')
			try:
				tmp.write_text(text)
				os.replace(tmp, path)
			except OSError as e:
				tmp.unlink(missing_ok=True)
				raise Error(f'cannot write {path} ({e.strerror}): '
					    'pass --decisions DIR') from None


@dataclass
class Split:
	"""The report-only sites of a scan against the decisions."""
	accepted: List[Tuple[scan.Site, Decision]] = field(default_factory=list)
	dismissed: List[Tuple[scan.Site, Decision]] = field(default_factory=list)
	undecided: List[scan.Site] = field(default_factory=list)
	stale: List[Tuple[Decision, str]] = field(default_factory=list)
	keys: Dict[scan.Site, str] = field(default_factory=dict)
	kernel: str = ''    # the version of the tree, for new decisions


def _older(version: str, than: str) -> bool:
	return bool(version and than) and version_key(version) < version_key(than)


def split(root: Path, sites: Iterable[scan.Site], decisions: Decisions,
	  scanned: Optional[Iterable[str]] = None) -> Split:
	"""Sort the report-only @sites (of the tree at @root) by decision, and
	find the stale decisions: those for a file of @scanned (None: every
	file) that match no report-only site of the same idiom, unless the
	tree is older than the one the decision was made on and the site is
	not in it at all (code that came later)."""
	try:
		version = kernel_version(root)
	except Error:
		version = ''    # a scan's files, with no Makefile of a tree
	out = Split(kernel=version)
	lines: Dict[str, List[str]] = {}
	matched = set()
	convert_keys = {}
	for s in sorted(sites):
		key = site_key(root, s, lines)
		if s.action == 'convert':
			convert_keys[key] = s
			continue
		out.keys[s] = key
		got = decisions.get(key)
		if got is None:
			out.undecided.append(s)
		elif got.idiom != s.idiom:
			out.undecided.append(s)
			out.stale.append((got, f'the site is now reported as '
					  f'{s.idiom} ({s.file}:{s.line}); decided '
					  f'as {got.idiom}: decide it again'))
			matched.add(key)
		else:
			(out.accepted if got.verdict == 'accepted' else
			 out.dismissed).append((s, got))
			matched.add(key)
	files = None if scanned is None else set(scanned)
	for d in decisions:
		if d.key in matched or (files is not None and d.file not in files):
			continue
		if d.key in convert_keys:
			s = convert_keys[d.key]
			why = (f'the rules convert this site now ({s.file}:{s.line}); '
			       f'the decision ({d.verdict}) no longer applies')
		elif _older(version, d.kernel):
			continue
		else:
			why = ('no report-only site with this file, function and '
			       'condition in the tree' +
			       (f' ({version}; decided on {d.kernel})'
				if version and d.kernel else '') +
			       ': the code or the rules changed')
		out.stale.append((d, why))
	return out


def find(sp: Split, key: str) -> scan.Site:
	"""The report-only site of @sp that @key names: a full key, or
	file:line."""
	for s, k in sp.keys.items():
		if k == key:
			return s
	m = re.fullmatch(r'([^:]+):(\d+)', key)
	if m:
		for s in sp.keys:
			if s.file == m.group(1) and s.line == int(m.group(2)):
				return s
	raise Error(f'no report-only site {key!r} in this tree: see '
		    '"volatile-if review --list" for the keys')


def sites_from_json(path: Path) -> Tuple[Optional[Path], List[scan.Site]]:
	"""The root and sites of a `scan --json` output file."""
	try:
		data = json.loads(Path(path).read_text())
		sites = [scan.Site(**s) for s in data['sites']]
		for s in sites:
			if not (isinstance(s.file, str) and isinstance(s.line, int)):
				raise TypeError(f'site {s.file!r}:{s.line!r}')
	except (OSError, ValueError, KeyError, TypeError) as e:
		raise Error(f'{path} is not the output of "volatile-if scan '
			    f'--json" ({e})') from None
	root = data.get('root')
	return (Path(root) if root else None), sites


# Evidence: codegen and survey verdicts for a site's function.

@dataclass(frozen=True)
class Verdict:
	source: str
	arch: str
	compiler: str
	opt: str
	line: int
	plain_if: str
	volatile_if: str


def _status(entry: dict, variant: str) -> str:
	statuses = entry.get('statuses')
	if isinstance(statuses, dict) and isinstance(statuses.get(variant), str):
		return statuses[variant]
	v = entry.get(variant)
	if isinstance(v, dict):
		return str(v.get('status', ''))
	return v if isinstance(v, str) else ''


def _walk(node, context: dict, found: list) -> None:
	if isinstance(node, dict):
		context = dict(context, **{k: node[k] for k in ('arch', 'compiler', 'opt')
					  if isinstance(node.get(k), str)})
		if isinstance(node.get('file'), str) and isinstance(node.get('function'), str):
			plain, vif = _status(node, 'if'), _status(node, 'volatile_if')
			if plain or vif:
				found.append((node, context))
				return
		for v in node.values():
			_walk(v, context, found)
	elif isinstance(node, list):
		for v in node:
			_walk(v, context, found)


def load_evidence(paths: Sequence[Path] = EVIDENCE) -> Dict[Tuple[str, str], List[Verdict]]:
	"""(file, function) -> the plain-if and volatile_if verdicts that the
	codegen and survey JSON files give for it."""
	out: Dict[Tuple[str, str], List[Verdict]] = {}
	for path in paths:
		try:
			data = json.loads(Path(path).read_text())
		except (OSError, ValueError):
			continue
		found: List[Tuple[dict, dict]] = []
		_walk(data, {}, found)
		for node, ctx in found:
			out.setdefault((node['file'], node['function']), []).append(Verdict(
				Path(path).name, ctx.get('arch', '?'), ctx.get('compiler', '?'),
				ctx.get('opt', ''), int(node.get('line') or 0),
				_status(node, 'if') or '-', _status(node, 'volatile_if') or '-'))
	return out


# Showing a site.

def source_excerpt(root: Path, site: scan.Site, before: int = 6,
		   after: int = 10) -> str:
	"""The lines around @site, numbered, the lines of its condition marked
	with '>'."""
	try:
		lines = (Path(root) / site.file).read_text(errors='replace').splitlines(keepends=True)
	except OSError:
		return f'  ({site.file} is not below {root})'
	row = site.line - 1
	last = row
	if _CONTROL.match(lines[row] if row < len(lines) else '', site.column):
		last = rewrite.condition_end(lines, row, site.column)[0]
	out = []
	for n in range(max(0, row - before), min(len(lines), last + after + 1)):
		mark = '>' if row <= n <= last else ' '
		out.append(f'{mark}{n + 1:6} {lines[n].rstrip()}'.expandtabs(8))
	return '\n'.join(out)


def describe(root: Path, site: scan.Site, key: str,
	     evidence: Dict[Tuple[str, str], List[Verdict]]) -> str:
	"""Everything a reviewer needs to decide @site."""
	text = [f'{site.file}:{site.line} {site.function}() [{site.idiom}]',
		f'key: {key}', '', source_excerpt(root, site), '',
		f'idiom:      {site.idiom} ({site.action}/{site.confidence})',
		f'message:    {site.message}',
		f'LKMM class: {LKMM_CLASS.get(site.idiom, "unknown")}']
	verdicts = evidence.get((site.file, site.function), [])
	if verdicts:
		text.append('codegen (plain if / volatile_if):')
		for v in sorted(verdicts, key=lambda v: (v.source, v.arch, v.compiler, v.opt)):
			opt = f' {v.opt}' if v.opt else ''
			line = f' (line {v.line})' if v.line and v.line != site.line else ''
			text.append(f'  {v.source}: {v.arch} {v.compiler}{opt}: '
				    f'if {v.plain_if}, volatile_if {v.volatile_if}{line}')
	else:
		text.append('codegen:    no codegen or survey data for this site')
	return '\n'.join(text)


def listing(sp: Split) -> str:
	"""Every report-only site with its decision, and the stale decisions."""
	out = []
	rows = [(s, 'undecided', None) for s in sp.undecided] + \
		[(s, 'accepted', d) for s, d in sp.accepted] + \
		[(s, 'dismissed', d) for s, d in sp.dismissed]
	for s, state, d in sorted(rows, key=lambda r: r[0]):
		out.append(f'{state:9} {s.file}:{s.line} {s.function}() [{s.idiom}]')
		out.append(f'          key: {sp.keys[s]}')
		if d and d.reason:
			out.append(f'          reason: {d.reason}')
	for d, why in sp.stale:
		out.append(f'stale     {d.key} [{d.idiom}] ({d.verdict})')
		out.append(f'          {why}')
	if not out:
		out.append('no report-only sites')
	return '\n'.join(out)


HELP = '''\
a - accept: convert this site to volatile_if (asks why, for the commit message)
d - dismiss: leave it as it is (asks for a one-line reason, for the cover letter)
s - skip: decide later
q - quit; the decisions made so far are written already
? - this help'''


# verdict -> (what to ask, whether an answer is needed)
REASONS = {
	'accepted': ('What does the dependency order (one line, for the '
		     'commit message)? ', False),
	'dismissed': ('Why is it not a control dependency to keep (one line, '
		      'for the cover letter)? ', True),
}


def interactive(root: Path, sp: Split, decisions: Decisions,
		evidence: Dict[Tuple[str, str], List[Verdict]],
		read=input, out: TextIO = sys.stdout) -> Dict[str, int]:
	"""Ask about each undecided site of @sp, writing each answer at once.
	Returns how many sites were accepted, dismissed and skipped."""
	counts = {'accepted': 0, 'dismissed': 0, 'skipped': 0}
	todo = list(sp.undecided)

	def ask(prompt: str) -> str:
		out.flush()
		return read(prompt).strip()

	def reason(verdict: str) -> Optional[str]:
		"""The reason for @verdict (REASONS), asked again while one is
		needed and none given; None at the end of the input."""
		question, needed = REASONS[verdict]
		while True:
			try:
				why = ask(question)
			except EOFError:
				return None
			if why or not needed:
				return why

	for n, s in enumerate(todo, 1):
		key = sp.keys[s]
		print(f'\n({n}/{len(todo)}) ' + describe(root, s, key, evidence), file=out)
		while True:
			try:
				answer = ask(f'({n}/{len(todo)}) Decide this site [a,d,s,q,?]? ').lower()
			except EOFError:
				answer = 'q'
			if answer in ('a', 'd'):
				verdict = 'accepted' if answer == 'a' else 'dismissed'
				why = reason(verdict)
				if why is None:
					return counts
				decisions.decide(key, s.idiom, verdict, why, sp.kernel)
				counts[verdict] += 1
				break
			if answer == 's':
				counts['skipped'] += 1
				break
			if answer == 'q':
				return counts
			print(HELP, file=out)
	return counts


def add_arguments(p) -> None:
	"""The options of the review subcommand, on the argparse parser @p."""
	p.add_argument('--tree', help='the kernel tree to scan (default: '
		       'build/linux-6.1); with --sites, where their files are')
	p.add_argument('--sites', type=Path, metavar='JSON',
		       help='the sites of a "volatile-if scan --json" output '
		       'instead of a scan')
	p.add_argument('--decisions', type=Path, metavar='DIR',
		       help='where the decisions are (default: tool/review, or '
		       '$VOLATILE_IF_REVIEW)')
	what = p.add_mutually_exclusive_group()
	what.add_argument('--list', action='store_true',
			  help='list the report-only sites, their decisions and '
			  'the stale decisions, and ask nothing')
	what.add_argument('--accept', metavar='KEY',
			  help='accept the site KEY (as --list shows it, or file:line)')
	what.add_argument('--dismiss', metavar='KEY',
			  help='dismiss the site KEY; needs --reason')
	p.add_argument('--reason', default='', metavar='TEXT',
		       help='one line: why (for --accept, --dismiss)')


def cmd_review(args) -> int:
	from . import tree
	from .common import DEFAULT_TREE
	if args.reason and not (args.accept or args.dismiss):
		raise Error('--reason goes with --accept or --dismiss')
	if args.sites:
		root, sites = sites_from_json(args.sites)
		root = Path(args.tree or root or DEFAULT_TREE).resolve()
	else:
		root = tree.kernel_tree(args.tree or DEFAULT_TREE)
		sites = scan.scan(root, jobs=args.jobs).sites
	decisions = Decisions(args.decisions)
	sp = split(root, sites, decisions)
	if args.accept or args.dismiss:
		key = args.accept or args.dismiss
		s = find(sp, key)
		d = decisions.decide(sp.keys[s], s.idiom,
				     'accepted' if args.accept else 'dismissed',
				     args.reason, sp.kernel)
		print(f'{d.verdict}: {d.key}')
		return 0
	if args.list or not (sys.stdin.isatty() and sys.stdout.isatty()):
		print(listing(sp))
		return 0
	for d, why in sp.stale:
		print(f'stale: {d.key} [{d.idiom}] ({d.verdict}): {why}')
	if not sp.undecided:
		print(f'Every report-only site is decided ({len(sp.accepted)} '
		      f'accepted, {len(sp.dismissed)} dismissed).')
		return 0
	counts = interactive(root, sp, decisions, load_evidence())
	left = len(sp.undecided) - counts['accepted'] - counts['dismissed']
	print(f'\n{counts["accepted"]} accepted, {counts["dismissed"]} dismissed, '
	      f'{left} left undecided; the decisions are in {decisions.dir}')
	return 0
