# SPDX-License-Identifier: GPL-2.0
"""scan: reading spatch's report output, the combined semantic patch, and
which files a scan looks at."""

from pathlib import Path

import pytest

from volatile_if import common, ctext, scan

pytestmark = pytest.mark.unit

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
	# every rule file has some
	assert all(scan.keywords(f).words for f in common.COCCI.glob('*.cocci'))


def test_fixtures_pass_the_prefilter_of_their_rule():
	"""Prefiltering loses nothing the rules find in the fixtures: each file
	they report in passes its rule's filters, and each if that
	hoisted-store-hazard reports is one ctext.ifs_storing_alike() gives."""
	fixtures = common.REPO / 'tests/cocci'
	hoisted = 0
	for report in fixtures.glob('*.report'):
		if not report.read_text().strip():
			continue
		idiom = report.name.split('--')[0]
		rule = common.COCCI / f'{idiom}.cocci'
		source = next(fixtures.glob(report.stem + '.[ch]'))
		text = source.read_text()
		fs = scan.filters(rule)
		assert all(f.search(text) for f in fs), source
		if idiom != 'hoisted-store-hazard':
			continue
		calls = fs[1].calls
		ifs = {(ctext.line_of(text, p), p - text.rfind('\n', 0, p) - 1)
		       for p in ctext.ifs_storing_alike(text, calls)}
		for line in report.read_text().splitlines():
			_, ln, col = line.split(':')[:3]
			assert (int(ln), int(col.split('-')[0])) in ifs, line
			hoisted += 1
	assert hoisted >= 5


def test_filters_of_hoisted_store_hazard():
	"""Its keywords, and an if whose legs store alike, with the store calls
	of the rule's own list."""
	keywords, alike = scan.filters(common.COCCI / 'hoisted-store-hazard.cocci')
	assert keywords.search('READ_ONCE(x)')
	assert {'WRITE_ONCE', 'atomic_set', 'local64_set'} <= set(alike.calls)
	same = ('if (READ_ONCE(*a))\n\tatomic_set(v, 1);\n'
		'else\n\tatomic_set(v, 1);\n')
	assert alike.search(same)
	assert not alike.search(same.replace('1);\n', '2);\n', 1))
	assert len(scan.filters(common.COCCI / 'acquire-in-branch.cocci')) == 1


def test_prefilter_groups_files_by_rules(tmp_path):
	(tmp_path / 'barrier.c').write_text('smp_acquire__after_ctrl_dep();\n')
	both = 'if (READ_ONCE(y))\n\tx = 1;\nelse\n\tx = 1;\n'
	(tmp_path / 'load.c').write_text(both)
	(tmp_path / 'differ.c').write_text(both.replace('1;\n', '2;\n', 1))
	(tmp_path / 'none.h').write_text('#define REG 0x10\n')
	rules = sorted(common.COCCI.glob('*.cocci'))
	groups = scan.prefilter(tmp_path, ['barrier.c', 'differ.c', 'load.c',
					   'none.h'], rules, 1)
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
					'\tsmp_acquire__after_ctrl_dep();\n}\n')
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


def test_candidate_files_of_a_git_tree_come_from_git(tmp_path, git):
	"""In a git work tree the list is git's: tracked files, untracked ones
	git does not ignore, and nothing under .git, whatever lies there."""
	git(tmp_path, 'init', '-q')
	(tmp_path / '.gitignore').write_text('gen.c\n')
	(tmp_path / 'k').mkdir()
	for name in ('k/a.c', 'k/b.h', 'top.c', 'gen.c', 'new.c', 'doc.txt'):
		(tmp_path / name).write_text('int x;\n')
	git(tmp_path, 'add', '.gitignore', 'k', 'top.c', 'gen.c', '-f')
	(tmp_path / 'gen.c').unlink()          # tracked, deleted in the work tree
	(tmp_path / '.git' / 'objects' / 'stray.c').write_text('int y;\n')
	assert scan.candidate_files(tmp_path) == ['k/a.c', 'k/b.h', 'new.c', 'top.c']
	assert scan.candidate_files(tmp_path, [tmp_path / 'k']) == ['k/a.c', 'k/b.h']
	# A file named is scanned even if git ignores it.
	(tmp_path / 'gen.c').write_text('int x;\n')
	assert scan.candidate_files(tmp_path, [tmp_path / 'gen.c']) == ['gen.c']


def test_candidate_files_outside_git_skip_dot_git(tmp_path):
	(tmp_path / '.git' / 'objects').mkdir(parents=True)
	(tmp_path / '.git' / 'objects' / 'stray.c').write_text('int y;\n')
	(tmp_path / 'a.c').write_text('int x;\n')
	assert scan.candidate_files(tmp_path) == ['a.c']


SITE = ('int f(int *a)\n{\n\tif (READ_ONCE(*a)) {\n'
	'\t\tsmp_acquire__after_ctrl_dep();\n\t\treturn 1;\n\t}\n\treturn 0;\n}\n')


@pytest.mark.parametrize('when', ['listed', 'prefiltered', 'parsed'])
def test_a_file_that_vanishes_is_skipped_with_a_warning(tmp_path, monkeypatch,
							 capsys, when):
	"""A file gone before it is read, after the keyword prefilter, or while
	spatch runs: one warning line, and the other files' sites."""
	monkeypatch.setenv('VOLATILE_IF_CACHE', str(tmp_path / 'cache'))
	src = tmp_path / 'src'
	src.mkdir()
	(src / 'site.c').write_text(SITE)
	(src / 'gone.c').write_text(SITE)
	if when == 'listed':
		(src / 'gone.c').unlink()
	elif when == 'prefiltered':
		real_prefilter = scan.prefilter

		def prefilter(*args, **kwargs):
			groups = real_prefilter(*args, **kwargs)
			(src / 'gone.c').unlink()
			return groups
		monkeypatch.setattr(scan, 'prefilter', prefilter)
	else:
		real_spatch = scan._spatch

		def spatch(sp_file, root, files):
			(src / 'gone.c').unlink(missing_ok=True)
			return real_spatch(sp_file, root, files)
		monkeypatch.setattr(scan, '_spatch', spatch)
	result = scan.scan(src, ['gone.c', 'site.c'], jobs=1, quiet=True)
	assert [(s.file, s.line) for s in result.sites] == [('site.c', 3)]
	assert result.failures == {}
	assert capsys.readouterr().err.splitlines() == [
		'volatile-if: warning: gone.c: vanished during the scan, skipped']


def test_changed_files_since_a_revision(tmp_path, git):
	"""One meaning of --since for scan and convert: .c and .h files that
	differ between REV and the work tree, deleted ones left out."""
	from volatile_if import tree
	git(tmp_path, 'init', '-q')
	for name in ('a.c', 'b.h', 'gone.c', 'doc.txt'):
		(tmp_path / name).write_text('int x;\n')
	git(tmp_path, 'add', '-A')
	git(tmp_path, 'commit', '-qm', 'one')
	(tmp_path / 'a.c').write_text('int y;\n')
	(tmp_path / 'doc.txt').write_text('changed\n')
	(tmp_path / 'gone.c').unlink()
	git(tmp_path, 'add', '-A')
	git(tmp_path, 'commit', '-qm', 'two')
	(tmp_path / 'b.h').write_text('int z;\n')        # in the work tree only
	assert tree.changed_files(tmp_path, 'HEAD~1') == ['a.c', 'b.h']
	assert tree.changed_files(tmp_path, 'HEAD') == ['b.h']
	with pytest.raises(common.Error, match='is it a revision'):
		tree.changed_files(tmp_path, 'nope')


@pytest.mark.parametrize('others', [[], ['site.c']])
def test_a_file_spatch_fails_on_is_a_failure_not_the_end(tmp_path, monkeypatch,
							 others):
	"""spatch failing on a file, alone in its chunk or not: the file is
	listed with spatch's last line, and the other files are scanned."""
	monkeypatch.setenv('VOLATILE_IF_CACHE', str(tmp_path / 'cache'))
	(tmp_path / 'site.c').write_text(SITE)
	(tmp_path / 'crash.c').write_text(SITE)
	real_spatch = scan._spatch

	def spatch(sp_file, root, files):
		if 'crash.c' in files:
			raise common.Error('spatch failed',
					   'parsing\nFatal error: out of memory\n')
		return real_spatch(sp_file, root, files)
	monkeypatch.setattr(scan, '_spatch', spatch)
	result = scan.scan(tmp_path, ['crash.c'] + others, jobs=1, quiet=True)
	assert result.failures == {'crash.c': 'Fatal error: out of memory'}
	assert [s.file for s in result.sites] == others
