# SPDX-License-Identifier: GPL-2.0
"""The driver's code passes pyflakes, and mypy with tool/mypy.ini: the
lint that `make check` and `make test` run with the unit tier."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]


def lint(*args: str) -> subprocess.CompletedProcess:
	return subprocess.run([sys.executable, '-m', *args], cwd=REPO,
			      capture_output=True, text=True)


def test_pyflakes():
	r = lint('pyflakes', 'tool', 'tests', 'tool/volatile-if',
		 'scripts/bench-codegen', 'scripts/bench-survey')
	assert r.returncode == 0 and not r.stdout, r.stdout + r.stderr


def test_mypy():
	r = lint('mypy', '--config-file', 'tool/mypy.ini')
	assert r.returncode == 0, r.stdout + r.stderr
