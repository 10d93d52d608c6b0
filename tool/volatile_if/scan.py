# SPDX-License-Identifier: GPL-2.0
"""Scan: run every semantic patch of cocci/ over a tree or over files, and
return the sites they report.

Input: a root directory and, optionally, the files below it to look at.
Output: Site records (and the files spatch could not fully parse).

Each C file is parsed once, by one semantic patch made of every rule file
whose filters it passes: the rule's "// Keywords:", and for one rule a
cheap look at the file's if statements (filters()); files that pass none
are not parsed at all.
The files go to spatch in chunks run in parallel, so that progress shows
and a file that crashes spatch costs only itself.
"""

import hashlib
import json
import os
import re
import subprocess
import tempfile
from functools import lru_cache
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import ctext
from .common import COCCI, Error, git_or_none, progress, require

IDIOMS = ('acquire-in-branch', 'acquire-early-exit', 'acquire-loop-exit',
	  'orphan-acquire', 'hoisted-store-hazard', 'documented-ctrl-dep')
MACRO_FILE = COCCI / 'volatile_if.h'
# Files per spatch run.  spatch takes over a second to start (it parses the
# rules and the macro file), some 7 files' worth of parsing in a full-tree
# scan: 100 files keep that under a tenth of the scan.
CHUNK = 100

# <file>:<line>:<col>-<colend>: [<idiom>] <action>/<confidence>: <fn>(): <text>
_REPORT = re.compile(r'^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<column>\d+)-\d+: '
		     r'\[(?P<idiom>[a-z-]+)\] (?P<action>convert|report)/'
		     r'(?P<confidence>high|medium|low): (?P<function>[^()\s]*)\(\): '
		     r'(?P<message>.*)$')
_HANDLING = re.compile(r'^HANDLING: (.*)$')


@dataclass(frozen=True, order=True)
class Site:
	file: str          # relative to the scanned root
	line: int
	column: int        # 0-based, of the if (or loop, barrier) reported
	function: str
	idiom: str
	action: str        # convert | report
	confidence: str    # high | medium | low
	message: str

	def json(self) -> dict:
		return asdict(self)

	def text(self) -> str:
		return f'{self.file}:{self.line}: [{self.idiom}] {self.message}'


@dataclass
class ScanResult:
	root: Path
	sites: List[Site]
	files: int                       # files handed to spatch
	parse_errors: Dict[str, int]     # file -> lines spatch could not parse
	failures: Dict[str, str]         # file -> why spatch failed on it

	def json(self) -> dict:
		counts = {i: sum(1 for s in self.sites if s.idiom == i) for i in IDIOMS}
		return {'root': str(self.root), 'files': self.files,
			'counts': counts,
			'sites': [s.json() for s in self.sites],
			'parse_errors': self.parse_errors,
			'failures': self.failures}


def semantic_patch(rules: Sequence[Path]) -> str:
	"""The rule files @rules as one semantic patch.  Their rule names are
	unique across files; the virtual and #spatch lines they all repeat are
	kept once."""
	if not rules:
		raise Error('no .cocci files to run')
	seen, out = set(), []
	for f in rules:
		for line in f.read_text().splitlines():
			if line.startswith(('virtual ', '#spatch ')):
				if line in seen:
					continue
				seen.add(line)
			out.append(line)
		out.append('')
	return '\n'.join(out)


_KEYWORDS = re.compile(r'^// Keywords: (.*(?:\n//   .*)*)', re.M)


@dataclass(frozen=True)
class Keywords:
	"""What a C file must contain for the rules of a rule file to match in
	it: any of its keywords, case-insensitive, words joined by spaces,
	'_' or '-'."""
	words: Tuple[Tuple[str, ...], ...]

	def search(self, text: str) -> bool:
		low = text.lower()
		# Substring search first: it is what makes a tree-wide pass fast.
		for w in self.words:
			if w[0] in low and (len(w) == 1 or re.search(
					r'[\s_-]*'.join(map(re.escape, w)), low)):
				return True
		return False


def keywords(rule: Path) -> Optional[Keywords]:
	"""The "// Keywords:" header of @rule; None: it has none, and every C
	file is a candidate."""
	m = _KEYWORDS.search(rule.read_text())
	if not m:
		return None
	words = [w.lower().split() for w in re.sub(r'\n//\s*', ' ', m.group(1)).split(',')]
	return Keywords(tuple(tuple(w) for w in words if w))


@dataclass(frozen=True)
class StoresAlike:
	"""What a C file must contain for hoisted-store-hazard.cocci to match
	in it, besides its keywords, which nearly every file has: an if with an
	else whose two legs make a store alike (ctext.ifs_storing_alike()), X =
	V or a call to one of @calls.  Parsing the files is most of a scan's
	time, and this leaves that rule a third of them (in 6.1, 1242 of 3737,
	three fifths of their bytes)."""
	calls: Tuple[str, ...]

	def search(self, text: str) -> bool:
		return bool(ctext.ifs_storing_alike(text, self.calls))


def _stores_alike(rule: Path) -> StoresAlike:
	# The store calls the rule matches in both legs, from its own list.
	m = re.search(r'^identifier ST = \{([^}]*)\};', rule.read_text(), re.M)
	if not m:
		raise Error(f'{rule}: no "identifier ST = {{...}};" list of store '
			    'calls: update scan.StoresAlike to the rule')
	return StoresAlike(tuple(m.group(1).replace(',', ' ').split()))


# Rules with a test of their own, past the keywords, of what the files they
# can match in contain: a cheap superset of the rule's matches, which
# tests/cocci's fixtures check.
_STRUCTURE = {'hoisted-store-hazard': _stores_alike}


def filters(rule: Path) -> tuple:
	"""What a C file must pass, each with a search(text) method, for the
	rules of @rule to be able to match in it; none: every C file."""
	k = keywords(rule)
	structure = _STRUCTURE.get(rule.stem)
	return tuple(f for f in (k, structure and structure(rule)) if f)


def _applicable(root: Path, files: Sequence[str],
		patterns: Sequence[Tuple[str, tuple]]) -> List[Optional[Tuple[str, ...]]]:
	"""For each of @files, the names of the rule files whose filters it
	passes, or None if it cannot be read any more (run in worker
	processes: it reads the whole tree)."""
	out: List[Optional[Tuple[str, ...]]] = []
	for f in files:
		try:
			text = (root / f).read_text(errors='replace')
		except OSError:
			out.append(None)
			continue
		out.append(tuple(name for name, fs in patterns
				 if all(f.search(text) for f in fs)))
	return out


def vanished(f: str) -> None:
	"""Say that @f went away while it was being scanned (a git checkout or
	gc beside the scan): it is skipped, the scan goes on."""
	progress(f'volatile-if: warning: {f}: vanished during the scan, skipped')


def prefilter(root: Path, files: Sequence[str], rules: Sequence[Path],
	      jobs: int, gone: Optional[List[str]] = None
	      ) -> Dict[Tuple[str, ...], List[str]]:
	"""@files grouped by the rule files (by name) that apply to them;
	files no rule applies to are left out, and so are files that cannot
	be read (added to @gone, if given).  This is coccicheck's token
	preselection, done once for all rules, so that a file is parsed only
	with the rules that can match in it."""
	patterns = [(r.name, filters(r)) for r in rules]
	# Small enough for the jobs to share the if test's few seconds evenly.
	chunks = [files[i:i + 250] for i in range(0, len(files), 250)]
	groups: Dict[Tuple[str, ...], List[str]] = {}
	with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
		results = pool.map(_applicable, [root] * len(chunks), chunks,
				   [patterns] * len(chunks))
		for chunk, names in zip(chunks, results):
			for f, applicable in zip(chunk, names):
				if applicable is None and gone is not None:
					gone.append(f)
				elif applicable:
					groups.setdefault(applicable, []).append(f)
	return groups


def parse_report(output: str,
		 root: Path) -> Tuple[List[Site], Dict[str, int]]:
	"""Sites and parse errors out of spatch -D report --quiet output."""
	sites: List[Site] = []
	bad: Dict[str, int] = {}
	current: Optional[str] = None
	for line in output.splitlines():
		m = _REPORT.match(line)
		if m:
			d = m.groupdict()
			sites.append(Site(_relative(d['file'], root), int(d['line']),
					  int(d['column']), d['function'], d['idiom'],
					  d['action'], d['confidence'], d['message']))
			continue
		m = _HANDLING.match(line)
		if m:
			current = _relative(m.group(1).strip(), root)
		elif line.startswith('BAD:!!!!!') and current:
			bad[current] = bad.get(current, 0) + 1
	return sites, bad


def _relative(path: str, root: Path) -> str:
	p = Path(path)
	if p.is_absolute():
		try:
			return str(p.relative_to(root))
		except ValueError:
			return path
	return str(Path(path))


def _git_top(path: Path) -> Optional[Path]:
	"""The top of the git work tree @path is in, or None."""
	top = git_or_none(path, 'rev-parse', '--show-toplevel')
	return Path(top.strip()).resolve() if top is not None else None


def _git_files(top: Path, bases: Sequence[Path]) -> Optional[List[Path]]:
	"""The .c and .h files below @bases that git lists in the work tree
	@top: tracked ones, and untracked ones it does not ignore.  None if
	git cannot list them."""
	specs = []
	for b in bases:
		rel = b.relative_to(top).as_posix()
		specs += [f'*.{e}' if rel == '.' else f'{rel}/*.{e}' for e in 'ch']
	names = git_or_none(top, 'ls-files', '-z', '--cached', '--others',
			    '--exclude-standard', '--', *specs)
	if names is None:
		return None
	return [top / f for f in names.split('\0') if f]


def candidate_files(root: Path, paths: Sequence[Path] = ()) -> List[str]:
	"""The .c and .h files to scan, relative to @root: those below each of
	@paths, or the whole of @root.  In a git work tree the list is git's
	(ls-files: what it tracks, and untracked files it does not ignore;
	never anything under .git); elsewhere every .c and .h file below,
	.git directories left out.  A file named in @paths is scanned
	whether git lists it or not."""
	root = Path(root).resolve()
	found = set()
	dirs = []
	for base in paths or [root]:
		base = Path(base).resolve()
		if not base.exists():
			raise Error(f'{base}: no such file or directory')
		if base.is_file():
			found.add(base)
		else:
			dirs.append(base)
	top = _git_top(root) if dirs else None
	listed = _git_files(top, dirs) if top else None
	if listed is not None:
		# Tracked but deleted in the work tree: not there to scan.
		found.update(p for p in listed if p.is_file())
	else:
		for base in dirs:
			found.update(p for p in base.rglob('*.[ch]')
				     if '.git' not in p.relative_to(base).parts
				     and p.is_file())
	return sorted(str(_relative(str(p), root)) for p in found)


def _spatch(sp_file: Path, root: Path, files: Sequence[str]) -> str:
	with tempfile.NamedTemporaryFile('w', suffix='.groups') as groups:
		# One group per file: files are independent.
		groups.write('\n\n'.join(files) + '\n')
		groups.flush()
		# spatch checks each file for the rules' tokens itself: by default
		# in a git tree with a git grep over the whole tree per file.
		proc = subprocess.run(
			['spatch', '--sp-file', str(sp_file), '-D', 'report',
			 '--no-show-diff', '--quiet', '--parse-error-msg',
			 '--include-headers', '--use-coccigrep',
			 '--no-includes', '--macro-file', str(MACRO_FILE),
			 '--file-groups', groups.name],
			cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
			stderr=subprocess.STDOUT, text=True, errors='replace')
	if proc.returncode:
		raise Error('spatch failed', proc.stdout[-2000:])
	return proc.stdout


@lru_cache(maxsize=None)
def _spatch_version() -> str:
	return subprocess.run(['spatch', '--version'], capture_output=True,
			      text=True).stdout


class Cache:
	"""What spatch found in a file, keyed by everything that decides it:
	the semantic patch, the macro file, spatch's version, and the file's
	path and content.  It lives outside the repository, as ccache does, so
	that a scan after a small change parses only what changed, in any
	clone on the machine.  VOLATILE_IF_CACHE=DIR moves it, =off turns it
	off."""

	def __init__(self, sp_text: str):
		where = os.environ.get('VOLATILE_IF_CACHE',
				       str(Path.home() / '.cache' / 'volatile-if'))
		self.dir = None if where in ('', 'off') else Path(where) / 'scan'
		self.salt = hashlib.sha256('\0'.join(
			(_spatch_version(), MACRO_FILE.read_text(), sp_text)).encode()).digest()
		self.paths: Dict[str, Path] = {}    # file -> entry: get() then put()

	def _path(self, root: Path, f: str) -> Optional[Path]:
		if not self.dir:
			return None
		if f not in self.paths:
			h = hashlib.sha256(self.salt + f.encode() + b'\0')
			h.update((root / f).read_bytes())
			key = h.hexdigest()
			self.paths[f] = self.dir / key[:2] / key
		return self.paths[f]

	def get(self, root: Path, f: str) -> Optional[Tuple[List[Site], int]]:
		path = self._path(root, f)
		if not path or not path.is_file():
			return None
		data = json.loads(path.read_text())
		return [Site(**s) for s in data['sites']], data['bad']

	def put(self, root: Path, f: str, sites: Sequence[Site], bad: int) -> None:
		path = self._path(root, f)
		if path:
			path.parent.mkdir(parents=True, exist_ok=True)
			tmp = path.with_suffix('.tmp')
			tmp.write_text(json.dumps({'sites': [s.json() for s in sites],
						   'bad': bad}))
			os.replace(tmp, path)


def scan(root: Path, files: Optional[Iterable[str]] = None, jobs: int = 2,
	 cocci_dir: Path = COCCI, quiet: bool = False) -> ScanResult:
	"""Run the rules of @cocci_dir on @files (relative to @root; default:
	every .c and .h file below it)."""
	require('spatch', 'coccinelle')
	root = Path(root).resolve()
	files = list(files) if files is not None else candidate_files(root)
	rules = sorted(cocci_dir.glob('*.cocci'))
	gone: List[str] = []
	groups = prefilter(root, files, rules, jobs, gone)
	for f in gone:
		vanished(f)
	if not quiet:
		progress(f'[scan] {sum(map(len, groups.values()))} of {len(files)} '
			 'files have keywords of some rule')
	sites: List[Site] = []
	parse_errors: Dict[str, int] = {}
	failures: Dict[str, str] = {}

	def found(f: str, f_sites: Sequence[Site], bad: int) -> None:
		sites.extend(f_sites)
		if bad:
			parse_errors[f] = bad

	with tempfile.TemporaryDirectory() as tmp:
		tasks = []
		for n, (names, members) in enumerate(sorted(groups.items())):
			sp_file = Path(tmp) / f'rules-{n}.cocci'
			sp_file.write_text(semantic_patch(
				[r for r in rules if r.name in names]))
			cache = Cache(sp_file.read_text())
			todo = []
			for f in members:
				try:
					hit = cache.get(root, f)
				except OSError:
					vanished(f)
					continue
				if hit:
					found(f, *hit)
				else:
					todo.append(f)
			tasks += [(sp_file, cache, todo[i:i + CHUNK])
				  for i in range(0, len(todo), CHUNK)]

		def report_of(sp_file, files):
			"""(files, spatch's report, None), or, where spatch
			failed, (files, '', its last line)."""
			try:
				return files, _spatch(sp_file, root, files), None
			except Error as e:
				return files, '', e.details.strip().splitlines()[-1:]

		def run_chunk(task):
			sp_file, cache, chunk = task
			whole = report_of(sp_file, chunk)
			if whole[2] is None or len(chunk) == 1:
				return cache, [whole]
			# Find the file that breaks spatch; keep the others.
			return cache, [report_of(sp_file, [f]) for f in chunk]

		cached = sum(map(len, groups.values())) - sum(len(t[2]) for t in tasks)
		if not quiet and cached:
			progress(f'[scan] {cached} files unchanged since the last scan')
		with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
			futures = [pool.submit(run_chunk, t) for t in tasks]
			for done, future in enumerate(as_completed(futures), 1):
				cache, results = future.result()
				for chunk, output, failure in results:
					if failure is not None:
						if not (root / chunk[0]).is_file():
							vanished(chunk[0])
							continue
						failures[chunk[0]] = ' '.join(failure) or 'spatch failed'
						continue
					s, bad = parse_report(output, root)
					for f in chunk:
						if not (root / f).is_file():
							vanished(f)
							continue
						f_sites = [x for x in s if x.file == f]
						found(f, f_sites, bad.get(f, 0))
						cache.put(root, f, f_sites, bad.get(f, 0))
				if not quiet and (done % 5 == 0 or done == len(tasks)):
					progress(f'[scan {done}/{len(tasks)}] {len(sites)} sites')
	return ScanResult(root, sorted(set(sites)), len(files), parse_errors, failures)
