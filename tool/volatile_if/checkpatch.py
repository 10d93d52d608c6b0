# SPDX-License-Identifier: GPL-2.0
"""scripts/checkpatch.pl --strict on a patch, its verdict as data."""

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import List

from .common import Error, require

_TOTAL = re.compile(r'^total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?')
_MESSAGE = re.compile(r'^(ERROR|WARNING|CHECK):(\w+): (.*)$')


@dataclass
class Verdict:
	patch: Path
	errors: int = 0
	warnings: int = 0
	checks: int = 0
	# "WARNING:TYPE: text", in order
	messages: List[str] = field(default_factory=list)
	output: str = ''


def parse(patch: Path, output: str) -> Verdict:
	v = Verdict(patch, output=output)
	for line in output.splitlines():
		m = _MESSAGE.match(line)
		if m:
			v.messages.append(f'{m.group(1)}:{m.group(2)}: {m.group(3)}')
		m = _TOTAL.match(line)
		if m:
			v.errors, v.warnings = int(m.group(1)), int(m.group(2))
			v.checks = int(m.group(3) or 0)
			return v
	raise Error(f'checkpatch.pl printed no verdict for {patch}', output)


def checkpatch(tree: Path, patch: Path, source_file: bool = False) -> Verdict:
	"""Run @tree's checkpatch.pl --strict on @patch (with @source_file, on
	a source file), from inside @tree so that it checks against it.  Its spdxcheck.py wants Debian's python3
	(python3-ply, python3-git), so /usr/bin goes first in PATH."""
	require('perl', 'perl')
	env = dict(os.environ, PATH='/usr/bin:' + os.environ.get('PATH', ''))
	proc = subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict',
			       '--show-types'] + (['-f'] if source_file else []) +
			      [str(Path(patch).resolve())],
			      cwd=tree, env=env, text=True, errors='replace',
			      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT)
	if 'Traceback' in proc.stdout:
		raise Error('checkpatch.pl: spdxcheck.py failed: install '
			    'python3-ply and python3-git', proc.stdout)
	return parse(patch, proc.stdout)
