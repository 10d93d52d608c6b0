# SPDX-License-Identifier: GPL-2.0
"""Check: a series, held to the kernel's standards.

Input: a kernel tree and a patch series (the output of convert).
Output: verdicts: checkpatch per patch, new sparse warnings per touched
file, and a table of touched object x architecture builds.

Everything is built in one scratch worktree holding pristine + base-patch
+ the series, with one build directory per architecture, configured and
prepared once.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Tuple, Union

from . import arches, checkpatch, kbuild, tree
from .checkpatch import Verdict
from .common import Error, progress, require

NOT_BUILT = 'n/a'


def touched_files(worktree: Path, count: int) -> List[str]:
	"""The .c and .h files changed by the last @count commits."""
	out = tree.git(worktree, 'diff', '--name-only', f'HEAD~{count}', 'HEAD',
		       '--', '*.c', '*.h')
	return sorted(out.split())


def build(kernel: Path, arch: arches.Arch) -> kbuild.KernelBuild:
	"""The check build of @arch (kbuild.check_build())."""
	return kbuild.check_build(kernel, arch)


@dataclass
class CheckResult:
	checkpatch: Dict[str, Verdict] = field(default_factory=dict)
	# touched file -> warnings sparse gives after conversion but not before
	new_sparse: Dict[str, List[str]] = field(default_factory=dict)
	# object -> arch -> 'ok', 'n/a' (the arch's configuration does not
	# build it: an arm64-only driver) or the first error line
	builds: Dict[str, Dict[str, str]] = field(default_factory=dict)

	@property
	def ok(self) -> bool:
		# checkpatch --strict's own verdict: a CHECK is a finding too
		return (all(v.errors == v.warnings == v.checks == 0
			    for v in self.checkpatch.values()) and
			not any(self.new_sparse.values()) and
			all(r in ('ok', NOT_BUILT) for row in self.builds.values()
			    for r in row.values()))

	def table(self) -> str:
		names = list(next(iter(self.builds.values()), {}))
		width = max([len(o) for o in self.builds] + [6])
		lines = [f'{"object":<{width}}  ' + '  '.join(f'{a:<8}' for a in names)]
		for obj, row in self.builds.items():
			lines.append(f'{obj:<{width}}  ' + '  '.join(
				f'{row[a] if row[a] in ("ok", NOT_BUILT) else "FAIL":<8}'
				for a in names))
		return '\n'.join(lines)


_SPARSE = re.compile(r'^(?:\.\./)*(?P<file>[^:\s]+):\d+:\d+: (?P<text>(?:warning|error): .*)$')


def sparse_warnings(b: kbuild.KernelBuild, files: Sequence[str]) -> Dict[str, List[str]]:
	"""sparse (make C=2) on the objects of @files, in one make: file ->
	its warnings, each once and without line numbers, so that before and
	after can be compared."""
	objects = sorted({kbuild.object_for(b.tree, f) for f in files})
	out = b.make('C=2', *objects, log=b.out / 'logs' / 'sparse.log').stdout
	found: Dict[str, Dict[str, None]] = {f: {} for f in files}
	for line in out.splitlines():
		m = _SPARSE.match(line.strip())
		for f in files:
			if m and m.group('file').endswith(f):
				found[f][m.group('text')] = None
	return {f: list(warnings) for f, warnings in found.items()}


def new_sparse_warnings(worktree: Path, commits: int,
			groups: Sequence[Tuple[kbuild.KernelBuild, List[str]]]
			) -> Dict[str, List[str]]:
	"""The warnings sparse gives on each of @groups' files (a build, the
	files it checks) in @worktree, less those it gives on them @commits
	commits before (without the series): file -> its new warnings."""
	files = sorted(f for _, group in groups for f in group)

	def warnings() -> Dict[str, List[str]]:
		found: Dict[str, List[str]] = {}
		for b, group in groups:
			found.update(sparse_warnings(b, group))
		return found
	progress(f'[sparse] {len(files)} touched files, with the series')
	after = warnings()
	tree.git(worktree, 'checkout', '-q', f'HEAD~{commits}')
	try:
		progress('[sparse] the same files, without it')
		before = warnings()
	finally:
		tree.git(worktree, 'checkout', '-q', '-')
	return {f: [w for w in after[f] if w not in before[f]] for f in files}


def build_objects(b: kbuild.KernelBuild, objects: Sequence[str]) -> Dict[str, str]:
	"""Build @objects in @b: object -> 'ok', NOT_BUILT or the first error
	line.  All in one make; only where that fails, each on its own, to
	tell which."""
	status = {o: NOT_BUILT for o in objects}
	wanted = [o for o in objects if b.enables(o)]
	if not wanted:
		return status
	progress(f'[{b.label}] building {len(wanted)} of the {len(objects)} '
		 'objects (the others are not in its configuration)'
		 if len(wanted) < len(objects) else
		 f'[{b.label}] building {len(wanted)} objects')
	try:
		b.build(*wanted)
		status.update(dict.fromkeys(wanted, 'ok'))
		return status
	except Error:
		progress(f'[{b.label}] a build failed: building each object on its own')
	for obj in wanted:
		try:
			b.build(obj)
			status[obj] = 'ok'
		except Error as e:
			lines = e.details.strip().splitlines() or [str(e)]
			status[obj] = next((l for l in lines if 'error:' in l), lines[-1])
	return status


def require_tools(kernel: Path, arch_names: Sequence[str]) -> None:
	"""Every program check() runs, so that a missing one fails before
	the long steps."""
	require('sparse', 'sparse')
	for name in arch_names:
		build(kernel, arches.get(name)).compiler()


def check(kernel: Path, patches: Union[tree.Series, Sequence[Path]],
	  arch_names: Sequence[str] = arches.CHECK_ARCHES) -> CheckResult:
	kernel = tree.kernel_tree(kernel)
	numbered = tree.numbered(patches)
	if not numbered:
		raise Error('no patches to check: run volatile-if convert first, '
			    'or pass --patches DIR')
	require_tools(kernel, arch_names)
	result = CheckResult()
	wt = tree.series_tree(kernel, numbered)
	for p in numbered:
		result.checkpatch[p.name] = checkpatch.checkpatch(wt, p)
	files = touched_files(wt, len(numbered))

	# sparse, with the series and without it, on x86_64, or for a file
	# that x86_64 does not build on the first architecture that does.
	by_build: Dict[str, List[str]] = {}
	builds = {}
	for f in files:
		for name in ('x86_64',) + tuple(a for a in arch_names if a != 'x86_64'):
			if name not in builds:
				builds[name] = build(wt, arches.get(name)).prepare()
			if builds[name].enables(kbuild.object_for(wt, f)):
				by_build.setdefault(name, []).append(f)
				break
		else:
			raise Error(f'{f}: no architecture of check builds its object')
	result.new_sparse = new_sparse_warnings(
		wt, len(numbered), [(builds[n], g) for n, g in by_build.items()])

	objects = sorted({kbuild.object_for(wt, f) for f in files})
	for name in arch_names:
		built = build_objects(build(wt, arches.get(name)).prepare(), objects)
		for obj in objects:
			result.builds.setdefault(obj, {})[name] = built[obj]
	return result
