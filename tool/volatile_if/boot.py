# SPDX-License-Identifier: GPL-2.0
"""Boot: the series tree under QEMU, on every architecture arches.py can
boot: the KUnit suite through kunit.py, then the same kernel with the
workload initramfs that drives the converted code (workload.py).

Input: a kernel tree and a patch series.  Output: per architecture, the
KUnit results and the workload boot."""

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Sequence, Union

from . import arches, kunit_qemu, tree, workload


@dataclass
class ArchBoot:
	kunit: kunit_qemu.KunitRun
	workload: workload.Boot

	def failures(self) -> Dict[str, str]:
		"""What did not pass: KUnit cases (a suite with no volatile_if
		case counts as failed), workloads, kernel problems."""
		bad = {f'kunit {k}': v for k, v in self.kunit.results.items()
		       if v != 'PASS'}
		if not any(k.startswith('volatile_if.') for k in self.kunit.results):
			bad['kunit volatile_if'] = 'NOT RUN'
		bad.update({f'workload {k}': v
			    for k, v in self.workload.failures().items()})
		for p in self.workload.problems:
			bad[f'console line {p.line}'] = f'{p.kind}: {p.text}'
		if self.workload.timed_out:
			bad['workload boot'] = 'timed out'
		return bad


def require_tools(arch_names: Sequence[str] = arches.QEMU_ARCHES) -> None:
	"""Every program boot() runs, so that a missing one fails before the
	long steps."""
	for name in arch_names:
		kunit_qemu.require_tools(arches.get(name))


def boot(kernel: Path, patches: Union[tree.Series, Sequence[Path]],
	 arch_names: Sequence[str] = arches.QEMU_ARCHES) -> Dict[str, ArchBoot]:
	kernel = tree.kernel_tree(kernel)
	require_tools(arch_names)
	wt = tree.series_tree(kernel, tree.numbered(patches))
	runs = {}
	for name in arch_names:
		arch = arches.get(name)
		kunit = kunit_qemu.run_kunit(wt, arch)
		runs[name] = ArchBoot(kunit, workload.boot(arch, kunit.build_dir))
	return runs
