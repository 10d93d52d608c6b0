# SPDX-License-Identifier: GPL-2.0
"""Bad input: one line that says what to do, a non-zero exit, and nothing
of the user's touched."""

import os
import shutil
import signal
import subprocess

import pytest

from volatile_if import arches, boot, cli, common, convert, scan, tree
from volatile_if.codegen import survey

pytestmark = pytest.mark.unit

AUTHOR = 'A U Thor <author@example.org>'


def one_line_error(proc, *words):
	assert proc.returncode != 0
	lines = proc.stderr.strip().splitlines()
	assert len(lines) == 1 and lines[0].startswith('volatile-if: '), proc.stderr
	for w in words:
		assert w in lines[0], lines[0]


def only(tmp_path, *programs):
	"""The environment with a PATH that has just @programs in it."""
	bin_dir = tmp_path / 'bin'
	bin_dir.mkdir()
	for p in programs:
		(bin_dir / p).symlink_to(shutil.which(p))
	return dict(os.environ, PATH=str(bin_dir))


def fake_kernel(path):
	"""Just enough of a kernel tree to pass for one, in git."""
	(path / 'scripts').mkdir(parents=True)
	(path / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 1\n')
	(path / 'Kconfig').write_text('')
	(path / 'scripts/checkpatch.pl').write_text('')
	for cmd in (['init', '-q'], ['add', '-A'],
		    ['-c', 'user.name=T', '-c', 'user.email=t@t', 'commit', '-qm', 'x']):
		subprocess.run(['git', '-C', path, *cmd], check=True)
	return path


def test_not_a_kernel_tree(tool, tmp_path):
	one_line_error(tool('scan', '--tree', tmp_path), 'not the top of a kernel tree')
	one_line_error(tool('convert', '--tree', tmp_path, '--out', tmp_path / 'o'),
		       'not the top of a kernel tree')


def test_not_git(tool, tmp_path):
	fake_kernel(tmp_path)
	shutil.rmtree(tmp_path / '.git')
	one_line_error(tool('scan', '--tree', tmp_path), 'not a git repository')


def test_missing_path(tool, tmp_path):
	one_line_error(tool('scan', tmp_path / 'nope.c'), 'no such file')


def test_spatch_missing(tool, tmp_path):
	(tmp_path / 'a.c').write_text('int x;\n')
	one_line_error(tool('scan', tmp_path / 'a.c', env=only(tmp_path, 'git')),
		       'spatch not found', 'apt-get install coccinelle')


def test_dirty_tree_is_refused_and_left_alone(tool, tmp_path):
	tree = fake_kernel(tmp_path / 'linux')
	(tree / 'Kconfig').write_text('# my work in progress\n')
	one_line_error(tool('convert', '--tree', tree, '--out', tmp_path / 'o',
			    '--identity', AUTHOR),
		       'uncommitted changes')
	assert (tree / 'Kconfig').read_text() == '# my work in progress\n'
	assert not (tmp_path / 'o').exists()


def test_output_not_writable(tool, tmp_path):
	tree = fake_kernel(tmp_path / 'linux')
	one_line_error(tool('convert', '--tree', tree, '--out', '/proc/volatile-if',
			    '--identity', AUTHOR),
		       'cannot write to /proc/volatile-if', '--out')


def test_patches_convert_did_not_write_are_kept(tool, tmp_path):
	"""--out DIR may be the user's folder: a patch there that convert did
	not write, or wrote and the user edited, stops the run before it
	starts; nothing in DIR goes."""
	tree = fake_kernel(tmp_path / 'linux')
	out = tmp_path / 'o'
	out.mkdir()
	(out / '0001-my-own-fix.patch').write_text('mine\n')
	one_line_error(tool('convert', '--tree', tree, '--out', out,
			    '--identity', AUTHOR),
		       '0001-my-own-fix.patch is not a patch convert wrote',
		       '--out')
	assert [p.name for p in out.iterdir()] == ['0001-my-own-fix.patch']
	branches = subprocess.run(['git', '-C', tree, 'branch', '--list'],
				  capture_output=True, text=True).stdout
	assert 'volatile-if' not in branches


def test_bad_identity(tool, tmp_path):
	tree = fake_kernel(tmp_path / 'linux')
	one_line_error(tool('convert', '--tree', tree, '--out', tmp_path / 'o',
				   '--identity', 'nobody'), 'Name <email>')
	# one that git refuses, though it has the form: before any work
	one_line_error(tool('convert', '--tree', tree, '--out', tmp_path / 'o',
			    '--identity', '"" <a@b.org>'),
		       'name consists only of disallowed characters',
		       'fix --identity')
	assert not (tmp_path / 'o').exists()


def test_git_failure_says_why(tool, tmp_path):
	"""A repository git cannot read: the line gives git's reason."""
	tree = fake_kernel(tmp_path / 'linux')
	shutil.rmtree(tree / '.git')
	(tree / '.git').write_text(f'gitdir: {tmp_path / "gone"}\n')
	one_line_error(tool('convert', '--tree', tree, '--out', tmp_path / 'o',
			    '--identity', AUTHOR),
		       'failed (exit 128): not a git repository')


def without_git_identity(tmp_path):
	"""The environment of a user git knows no name for."""
	home = tmp_path / 'home'
	home.mkdir()
	env = {k: v for k, v in os.environ.items()
	       if not k.startswith(('GIT_', 'EMAIL'))}
	return dict(env, HOME=str(home), XDG_CONFIG_HOME=str(home),
		    GIT_CONFIG_NOSYSTEM='1')


def test_no_identity_stops_before_any_work(tool, tmp_path):
	tree = fake_kernel(tmp_path / 'linux')
	one_line_error(tool('convert', '--tree', tree, '--out', tmp_path / 'o',
			    env=without_git_identity(tmp_path)),
		       'no one to sign', '--identity', 'git config')
	assert not (tmp_path / 'o').exists()
	branches = subprocess.run(['git', '-C', tree, 'branch', '--list'],
				  capture_output=True, text=True).stdout
	assert 'volatile-if' not in branches


def test_identity_from_git_config_of_the_tree(tmp_path, monkeypatch):
	tree = fake_kernel(tmp_path / 'linux')
	for k, v in without_git_identity(tmp_path).items():
		monkeypatch.setenv(k, v)
	for k in [k for k in os.environ if k.startswith(('GIT_', 'EMAIL'))]:
		if k != 'GIT_CONFIG_NOSYSTEM':
			monkeypatch.delenv(k)
	with pytest.raises(common.Error, match='no one to sign'):
		convert.signer(tree)
	subprocess.run(['git', '-C', tree, 'config', 'user.name', 'Jane Hacker'], check=True)
	subprocess.run(['git', '-C', tree, 'config', 'user.email', 'jane@example.org'],
		       check=True)
	assert convert.signer(tree) == 'Jane Hacker <jane@example.org>'
	assert convert.signer(tree, 'A U Thor <a@example.org>') == 'A U Thor <a@example.org>'


def test_a_version_with_no_base_patch(tool, tmp_path):
	tree = fake_kernel(tmp_path / 'linux')
	(tree / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 99\n')
	subprocess.run(['git', '-C', tree, '-c', 'user.name=T', '-c', 'user.email=t@t',
			'commit', '-qam', 'y'], check=True)
	(tree / 'include/asm-generic').mkdir(parents=True)
	(tree / 'include/asm-generic/barrier.h').write_text('\n')
	subprocess.run(['git', '-C', tree, 'add', '-A'], check=True)
	subprocess.run(['git', '-C', tree, '-c', 'user.name=T', '-c', 'user.email=t@t',
			'commit', '-qm', 'z'], check=True)
	one_line_error(tool('convert', '--tree', tree, '--out', tmp_path / 'o',
			    '--identity', AUTHOR),
		       'no base-patch for Linux 6.99', 'base-patch/ has 6.1')
	assert not (tmp_path / 'o').exists()


def test_kernel_version_picks_the_folders(tmp_path):
	(tmp_path / 'Makefile').write_text('# SPDX\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 3\n')
	assert common.kernel_version(tmp_path) == '6.12'
	assert common.generated_patches(tmp_path) == common.REPO / 'generated-patches/6.12'
	(tmp_path / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 1\n')
	assert common.base_patch(tmp_path) == common.BASE_PATCH


def test_no_patches_to_check(tool, tmp_path, pristine):
	one_line_error(tool('check', '--patches', tmp_path), 'no patches', 'convert')


@pytest.fixture
def a_patch(tmp_path):
	d = tmp_path / 'series'
	d.mkdir()
	shutil.copy(next((common.REPO / 'tests/tool/fixture').glob('0001-*.patch')), d)
	return d


def test_sparse_missing(tool, tmp_path, pristine, a_patch):
	one_line_error(tool('check', '--patches', a_patch,
				   env=only(tmp_path, 'git', 'perl')),
		       'sparse not found', 'apt-get install sparse')


def test_cross_gcc_missing(tool, tmp_path, pristine, a_patch):
	one_line_error(tool('check', '--patches', a_patch, '--arch', 'arm64',
				   env=only(tmp_path, 'git', 'perl', 'sparse')),
		       'aarch64-linux-gnu-gcc not found', 'apt-get install gcc-aarch64-linux-gnu')


def test_qemu_missing(tool, tmp_path, pristine, a_patch):
	one_line_error(tool('boot', '--patches', a_patch, '--arch', 'arm64',
				   env=only(tmp_path, 'git', 'aarch64-linux-gnu-gcc')),
		       'qemu-system-aarch64 not found', 'apt-get install qemu-system-arm')


def test_sites_on_a_tso_architecture(tool):
	one_line_error(tool('codegen', '--sites', '--arch', 'arm64', '--arch',
			    'x86_64'), 'x86_64 is TSO', 'leave it out')


def test_codegen_wants_its_compilers_before_any_work(tool, tmp_path):
	"""A compiler codegen does not know, or one not installed, stops it
	before it looks at a tree (there is none at --tree here)."""
	nowhere = ['--tree', str(tmp_path / 'none')]
	one_line_error(tool('codegen', '--cc', 'icc', *nowhere),
		       'unknown compiler icc', 'clang-N')
	one_line_error(tool('codegen', '--arch', 'riscv', '--cc', 'clang-99',
			    *nowhere), 'clang-99 not found',
		       'apt-get install clang-99')


def test_survey_applies_the_series_before_the_scan(tmp_path, monkeypatch):
	"""A series that does not apply stops survey before its full-tree
	scan, not after its minutes."""
	tree_ = fake_kernel(tmp_path / 'linux')
	(tmp_path / 'p').mkdir()
	(tmp_path / 'p' / '0001-x.patch').write_text('x\n')
	scanned = []

	def bad_series(kernel, patches):
		raise common.Error('0001-x.patch does not apply')
	monkeypatch.setattr(survey, 'require_tools', lambda **options: None)
	monkeypatch.setattr(tree, 'series_tree', bad_series)
	monkeypatch.setattr(scan, 'scan', lambda *a, **k: scanned.append(a))
	args = cli.parser().parse_args(['survey', '--tree', str(tree_),
					'--patches', str(tmp_path / 'p'),
					'--arch', 'arm64', '--cc', 'gcc'])
	with pytest.raises(common.Error, match='does not apply'):
		args.func(args)
	assert scanned == []


def test_all_wants_qemu_before_any_work(tool, tmp_path):
	"""all boots last, after minutes of convert and check: QEMU is looked
	for first, with every other program there."""
	tree = fake_kernel(tmp_path / 'linux')
	gccs = sorted({arches.get(a).gcc for a in arches.CHECK_ARCHES +
		       arches.QEMU_ARCHES})
	one_line_error(tool('all', '--tree', tree, '--out', tmp_path / 'o',
			    '--identity', AUTHOR,
			    env=only(tmp_path, 'git', 'perl', 'spatch', 'sparse',
				     *gccs)),
		       'qemu-system-x86_64 not found')
	assert not (tmp_path / 'o').exists()


def test_interrupt_leaves_tree_branch_and_output_alone(tool, tmp_path, pristine):
	def state():
		return [subprocess.run(['git', '-C', pristine, *cmd], capture_output=True,
				       text=True).stdout
			for cmd in (['rev-parse', 'HEAD'], ['symbolic-ref', '-q', 'HEAD'],
				    ['status', '--porcelain'])]
	out = tmp_path / 'out'
	out.mkdir()
	earlier = tmp_path / '0001-earlier.patch'
	earlier.write_text('keep me\n')
	convert.write_out(out, [earlier])       # an earlier run's series
	written = (out / convert.WRITTEN).read_text()
	before = state()
	# Ctrl-C reaches a process whose SIGINT is the default; one started by
	# `make test &` from a script inherits SIG_IGN, which Python keeps.
	proc = subprocess.Popen(tool.argv + ['convert', '--out', str(out),
					     '--identity', AUTHOR],
				stderr=subprocess.PIPE, text=True,
				preexec_fn=lambda: signal.signal(signal.SIGINT,
								 signal.SIG_DFL))
	# Interrupt once the scan has started: a progress line says so.
	seen = []
	for line in proc.stderr:
		seen.append(line)
		if line.startswith('[scan'):
			break
	assert proc.poll() is None, ''.join(seen)
	proc.send_signal(signal.SIGINT)
	_, err = proc.communicate(timeout=120)
	err = ''.join(seen) + err
	assert proc.returncode == 130, err
	assert err.strip().splitlines()[-1] == \
		'volatile-if: interrupted; your tree and branch are as they were'
	assert state() == before
	assert sorted(p.name for p in out.iterdir()) == \
		[convert.WRITTEN, '0001-earlier.patch']
	assert (out / '0001-earlier.patch').read_text() == 'keep me\n'
	assert (out / convert.WRITTEN).read_text() == written


def test_boot_checks_the_tree_it_is_given_as_text(tmp_path):
	"""cli hands boot the --tree string; boot checks it as check does,
	instead of failing deep inside with a traceback."""
	with pytest.raises(common.Error, match='not the top of a kernel tree'):
		boot.boot(str(tmp_path), [], ['x86_64'])


@pytest.mark.parametrize('script', ['bench-codegen', 'bench-survey'])
def test_bench_without_matplotlib_stops_before_building(script, tmp_path):
	"""The benchmarks draw their charts with Debian's matplotlib: a python3
	without it (-S: no site packages) is refused before the first build."""
	proc = subprocess.run(['/usr/bin/python3', '-S',
			       common.REPO / 'scripts' / script,
			       '--arch', 'arm64', '--out', tmp_path / 'o'],
			      capture_output=True, text=True, timeout=60)
	assert proc.returncode != 0
	assert proc.stderr.strip().splitlines() == [
		f'{script}: /usr/bin/python3 has no matplotlib: run this with '
		'/usr/bin/python3 (python3-matplotlib, which scripts/setup '
		'installs)'], proc.stderr
	assert not (tmp_path / 'o').exists()
