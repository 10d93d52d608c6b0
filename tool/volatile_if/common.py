# SPDX-License-Identifier: GPL-2.0
"""What every step shares: where things are, errors, running programs."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / 'build'
DEFAULT_TREE = BUILD / 'linux-6.1'
# One folder per kernel version (VERSION.PATCHLEVEL of the tree's
# Makefile): base_patch() and generated_patches() pick it.  These two are
# those of the default tree.
BASE_PATCHES = REPO / 'base-patch'
GENERATED = REPO / 'generated-patches'
BASE_PATCH = BASE_PATCHES / '6.1'
GENERATED_PATCHES = GENERATED / '6.1'
COCCI = REPO / 'cocci'
CONFIGS = Path(__file__).resolve().parent / 'configs'
DATA = Path(__file__).resolve().parent / 'data'


def table(name: str) -> List[Tuple[str, str]]:
	"""The (key, value) lines of data/@name: two fields split by a tab;
	'#' starts a comment line."""
	rows = []
	for n, line in enumerate((DATA / name).read_text().splitlines(), 1):
		if not line.strip() or line.startswith('#'):
			continue
		key, sep, value = line.partition('\t')
		if not sep:
			raise Error(f'{DATA / name}:{n}: expected "key<TAB>value"')
		rows.append((key, value.strip()))
	return rows


class Error(Exception):
	"""A failure the user can act on: str() is one line that says how,
	@details what the failing program printed last."""

	def __init__(self, message: str, details: str = ''):
		super().__init__(message)
		self.details = details


def pyplot():
	"""matplotlib.pyplot, drawing to files.  Debian's python3-matplotlib
	is /usr/bin/python3's; a python3 of another install may have none."""
	try:
		import matplotlib
	except ImportError:
		raise Error(f'{sys.executable} has no matplotlib: run this with '
			    '/usr/bin/python3 (python3-matplotlib, which '
			    'scripts/setup installs)') from None
	matplotlib.use('Agg')
	import matplotlib.pyplot as plt
	return plt


def kernel_version(tree: Path) -> str:
	"""'6.1' for a tree whose Makefile says VERSION = 6, PATCHLEVEL = 1."""
	try:
		head = (Path(tree) / 'Makefile').read_text(errors='replace')[:2000]
	except OSError:
		head = ''
	v = re.search(r'^VERSION\s*=\s*(\d+)', head, re.M)
	p = re.search(r'^PATCHLEVEL\s*=\s*(\d+)', head, re.M)
	if not (v and p):
		raise Error(f'{tree}/Makefile names no VERSION and PATCHLEVEL: is '
			    'it the top of a kernel tree?')
	return f'{v.group(1)}.{p.group(1)}'


def version_key(version: str) -> Tuple[int, ...]:
	"""'6.12' -> (6, 12), which orders versions as numbers."""
	return tuple(map(int, version.split('.')))


def _versions(folder: Path) -> List[str]:
	return sorted((d.name for d in folder.iterdir()
		       if d.is_dir() and re.fullmatch(r'\d+\.\d+', d.name)),
		      key=version_key)


def base_patch(tree: Path) -> Path:
	"""base-patch/<version of @tree>/, or an Error naming the versions
	there are."""
	version = kernel_version(tree)
	folder = BASE_PATCHES / version
	if not any(folder.glob('*.patch')):
		raise Error(f'no base-patch for Linux {version} ({tree}): '
			    f'base-patch/ has {", ".join(_versions(BASE_PATCHES)) or "none"}')
	return folder


def generated_patches(tree: Path) -> Path:
	"""generated-patches/<version of @tree>/: where convert writes by
	default, and what check, boot and codegen read by default."""
	return GENERATED / kernel_version(tree)


def require(program: str, package: str) -> str:
	"""The path of @program, or an Error naming the Debian package."""
	path = shutil.which(program)
	if not path:
		raise Error(f'{program} not found: install it with '
			    f'"apt-get install {package}" (or run scripts/setup)')
	return path


def distcc() -> bool:
	"""Whether compiles go through distcc: DISTCC_HOSTS names its hosts."""
	if not os.environ.get('DISTCC_HOSTS'):
		return False
	require('distcc', 'distcc')
	return True


def ccache_env() -> dict:
	"""The environment for compiler runs.  Paths below build/ are hashed
	relative to it, so that the cache is shared by every clone of this
	repository on the machine.  Depend mode: kbuild's -Wp,-MMD gives
	ccache the headers, so a miss runs the compiler alone, not the
	preprocessor first (cold, kernel/ and mm/ of the x86_64 KUnit kernel
	took 103 s instead of 141 s here); a compile without -MD or -MMD gets
	ccache's usual mode.  With DISTCC_HOSTS, ccache sends what it misses to
	distcc (CCACHE_PREFIX)."""
	env = dict(os.environ)
	env.setdefault('CCACHE_BASEDIR', str(BUILD))
	env.setdefault('CCACHE_NOHASHDIR', '1')
	env.setdefault('CCACHE_DEPEND', '1')
	if distcc():
		env.setdefault('CCACHE_PREFIX', 'distcc')
	return env


def compiler_vars(cc: str) -> list:
	"""make variables that build with @cc, through ccache if there is one."""
	if shutil.which('ccache'):
		return [f'CC=ccache {cc}', 'HOSTCC=ccache gcc']
	return [f'CC={cc}']


def tail(text: str, lines: int = 20) -> str:
	return '\n'.join(text.rstrip().splitlines()[-lines:])


# How git says why it stopped ("fatal: detected dubious ownership in
# repository at ..."): the reason a one-line error gives.
_WHY = re.compile(r'^(?:fatal|error): (.+)$', re.M)


def run(cmd: Sequence[Union[str, Path]], *, cwd: Optional[Path] = None,
	env: Optional[dict] = None, what: Optional[str] = None,
	log: Optional[Path] = None, timeout: Optional[float] = None,
	stdin: Optional[str] = None,
	apart: bool = False) -> subprocess.CompletedProcess:
	"""Run @cmd (an argument list, never a shell string) with @stdin as
	its input (else none), its output captured, or written to @log as it
	comes so that long steps can be followed.  What it writes to stderr is
	in the output too, unless @apart (in .stderr then: output to parse).
	On failure raise Error naming @what and the reason the program gave,
	if it gives one as git does, with the end of the output as details."""
	argv = [str(c) for c in cmd]
	assert not (log and apart)
	if log:
		log.parent.mkdir(parents=True, exist_ok=True)
	try:
		with open(log, 'w') if log else open(os.devnull) as sink:
			proc = subprocess.run(
				argv, cwd=cwd, env=env, input=stdin,
				stdin=None if stdin is not None else
				subprocess.DEVNULL,
				stdout=sink if log else subprocess.PIPE,
				stderr=subprocess.PIPE if apart else
				subprocess.STDOUT, text=True,
				errors='replace', timeout=timeout)
	except FileNotFoundError:
		raise Error(f'{argv[0]} not found (run scripts/setup)') \
			from None
	except subprocess.TimeoutExpired as e:
		raise Error(f'{what or argv[0]}: timed out after '
			    f'{timeout:.0f} s') from e
	if log:
		proc.stdout = log.read_text(errors='replace')
	if proc.returncode:
		said = (proc.stderr or '') + proc.stdout
		why = _WHY.findall(said)
		because = f': {why[0]}' if why else ''
		where = f'; full log in {log}' if log else ''
		raise Error(f'{what or " ".join(argv)} failed (exit '
			    f'{proc.returncode}){because}{where}', tail(said))
	return proc


def git(repo: Path, *args: str, what: str = '', env: Optional[dict] = None,
	stdin: Optional[str] = None) -> str:
	"""The output of git -C @repo @args, without what git writes to stderr
	("warning: refname 'pristine' is ambiguous." is no revision); on
	failure an Error with git's reason."""
	return run(['git', '-C', repo, *args], what=what or f'git {args[0]}',
		   env=env, stdin=stdin, apart=True).stdout


def git_or_none(repo: Path, *args: str) -> Optional[str]:
	"""The output of git -C @repo @args, or None where git exits non-zero:
	for the commands whose exit status is the answer (config of a key
	that is not set, rev-parse --verify, a grep that finds nothing).
	Names that are not UTF-8 come back as surrogate escapes."""
	try:
		proc = subprocess.run(['git', '-C', str(repo), *args],
				      stdin=subprocess.DEVNULL,
				      capture_output=True, text=True,
				      errors='surrogateescape')
	except FileNotFoundError:
		raise Error('git not found (run scripts/setup)') from None
	return None if proc.returncode else proc.stdout


def progress(message: str) -> None:
	print(message, file=sys.stderr, flush=True)


def jobs() -> int:
	return len(os.sched_getaffinity(0))


def build_jobs() -> int:
	"""make -j for kernel builds: the CPUs here, or with distcc the
	slots of DISTCC_HOSTS (distcc -j)."""
	if distcc():
		out = run(['distcc', '-j']).stdout.strip()
		if out.isdigit():
			return max(int(out), jobs())
	return jobs()
