# SPDX-License-Identifier: GPL-2.0
"""Boot: the series tree under QEMU on every architecture arches.py can
boot, running the KUnit suite through kunit.py.

Input: a kernel tree and a patch series.  Output: per architecture, the
KUnit results."""

from pathlib import Path
from typing import Dict, Sequence

from . import arches, kunit_qemu
from .check import series_tree


def boot(kernel: Path, patches: Sequence[Path],
	 arch_names: Sequence[str] = arches.QEMU_ARCHES) -> Dict[str, kunit_qemu.KunitRun]:
	wt = series_tree(kernel, [p for p in patches if not p.name.startswith('0000-')])
	return {name: kunit_qemu.run_kunit(wt, arches.get(name)) for name in arch_names}


def failures(run: kunit_qemu.KunitRun) -> Dict[str, str]:
	"""Cases that did not pass; a suite that ran no volatile_if case at
	all counts as failed."""
	bad = {k: v for k, v in run.results.items() if v != 'PASS'}
	if not any(k.startswith('volatile_if.') for k in run.results):
		bad['volatile_if'] = 'NOT RUN'
	return bad
