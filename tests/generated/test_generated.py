# SPDX-License-Identifier: GPL-2.0
"""generated-patches/ is exactly what `volatile-if convert` makes of the
6.1 tree, and holds to the kernel's standards: no new sparse warning, every
touched object built on the seven architectures, and no convert site left
for the kernel's own coccicheck.  (git am and checkpatch: tests/test_patches.py;
the converted kernel booted: tests/boot/.)"""

import re
import subprocess

import pytest

from volatile_if import arches, check, common, convert, tree

GENERATED = tree.series(common.GENERATED_PATCHES)
CONVERT_RULES = ('acquire-in-branch', 'acquire-early-exit', 'acquire-loop-exit')


@pytest.mark.unit
def test_series_is_committed():
	cover = common.GENERATED_PATCHES / '0000-cover-letter.patch'
	assert GENERATED and cover.is_file()
	# An example, signed by a made-up submitter, and it says so.
	for p in [cover] + GENERATED:
		assert f'From: {convert.EXAMPLE_IDENTITY}' in ' '.join(p.read_text().split())
	for p in GENERATED:
		assert f'\nSigned-off-by: {convert.EXAMPLE_IDENTITY}\n' in p.read_text()
	assert 'This is example output of tool/volatile-if' in cover.read_text()
	# The cover letter names every patch of the series.
	assert all(tree.subject(p) in ' '.join(cover.read_text().split())
		   for p in GENERATED)


@pytest.mark.unit
@pytest.mark.parametrize('folder', sorted(common.GENERATED_PATCHES.parent.glob('6.*')),
			 ids=lambda p: p.name)
def test_no_trailer_but_the_sign_off(folder):
	"""git interpret-trailers and b4 take a line "Word-by: ..." for a
	trailer: the wrapped text must not start one."""
	for p in sorted(folder.glob('*.patch')):
		text = p.read_text()
		body = re.split(r'^---?\s*$', text[text.index('\n\n'):], flags=re.M)[0]
		trailers = re.findall(r'^[A-Za-z-]+-by:.*', body, re.M)
		want = [] if p.name.startswith('0000-') else \
			[f'Signed-off-by: {convert.EXAMPLE_IDENTITY}']
		assert trailers == want, p.name


@pytest.mark.unit
@pytest.mark.parametrize('folder', sorted(common.GENERATED_PATCHES.parent.glob('6.*')),
			 ids=lambda p: p.name)
def test_recipients_come_from_the_code_not_the_words(folder):
	# The messages say what the change does on riscv; that is no reason to
	# send a patch to RISC-V's maintainers (a K: keyword of MAINTAINERS).
	for p in tree.series(folder):
		text = p.read_text()
		headers = text[:text.index('\n\n')]
		assert 'riscv' in text and 'arch/riscv/' not in text, p.name
		assert 'palmer@dabbelt.com' not in headers, p.name


MADE_ON = dict(common.table('linux-source'))


def _made_on(version: str) -> subprocess.CompletedProcess:
	return subprocess.run([common.REPO / 'scripts' / 'made-on', version],
			      capture_output=True, text=True)


@pytest.mark.unit
def test_every_version_names_its_package():
	"""scripts/made-on, which scripts/setup and export-base-patch ask,
	gives the package of each kernel data/linux-source names, and
	base-patch/ has a folder for each."""
	for version, package in MADE_ON.items():
		assert _made_on(version).stdout == package + '\n'
	assert sorted(MADE_ON) == \
		sorted(p.name for p in common.BASE_PATCHES.iterdir() if p.is_dir())
	assert all(re.fullmatch(rf'{re.escape(v)}\.\d+-\S+', MADE_ON[v])
		   for v in MADE_ON), MADE_ON


@pytest.mark.unit
@pytest.mark.parametrize('version', ['6.10', '9.99'])
def test_made_on_refuses_a_kernel_it_has_no_package_for(version):
	"""One line that names the kernels there are; 6.10 is not 6.1."""
	proc = _made_on(version)
	assert proc.returncode == 1 and proc.stdout == ''
	assert proc.stderr.count('\n') == 1
	assert f'Linux {version} is not in' in proc.stderr
	assert f'(it has {" ".join(MADE_ON)})' in proc.stderr


@pytest.mark.slow
def test_regenerates_byte_for_byte(tool, pristine, tmp_path):
	"""convert on the tree scripts/setup unpacked, signed by the example
	identity, gives the committed files, byte for byte: the patches and
	its list of what it wrote (convert.WRITTEN)."""
	version = common.kernel_version(pristine)
	source = tree.git(pristine, 'log', '-1', '--format=%s',
			  tree.PRISTINE).strip()
	assert source == f'Debian linux-source-{version} {MADE_ON[version]}', \
		(f'{pristine} is "{source}", not the package generated-patches/'
		 f'{version} was made from (tool/volatile_if/data/linux-source): '
		 'make the series again on it and name its package there')
	proc = tool('convert', '--tree', pristine, '--out', tmp_path,
		    '--identity', convert.EXAMPLE_IDENTITY)
	assert proc.returncode == 0, proc.stderr
	made = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
	committed = {p.name: p.read_bytes()
		     for p in common.GENERATED_PATCHES.iterdir()}
	assert sorted(made) == sorted(committed)
	for name in committed:
		assert made[name] == committed[name], f'{name} differs'


@pytest.mark.slow
def test_check_sparse_and_builds(pristine):
	"""volatile-if check: sparse gives no new warning on any touched file,
	and every touched object builds for every architecture that builds it."""
	result = check.check(pristine, GENERATED)
	print(result.table())
	assert not any(result.new_sparse.values()), result.new_sparse
	assert set(next(iter(result.builds.values()))) == set(arches.CHECK_ARCHES)
	failed = {(o, a): why for o, row in result.builds.items()
		  for a, why in row.items() if why not in ('ok', check.NOT_BUILT)}
	assert not failed
	# n/a: the architecture's configuration does not build the object
	# (irq-apple-aic, say, is arm64's); every object builds somewhere.
	assert all('ok' in row.values() for row in result.builds.values()), \
		result.table()


@pytest.mark.slow
@pytest.mark.parametrize('rule', CONVERT_RULES)
def test_coccicheck_finds_no_convert_site(test_tree, rule):
	"""The kernel's copy of each convert rule, run by make coccicheck over
	the converted tree, reports nothing left to convert."""
	cocci = f'scripts/coccinelle/locks/{rule}.cocci'
	proc = subprocess.run(['make', '-s', '-C', str(test_tree), 'coccicheck',
			       'MODE=report', f'COCCI={cocci}', f'J={common.jobs()}'],
			      capture_output=True, text=True)
	assert proc.returncode == 0, proc.stderr[-2000:]
	left = re.findall(r'^\S+:\d+:\d+-\d+: \[[\w-]+\] convert/.*$',
			  proc.stdout, re.M)
	assert not left, '\n'.join(left)


ACQUIRE_RULES = CONVERT_RULES + ('orphan-acquire',)


@pytest.mark.unit
@pytest.mark.parametrize('folder', sorted(common.GENERATED_PATCHES.parent.glob('6.*')),
			 ids=lambda p: p.name)
def test_base_patch_counts_the_sites_of_the_cover_letter(folder):
	"""What base-patch's semantic-patch commit says the rules make of the
	tree's smp_acquire__after_ctrl_dep() sites, the cover letter of the
	series made from it lists: so many sites of the acquire rules, so many
	of them converted."""
	(rules,) = [p for p in tree.series(common.BASE_PATCHES / folder.name)
		    if tree.subject(p).startswith('scripts/coccinelle: ')]
	said = re.search(r'On Linux (\S+) they put each of the (\d+) '
			 r'smp_acquire__after_ctrl_dep\(\) sites in one class, '
			 r'(\d+) of them to convert\.',
			 ' '.join(rules.read_text().split()))
	assert said and said[1] == folder.name, rules.name
	listed = {part: len([i for i in idioms if i in ACQUIRE_RULES])
		  for part, idioms in _cover_letter_lists(folder).items()}
	assert (int(said[2]), int(said[3])) == \
		(sum(listed.values()), listed.get('Converted', 0)), listed


def _cover_letter_lists(folder):
	"""part of the cover letter (Converted, Left for review, Dismissed)
	-> the idioms of the sites it lists."""
	listed: dict = {}
	part = None
	for line in (folder / '0000-cover-letter.patch').read_text().splitlines():
		if re.match(r'(Converted|Left for review|Dismissed):', line):
			part = line.split(':')[0]
		m = re.fullmatch(r'  \S+:\d+ \S+\(\) \[([\w-]+)\]', line)
		if m:
			listed.setdefault(part, []).append(m[1])
	return listed


@pytest.mark.unit
@pytest.mark.parametrize('folder', sorted(common.GENERATED_PATCHES.parent.glob('6.*')),
			 ids=lambda p: p.name)
def test_readme_counts_what_the_cover_letter_lists(folder):
	"""README.md's paragraph on each version's series gives its sites,
	patches, sites left for review and dismissed: those of the series
	and its cover letter."""
	readme = (common.REPO / 'README.md').read_text()
	(paragraph,) = [' '.join(p.split()) for p in readme.split('\n\n')
			if f'`generated-patches/{folder.name}/`' in p]
	said = re.search(r'(\d+) sites in (\d+) patches', paragraph)
	review = re.search(r'(\d+) (?:sites )?left for review(?:,| and the) '
			   r'(\d+) dismissed', paragraph)
	assert said and review, paragraph
	listed = {part: len(idioms)
		  for part, idioms in _cover_letter_lists(folder).items()}
	assert [int(x) for x in said.groups() + review.groups()] == [
		listed.get('Converted'), len(tree.series(folder)),
		listed.get('Left for review'), listed.get('Dismissed')], listed
