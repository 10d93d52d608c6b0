# SPDX-License-Identifier: GPL-2.0
"""The survey's parts on canned input: the Kconfig symbols that guard an
object, which sites get a verdict, the region of a plain if, the compiler
names of a build, and the page made from the JSON."""

import json
from pathlib import Path

import pytest

from volatile_if import arches, kbuild, scan, tree
from volatile_if.codegen import sites, survey
from volatile_if.common import GENERATED, Error

pytestmark = pytest.mark.unit


def write(root: Path, files: dict) -> Path:
	for name, text in files.items():
		(root / name).parent.mkdir(parents=True, exist_ok=True)
		(root / name).write_text(text)
	return root


def test_guards_direct_composite_and_directories(tmp_path):
	write(tmp_path, {
		'drivers/Makefile': 'obj-$(CONFIG_NET)\t\t+= net/\nobj-y += base/\n'
				    'obj-$(CONFIG_QLA) += qla/\n',
		'drivers/qla/Makefile': 'obj-$(CONFIG_QLA) += qla.o\nqla-y := qla_mr.o\n',
		'drivers/net/Makefile': 'obj-$(CONFIG_FOO) += foo.o \\\n\tbar.o\n'
					'foo-y := foo_main.o foo_ring.o\n'
					'foo-$(CONFIG_FOO_DEBUG) += foo_dbg.o\n'
					'CFLAGS_foo_ring.o := -DDEBUG\n',
		'drivers/base/Makefile': 'obj-y += core.o\n',
		'kernel/Makefile': 'obj-y += fork.o\n'})
	assert kbuild.guards(tmp_path, 'drivers/net/foo_ring.o') == ['CONFIG_FOO', 'CONFIG_NET']
	# a line continued with a backslash
	assert kbuild.guards(tmp_path, 'drivers/net/bar.o') == ['CONFIG_FOO', 'CONFIG_NET']
	assert kbuild.guards(tmp_path, 'drivers/net/foo_dbg.o') == \
		['CONFIG_FOO_DEBUG', 'CONFIG_FOO', 'CONFIG_NET']
	assert kbuild.guards(tmp_path, 'drivers/base/core.o') == []
	# the same symbol in the directory and above it: once
	assert kbuild.guards(tmp_path, 'drivers/qla/qla_mr.o') == ['CONFIG_QLA']
	assert kbuild.guards(tmp_path, 'kernel/fork.o') == []
	# foo_main.o is not foo.o: no match inside a longer name
	assert kbuild.guards(tmp_path, 'drivers/net/main.o') == ['CONFIG_NET']


def test_compiler_names_of_a_build(tmp_path):
	arm64 = arches.get('arm64')
	b = kbuild.KernelBuild(tmp_path, arm64, 'survey-O2', compiler='clang-19')
	cmd = [str(x) for x in b.make_command('kernel/smp.o')]
	assert 'LLVM=-19' in cmd and 'ARCH=arm64' in cmd
	assert any(x.endswith('clang-19') for x in cmd if x.startswith('CC='))
	assert b.out.name == 'arm64-llvm-19-survey-O2'
	clang = kbuild.KernelBuild(tmp_path, arm64, 'codegen', compiler='clang')
	assert 'LLVM=1' in clang.make_command() and clang.out.name == 'arm64-llvm-codegen'
	gcc = kbuild.KernelBuild(tmp_path, arm64, 'codegen')
	assert 'CROSS_COMPILE=aarch64-linux-gnu-' in gcc.make_command()
	assert not any(str(x).startswith('LLVM') for x in gcc.make_command())
	with pytest.raises(Error, match='unknown compiler icc'):
		kbuild.KernelBuild(tmp_path, arm64, 'x', compiler='icc')


def site(line, idiom='acquire-early-exit', file='a.c'):
	return scan.Site(file, line, 1, 'f', idiom, 'report', 'medium', 'm')


SOURCE = '''\
int f(int *p, int *q)
{
	if (READ_ONCE(*p))
		return 0;
	volatile_if (READ_ONCE(*q))
		WRITE_ONCE(*p, 1);
	if (!(*q & 1) && READ_ONCE(*p))
		*q = 2;
	while (!READ_ONCE(*q))
		cpu_relax();
	smp_acquire__after_ctrl_dep();
	return 1;
}
'''


# g() as scanned, and as a conversion that splits its condition leaves it:
# two lines longer, so that every site below it has moved.
SCANNED_G = '''\
int g(int *p)
{
	if (READ_ONCE(*p) && h())
		return 1;
	return 0;
}

'''
CONVERTED_G = '''\
int g(int *p)
{
	volatile_if (READ_ONCE(*p)) {
		if (h())
			return 1;
	}
	return 0;
}

'''


def test_targets_converted_plain_and_skipped(tmp_path, git):
	git(tmp_path, 'init', '-q')
	write(tmp_path, {'a.c': SCANNED_G + SOURCE})
	git(tmp_path, 'add', 'a.c')
	git(tmp_path, 'commit', '-qm', 'scanned')
	write(tmp_path, {'a.c': CONVERTED_G + SOURCE})
	n = SCANNED_G.count('\n')
	ts, skipped = survey.targets(tmp_path, [
		site(3), site(n + 3), site(n + 5, 'acquire-in-branch'),
		site(n + 7, 'hoisted-store-hazard'), site(n + 9, 'acquire-loop-exit'),
		site(n + 11, 'orphan-acquire')], 'HEAD')
	# the sites keep the lines they were scanned at
	assert [(t.site.line, t.converted, t.lkmm, t.compound) for t in ts] == \
		[(3, True, 'early exit', ''), (n + 3, False, 'early exit', ''),
		 (n + 5, True, 'store in a leg', ''),
		 (n + 7, False, 'store in a leg', 'later')]
	assert [(s.line, 'no if at its line' in why) for s, why in skipped] == \
		[(n + 9, True), (n + 11, True)]
	# the region is of the if where it is now
	regions = {t.site.line: r for t, r in ts.items()}
	assert min(regions[n + 5].condition) == n + 7


def test_region_of_a_plain_if_that_leaves():
	r = sites.region(SOURCE + 'int g(void)\n{\n\treturn 0;\n}\n', 3)
	assert r.condition == {3}
	# the rest of the function, to its closing brace: the stores after
	# the early exit; not the next function
	assert r.ordered == set(range(3, 14))
	with pytest.raises(Error, match='no if at line 9'):
		sites.region(SOURCE, 9)


def test_unknown_opt_level_is_refused_before_any_work():
	with pytest.raises(Error, match='unknown optimisation level O3'):
		survey.require_tools(['arm64'], ['gcc'], ['O3'])


def cell(status, vif=None, arch='arm64', cc='gcc', opt='O2', why=''):
	def verdict(s):
		stores = [] if s in ('compiler', 'guaranteed') else \
			[{'addr': '0x10', 'insn': 'str w1, [x0]', 'status': s, 'why': ''}]
		return {'status': s, 'insns': 9, 'path': 5, 'stores': stores,
			'why': why if s == status else ''}
	return {'file': 'a.c', 'line': 3, 'function': 'f', 'symbol': 'f',
		'idiom': 'acquire-early-exit', 'lkmm': 'early exit', 'arch': arch,
		'compiler': cc, 'opt': opt, 'if': verdict(status),
		'volatile_if': verdict(vif) if vif else None}


def data(cells, not_compiled=()):
	return {'tree': 'linux-x', 'arches': ['arm64'], 'compilers': ['gcc'],
		'opts': ['O2', 'Os'],
		'sites': [dict(site(3).json(), converted=True, lkmm='early exit')],
		'skipped': [dict(site(7).json(), why='no if at its line')],
		'cells': cells, 'not_compiled': list(not_compiled)}


def test_page_counts_and_lists_what_is_not_ordered_by_a_branch():
	page = '\n'.join(survey.tree_page(data(
		[cell('compiler', 'guaranteed'),
		 cell('broken', 'guaranteed', opt='Os', why='a store before the load')],
		[{'file': 'b.c', 'line': 2, 'arch': 'arm64', 'compiler': 'gcc',
		  'opt': 'Os', 'why': 'not enabled: CONFIG_BAR'}])))
	assert '| arm64 | gcc | O2 | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 1 / 1 | 0 |' in page
	assert '| arm64 | gcc | Os | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 1 / 1 | 1 |' in page
	assert '| a.c:3 f() | acquire-early-exit (early exit) | arm64 | gcc | Os | ' \
		'broken | guaranteed | if: a store before the load (first: `str w1, [x0]` ' \
		'at 0x10) |' in page
	assert '| b.c:2 | arm64 | gcc | Os | not enabled: CONFIG_BAR |' in page
	assert '- a.c:7 f() [acquire-early-exit]: no if at its line' in page


def test_page_lists_the_cells_ordered_only_by_the_compiler():
	d = data([cell('compiler', 'guaranteed', opt='Os'),
		  cell('guaranteed', 'guaranteed', cc='clang'),
		  cell('compiler', 'guaranteed', arch='riscv'),
		  cell('compiler', 'guaranteed')])
	d.update(arches=['arm64', 'riscv'], compilers=['gcc', 'clang'])
	page = '\n'.join(survey.tree_page(d))
	assert '| a.c:3 f() | acquire-early-exit (early exit) | ' \
		'arm64: gcc O2, gcc Os; riscv: gcc O2 |' in page
	page = '\n'.join(survey.tree_page(data([cell('guaranteed', 'guaranteed')])))
	assert 'only by the compiler' not in page


def test_page_has_a_row_only_for_the_builds_that_ran():
	# data() names O2 and Os, but only O2 ran
	page = '\n'.join(survey.tree_page(data([cell('compiler', 'guaranteed')])))
	assert '| arm64 | gcc | O2 | 1 |' in page
	assert '| arm64 | gcc | Os |' not in page


def test_page_says_plainly_when_nothing_is_lost():
	page = '\n'.join(survey.tree_page(data([cell('compiler', 'guaranteed')])))
	assert 'None: every plain if () is ordered' in page
	page = '\n'.join(survey.tree_page(data([cell('compiler', 'compiler')])))
	assert 'None:' not in page


def test_page_names_each_command_that_made_a_build_once():
	def build(seconds, command):
		return {'seconds': seconds, 'command': command}
	page = survey.page({'toolchains': {'gcc': 'gcc 12'}, 'trees': {}, 'builds': {
		'linux-x arm64 gcc O2': build(60, 'scripts/bench-survey --keep'),
		'linux-x arm gcc O2': build(120, 'scripts/bench-survey'),
		'linux-x arm gcc Os': build(60, 'scripts/bench-survey --keep')}})
	assert 'Generated by `scripts/bench-survey --keep`; `scripts/bench-survey` ' \
		'from' in page
	assert '3 builds (tree, arch, compiler, opt) in 4 min, 80 s per build' in page


def test_brief_keeps_only_unordered_stores():
	d = data([cell('broken', 'guaranteed')])
	d['cells'][0]['if']['loads'] = ['0x4']
	d['cells'][0]['volatile_if']['stores'] = [
		{'addr': '0x8', 'insn': 'str', 'status': 'guaranteed', 'why': ''}]
	out = survey.brief(d)['cells'][0]
	assert 'loads' not in out['if'] and len(out['if']['stores']) == 1
	assert out['volatile_if']['stores'] == []


def test_merge_replaces_the_builds_rerun_in_build_order():
	def cell(arch, cc, opt, status):
		return {'arch': arch, 'compiler': cc, 'opt': opt, 'if': status}
	old = {'arches': ['arm64', 'arm'], 'compilers': ['gcc', 'clang'],
	       'opts': ['O2'], 'not_compiled': [],
	       'cells': [cell('arm64', 'gcc', 'O2', 'a'),
			 cell('arm64', 'clang', 'O2', 'b'),
			 cell('arm', 'gcc', 'O2', 'c')]}
	new = {'arches': ['arm64'], 'compilers': ['gcc'], 'opts': ['O2'],
	       'not_compiled': [{'arch': 'arm64', 'compiler': 'gcc', 'opt': 'O2'}],
	       'cells': [cell('arm64', 'gcc', 'O2', 'x')]}
	out = survey.merge(old, new)
	# the rerun build's cells replace its old ones, where a full run has
	# them: first, not after the builds kept
	assert [c['if'] for c in out['cells']] == ['x', 'b', 'c']
	assert out['not_compiled'] == [{'arch': 'arm64', 'compiler': 'gcc',
					'opt': 'O2'}]
	assert out['arches'] == ['arm64', 'arm'] and out['compilers'] == ['gcc', 'clang']


def test_changes_names_each_cell_whose_verdict_moved():
	def results(cells):
		return {'trees': {'linux-x': data(cells)}}
	old = results([cell('guaranteed', 'guaranteed'),
		       cell('compiler', 'guaranteed', opt='Os')])
	same = results([cell('guaranteed', 'guaranteed'),
			cell('compiler', 'guaranteed', opt='Os')])
	assert survey.changes(old, same) == \
		['0 cells changed their verdicts, 0 more their longest path']
	moved = results([cell('compiler', 'guaranteed'),
			 cell('compiler', 'broken', opt='Os')])
	moved['trees']['linux-x']['cells'][0]['if']['path'] = 6
	assert survey.changes(old, moved) == [
		'linux-x a.c:3 f() arm64 gcc O2: if guaranteed -> compiler',
		'linux-x a.c:3 f() arm64 gcc Os: volatile_if guaranteed -> broken',
		'2 cells changed their verdicts, 0 more their longest path']
	longer = results([cell('guaranteed', 'guaranteed'),
			  cell('compiler', 'guaranteed', opt='Os')])
	longer['trees']['linux-x']['cells'][1]['volatile_if']['path'] = 6
	assert survey.changes(old, longer)[-1] == \
		'0 cells changed their verdicts, 1 more their longest path'
	# a cell of a build the old run had, but not of one it had not
	other = dict(cell('compiler', 'guaranteed'), symbol='g')
	assert survey.changes(old, results([other]))[0] == \
		'linux-x a.c:3 g() arm64 gcc O2: new'
	assert survey.changes({'trees': {}}, results([other])) == \
		['0 cells changed their verdicts, 0 more their longest path']


# The committed results (scripts/bench-survey).

DOCS = Path(__file__).resolve().parents[2] / 'tool' / 'docs'


@pytest.fixture(scope='module')
def committed():
	return json.loads((DOCS / 'survey.json').read_text())


def test_committed_page_is_made_from_the_json(committed):
	assert (DOCS / 'survey.md').read_text() == survey.page(committed) + '\n'


def test_committed_volatile_if_cells_are_guaranteed(committed):
	bad = [(c['file'], c['line'], c['arch'], c['compiler'], c['opt'])
	       for data in committed['trees'].values() for c in data['cells']
	       if c['volatile_if'] and c['volatile_if']['status'] != 'guaranteed']
	assert not bad


def test_committed_survey_is_of_the_series_as_it_is(committed):
	"""The converted sites the survey saw are those generated-patches
	converts now, on every tree it covers."""
	for name, data in committed['trees'].items():
		version = name.split('linux-', 1)[1]
		patches = sorted((GENERATED / version).glob('0*.patch'))
		now = {(s.file, s.line) for p in patches if not tree.is_cover_letter(p)
		       for s in sites.patch_sites(p)}
		seen = {(s['file'], s['line']) for s in data['sites'] if s['converted']}
		assert seen == now, name
