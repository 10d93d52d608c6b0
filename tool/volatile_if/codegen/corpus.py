# SPDX-License-Identifier: GPL-2.0
"""Codegen of the corpus: what the compilers make of control dependencies.

Input: the corpus tests/codegen/*.c, the series worktree (base-patch's
volatile_if and the kernel's headers), its check builds.
Output: a matrix case x architecture x compiler x variant of verdicts
(ctrldep.py) and instruction counts, as text and JSON.

Every corpus file is compiled at -O2 with the command kbuild used for
lib/volatile_if_kunit.o in the gcc or LLVM=1 check build of the
architecture and -ffunction-sections, once per variant: base-patch's
volatile_if as it is, or redefined by
tests/codegen/variants/<variant>/asm/barrier.h.
"""

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

from .. import arches, kbuild, tree
from ..common import (BASE_PATCH, BUILD, DEFAULT_TREE, GENERATED_PATCHES,
		      REPO, Error, jobs, progress)
from . import ctrldep, disasm, isa, recompile

CORPUS = REPO / 'tests' / 'codegen'
OUT = BUILD / 'codegen'
# Debian 12's gcc and clang, for which issue 10 sets its cost goals.
COMPILERS = ('gcc', 'clang')
# Debian's newer clang packages, which scripts/bench-codegen compares too:
# each LLVM release places code around an asm differently.
NEWER = ('clang-19', 'clang-22')
# Each function at the start of a section of its own: the alignment padding
# of its loops then depends on its own code, not on where the function
# before it ended, which differs between variants.
SECTIONS = ('-ffunction-sections',)


@dataclass(frozen=True)
class Variant:
	overlay: Optional[str]      # directory in tests/codegen/variants
	defines: Tuple[str, ...] = ()
	about: str = ''
	# Its semantics require a conditional branch on the condition before
	# the legs (or, on TSO, keep the legs after the condition's loads):
	# what the machine code shows is then guaranteed, not the compiler's
	# choice (ctrldep.analyse(branch_required=)).
	guarantees: bool = False


VARIANTS = {
	'if': Variant('if', about='the plain if () that volatile_if replaces'),
	'volatile_if': Variant(None, guarantees=True,
			       about="base-patch's volatile_if(): an asm "
			       'volatile in each leg (arm) or in the taken leg '
			       '(arm64, powerpc, riscv), so the compiler must '
			       'branch on the condition (TSO: a compiler '
			       'barrier)'),
	'per-leg': Variant('per-leg', guarantees=True,
			   about="base-patch's generic volatile_if() on every "
			   'architecture: a distinct asm volatile in each leg'),
	'rfc': Variant('rfc', about="the 2021 RFC's volatile_cond(): bool, "
		       'fixed branch'),
	'acquire': Variant('if', ('CODEGEN_ACQUIRE',),
			   about='smp_load_acquire() / smp_cond_load_acquire()'
			   ' and a plain if ()'),
	'v1': Variant('v1', about="base-patch's first volatile_cond(): the value "
		      'as a long, a branch to the then-leg'),
	'asm-goto': Variant('asm-goto', about="base-patch's asm goto "
			    'volatile_cond() before v2: a branch on the value '
			    'of the condition over the then-leg'),
	'then-asm': Variant('then-asm', guarantees=True,
			    about='volatile_if with the asm of the then-leg '
			    'only, on arm too'),
	'else-asm': Variant('else-asm', guarantees=True,
			    about='volatile_if with the asm of the else-leg '
			    'only'),
	'bool': Variant('bool', guarantees=True,
			about='volatile_if with the condition kept in a bool '
			'and no constant check, with gcc as with clang'),
	'noreturn-check': Variant('noreturn-check', guarantees=True,
				  about="volatile_if with compiletime_assert()'s "
				  'constant check, whose error function is '
				  '__noreturn'),
}
CHECKED = ('if', 'volatile_if')


@dataclass(frozen=True)
class Case:
	name: str                   # without the cg_ prefix
	file: str
	tags: Tuple[str, ...]       # depends, if-breaks, constant, far, hint

	@property
	def symbol(self) -> str:
		return 'cg_' + self.name


_TAGS = re.compile(r'codegen: ([\w -]+?)\s*(?:\*/)?$')
_FUNC = re.compile(r'^\w[\w\s\*]*\b(cg_\w+)\(')


def cases(corpus: Path = CORPUS) -> List[Case]:
	"""The cases of the corpus: functions cg_* after a "codegen:" line."""
	found = []
	for path in sorted(corpus.glob('*.c')):
		tags = None
		for line in path.read_text().splitlines():
			m = _TAGS.search(line)
			if m:
				tags = tuple(m.group(1).split())
				continue
			m = _FUNC.match(line)
			if m and tags is not None:
				found.append(Case(m.group(1)[3:], path.name, tags))
				tags = None
	if not found:
		raise Error(f'no cases in {corpus}')
	return found


def kernel_build(worktree: Path, arch: arches.Arch, compiler: str) -> kbuild.KernelBuild:
	"""The check build of @arch (kbuild.check_build()) with @compiler,
	prepared: with gcc, the very build check makes."""
	return kbuild.check_build(worktree, arch, compiler).prepare()


def default_tree() -> Path:
	"""pristine + base-patch + generated-patches, in a worktree of codegen's
	own (build/work/<tree>-codegen), so that a check or a test running
	beside it does not reset the tree under its builds."""
	kernel = tree.kernel_tree(DEFAULT_TREE)
	base = [] if tree.has_volatile_if(kernel) else tree.series(BASE_PATCH)
	return tree.scratch_worktree(kernel, f'{kernel.name}-codegen',
				     base + tree.series(GENERATED_PATCHES),
				     base='HEAD')


def analyse_function(arch: arches.Arch, obj: disasm.Object, name: str,
		     decoder: isa.Decoder,
		     branch_required: bool = False) -> ctrldep.Verdict:
	"""The verdict on corpus function @name: loads through the first
	argument are marked, stores through the second must be ordered;
	@branch_required: compiled with a variant that guarantees the branch
	(Variant.guarantees)."""
	func = obj.functions.get(name)
	if not func:
		return ctrldep.Verdict('none', 0, why=f'{name} is not in the object')
	a = decoder.isa.args
	init = {a[0]: frozenset('a'), a[1]: frozenset('b'), a[2]: frozenset('c')}
	return ctrldep.analyse(
		ctrldep.graph(obj, func, decoder),
		seed=lambda n, labels: 'a' in labels,
		ordered=lambda n, labels: 'b' in labels,
		init=init, clobbered=decoder.isa.clobbered, tso=arch.tso,
		branch_required=branch_required)


def cold_leg_after_return(decoder: isa.Decoder, obj: disasm.Object,
			  case: Case) -> bool:
	"""Whether @case, a "hint" case of @obj (@decoder: its instruction
	set's), lays out the leg its likely() or unlikely() makes cold, the one
	that calls do_something(), after the hot path's first return, as the
	hint asks."""
	insns = obj.functions[case.symbol].insns
	ret = next((n for n, i in enumerate(insns)
		    if decoder.decode(i).flow == 'ret'), None)
	call = next((n for n, i in enumerate(insns)
		     if i.reloc and i.reloc[1] == 'do_something'), None)
	return ret is not None and call is not None and ret < call


@dataclass
class Cell:
	case: str
	arch: str
	compiler: str
	variant: str
	verdict: ctrldep.Verdict
	# A "hint" case on a weakly ordered architecture (x86's returns are
	# jumps to a thunk): cold_leg_after_return().
	cold_leg_last: Optional[bool] = None

	def json(self) -> dict:
		out: dict = {'case': self.case, 'arch': self.arch,
			     'compiler': self.compiler, 'variant': self.variant,
			     **self.verdict.json()}
		if self.cold_leg_last is not None:
			out['cold_leg_last'] = self.cold_leg_last
		return out


class Matrix:
	"""Verdicts by case, architecture, compiler and variant."""

	def __init__(self, cases: List[Case], cells: List[Cell],
		     arches_: Sequence[str], compilers: Sequence[str],
		     variants: Sequence[str]):
		self.cases = cases
		self.cells = cells
		self.arches = list(arches_)
		self.compilers = list(compilers)
		self.variants = list(variants)
		self._index = {(c.case, c.arch, c.compiler, c.variant): c
			       for c in cells}

	def get(self, case: str, arch: str, compiler: str, variant: str) -> Cell:
		return self._index[case, arch, compiler, variant]

	def columns(self) -> List[Tuple[str, str]]:
		return [(c, v) for c in self.compilers for v in self.variants]

	def count(self, status: str, arch: str, compiler: str, variant: str) -> int:
		return sum(1 for k in self.cases
			   if self.get(k.name, arch, compiler, variant).verdict.status == status)

	def text(self) -> str:
		cols = self.columns()
		width = max(len(k.name) for k in self.cases)
		head = [f'{"case":<{width}}  {"arch":<8}'] + \
		       [f'{c + " " + v:<18}' for c, v in cols]
		lines = ['  '.join(head).rstrip()]
		for k in self.cases:
			for a in self.arches:
				row = [f'{k.name:<{width}}  {a:<8}']
				for c, v in cols:
					verdict = self.get(k.name, a, c, v).verdict
					row.append(f'{verdict.status:<8} {verdict.insns:>3} insns'
						   .ljust(18))
				lines.append('  '.join(row).rstrip())
		lines += ['', 'broken, and dep/pred: ordered by a data dependency or '
			  'by a condition code only; guaranteed: by a branch '
			  'that volatile_if requires (or a barrier); compiler: '
			  "by the compiler's own branch"]
		lines.append('  '.join([f'{"":<{width}}  {"arch":<8}'] +
				       [f'{c + " " + v:<18}' for c, v in cols]).rstrip())
		for a in self.arches:
			row = [f'{"":<{width}}  {a:<8}']
			for c, v in cols:
				row.append(f'{self.count("broken", a, c, v)} broken, '
					   f'{self.count("dep", a, c, v) + self.count("pred", a, c, v)}'
					   ' dep/pred'.ljust(18))
			lines.append('  '.join(row).rstrip())
		odd = [f'{x.case} {x.arch} {x.compiler} {x.variant}: {x.verdict.status}: '
		       f'{x.verdict.why}' for x in self.cells
		       if x.verdict.status in ('none', 'unknown', 'error')]
		return '\n'.join(lines + ([''] + odd if odd else []))

	def json(self) -> dict:
		return {
			'arches': self.arches, 'compilers': self.compilers,
			'variants': {v: VARIANTS[v].about for v in self.variants},
			'cases': {k.name: {'file': k.file, 'tags': list(k.tags)}
				  for k in self.cases},
			'cells': [c.json() for c in self.cells],
			'summary': {f'{a} {c} {v}': {
				s: self.count(s, a, c, v) for s in
				ctrldep.RANK + ('none', 'unknown', 'error')}
				for a in self.arches for c, v in self.columns()},
		}


def object_path(tree_name: str, arch: str, compiler: str, variant: str,
		file: str) -> Path:
	"""Where run() puts corpus @file compiled for @arch with @compiler as
	@variant, in the tree called @tree_name."""
	return OUT / tree_name / f'{arch}-{compiler}' / variant / (Path(file).stem + '.o')


def compile_error(e: Error) -> str:
	"""The line of a failed compile that says why: the first error."""
	lines = (e.details or '').strip().splitlines()
	errors = [x.strip() for x in lines if 'error:' in x]
	return (errors or lines or [str(e)])[0][:300]


def run(arch_names: Sequence[str] = arches.CODEGEN_ARCHES,
	compilers: Sequence[str] = COMPILERS,
	variants: Sequence[str] = CHECKED, *,
	worktree: Optional[Path] = None,
	build: Optional[Callable[[str, str], kbuild.KernelBuild]] = None,
	corpus: Path = CORPUS) -> Matrix:
	"""The matrix of the corpus for @arch_names x @compilers x @variants.
	@build(arch name, compiler) gives a prepared check build (default:
	kernel_build() in @worktree, default_tree() if not given)."""
	for name in arch_names:
		if not arches.get(name).isa:
			raise Error(f'codegen: no instruction table (Isa) for {name}')
	for v in variants:
		if v not in VARIANTS:
			raise Error(f'codegen: unknown variant {v!r}; known: '
				    f'{", ".join(VARIANTS)}')
	if build is None:
		wt = worktree or default_tree()

		def build(a, c):
			return kernel_build(wt, arches.get(a), c)
	corpus_cases = cases(corpus)
	files = sorted({k.file for k in corpus_cases})
	jobs_ = []
	for a in arch_names:
		for c in compilers:
			b = build(a, c)
			argv = recompile.recorded(b)
			for v in variants:
				for f in files:
					jobs_.append((a, c, v, f, b, argv))
	progress(f'[codegen] {len(jobs_)} compiles: {len(files)} files x '
		 f'{len(arch_names)} arches x {len(compilers)} compilers x '
		 f'{len(variants)} variants')

	def one(job) -> List[Cell]:
		a, c, v, f, b, argv = job
		arch = arches.get(a)
		names = [k for k in corpus_cases if k.file == f]
		out = object_path(b.tree.name, a, c, v, f)
		overlay = VARIANTS[v].overlay
		try:
			recompile.compile_c(b, argv, corpus / f, out,
					    include=corpus / 'variants' / overlay
					    if overlay else None,
					    defines=VARIANTS[v].defines,
					    flags=SECTIONS)
		except Error as e:
			return [Cell(k.name, a, c, v,
				     ctrldep.Verdict('error', 0, why=compile_error(e)))
				for k in names]
		obj = disasm.disassemble(arch.objdump, out,
					 layouts=isa.get(arch.isa).alternatives)
		decoder = isa.decoder(arch.isa)
		return [Cell(k.name, a, c, v,
			     analyse_function(arch, obj, k.symbol, decoder,
					      VARIANTS[v].guarantees),
			     cold_leg_after_return(decoder, obj, k)
			     if 'hint' in k.tags and not arch.tso and
			     k.symbol in obj.functions else None)
			for k in names]
	with ThreadPoolExecutor(max_workers=jobs()) as pool:
		cells = [cell for part in pool.map(one, jobs_) for cell in part]
	return Matrix(corpus_cases, cells, arch_names, compilers, variants)
