# SPDX-License-Identifier: GPL-2.0
"""Survey: does any kernel build lose a control dependency the kernel
relies on?  Every site the rules report on a tree, converted or report-only,
in the kernel objects of each weakly ordered architecture, compiler and
optimisation level, with the verdict of its plain if () and, where the
series converts it, of its volatile_if().

Input: a kernel tree (scanned as it is: the sites) and its series worktree
(pristine + base-patch + generated-patches: the objects).
Output: a cell per (site, function, arch, compiler, opt): the verdicts
(ctrldep.py, as sites.py decides them), the site's LKMM class; the sites
that a configuration does not compile, and why; the sites with no if at
their line (a loop's condition, a lone barrier), which have no verdict.

Each (arch, compiler, opt) is one kernel build: the codegen configuration,
CONFIG_CC_OPTIMIZE_FOR_SIZE for Os, and the Kconfig symbols that the
Makefiles guard the sites' objects with (kbuild.guards()), asked for but
not required: olddefconfig drops those an arch cannot have, and the site
is then "not compiled" there.  ccache makes a rerun cheap, and distcc
(DISTCC_HOSTS, common.ccache_env()) spreads a cold one.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .. import arches, ctext, facts, kbuild, scan, tree
from ..common import Error, progress
from . import corpus, ctrldep, sites

COMPILERS = ('gcc', 'clang', 'clang-19', 'clang-22')
OPTS = {'O2': '', 'Os': 'CONFIG_CC_OPTIMIZE_FOR_SIZE=y\n'}

# The LKMM's view of each idiom's site (review.LKMM_CLASS says it in full).
LKMM = {'acquire-in-branch': 'store in a leg',
	'hoisted-store-hazard': 'store in a leg',
	'acquire-early-exit': 'early exit',
	'acquire-loop-exit': 'loop exit',
	'documented-ctrl-dep': 'documented, no barrier',
	'orphan-acquire': 'no branch'}

@dataclass(frozen=True)
class Target:
	site: scan.Site
	converted: bool     # volatile_if at its line in the series worktree
	compound: str = ''  # facts.Facts.compound: the load in the 'first' or a 'later' operand

	@property
	def lkmm(self) -> str:
		return LKMM.get(self.site.idiom, '?')

	def json(self) -> dict:
		return dict(self.site.json(), lkmm=self.lkmm,
			    converted=self.converted)


@dataclass
class Cell:
	target: Target
	arch: str
	compiler: str
	opt: str
	symbol: str                             # the machine function
	plain: ctrldep.Verdict            # if ()
	volatile: Optional[ctrldep.Verdict] = None

	def json(self) -> dict:
		return {'file': self.target.site.file, 'line': self.target.site.line,
			'function': self.target.site.function, 'symbol': self.symbol,
			'idiom': self.target.site.idiom, 'lkmm': self.target.lkmm,
			'compound': self.target.compound,
			'arch': self.arch, 'compiler': self.compiler, 'opt': self.opt,
			'if': self.plain.json(),
			'volatile_if': self.volatile and self.volatile.json()}


@dataclass
class Survey:
	tree: str
	arches: List[str]
	compilers: List[str]
	opts: List[str]
	targets: List[Target]
	skipped: List[Tuple[scan.Site, str]]          # no verdict, and why
	cells: List[Cell] = field(default_factory=list)
	# (target, arch, compiler, opt, why) where it is not compiled
	not_compiled: List[Tuple[Target, str, str, str, str]] = \
		field(default_factory=list)

	def json(self) -> dict:
		return {'tree': self.tree, 'arches': self.arches,
			'compilers': self.compilers, 'opts': self.opts,
			'sites': [t.json() for t in self.targets],
			'skipped': [dict(s.json(), why=w) for s, w in self.skipped],
			'cells': [c.json() for c in self.cells],
			'not_compiled': [{'file': t.site.file, 'line': t.site.line,
					  'arch': a, 'compiler': c, 'opt': o,
					  'why': w}
					 for t, a, c, o, w in self.not_compiled]}


def targets(worktree: Path, found: Sequence[scan.Site], scanned: str
	    ) -> Tuple[Dict[Target, sites.Region], List[Tuple[scan.Site, str]]]:
	"""The sites of @found, scanned at commit @scanned, that have an if at
	their line in @worktree (where the series has moved it: a conversion
	that splits a condition adds lines), with the region it orders, and
	those that do not, with why."""
	out, skipped = {}, []
	sources: Dict[str, str] = {}
	moved: Dict[str, Callable[[int], int]] = {}
	for s in sorted(set(found)):
		if s.file not in sources:
			sources[s.file] = (worktree / s.file).read_text(errors='replace')
			moved[s.file] = tree.line_after(worktree, scanned, s.file)
		line = moved[s.file](s.line)
		lines = sources[s.file].splitlines()
		m = sites.IF.search(lines[line - 1] if line <= len(lines) else '')
		if not m:
			skipped.append((s, 'no if at its line: a loop condition or '
					'a lone barrier, which volatile_if does not take'))
			continue
		try:
			region = sites.region(sources[s.file], line)
		except Error as e:
			skipped.append((s, str(e)))
			continue
		try:
			compound = facts.site_facts(sources[s.file], line, s.column,
						    s.idiom).compound
		except ctext.CTextError:
			compound = ''
		out[Target(s, bool(m.group(1)), compound)] = region
	return out, skipped


def require_tools(arch_names: Sequence[str], compilers: Sequence[str],
		  opts: Sequence[str]) -> None:
	"""An Error, before any work, for an unknown opt level or compiler, or
	one that is not installed."""
	for o in opts:
		if o not in OPTS:
			raise Error(f'unknown optimisation level {o}: give '
				    f'{" or ".join(OPTS)}')
	kbuild.require_compilers(arch_names, compilers)


def build(worktree: Path, arch: arches.Arch, compiler: str, opt: str,
	  objects: Sequence[str]) -> kbuild.KernelBuild:
	"""The survey build of @arch, @compiler and @opt: the codegen
	configuration, the opt level's option (required) and the symbols that
	guard @objects (wanted), prepared."""
	wanted = sorted({c for o in objects for c in kbuild.guards(worktree, o)})
	return kbuild.check_build(worktree, arch, compiler, f'survey-{opt}',
				  OPTS[opt], wanted).prepare()


def _cells(arch: arches.Arch, compiler: str, opt: str,
	   objects: Dict[str, sites._Object], t: Target,
	   region: sites.Region) -> List[Cell]:
	"""The cells of @t: one per function of the plain if ()'s object that
	has code of its condition, as it or as volatile_if() (a select may
	leave none), and does not call the site (sites.calls_site()).  Unlike
	a converted site's (sites.py), a plain if whose branches test no load
	is unknown, not broken."""
	out = []
	plain, conv = objects['if'], objects['volatile_if']
	file = t.site.file
	here = {v: o.with_site(file, region) for v, o in objects.items()}
	for name in sorted(set(conv.functions_at(file, region.condition)) |
			   set(plain.functions_at(file, region.condition))):
		if name not in plain.obj.functions or \
		   sites.calls_site(here['if'], name):
			continue
		v, found, tested, _ = plain.verdict(name, file, region, False)
		if found and not tested:
			# The branch tests a local set elsewhere or the value of a
			# function of another object: the load is out of this if's
			# reach, which is the source's shape (review decides it),
			# not a miscompile.
			v.status, v.why = 'unknown', 'its branches test no load of ' \
				'this function or of the functions of its object it ' \
				'calls: a local set elsewhere, or the value of a call ' \
				'to another object'
		if v.status == 'broken' and not found and not v.stores:
			# No branch, and no store the line table gives to the
			# site: the compiler made the if a select and its stores
			# carry the lines of the function they were inlined into.
			v.status, v.why = 'unknown', 'no conditional branch at the ' \
				'condition (a select?), and no store with the lines it ' \
				'orders: read the disassembly'
		elif v.status == 'broken' and t.compound == 'later':
			v.status = SHORT
			v.why = 'the load is in a later operand of the condition\'s ' \
				'&& or ||: where an earlier one decides, the source ' \
				f'orders nothing after it; {v.why}'
		cell = Cell(t, arch.name, compiler, opt, name, v)
		if t.converted and name in conv.obj.functions and \
		   not sites.calls_site(here['volatile_if'], name):
			cell.volatile = conv.verdict(name, file, region,
						     True).verdict
		out.append(cell)
	return out


def run(worktree: Path, found: Sequence[scan.Site], scanned: str, *,
	arch_names: Sequence[str] = sites.WEAK,
	compilers: Sequence[str] = COMPILERS,
	opts: Sequence[str] = tuple(OPTS)) -> Survey:
	"""Survey @found (scan's sites of the tree at commit @scanned) in the
	objects of @worktree (its series worktree)."""
	require_tools(arch_names, compilers, opts)
	regions, skipped = targets(worktree, found, scanned)
	survey = Survey(worktree.name, list(arch_names), list(compilers),
			list(opts), list(regions), skipped)
	by_object: Dict[str, List[Target]] = {}
	for t in regions:
		by_object.setdefault(kbuild.object_for(worktree, t.site.file),
				     []).append(t)
	report = sites.SiteReport(list(arch_names), list(compilers), [])
	for arch_name in arch_names:
		arch = arches.get(arch_name)
		for compiler in compilers:
			for opt in opts:
				b = build(worktree, arch, compiler, opt, list(by_object))
				for n, (obj, group) in enumerate(sorted(by_object.items()), 1):
					progress(f'[survey {arch_name} {compiler} {opt}] '
						 f'{n}/{len(by_object)} {obj}')
					if not b.enables(obj):
						why = 'not enabled: ' + ', '.join(
							c for c in kbuild.guards(worktree, obj)
							if not b.has(c))
						survey.not_compiled += [(t, arch_name, compiler, opt, why)
									for t in group]
						continue
					try:
						objects = sites.compile_object(b, obj, ('if',), report)
						if 'if' not in objects:
							raise Error(sites.failure(report.failed[-1]))
					except Error as e:
						why = corpus.compile_error(e)
						survey.not_compiled += [(t, arch_name, compiler, opt, why)
									for t in group]
						continue
					for t in group:
						cells = _cells(arch, compiler, opt, objects, t, regions[t])
						if not cells:
							survey.not_compiled.append(
								(t, arch_name, compiler, opt,
								 'no function has code of its condition '
								 '(configured out, or dead code)'))
						survey.cells += cells
	return survey


# The page: tool/docs/survey.md, from the JSON (scripts/bench-survey).

# A plain if that would be broken, but whose load is in a later operand of
# && or ||: on the paths where an earlier operand decides, the source itself
# makes the stores without testing the load, as any C compiler must allow.
SHORT = 'short-circuit'
STATUSES = ('guaranteed', 'compiler', 'dep', 'pred', 'broken', SHORT, 'none',
	    'unknown')


def brief(data: dict) -> dict:
	"""@data (Survey.json()) with the stores of a verdict kept only where
	they are not ordered, so that the JSON stays small enough to commit."""
	for cell in data['cells']:
		for k in ('if', 'volatile_if'):
			v = cell[k]
			if not v:
				continue
			v.pop('loads', None)
			v['stores'] = [s for s in v['stores']
				       if s['status'] not in ('guaranteed', 'compiler')][:5]
	return data


def _where(c: dict) -> str:
	return f'{c["file"]}:{c["line"]} {c["symbol"]}()'


def builds(data: dict) -> List[Tuple[str, str, str]]:
	"""The (arch, compiler, opt) builds of one tree's survey that ran: each
	gives every site a cell or a not-compiled entry."""
	ran = {(c['arch'], c['compiler'], c['opt'])
	       for c in data['cells'] + data['not_compiled']}
	return [(a, cc, o) for a in data['arches'] for cc in data['compilers']
		for o in data['opts'] if (a, cc, o) in ran]


def merge(old: dict, new: dict) -> dict:
	"""@new's cells and not-compiled entries replace @old's of the same
	builds; the rest of @old stays.  The entries are in the order of their
	builds, as a run of them all gives them, so that a rerun in parts
	changes survey.json only where its cells do."""
	def build(c: dict) -> Tuple[str, str, str]:
		return c['arch'], c['compiler'], c['opt']
	done = {build(c) for c in new['cells'] + new['not_compiled']}
	for k in ('arches', 'compilers', 'opts'):
		new[k] = list(dict.fromkeys(old[k] + new[k]))
	for part in ('cells', 'not_compiled'):
		new[part] = [c for c in old[part] if build(c) not in done] + new[part]
	order = {b: n for n, b in enumerate(builds(new))}
	for part in ('cells', 'not_compiled'):
		new[part].sort(key=lambda c: order[build(c)])
	return new


def changes(old: dict, new: dict) -> List[str]:
	"""What a survey run changed: a line for each cell of @new (results:
	survey.json) whose verdicts differ from @old's cell of the same
	tree, site, function and build, or that @old has not while it has
	the build, and a last line that counts them and the cells whose
	longest path changed."""
	def key(tree: str, c: dict) -> tuple:
		return (tree, c['file'], c['line'], c['symbol'], c['arch'],
			c['compiler'], c['opt'])

	def status(c: dict, v: str) -> str:
		return c[v]['status'] if c[v] else '-'
	before = {key(t, c): c for t, d in old.get('trees', {}).items()
		  for c in d['cells']}
	had = {(t, *b) for t, d in old.get('trees', {}).items()
	       for b in builds(d)}
	lines, paths = [], 0
	for t, d in new['trees'].items():
		for c in d['cells']:
			k = key(t, c)
			where = f'{t} {_where(c)} {c["arch"]} {c["compiler"]} {c["opt"]}'
			was = before.get(k)
			if was is None:
				if (t, c['arch'], c['compiler'], c['opt']) in had:
					lines.append(f'{where}: new')
				continue
			moved = [f'{v} {status(was, v)} -> {status(c, v)}'
				 for v in ('if', 'volatile_if')
				 if status(was, v) != status(c, v)]
			if moved:
				lines.append(f'{where}: ' + ', '.join(moved))
			elif any(c[v] and was[v] and c[v]['path'] != was[v]['path']
				 for v in ('if', 'volatile_if')):
				paths += 1
	return lines + [f'{len(lines)} cells changed their verdicts, '
			f'{paths} more their longest path']


def _compiler_only(data: dict) -> List[str]:
	"""The plain-if cells ordered only by the compiler's own branch, a row
	per site and function, with the builds where that is so."""
	rows: Dict[str, Dict[str, List[str]]] = {}
	order = {b: n for n, b in enumerate(builds(data))}
	for c in sorted(data['cells'], key=lambda c: order[
			(c['arch'], c['compiler'], c['opt'])]):
		if c['if']['status'] == 'compiler':
			rows.setdefault(f'{_where(c)} | {c["idiom"]} ({c["lkmm"]})',
					{}).setdefault(c['arch'], []).append(
				f'{c["compiler"]} {c["opt"]}')
	if not rows:
		return []
	return ['', '### Plain if () cells ordered only by the compiler\'s own '
		'branch', '',
		'Nothing in the source makes the compiler branch on the load '
		'there: another version, option or inlining decision may not.  '
		'The converted sites among them are what volatile_if() makes '
		'guaranteed.', '',
		'| site | idiom (LKMM) | builds |', '|---|---|---|'] + \
		[f'| {k} | ' + '; '.join(f'{a}: {", ".join(v)}'
					 for a, v in by_arch.items()) + ' |'
		 for k, by_arch in sorted(rows.items())]


def tree_page(data: dict) -> List[str]:
	"""The section of one tree's survey (brief()'s JSON)."""
	cells = data['cells']
	converted = sum(1 for s in data['sites'] if s['converted'])
	out = [f'## {data["tree"]}', '',
	       f'{len(data["sites"]) + len(data["skipped"])} sites reported by '
	       f'the rules: {len(data["sites"])} with an if at their line '
	       f'({converted} converted by the series, '
	       f'{len(data["sites"]) - converted} report-only), '
	       f'{len(data["skipped"])} without (no verdict).  '
	       f'{len(cells)} cells (site x function x arch x compiler x opt).', '',
	       '| arch | cc | opt | cells | ' +
	       ' | '.join(f'if: {s}' for s in STATUSES) +
	       ' | volatile_if: guaranteed / cells | not compiled |',
	       '|' + '---|' * (len(STATUSES) + 6)]
	for a, cc, o in builds(data):
		mine = [c for c in cells if (c['arch'], c['compiler'], c['opt'])
			== (a, cc, o)]
		vif = [c for c in mine if c['volatile_if']]
		nc = sum(1 for x in data['not_compiled']
			 if (x['arch'], x['compiler'], x['opt']) == (a, cc, o))
		out.append(f'| {a} | {cc} | {o} | {len(mine)} | ' + ' | '.join(
			str(sum(1 for c in mine if c['if']['status'] == s))
			for s in STATUSES) + ' | ' +
			f'{sum(1 for c in vif if c["volatile_if"]["status"] == "guaranteed")}'
			f' / {len(vif)} | {nc} |')
	odd = [c for c in cells if c['if']['status'] not in ('compiler', 'guaranteed')
	       or (c['volatile_if'] and c['volatile_if']['status'] != 'guaranteed')]
	out += ['', '### Cells not ordered by a branch on the load', '']
	if not odd:
		out.append('None: every plain if () is ordered by the compiler\'s '
			   'own branch (or a barrier), and every volatile_if() is '
			   'guaranteed.')
	else:
		out += ['| site | idiom (LKMM) | arch | cc | opt | if | volatile_if | why |',
			'|---|---|---|---|---|---|---|---|']
		for c in odd:
			v = c['volatile_if']
			bad = c['if']['stores'] or (v or {}).get('stores') or []
			why = '; '.join(f'{k}: {x["why"]}' for k, x in
					(('if', c['if']), ('volatile_if', v))
					if x and x['why'])
			if bad:
				why += f' (first: `{bad[0]["insn"]}` at {bad[0]["addr"]})'
			out.append(f'| {_where(c)} | {c["idiom"]} ({c["lkmm"]}) | '
				   f'{c["arch"]} | {c["compiler"]} | {c["opt"]} | '
				   f'{c["if"]["status"]} | {v["status"] if v else "-"} | '
				   f'{why.strip()} |')
	out += _compiler_only(data)
	if data['not_compiled']:
		out += ['', '### Not compiled', '',
			'| site | arch | cc | opt | why |', '|---|---|---|---|---|']
		out += [f'| {x["file"]}:{x["line"]} | {x["arch"]} | {x["compiler"]} | '
			f'{x["opt"]} | {x["why"]} |' for x in data['not_compiled']]
	if data['skipped']:
		out += ['', '### Sites without a verdict', '']
		out += [f'- {x["file"]}:{x["line"]} {x["function"]}() [{x["idiom"]}]: '
			f'{x["why"]}' for x in data['skipped']]
	return out


def page(results: dict) -> str:
	"""tool/docs/survey.md from survey.json (scripts/bench-survey)."""
	times = [b['seconds'] for b in results['builds'].values()]
	# a build made again keeps only the command that made it last
	commands = '; '.join(f'`{c}`' for c in dict.fromkeys(
		b['command'] for b in results['builds'].values()))
	out = ['# Survey: does a kernel build lose a control dependency?', '',
	       f'Generated by {commands} from [survey.json](survey.json); '
	       'do not edit.  Compilers: ' +
	       '; '.join(f'{k}: {v}' for k, v in results['toolchains'].items()) + '.',
	       '',
	       'Every site the rules of cocci/ report on the tree, converted or '
	       'report-only, is looked for in the kernel objects of each build: '
	       'defconfig + check.config, CONFIG_CC_OPTIMIZE_FOR_SIZE for Os, and '
	       'the Kconfig symbols that the Makefiles guard the sites\' objects '
	       'with.  The **if** columns are the plain `if ()` (the object '
	       'compiled with volatile_if defined back to if), the **volatile_if** '
	       'column the converted sites as the series leaves them.  Verdicts '
	       'as in [codegen.md](codegen.md): **compiler** is ordered only by '
	       'the compiler\'s own branch on the load; **guaranteed** (plain if) '
	       'by a barrier or an acquire; **dep**, **pred**: only by a data '
	       'dependency or an arm condition code; **broken**: a store can '
	       'become visible before the load; **none**: no store, call or '
	       'return to order in that function.', '',
	       f'Wall time: {len(times)} builds (tree, arch, compiler, opt) in '
	       f'{sum(times) / 60:.0f} min, {sum(times) / max(len(times), 1):.0f} s '
	       'per build on average (each in survey.json, "builds"), on the '
	       'machine and ccache the command ran with.', '',
	       'What the disassembly shows where a cell is not ordered by a branch '
	       'and its `why` does not say it all: [survey-findings.md]'
	       '(survey-findings.md), written by hand.', '',
	       '![plain if () verdicts per build](survey.svg)', '']
	for name, data in sorted(results['trees'].items()):
		out += tree_page(data) + ['']
	return '\n'.join(out)
