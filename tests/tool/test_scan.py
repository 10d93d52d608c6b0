# SPDX-License-Identifier: GPL-2.0
"""scan: reading spatch's report output, the combined semantic patch, and
which files a scan looks at."""

from pathlib import Path

import pytest

from volatile_if import common, scan

OUTPUT = """\
init_defs_builtins: /usr/lib/coccinelle/standard.h
HANDLING: ipc/msg.c
ipc/msg.c:1222:2-4: [acquire-in-branch] convert/high: do_msgrcv(): smp_acquire__after_ctrl_dep() inside a branch of if (msg != ERR_PTR(-EAGAIN)): the barrier relies on the control dependency on this condition
HANDLING: drivers/broken.c
BAD:!!!!! 	this is not C at all {{{ ;
BAD:!!!!! 	neither is this
HANDLING: /abs/root/kernel/events/ring_buffer.c
/abs/root/kernel/events/ring_buffer.c:199:3-5: [documented-ctrl-dep] report/low: __perf_output_begin(): a comment says if (unlikely(!ring_buffer_has_space(head, tail, perf_data_size(rb), size, backward))) forms a control dependency: consider volatile_if
warning: a line that is not a report: do_msgrcv(): [x]
"""


def test_parse_report():
	sites, bad = scan.parse_report(OUTPUT, Path('/abs/root'))
	assert [(s.file, s.line, s.column, s.function, s.idiom, s.action, s.confidence)
		for s in sites] == [
		('ipc/msg.c', 1222, 2, 'do_msgrcv', 'acquire-in-branch', 'convert', 'high'),
		('kernel/events/ring_buffer.c', 199, 3, '__perf_output_begin',
		 'documented-ctrl-dep', 'report', 'low')]
	assert sites[1].message.endswith('forms a control dependency: consider volatile_if')
	assert bad == {'drivers/broken.c': 2}


def test_site_text_is_coccicheck_like():
	site = scan.parse_report(OUTPUT, Path('/abs/root'))[0][0]
	assert site.text().startswith('ipc/msg.c:1222: [acquire-in-branch] smp_acquire')


def test_semantic_patch_keeps_every_rule_once():
	combined = scan.semantic_patch(sorted(common.COCCI.glob("*.cocci")))
	for f in common.COCCI.glob('*.cocci'):
		for line in f.read_text().splitlines():
			# Named rules: @name@ or @name depends on ...@
			if line.startswith('@') and line.endswith('@') and \
			   line != '@@' and \
			   not line.startswith(('@initialize', '@finalize', '@script')):
				assert combined.count(line + '\n') == 1, line
	lines = combined.splitlines()
	assert lines.count('virtual report') == 1
	assert sum(1 for line in lines if line.startswith('#spatch ')) == 1


def test_semantic_patch_needs_rules(tmp_path):
	with pytest.raises(common.Error, match='no .cocci files'):
		scan.semantic_patch([])


def test_candidate_files(tmp_path):
	(tmp_path / 'a').mkdir()
	for name in ('a/x.c', 'a/y.h', 'a/z.txt', 'top.c'):
		(tmp_path / name).write_text('int x;\n')
	assert scan.candidate_files(tmp_path) == ['a/x.c', 'a/y.h', 'top.c']
	assert scan.candidate_files(tmp_path, [tmp_path / 'a']) == ['a/x.c', 'a/y.h']
	with pytest.raises(common.Error, match='no such file'):
		scan.candidate_files(tmp_path, [tmp_path / 'nope.c'])


def test_keywords_of_each_rule_file():
	barrier = scan.keywords(common.COCCI / 'acquire-in-branch.cocci')
	assert barrier.search('\tsmp_acquire__after_ctrl_dep();')
	assert not barrier.search('\tsmp_rmb();')
	loads = scan.keywords(common.COCCI / 'hoisted-store-hazard.cocci')
	assert loads.search('x = rcu_access_pointer(p);')
	comment = scan.keywords(common.COCCI / 'documented-ctrl-dep.cocci')
	assert comment.search('/* forms a Control-Dependency */')
	assert all(scan.keywords(f) for f in common.COCCI.glob('*.cocci'))


def test_fixtures_pass_the_prefilter_of_their_rule():
	"""Prefiltering loses nothing the rules find in the fixtures."""
	fixtures = common.REPO / 'tests/cocci'
	for report in fixtures.glob('*.report'):
		if not report.read_text().strip():
			continue
		idiom = report.name.split('--')[0]
		source = next(fixtures.glob(report.stem + '.[ch]'))
		assert scan.keywords(common.COCCI / f'{idiom}.cocci').search(
			source.read_text()), source


def test_prefilter_groups_files_by_rules(tmp_path):
	(tmp_path / 'barrier.c').write_text('smp_acquire__after_ctrl_dep();\n')
	(tmp_path / 'load.c').write_text('x = READ_ONCE(y);\n')
	(tmp_path / 'none.h').write_text('#define REG 0x10\n')
	rules = sorted(common.COCCI.glob('*.cocci'))
	groups = scan.prefilter(tmp_path, ['barrier.c', 'load.c', 'none.h'], rules, 1)
	assert groups == {
		('acquire-early-exit.cocci', 'acquire-in-branch.cocci',
		 'acquire-loop-exit.cocci', 'documented-ctrl-dep.cocci',
		 'orphan-acquire.cocci'): ['barrier.c'],
		('hoisted-store-hazard.cocci',): ['load.c'],
	}


def test_scan_of_files(tmp_path):
	"""spatch end to end on small files: one site, one unparsable part,
	one file no rule applies to."""
	(tmp_path / 'site.c').write_text(
		'int f(int *a)\n{\n\tif (READ_ONCE(*a)) {\n'
		'\t\tsmp_acquire__after_ctrl_dep();\n\t\treturn 1;\n\t}\n\treturn 0;\n}\n')
	(tmp_path / 'bad.c').write_text('int g(int *a)\n{\n\tthis is {{ not C;\n'
					'\treturn READ_ONCE(*a);\n}\n')
	(tmp_path / 'other.c').write_text('int h(void)\n{\n\treturn 0;\n}\n')
	result = scan.scan(tmp_path, ['bad.c', 'other.c', 'site.c'], jobs=1)
	assert [(s.file, s.line, s.column, s.idiom) for s in result.sites] == \
		[('site.c', 3, 1, 'acquire-in-branch')]
	assert result.parse_errors == {'bad.c': 1}
	assert result.files == 3
	assert result.json()['counts']['acquire-in-branch'] == 1


def test_cache_serves_unchanged_files_and_notices_changes(tmp_path, monkeypatch):
	monkeypatch.setenv('VOLATILE_IF_CACHE', str(tmp_path / 'cache'))
	src = tmp_path / 'src'
	src.mkdir()
	body = ('int f(int *a)\n{\n\tif (READ_ONCE(*a)) {\n'
		'\t\tsmp_acquire__after_ctrl_dep();\n\t\treturn 1;\n\t}\n\treturn 0;\n}\n')
	(src / 'site.c').write_text(body)
	first = scan.scan(src, ['site.c'], jobs=1, quiet=True)

	def no_spatch(*args):
		raise AssertionError('spatch run for an unchanged file')
	monkeypatch.setattr(scan, '_spatch', no_spatch)
	assert scan.scan(src, ['site.c'], jobs=1, quiet=True).sites == first.sites

	monkeypatch.undo()
	monkeypatch.setenv('VOLATILE_IF_CACHE', str(tmp_path / 'cache'))
	(src / 'site.c').write_text('\n' + body)
	moved = scan.scan(src, ['site.c'], jobs=1, quiet=True)
	assert [s.line for s in moved.sites] == [s.line + 1 for s in first.sites]
