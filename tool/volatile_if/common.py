# SPDX-License-Identifier: GPL-2.0
"""What every step shares: where things are, errors, running programs."""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / 'build'
DEFAULT_TREE = BUILD / 'linux-6.1'
BASE_PATCH = REPO / 'base-patch' / '6.1'
GENERATED_PATCHES = REPO / 'generated-patches' / '6.1'
COCCI = REPO / 'cocci'
CONFIGS = Path(__file__).resolve().parent / 'configs'


class Error(Exception):
	"""A failure the user can act on: str() is one line that says how,
	@details what the failing program printed last."""

	def __init__(self, message: str, details: str = ''):
		super().__init__(message)
		self.details = details


def require(program: str, package: str) -> str:
	"""The path of @program, or an Error naming the Debian package."""
	path = shutil.which(program)
	if not path:
		raise Error(f'{program} not found: install it with '
			    f'"apt-get install {package}" (or run scripts/setup)')
	return path


def ccache_env() -> dict:
	"""The environment for compiler runs.  Paths below build/ are hashed
	relative to it, so that the cache is shared by every clone of this
	repository on the machine."""
	env = dict(os.environ)
	env.setdefault('CCACHE_BASEDIR', str(BUILD))
	env.setdefault('CCACHE_NOHASHDIR', '1')
	return env


def compiler_vars(cc: str) -> list:
	"""make variables that build with @cc, through ccache if there is one."""
	if shutil.which('ccache'):
		return [f'CC=ccache {cc}', 'HOSTCC=ccache gcc']
	return [f'CC={cc}']


def tail(text: str, lines: int = 20) -> str:
	return '\n'.join(text.rstrip().splitlines()[-lines:])


def run(cmd: Sequence[str], *, cwd: Optional[Path] = None,
	env: Optional[dict] = None, what: Optional[str] = None,
	log: Optional[Path] = None, timeout: Optional[float] = None
	) -> subprocess.CompletedProcess:
	"""Run @cmd (an argument list, never a shell string), its output
	captured, or written to @log as it comes so that long steps can be
	followed.  On failure raise Error naming @what, with the end of the
	output as details."""
	cmd = [str(c) for c in cmd]
	if log:
		log.parent.mkdir(parents=True, exist_ok=True)
	try:
		with open(log, 'w') if log else open(os.devnull) as sink:
			proc = subprocess.run(
				cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
				stdout=sink if log else subprocess.PIPE,
				stderr=subprocess.STDOUT, text=True,
				errors='replace', timeout=timeout)
	except FileNotFoundError:
		raise Error(f'{cmd[0]} not found (run scripts/setup)') from None
	except subprocess.TimeoutExpired as e:
		raise Error(f'{what or cmd[0]}: timed out after {timeout:.0f} s') from e
	if log:
		proc.stdout = log.read_text(errors='replace')
	if proc.returncode:
		where = f'; full log in {log}' if log else ''
		raise Error(f'{what or " ".join(cmd)} failed '
			    f'(exit {proc.returncode}){where}', tail(proc.stdout))
	return proc


def progress(message: str) -> None:
	print(message, file=sys.stderr, flush=True)


def jobs() -> int:
	return len(os.sched_getaffinity(0))
