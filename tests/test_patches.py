# SPDX-License-Identifier: GPL-2.0
"""base-patch/ and generated-patches/ apply to the pristine tree, in that
order, and are clean by checkpatch."""

import subprocess

import pytest

from volatile_if import checkpatch, common, recipients, series, tree

BASE = tree.series(common.BASE_PATCH)
GENERATED = tree.series(common.GENERATED_PATCHES)
# Every patch of both series, with an id like base-0001 or generated-0001.
SERIES = [pytest.param(p, id=f'{kind}-{p.name[:4]}')
	  for kind, patches in (('base', BASE), ('generated', GENERATED))
	  for p in patches]


BASE_VERSIONS = sorted(p.name for p in common.BASE_PATCHES.iterdir()
		       if p.is_dir())
COVER = '0000-cover-letter.patch'


@pytest.mark.unit
@pytest.mark.parametrize('version', BASE_VERSIONS)
def test_series_file_lists_every_patch(version):
	folder = common.BASE_PATCHES / version
	listed = {p.name for p in tree.series(folder)}
	on_disk = {p.name for p in folder.glob('*.patch')}
	assert listed and listed | {COVER} == on_disk


@pytest.mark.unit
@pytest.mark.parametrize('version', BASE_VERSIONS)
def test_cover_letter_is_that_of_the_series(version):
	"""The cover letter says what base-patch/cover-letter.txt says, then
	which Debian package the series is based on, and its subject's count
	and its shortlog are those of the series: a patch added, dropped or
	retitled without scripts/export-base-patch fails this."""
	folder = common.BASE_PATCHES / version
	patches = tree.series(folder)
	text = (folder / COVER).read_text()
	subject, body = series.read_cover(common.BASE_PATCHES / 'cover-letter.txt')
	package = dict(common.table('linux-source'))[version]
	body += (f'\n\nBased on Linux {package.split("-")[0]}, as in Debian\'s '
		 f'package\nlinux-source-{version} {package}.')
	assert tree.subject(folder / COVER) == subject
	assert f'Subject: [PATCH 00/{len(patches)}] ' in text
	blurb = text.partition('\n\n')[2]
	assert blurb.startswith(body + '\n\n'), 'run scripts/export-base-patch'
	shortlog = blurb[len(body):].split('\n\n')[1].split('\n')[1:]
	assert ' '.join(' '.join(shortlog).split()) == \
		' '.join(tree.subject(p) for p in patches)
	# Wrapped as checkpatch wants a commit message, which it does not
	# check here.
	assert [l for l in body.splitlines() if len(l.expandtabs()) > 75] == []


def test_applies_with_git_am(test_tree):
	"""The test tree is pristine + base-patch + generated-patches, made
	with git am: each patch became a commit with its subject, in order."""
	log = subprocess.run(['git', '-C', test_tree, 'log', '--reverse',
			      '--format=%s', 'pristine..HEAD'], check=True,
			     capture_output=True, text=True).stdout.splitlines()
	assert log == [tree.subject(p) for p in BASE + GENERATED]


@pytest.mark.parametrize('patch', SERIES)
def test_checkpatch_strict(test_tree, patch):
	verdict = checkpatch.checkpatch(test_tree, patch)
	assert (verdict.errors, verdict.warnings, verdict.checks) == (0, 0, 0), \
		verdict.output


@pytest.mark.unit
@pytest.mark.parametrize('patch', [
	pytest.param(p, id=f'{p.parent.name}-{p.name[:4]}')
	for d in sorted(common.BASE_PATCHES.iterdir()) if d.is_dir()
	for p in tree.series(d)])
def test_base_patch_deletes_nothing(patch):
	"""The series adds volatile_if and its tools; no file of the kernel
	goes (0012 once took the kernel's own four locks/ rules with it when
	it added ours beside them)."""
	assert '\ndeleted file mode ' not in patch.read_text()


@pytest.mark.unit
@pytest.mark.parametrize('patch', SERIES)
def test_signed_off_and_explained(patch):
	body = tree.commit_message(patch)
	assert 'Signed-off-by: ' in body
	# A body that says why, not only a subject.
	assert len(body.split('Signed-off-by:')[0].split()) >= 30


@pytest.mark.parametrize('rule', sorted(p.name for p in common.COCCI.glob('*.cocci')) +
			 ['volatile_if.h'])
def test_kernel_copy_of_the_rules_is_cocci(test_tree, rule):
	"""The base patch ships cocci/ in scripts/coccinelle/locks/, unchanged."""
	shipped = test_tree / 'scripts/coccinelle/locks' / rule
	assert shipped.read_text() == (common.COCCI / rule).read_text()


@pytest.mark.parametrize('version', BASE_VERSIONS)
def test_lkmm_and_linux_arch_on_every_patch(version, pristine, other_tree):
	"""Every patch relies on volatile_if()'s semantics, base-patch's as
	generated-patches': the LKMM's maintainers and reviewers in the
	tree's MAINTAINERS, and linux-arch, are among its recipients (issue
	10), which get_maintainer.pl alone would not make them; and so among
	those of both cover letters."""
	if version == common.BASE_PATCH.name:
		kernel, patches = pristine, BASE + GENERATED
	else:
		patches, kernel = other_tree(version)
	patches = patches + [common.BASE_PATCHES / version / COVER,
			     common.GENERATED / version / COVER]
	m, r = recipients.lkmm((kernel / 'MAINTAINERS').read_text(errors='replace'))
	assert m and r
	left_out = {p.name: [a for a in m + r + [recipients.LINUX_ARCH]
			     if a not in p.read_text().partition('\n\n')[0]]
		    for p in patches}
	assert left_out == {p.name: [] for p in patches}



@pytest.mark.unit
def test_export_refuses_a_version_it_has_no_package_for(tmp_path):
	"""scripts/export-base-patch names the Debian package in the cover
	letter: a tree of a version tool/volatile_if/data/linux-source does
	not list gets a one-line error before anything is written."""
	(tmp_path / 'Makefile').write_text('VERSION = 9\nPATCHLEVEL = 99\n'
					   'SUBLEVEL = 1\n')
	for args in (['init', '-q'], ['add', 'Makefile'],
		     ['-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit',
		      '-qm', 'base'], ['tag', 'pristine']):
		subprocess.run(['git', '-C', tmp_path, *args], check=True)
	proc = subprocess.run([common.REPO / 'scripts/export-base-patch',
			       tmp_path], capture_output=True, text=True)
	assert proc.returncode == 1 and proc.stdout == ''
	assert proc.stderr.count('\n') == 1
	assert 'Linux 9.99 is not in tool/volatile_if/data/linux-source' in proc.stderr
	assert not (common.BASE_PATCHES / '9.99').exists()
