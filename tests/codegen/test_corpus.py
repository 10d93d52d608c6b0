# SPDX-License-Identifier: GPL-2.0
"""The corpus (tests/codegen/*.c) and the committed results of
scripts/bench-codegen (unit: tool/docs/codegen.json, the page made from it,
the figures base-patch gives of it); then a slice of the matrix and the
KUnit sites compiled by gcc and clang now (slow)."""

import importlib.machinery
import importlib.util
import json
import re
import textwrap
from pathlib import Path

import pytest

from volatile_if import arches, common, series, tree
from volatile_if.codegen import corpus, sites
from volatile_if.common import GENERATED_PATCHES, Error


@pytest.mark.unit
def test_functions_inlined_by_if_only_are_on_the_page_until_rerun():
	"""bench-codegen lists them per site and build, with the variants
	that inline the site there too; a rerun of a build replaces what the
	earlier run listed for it, but for the variants it did not compile,
	and leaves the other builds alone."""
	bench = _bench_codegen()
	def only(function, arch, compiler='gcc', **inlined):
		return {'file': 'k/s.c', 'line': 9, 'function': function,
			'arch': arch, 'compiler': compiler, 'inlined': inlined}
	def failed(arch):
		return {'object': 'k/s.o', 'arch': arch, 'compiler': 'gcc',
			'variant': 'rfc', 'why': 'error: x'}
	results = {'sites': {'arches': ['arm64', 'arm'], 'missing': [],
			     'failed': [failed('arm64'), failed('arm')],
			     'sites': [],
			     'only_if': [only('a', 'arm64', bool=True, rfc=False),
					 only('b', 'arm64', bool=True, rfc=False),
					 only('a', 'arm'),
					 only('a', 'arm64', 'clang', rfc=True)]}}
	lines = bench.only_if(results['sites'])
	assert '- `k/s.c:9` (arm64 gcc): a(), b(); also: ' \
		'v2, condition in a bool, no check' in lines
	assert '- `k/s.c:9` (arm gcc): a(); also: none' in lines
	assert '- `k/s.c:9` (arm64 clang): a(); also: ' \
		'RFC (bool, fixed branch)' in lines
	bench.merge_sites(results, {'arches': ['arm64'], 'compilers': ['gcc'],
				    'missing': [], 'failed': [], 'sites': [],
				    'only_if': [only('a', 'arm64', rfc=True)]})
	assert results['sites']['only_if'] == [
		only('a', 'arm'), only('a', 'arm64', 'clang', rfc=True),
		only('a', 'arm64', bool=True, rfc=True)]
	assert results['sites']['failed'] == [failed('arm')]
	bench.drop_stale_sites(results, [sites.Site('k/t.c', 9, 'x')])
	assert results['sites']['only_if'] == [] == bench.only_if(results['sites'])


@pytest.mark.unit
def test_page_names_each_command_once():
	"""A rerun with --keep or --corpus adds its command to those that made
	codegen.json, unless it is one of them."""
	also = _bench_codegen().also
	assert also('scripts/bench-codegen', 'scripts/bench-codegen --corpus') \
		== 'scripts/bench-codegen; scripts/bench-codegen --corpus'
	assert also('a; b', 'b') == 'a; b'
	assert also('a; b', 'a') == 'a; b'


@pytest.mark.unit
def test_corpus_cases():
	cases = corpus.cases()
	names = [k.name for k in cases]
	assert len(names) == len(set(names))
	tags = {t for k in cases for t in k.tags}
	assert tags == {'depends', 'if-breaks', 'constant', 'far', 'hint'}
	for k in cases:
		assert ('depends' in k.tags) != ('constant' in k.tags), k
	# a compile error is the verdict of a whole file: a constant case
	# has its file to itself
	for k in cases:
		if 'constant' in k.tags:
			assert [x.name for x in cases if x.file == k.file] == [k.name]


@pytest.mark.unit
def test_compile_error_line():
	clang = Error('compiling x.c failed (exit 1)', textwrap.dedent("""\
		/t/tests/codegen/constant_or.c:14:2: error: call to __compiletime_assert_9 declared with 'error' attribute: volatile_cond() with a constant condition
		        volatile_if (q || 1 > 0)
		        ^
		1 error generated."""))
	assert corpus.compile_error(clang).startswith('/t/tests/codegen/constant_or.c:14:2: error: call')
	assert corpus.compile_error(Error('x failed', '')) == 'x failed'


@pytest.fixture(scope='module')
def codegen_tree(test_tree):
	"""The series worktree of the tests.  Not corpus.default_tree(): a
	test run would reset that under a running scripts/bench-codegen
	whenever the patches have changed."""
	return test_tree


# The suite's slice of scripts/bench-codegen's matrix, whose committed
# results (tool/docs/codegen.json) are checked below: gcc on every
# architecture, whose check builds test_cross_compile has prepared, and
# clang on arm64 and arm, where clang breaks every if-breaks case.  Each
# other clang build would cost a cold kernel prepare.
CLANG_SLICE = ('arm64', 'arm')


def _slice(worktree: Path, variants) -> list:
	def build(arch, compiler):
		return corpus.kernel_build(worktree, arches.get(arch), compiler)
	return [corpus.run(arches.CODEGEN_ARCHES, ['gcc'], variants, build=build),
		corpus.run(CLANG_SLICE, ['clang'], variants, build=build)]


def _matrix_holds(cases: dict, cells: list) -> None:
	"""What the corpus shows, on @cells (case, arch, compiler, variant,
	status, why) of @cases (name -> tags): volatile_if is guaranteed
	wherever the condition depends on the load, the far leg included; the
	cases the compilers break with if () are broken somewhere; a constant
	condition does not compile with volatile_if and gcc, and is broken on
	the weakly ordered architectures (no branch at all) with if (), and
	with volatile_if and clang, which has no check; on TSO it is ordered,
	by the compiler's order of the accesses or by volatile_if's barrier."""
	constant = {k for k, tags in cases.items() if 'constant' in tags}
	assert constant
	assert not [c for c in cells if c[4] == 'error' and c[0] not in constant]
	wrong = [c for c in cells if 'depends' in cases[c[0]] and
		 c[3] == 'volatile_if' and c[4] != 'guaranteed']
	assert not wrong
	for k, tags in cases.items():
		if 'if-breaks' in tags:
			assert any(c[4] == 'broken' for c in cells
				   if c[0] == k and c[3] == 'if'), k
		if 'constant' in tags:
			for c in cells:
				if c[0] != k:
					continue
				tso = arches.get(c[1]).tso
				if c[3] == 'volatile_if' and c[2] == 'gcc':
					assert c[4] == 'error' and 'constant' in c[5], c
				elif c[3] == 'volatile_if':
					assert c[4] == ('guaranteed' if tso else 'broken'), c
				else:
					assert c[4] == ('compiler' if tso else 'broken'), c


def _hints_hold(cases: list, cells: list) -> None:
	"""likely() and unlikely() reach volatile_if's branch: on @cells (case,
	arch, compiler, variant, cold_leg_last) of @cases, every hint case
	lays out its cold leg after the hot path's return on every weakly
	ordered architecture (x86's returns are jumps to a thunk, which
	cold_leg_after_return() does not look for)."""
	hint = {k.name for k in cases if 'hint' in k.tags}
	assert hint
	got = {c[:3]: c[4] for c in cells
	       if c[0] in hint and c[3] == 'volatile_if'}
	weak = {c for c in got if not arches.get(c[1]).tso}
	assert weak and {c for c in got if got[c] is not None} == weak
	assert all(got[c] for c in weak), got


@pytest.mark.slow
def test_matrix(codegen_tree):
	"""Plain if and volatile_if, the slice above, compiled now."""
	runs = _slice(codegen_tree, corpus.CHECKED)
	for m in runs:
		print(m.text())
	_matrix_holds({k.name: k.tags for k in corpus.cases()},
		      [(c.case, c.arch, c.compiler, c.variant, c.verdict.status,
			c.verdict.why) for m in runs for c in m.cells])
	for m in runs:
		_hints_hold(m.cases, [(c.case, c.arch, c.compiler, c.variant,
				       c.cold_leg_last) for c in m.cells])


@pytest.mark.slow
def test_one_asm_is_not_enough_on_arm(codegen_tree):
	"""What base-patch 0001 says of an asm in the taken leg alone: gcc and
	clang for 32-bit ARM then execute a store of the other leg as a
	conditional STR, with no branch before it."""
	m = corpus.run(['arm'], corpus.COMPILERS, ['then-asm'],
		       build=lambda a, c: corpus.kernel_build(
			       codegen_tree, arches.get(a), c))
	for compiler in corpus.COMPILERS:
		stores = [s.text for c in m.cells if c.compiler == compiler and
			  c.verdict.status == 'pred'
			  for s in c.verdict.stores if s.status == 'pred']
		assert any(re.match(r'str(eq|ne)\s', x) for x in stores), \
			(compiler, m.text())


@pytest.mark.slow
def test_clang_loses_the_hint_of_a_bool(codegen_tree):
	"""Why, built with clang, volatile_cond() branches on the condition as
	written (base-patch 0001): kept in a bool ('bool'), the value loses
	clang 14 the unlikely() of unlikely_leg, and on arm64 the likely() of
	likely_leg too: it no longer lays out their cold leg after the hot
	path's return.  The branch is still the one volatile_if requires."""
	m = corpus.run(CLANG_SLICE, ['clang'], ['bool'],
		       build=lambda a, c: corpus.kernel_build(
			       codegen_tree, arches.get(a), c))
	tags = {k.name: k.tags for k in m.cases}
	assert not [c for c in m.cells if 'depends' in tags[c.case] and
		    c.verdict.status != 'guaranteed']
	for a in CLANG_SLICE:
		kept = [c.case for c in m.cells if c.arch == a and c.cold_leg_last]
		assert kept == (['likely_leg'] if a == 'arm' else []), (a, kept)


@pytest.mark.unit
def test_no_kunit_sites_without_the_test(tmp_path):
	"""A tree whose volatile_if() came without base-patch's KUnit test:
	the series' sites alone, not a traceback."""
	assert sites.kunit_sites(tmp_path) == []
	(tmp_path / sites.KUNIT_FILE).parent.mkdir(parents=True)
	(tmp_path / sites.KUNIT_FILE).write_text(
		f'static void {sites.KUNIT_FUNCTIONS[0]}(int *a)\n{{\n'
		'\tvolatile_if (READ_ONCE(*a))\n')
	assert [s.line for s in sites.kunit_sites(tmp_path)] == [3]


@pytest.mark.slow
def test_kunit_sites(codegen_tree):
	"""base-patch's litmus sites are guaranteed in the objects of the
	four weakly ordered architectures with gcc, and of CLANG_SLICE with
	clang (all four: tool/docs/codegen.json)."""
	kunit = sites.kunit_sites(codegen_tree)
	assert len(kunit) == len(sites.KUNIT_FUNCTIONS)
	reports = [sites.analyse(codegen_tree, kunit, compilers=['gcc']),
		   sites.analyse(codegen_tree, kunit, arch_names=CLANG_SLICE,
				 compilers=['clang'])]
	results = [r for report in reports for r in report.results]
	for report in reports:
		print(report.text())
		assert not report.missing
	got = {(r.site, r.arch, r.compiler) for r in results}
	assert got == {(s, a, 'gcc') for s in kunit for a in sites.WEAK} | \
		{(s, a, 'clang') for s in kunit for a in CLANG_SLICE}
	assert all(r.verdict.status == 'guaranteed' for r in results), \
		[(r.site, r.arch, r.compiler, r.verdict.why) for r in results
		 if r.verdict.status != 'guaranteed']


# The committed results of scripts/bench-codegen, all of its matrix.

DOCS = Path(__file__).resolve().parents[2] / 'tool' / 'docs'


def _bench_codegen():
	"""scripts/bench-codegen, which makes the page, as a module."""
	loader = importlib.machinery.SourceFileLoader(
		'bench_codegen', str(DOCS.parents[1] / 'scripts' / 'bench-codegen'))
	module = importlib.util.module_from_spec(
		importlib.util.spec_from_loader(loader.name, loader))
	loader.exec_module(module)
	return module


@pytest.fixture(scope='module')
def committed():
	return json.loads((DOCS / 'codegen.json').read_text())


@pytest.mark.unit
def test_committed_page_is_made_from_the_json(committed):
	assert (DOCS / 'codegen.md').read_text() == \
		_bench_codegen().page(committed) + '\n'


@pytest.mark.unit
def test_committed_matrix_is_of_the_corpus_and_holds(committed):
	m = committed['matrix']
	assert m['cases'] == {k.name: {'file': k.file, 'tags': list(k.tags)}
			      for k in corpus.cases()}
	assert set(m['arches']) == set(arches.CODEGEN_ARCHES)
	assert m['compilers'] == list(_bench_codegen().COMPILERS)
	cells = [(c['case'], c['arch'], c['compiler'], c['variant'],
		  c['status'], c['why']) for c in m['cells']]
	assert {c[:4] for c in cells} == {
		(k, a, c, v) for k in m['cases'] for a in m['arches']
		for c in m['compilers'] for v in m['variants']}
	_matrix_holds({k: v['tags'] for k, v in m['cases'].items()},
		      [c for c in cells if c[3] in corpus.CHECKED])
	_hints_hold(corpus.cases(), [
		(c['case'], c['arch'], c['compiler'], c['variant'],
		 c.get('cold_leg_last')) for c in m['cells']])


@pytest.mark.unit
def test_committed_sites_are_the_series_and_guaranteed(committed):
	"""Every site generated-patches/6.1 converts, and base-patch's litmus
	sites, on the four weakly ordered architectures and every compiler;
	volatile_if guaranteed at each."""
	s = committed['sites']
	assert not s['missing'] and not s['failed']
	converted = {(x.file, x.line) for p in tree.series(GENERATED_PATCHES)
		     for x in sites.patch_sites(p)}
	kunit = {x['function'] for x in s['sites']
		 if x['origin'].startswith('base-patch')}
	assert kunit == set(sites.KUNIT_FUNCTIONS)
	cells = {}
	for x in s['sites']:
		where = x['function'] if x['function'] in kunit else \
			(x['file'], x['line'])
		cells.setdefault(where, set()).add((x['arch'], x['compiler']))
	assert set(cells) == converted | kunit
	every = {(a, c) for a in sites.WEAK for c in _bench_codegen().COMPILERS}
	assert all(got == every for got in cells.values()), cells
	bad = [(x['file'], x['line'], x['arch'], x['compiler'])
	       for x in s['sites'] if x['volatile_if']['status'] != 'guaranteed']
	assert not bad


@pytest.mark.unit
def test_cost_split_by_what_the_plain_if_made():
	m = {'cells': [
		{'case': 'a', 'arch': 'arm', 'compiler': 'gcc', 'variant': 'if',
		 'status': 'compiler'},
		{'case': 'b', 'arch': 'arm', 'compiler': 'gcc', 'variant': 'if',
		 'status': 'pred'},
		{'case': 'c', 'arch': 'arm', 'compiler': 'gcc', 'variant': 'if',
		 'status': 'guaranteed'}]}
	costs = {'arm': {'gcc': {'volatile_if': {
		'a': {'path': 0, 'insns': 2}, 'b': {'path': 1, 'insns': 3},
		'c': {'path': -1, 'insns': 0}}}}}
	table = _bench_codegen().by_plain_if(m, costs, [('arm', 'gcc')])
	assert table[-2] == '| arm | gcc | 2 | path -0.5 / +0; size +1 / +2 ' \
		'| 1 | path +1 / +1; size +3 / +3 |'


@pytest.mark.unit
def test_merged_sites_keep_only_the_variants_not_rerun():
	"""A rerun's `not here` is not overwritten by the earlier run's
	numbers; variants the rerun did not compile are kept."""
	def site(statuses, insns):
		return {'file': 'a.c', 'line': 1, 'arch': 'arm64',
			'compiler': 'gcc', 'function': 'h',
			'variants': dict(insns), 'paths': dict(insns),
			'statuses': statuses}
	results = {'sites': {'arches': ['arm64'], 'missing': [], 'failed': [],
			     'only_if': [],
			     'sites': [site({'volatile_if': 'guaranteed',
					     'if': 'broken', 'rfc': 'guaranteed'},
					    {'volatile_if': 9, 'if': 4, 'rfc': 12})]}}
	report = {'arches': ['arm64'], 'compilers': ['gcc'], 'missing': [],
		  'failed': [], 'only_if': [], 'sites': [site({'volatile_if': 'guaranteed',
				  'if': sites.NOT_HERE}, {'volatile_if': 9})]}
	_bench_codegen().merge_sites(results, report)
	(x,) = results['sites']['sites']
	assert x['statuses'] == {'volatile_if': 'guaranteed',
				 'if': sites.NOT_HERE, 'rfc': 'guaranteed'}
	assert x['variants'] == {'volatile_if': 9, 'rfc': 12}
	assert _bench_codegen().site_costs(results['sites']) == {}


def _message(patch: Path) -> str:
	"""A patch's commit message, its lines joined by single spaces."""
	return ' '.join(tree.commit_message(patch).split())


def _0001_says(folder: Path, pattern: str) -> tuple:
	"""The groups of @pattern in the message of the first patch of
	base-patch @folder, which must match it."""
	got = re.search(pattern, _message(tree.series(folder)[0]))
	assert got, (folder.name, pattern)
	return got.groups()


BASE_SERIES = [pytest.param(d, id=d.name)
	       for d in sorted(common.BASE_PATCHES.iterdir()) if d.is_dir()]
# The cells of the cost tables: each weakly ordered arch with each compiler.
WEAK_CELLS = [(a, c) for a in sites.WEAK for c in corpus.COMPILERS]


def _means(costs: dict, field: str, variant: str) -> list:
	"""@variant's mean of @field in each of WEAK_CELLS of @costs
	(arch -> compiler -> variant -> {case or function: costs})."""
	means = _bench_codegen().means
	return [means(costs[a][c], field)[variant] for a, c in WEAK_CELLS]


def _one_asm(folder: Path) -> dict:
	"""arch -> the patch of base-patch @folder that gives it the asm of
	the taken leg alone."""
	return {tree.subject(p).split(':')[0].split('/')[0]: p
		for p in tree.series(folder)
		if tree.subject(p).endswith('Implement volatile_cond() with one '
					    'asm')}


@pytest.mark.unit
@pytest.mark.parametrize('folder', BASE_SERIES)
def test_committed_costs_are_those_base_patch_gives(committed, folder):
	"""The figures base-patch's messages give of the corpus are those of
	tool/docs/codegen.json: 0001 those of the generic volatile_cond()
	('per-leg'), each arch's 'with one asm' patch its own beside them."""
	costs = committed['case_costs']
	means = _bench_codegen().means
	cases = {len(costs[a][c]['per-leg']) for a, c in WEAK_CELLS}
	generic = {f: _means(costs, f, 'per-leg') for f in ('insns', 'path')}
	got = _0001_says(folder, r'Over (\d+) shapes .* grow by ([\d.]+) to '
			 r'([\d.]+) instructions on average, and their longest '
			 r'path by ([\d.]+) to ([\d.]+)\.')
	assert [float(x) for x in got] == [
		cases.pop(), min(generic['insns']), max(generic['insns']),
		min(generic['path']), max(generic['path'])]
	assert not cases
	one_asm = _one_asm(folder)
	assert set(one_asm) == {'arm64', 'powerpc', 'riscv'}
	for arch, patch in one_asm.items():
		text = _message(patch)
		said = {}
		for less, cc, ours, theirs in re.findall(
				r'([\d.]+) (?:instructions? smaller on average )?'
				r'with (gcc|clang) \d+ \(\+([\d.]+)(?: over the plain '
				r'if \(\))? instead of \+([\d.]+)\)', text):
			said[cc, 'insns'] = (float(ours), float(theirs))
			assert float(less) == round(float(theirs) - float(ours), 2)
		for cc, ours, theirs in re.findall(
				r'longest path with (gcc|clang) is shorter \(\+([\d.]+) '
				r'instead of \+([\d.]+)\)', text):
			said[cc, 'path'] = (float(ours), float(theirs))
			assert float(ours) < float(theirs)
		assert {cc for cc, _ in said} == set(corpus.COMPILERS), text
		for (cc, field), figures in said.items():
			m = means(costs[arch][cc], field)
			assert figures == (m['volatile_if'], m['per-leg']), \
				(patch.name, cc, field)


def _major(toolchain: str) -> str:
	"""The major version in a line of codegen.json's toolchains."""
	return re.search(r' (\d+)\.\d+\.\d+', toolchain).group(1)


def _clang(committed: dict, version: str) -> str:
	"""The compiler of codegen.json that is clang @version."""
	(key,) = [k for k, v in committed['toolchains'].items()
		  if 'clang' in v and _major(v) == version]
	return key


@pytest.mark.unit
@pytest.mark.parametrize('folder', BASE_SERIES)
def test_newer_clang_costs_are_those_arm64_gives(committed, folder):
	"""What arm64's patch says of clang 19 and 22 is codegen.json's: the
	corpus' means, with the one asm and with two, and the converted
	functions', whose longest path neither makes longer."""
	bench = _bench_codegen()
	(patch,) = [p for p in tree.series(folder)
		    if tree.subject(p).startswith('arm64: ')]
	text = _message(patch)
	shapes = committed['case_costs']['arm64']
	functions = bench.site_costs(committed['sites'])['arm64']

	def means(costs: dict, field: str) -> tuple:
		m = bench.means(costs, field)
		return m['volatile_if'], m['per-leg']
	got = re.search(r'Over the (\d+) shapes with clang (\d+), the longest '
			r'path grows by ([\d.]+) with the asm of the taken leg '
			r'alone and by ([\d.]+) with one in each leg \(size '
			r'\+([\d.]+) and \+([\d.]+)\)\.', text)
	assert got, text
	n, version, *figures = got.groups()
	costs = shapes[_clang(committed, version)]
	assert int(n) == len(costs['volatile_if'])
	assert tuple(map(float, figures)) == \
		means(costs, 'path') + means(costs, 'insns')
	got = re.search(r'clang (\d+) signs at the entry again \(longest path '
			r'\+([\d.]+) and \+([\d.]+), as clang (\d+)\)', text)
	assert got, text
	newer, one, two, older = got.groups()
	for version in (newer, older):
		assert (float(one), float(two)) == \
			means(shapes[_clang(committed, version)], 'path')
	got = re.search(r'In the (\d+) functions converted so far, neither adds '
			r'to the longest path with clang (\d+) or (\d+) \(size '
			r'\+([\d.]+) with the one asm, \+([\d.]+) with two\)', text)
	assert got, text
	n, *versions, one, two = got.groups()
	for version in versions:
		costs = functions[_clang(committed, version)]
		st = {v: bench.stats(costs[v]) for v in ('volatile_if', 'per-leg')}
		assert int(n) == st['volatile_if']['n']
		assert max(x['path'][1] for x in st.values()) <= 0
		assert (float(one), float(two)) == means(costs, 'insns')


@pytest.mark.unit
@pytest.mark.parametrize('folder', BASE_SERIES)
def test_constant_check_costs_are_those_0001_gives(committed, folder):
	"""What 0001 says gcc makes of compiletime_assert()'s __noreturn check,
	and of its own, is what the corpus shows over the condition kept in a
	bool with no check."""
	bench = _bench_codegen()
	costs = committed['case_costs']
	version, *shared, n, longer, shorter = _0001_says(
		folder,
		r"changes gcc (\d+)'s layout: for (\w+) and (\w+) it jumps back "
		r'to a shared return in one of the (\d+) shapes \(one more '
		r'instruction on its longest path\) where it copies the return '
		r"without the check, and for 32-bit ARM it makes one shape's "
		r"longest path (\d+) instructions longer and another's (\d+) "
		r'shorter\. Without __noreturn, the check changes neither the '
		r'longest path nor the size of any of them, on any of the four '
		r'architectures\.')
	assert version == _major(committed['toolchains']['gcc'])
	assert int(n) == len(costs['arm64']['gcc']['bool'])
	noreturn = {a: bench.changed(costs[a]['gcc'], 'noreturn-check', 'bool')
		    for a in sites.WEAK}
	assert {a for a, d in noreturn.items() if d} == {*shared, 'arm'}
	for a in shared:
		((path, size),) = noreturn[a].values()
		assert path == 1 and size < 0, (a, noreturn[a])
	assert sorted(p for p, _ in noreturn['arm'].values()) == \
		[-int(shorter), int(longer)]
	assert not [a for a in sites.WEAK
		    if bench.changed(costs[a]['gcc'], 'volatile_if', 'bool')]


@pytest.mark.unit
@pytest.mark.parametrize('folder', BASE_SERIES)
def test_hints_a_bool_loses_are_those_0001_gives(committed, folder):
	"""The likely() and unlikely() that clang loses with the condition in a
	bool, as 0001 gives them, are codegen.json's, and gcc loses none."""
	versions, where, older, but = _0001_says(
		folder,
		r'once the value is kept in a variable, clang ([\d, and]+?) put the '
		r'cold leg of the one with an unlikely\(\) ahead of the hot '
		r"path's return, for ([\w, ]+?), and clang (\d+) that of the one "
		r'with a likely\(\) too, but for (\w+)\.')
	assert set(re.split(r', | and ', where)) == set(sites.WEAK)
	clangs = {_clang(committed, v): v for v in re.findall(r'\d+', versions)}
	lost = {}
	for x in committed['matrix']['cells']:
		if x['variant'] == 'bool' and x.get('cold_leg_last') is False:
			lost.setdefault((x['arch'], x['compiler']), set()).add(x['case'])
	assert lost == {
		(a, cc): {'unlikely_leg'} | ({'likely_leg'} if v == older and
					     a != but else set())
		for a in sites.WEAK for cc, v in clangs.items()}


@pytest.mark.unit
@pytest.mark.parametrize('folder', BASE_SERIES)
def test_clang_cost_of_a_bool_is_that_0001_gives(committed, folder):
	"""Why volatile_cond() keeps no variable with clang: what 0001 says the
	bool costs perf_output_begin() and its siblings is codegen.json's,
	over v2, on the architectures it names and no other."""
	version, named, low, high = _0001_says(
		folder,
		r'In the kernel, clang (\d+) for ([\w, ]+?) then inlined '
		r'perf_output_put_handle\(\) into perf_output_begin\(\) and its '
		r'two siblings \(kernel/events/ring_buffer\.c\), whose condition '
		r'has an unlikely\(\): (\d+) to (\d+) more instructions each\.')
	costs = _bench_codegen().site_costs(committed['sites'])
	grown = {}
	for a in sites.WEAK:
		row = costs[a][_clang(committed, version)]
		for key, x in row['bool'].items():
			if re.search(r' perf_output_begin(_forward|_backward)?$', key):
				grown.setdefault(a, []).append(
					x['insns'] - row['volatile_if'][key]['insns'])
	assert {len(xs) for xs in grown.values()} == {3}, grown
	inlined = {a: xs for a, xs in grown.items() if min(xs) >= int(low)}
	assert set(inlined) == set(re.split(r', | and ', named)), grown
	every = [x for xs in inlined.values() for x in xs]
	assert [min(every), max(every)] == [int(low), int(high)]


@pytest.mark.unit
@pytest.mark.parametrize('folder', BASE_SERIES)
def test_inlining_the_check_changes_is_that_0001_gives(committed, folder):
	"""The one decision of gcc's inliner that 0001 says the check changes
	is the one codegen.json has: the functions into which only if ()
	inlined a site, and into which the bool without the check inlines it
	too."""
	version, where, callee, file, callers = _0001_says(
		folder,
		r"the check changes one decision of gcc (\d+)'s inliner\. For "
		r'([\w, ]+?), it inlines (\w+)\(\) \(([\w/.]+)\) into ([\w(), ]+?) '
		r'when the site is a plain if \(\), and calls it from them once it '
		r'is volatile_if\(\)')
	assert version == _major(committed['toolchains']['gcc'])
	assert {(x['file'], x['function'], x['arch'], x['compiler'])
		for x in committed['sites']['only_if']} == {
		(file, f, a, 'gcc') for a in re.split(r', | and ', where)
		for f in re.findall(r'(\w+)\(\)', callers)}
	assert {x['function'] for x in committed['sites']['sites']
		if x['file'] == file and x['compiler'] == 'gcc'} == {callee}
	# and without the check, as if () does
	(bool_version,) = _0001_says(
		folder, r'With the condition kept in a bool and no check, gcc '
		r'(\d+) inlines it there as for if \(\)')
	assert bool_version == version
	assert all(x['inlined']['bool'] for x in committed['sites']['only_if'])


@pytest.mark.unit
def test_cover_letter_costs_are_those_of_codegen_json(committed):
	"""base-patch's cover letter gives v2's cost over the corpus and over
	the converted functions, the ranges of means over the weakly ordered
	architectures and compilers, and the worst function's path."""
	cases = committed['case_costs']
	functions = _bench_codegen().site_costs(committed['sites'])

	def spread(costs, field):
		ms = _means(costs, field, 'volatile_if')
		return [min(ms), max(ms)]

	text = ' '.join(series.read_cover(
		common.BASE_PATCHES / 'cover-letter.txt')[1].split())
	got = re.search(r'Over (\d+) shapes .* functions grow by ([\d.]+) to '
			r'([\d.]+) instructions on average over if \(\), and their '
			r'longest path by ([\d.]+) to ([\d.]+)\.', text)
	assert got, text
	assert [float(x) for x in got.groups()] == [
		len(cases['arm64']['gcc']['volatile_if']),
		*spread(cases, 'insns'), *spread(cases, 'path')]
	got = re.search(r'In Linux ([\d.]+), over the functions .* \((\d+) to '
			r'(\d+), as each compiler inlines\), the longest path '
			r'changes by (-?[\d.]+) to (-?[\d.]+) instructions on '
			r'average and by at most (\d+) in any function, and the '
			r'size by (-?[\d.]+) to (-?[\d.]+)\.', text)
	assert got, text
	counts = [len(functions[a][c]['volatile_if']) for a, c in WEAK_CELLS]
	worst = max(x['path'] for a, c in WEAK_CELLS
		    for x in functions[a][c]['volatile_if'].values())
	assert got.group(1) == GENERATED_PATCHES.name
	assert [float(x) for x in got.groups()[1:]] == [
		min(counts), max(counts), *spread(functions, 'path'), worst,
		*spread(functions, 'insns')]


@pytest.mark.unit
def test_cover_letter_names_the_compilers_of_codegen_json(committed):
	"""The machine code the cover letter says was checked is of the
	compilers codegen.json was made with (whose sites are all guaranteed:
	test_committed_sites_are_the_series_and_guaranteed)."""
	text = ' '.join(series.read_cover(
		common.BASE_PATCHES / 'cover-letter.txt')[1].split())
	got = re.search(r'with gcc (\d+) and clang ([\d, and]+?), a '
			r'conditional branch on the value loaded', text)
	assert got, text
	named = {('gcc', got.group(1))} | \
		{('clang', v) for v in re.findall(r'\d+', got.group(2))}
	made = {(re.search(r'gcc|clang', t).group(0), _major(t))
		for t in committed['toolchains'].values()}
	assert named == made


@pytest.mark.unit
def test_readme_saving_of_one_asm_is_that_of_codegen_json(committed):
	"""README's range of what the asm of the taken leg alone saves over
	one in each leg, in size, on the architectures that use it."""
	text = ' '.join((common.REPO / 'README.md').read_text().split())
	got = re.search(r'It saves the other leg the block its asm needs: '
			r'([\d.]+) to ([\d.]+) instructions per function on '
			r'average over the corpus with gcc (\d+) and clang (\d+)',
			text)
	assert got, 'README.md'
	low, high, gcc, clang = got.groups()
	assert [gcc, clang] == [_major(committed['toolchains'][c])
				for c in corpus.COMPILERS]
	costs = committed['case_costs']
	means = _bench_codegen().means
	saved = [round(m['per-leg'] - m['volatile_if'], 2)
		 for m in (means(costs[a][c], 'insns')
			   for a in _one_asm(common.BASE_PATCHES /
					     GENERATED_PATCHES.name)
			   for c in corpus.COMPILERS)]
	assert (float(low), float(high)) == (min(saved), max(saved))

