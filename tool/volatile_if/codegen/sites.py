# SPDX-License-Identifier: GPL-2.0
"""Codegen of the converted sites: is there a conditional branch on the
loaded value between the load and the stores each volatile_if orders, in
the kernel objects of the weakly ordered architectures (arm64, arm,
powerpc, riscv) as gcc and clang build them?  With volatile_if such a
branch is guaranteed (its semantics require it); with the if () it
replaced, it is the compiler's choice (ctrldep.py).

Input: the series worktree (pristine + base-patch + generated-patches) and
the sites: every if -> volatile_if of the generated patches, and the
volatile_if sites of base-patch's KUnit test that run as litmus tests.
Output: per site, compiler and function: the verdict (ctrldep.py), the
branch, the loads it tests and the stores it orders, and the instruction
counts with volatile_if and with the if () it replaced.

Each touched object is built in the check build (kbuild records its
command), then compiled again with -g from that command, once as it is and
once with volatile_if defined back to if () (tests/codegen/variants/if):
that is the unconverted object, since a conversion changes nothing else
but a comparison to NULL into the same expression, or an if (a && b) into
if (a) { if (b) } (checked on every hunk).
The disassembly with source lines (objdump -dl --inlines) tells which
instructions belong to a site.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import (Callable, Dict, FrozenSet, List, NamedTuple, Optional,
		    Sequence, Set, Tuple)

from .. import arches, ctext, facts, kbuild, tree
from ..common import GENERATED_PATCHES, Error, progress
from . import corpus, ctrldep, disasm, isa, recompile

# base-patch's own sites that the KUnit litmus tests run on two CPUs
KUNIT_FILE = 'lib/volatile_if_kunit.c'
KUNIT_FUNCTIONS = ('lb_side0', 'lb_side1', 'mp_reader')
# the status of a variant that did not inline the site into the function
NOT_HERE = 'not here'
# the keyword of a site's if, converted or not
IF = re.compile(r'\b(volatile_)?if\b')


@dataclass(frozen=True)
class Site:
	file: str       # relative to the tree
	line: int       # of "volatile_if"
	origin: str     # the patch, or base-patch's KUnit test


def _hunks(patch: str):
	"""(file, [(kind, new line number or None, text)]) per hunk."""
	file = None
	for block in re.split(r'^(?=diff --git )', patch, flags=re.M):
		m = re.search(r'^\+\+\+ b/(\S+)', block, re.M)
		if not m:
			continue
		file = m.group(1)
		for hunk in re.split(r'^(?=@@ )', block, flags=re.M)[1:]:
			m = tree.HUNK.match(hunk)
			assert m        # split at its header
			old, n, new = int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)
			lines = []
			for text in hunk.splitlines()[1:]:
				if old == new == 0:
					break           # the rest is the mail's signature
				kind = text[:1]
				if kind == '\\':
					continue
				lines.append((kind, n if kind != '-' else None, text[1:]))
				old -= kind != '+'
				new -= kind != '-'
				n += kind != '-'
			yield file, lines


def _null_tests(removed: str) -> str:
	"""The conditions of the if statements in @removed as the conversion
	writes them; the last first, so that the offsets of the others hold."""
	for m in reversed(list(IF.finditer(removed))):
		try:
			removed = ctext.null_tests_at(removed, m.start())
		except ctext.CTextError:
			continue
	return removed


_BLOCK_IF = re.compile(r'\s*(\{)\s*if\b')


def _joined(text: str) -> str:
	"""@text with each `if (a) { if (b) s }` written as `if (a && b) s`,
	the statement that rewrite.split_if() splits so."""
	for m in reversed(list(IF.finditer(text))):
		code = ctext.blank(text)
		try:
			_, close = ctext.condition(text, m.start())
			block = _BLOCK_IF.match(code, close + 1)
			if not block:
				continue
			inner_open, inner_close = ctext.condition(text, block.end() - 2)
			end = ctext.statement_end(text, inner_close + 1)
			brace_end = ctext.match(text, block.start(1))
		except ctext.CTextError:
			continue
		if code[end:brace_end].strip():
			continue
		text = (text[:close] + ' && ' + text[inner_open + 1:inner_close] +
			text[inner_close:end] + text[brace_end + 1:])
	return text


def patch_sites(patch: Path) -> List[Site]:
	"""The if -> volatile_if conversions of @patch.  Fails if the patch
	changes anything else (but comparisons to NULL written as checkpatch
	wants them, the same expression, and `if (a && b) s` split into `if (a)
	{ if (b) s }`), since the unconverted object is made by defining
	volatile_if back to if ().  The split is the same statement: gcc and
	clang lower a && in a condition to these very two branches."""
	sites = []
	for file, lines in _hunks(patch.read_text(errors='replace')):
		removed = ''.join(t for k, _, t in lines if k == '-')
		added = ''.join(t for k, _, t in lines if k == '+').replace(
			'volatile_if', 'if')
		if not {re.sub(r'\s', '', x) for x in (added, _joined(added))} & \
		   {re.sub(r'\s', '', x) for x in (removed, _null_tests(removed))}:
			raise Error(f'{patch.name}: {file}: a hunk changes more than '
				    'if -> volatile_if: codegen cannot make its '
				    'unconverted object')
		sites += [Site(file, n, patch.name) for k, n, t in lines
			  if k == '+' and re.search(r'\bvolatile_if\b', t)]
	return sites


def kunit_sites(worktree: Path) -> List[Site]:
	"""The volatile_if lines of KUNIT_FUNCTIONS in the KUnit test; none
	in a tree whose volatile_if() came without base-patch's test."""
	sites, func = [], None
	if not (worktree / KUNIT_FILE).is_file():
		return []
	for n, text in enumerate((worktree / KUNIT_FILE).read_text().splitlines(), 1):
		m = re.match(r'^static \w+ (\w+)\(', text)
		if m:
			func = m.group(1)
		if func in KUNIT_FUNCTIONS and re.search(r'\bvolatile_if\b', text):
			sites.append(Site(KUNIT_FILE, n, f'base-patch (KUnit {func})'))
	return sites


@dataclass
class Region:
	condition: Set[int]     # lines of the condition
	ordered: Set[int]       # lines whose stores the site orders


def region(source: str, line: int) -> Region:
	"""The lines of the volatile_if (or plain if) at @line of @source and
	of the stores it orders: as volatile_if()'s kernel-doc has it, every
	STORE after the condition, to the end of the function: those of the
	legs, after a leg that leaves, and after the statement.  Code there
	that other paths reach too (after a label) is the site's only on the
	paths through its branch (site_verdict()).  An if in no function (a
	macro's body) orders its own statement."""
	text = ctext.blank(source)
	m = IF.search(text, ctext.offset(text, line, 0))
	if not m or ctext.line_of(text, m.start()) != line:
		raise Error(f'no if at line {line}')
	try:
		_, close = ctext.condition(source, m.start())
		func = ctext.function_at(source, m.start())
		end = func[2] if func else ctext.statement_end(source, m.start())
	except ctext.CTextError as e:
		raise Error(f'the if at line {line}: {e}') from None
	# From the condition's last line: compilers give a store merged from
	# both legs the line of the if.
	cond_line = ctext.line_of(text, close + 1)
	return Region(set(range(line, cond_line + 1)),
		      set(range(cond_line, ctext.line_of(text, end) + 1)))


@dataclass
class SiteResult:
	site: Site
	arch: str
	compiler: str
	function: str
	verdict: ctrldep.Verdict            # of the converted object
	unconverted: Optional[ctrldep.Verdict] = None
	branch: Optional[int] = None        # the first of the site's branches
	# every variant compiled, volatile_if and if included
	variants: Dict[str, ctrldep.Verdict] = field(default_factory=dict)
	# variants that call the site in another function instead of inlining
	# it into this one: not compared (no verdict, no cost; _site_in())
	elsewhere: List[str] = field(default_factory=list)

	@property
	def delta(self) -> Optional[int]:
		if self.unconverted is None:
			return None
		return self.verdict.insns - self.unconverted.insns

	@property
	def path_delta(self) -> Optional[int]:
		if self.unconverted is None:
			return None
		return self.verdict.path - self.unconverted.path

	def json(self) -> dict:
		return {'file': self.site.file, 'line': self.site.line,
			'origin': self.site.origin, 'arch': self.arch,
			'compiler': self.compiler, 'function': self.function,
			'branch': None if self.branch is None else f'{self.branch:#x}',
			'volatile_if': self.verdict.json(),
			'if': self.unconverted and self.unconverted.json(),
			'delta': self.delta, 'path_delta': self.path_delta,
			'variants': {k: v.insns for k, v in self.variants.items()},
			'paths': {k: v.path for k, v in self.variants.items()},
			'statuses': {**{k: v.status for k, v in self.variants.items()},
				     **{k: NOT_HERE for k in self.elsewhere}}}


@dataclass
class SiteReport:
	arches: List[str]
	compilers: List[str]
	results: List[SiteResult]
	# sites in no code: file, line, origin, arch, compiler
	missing: List[dict] = field(default_factory=list)
	# comparison variants that did not compile: object, arch, compiler,
	# variant, why
	failed: List[dict] = field(default_factory=list)
	# a function with code of the site with if () and none of its
	# condition with volatile_if (which calls the function that has it):
	# no result, not compared; only_unconverted().  file, line, function,
	# arch, compiler, and inlined: {variant: whether it has the site there
	# too} for the other variants compiled
	only_if: List[dict] = field(default_factory=list)

	def text(self) -> str:
		"""A line per site, arch, compiler and function: the verdicts with
		volatile_if and with if (), the sizes and their difference, and
		the longest paths and theirs."""
		width = max([len(f'{r.site.file}:{r.site.line}')
			     for r in self.results] + [4])
		lines = [f'{"site":<{width}}  {"arch":<7} {"cc":<5} {"function":<24} '
			 f'{"volatile_if":<11} {"if":<8} {"insns":>11} {"path":>9}  why']
		for r in self.results:
			u = r.unconverted
			size = f'{u.insns}->{r.verdict.insns} {r.delta:+d}' if u else \
				f'{r.verdict.insns}'
			path = f'{r.path_delta:+d}' if u else '-'
			plain = u.status if u else \
				NOT_HERE if 'if' in r.elsewhere else '-'
			lines.append(
				f'{r.site.file + ":" + str(r.site.line):<{width}}  '
				f'{r.arch:<7} {r.compiler:<5} {r.function:<24} '
				f'{r.verdict.status:<11} {plain:<8} '
				f'{size:>11} {path:>9}  '
				f'{r.verdict.why or (u.why if u else "")}'.rstrip())
		lines += [f'{missed(m)}: not found in the code'
			  for m in self.missing]
		lines += [f'{m["file"]}:{m["line"]} {m["function"]}() on {m["arch"]} '
			  f'{m["compiler"]}: the site inlined with if () only, '
			  'not compared' for m in self.only_if]
		lines += [f'{failure(f)}: does not compile' for f in self.failed]
		return '\n'.join(lines)

	def json(self) -> dict:
		return {'arches': self.arches, 'compilers': self.compilers,
			'sites': [r.json() for r in self.results],
			'missing': self.missing, 'failed': self.failed,
			'only_if': self.only_if}


def missed(m: dict) -> str:
	"""A site of SiteReport.missing: "file:line (origin) on arch cc"."""
	return f'{m["file"]}:{m["line"]} ({m["origin"]}) on {m["arch"]} ' \
		f'{m["compiler"]}'


def failure(f: dict) -> str:
	"""A line of SiteReport.failed: "object arch cc variant: why"."""
	return f'{f["object"]} {f["arch"]} {f["compiler"]} {f["variant"]}: ' \
		f'{f["why"]}'


def _at(insn: disasm.Insn, file: str, lines: Set[int]) -> bool:
	"""Whether @insn comes from @lines of @file (relative to the tree), at
	any depth of inlining.  The line table's names are matched by their
	tail: an object that ccache made for another clone of this repository
	names that clone's tree, since paths below build/ are hashed relative
	to it."""
	return any(n in lines for n in _lines(insn, file))


def _lines(insn: disasm.Insn, file: str) -> List[int]:
	"""The lines of @file that @insn comes from, innermost first."""
	return [n for f, n in insn.where if _is(f, file)]


def _is(name: str, file: str) -> bool:
	"""Whether the line table's @name is @file: see _at()."""
	return name == file or name.endswith('/' + file)


def _called(insn: disasm.Insn, file: str, condition: Set[int]) -> bool:
	"""Whether @insn is code of a function that the condition calls
	(inlined at a line of @condition), other than volatile_cond()'s
	(barrier.h): its stores come before the site's branch and are not the
	legs'."""
	for n, (f, line) in enumerate(insn.where):
		if _is(f, file) and line in condition:
			inner = insn.where[:n]
			return bool(inner) and \
				not any(g.endswith('barrier.h') for g, _ in inner)
	return False


def _merged(insn: disasm.Insn, file: str, condition: Set[int]) -> bool:
	"""Whether @insn's innermost line of @file is 0, and no outer one is
	of @condition (a function the condition calls): a location the
	compiler merged from several lines.  clang 19 gives line 0 to the
	store that both legs of net/nfc/nci/ntf.c:854 make and that it lifts
	above the branch, the very store the site orders."""
	lines = _lines(insn, file)
	return bool(lines) and lines[0] == 0 and \
		not any(n in condition for n in lines[1:])


class SourceLines:
	"""The lines of the files an object's line table names, read from
	@tree by the longest tail of the name that is in it: the table of an
	object that ccache made for another clone names that clone's tree."""

	def __init__(self, tree: Path):
		self.tree = tree
		self._files: Dict[str, List[str]] = {}

	def line(self, name: str, n: int) -> str:
		if name not in self._files:
			self._files[name] = []
			parts = Path(name).parts
			for k in range(parts[0] == '/', len(parts)):
				path = self.tree.joinpath(*parts[k:])
				if path.is_file():
					self._files[name] = path.read_text(
						errors='replace').splitlines()
					break
		lines = self._files[name]
		return lines[n - 1] if 0 < n <= len(lines) else ''

	def marked(self, insn: disasm.Insn) -> bool:
		"""Whether @insn is code of a line with a marked access
		(READ_ONCE(), atomic_read(), ...: facts.MARKED), at any depth
		of inlining."""
		return any(facts.MARKED.search(self.line(f, n)) for f, n in insn.where)


class _Object:
	"""One compile of a touched object, @obj (disassembled with lines),
	and the @source it was compiled from."""

	def __init__(self, arch: arches.Arch, obj: disasm.Object,
		     source: SourceLines):
		self.arch = arch
		self.obj = obj
		self.decoder = isa.decoder(arch.isa)
		self.source = source
		# (file, lines) -> functions_at(): a site asks for its own
		# lines from _site_in() and from only_unconverted()
		self._at: Dict[Tuple[str, FrozenSet[int]], List[str]] = {}

	def functions_at(self, file: str, lines: Set[int]) -> List[str]:
		"""The functions with code of @lines of @file; a gcc-split part
		(foo.cold) counts as its function."""
		key = (file, frozenset(lines))
		if key not in self._at:
			names = {n.split('.cold')[0]
				 for n, f in self.obj.functions.items()
				 if any(_at(i, file, lines) for i in f.insns)}
			self._at[key] = sorted(n for n in names
					       if n in self.obj.functions)
		return list(self._at[key])

	def with_site(self, file: str, reg: 'Region') -> List[str]:
		"""The functions with code of the site of @file at @reg: of its
		condition, or of what it orders (a plain if () may keep only
		the stores)."""
		return self.functions_at(file, reg.condition | reg.ordered)

	def graph(self, name: str) -> ctrldep.Graph:
		return ctrldep.graph(self.obj, self.obj.functions[name], self.decoder)

	def verdict(self, name: str, file: str, reg: Region,
		    branch_required: bool) -> 'SiteVerdict':
		"""verdict() of the site of @file at @reg in function @name."""
		return verdict(self.arch, self.obj, self.decoder, self.graph(name),
			       file, reg, branch_required, self.source.marked)


def calls_site(with_site: Sequence[str], name: str) -> bool:
	"""Whether function @name has no code of a site that other functions
	of its object have (@with_site, _Object.with_site()): it calls them
	instead of inlining the site, and the site is theirs.  With no code of
	the site anywhere, the compiler made it into code the line table gives
	other lines (a select), and the site is still @name's."""
	return bool(with_site) and name not in with_site


class SiteVerdict(NamedTuple):
	verdict: ctrldep.Verdict
	branches: List[int]         # the site's conditional branches in @graph
	tested: Set[int]            # the loads they test, marked or not
	graph: ctrldep.Graph


def verdict(arch: arches.Arch, obj: disasm.Object, decoder: isa.Decoder,
	    g: ctrldep.Graph, file: str, reg: Region, branch_required: bool,
	    marked: Callable[[disasm.Insn], bool]) -> SiteVerdict:
	"""site_verdict() of the site of @file at @reg in @g, a function of
	@obj.  Where the site's branches test no marked load of the function
	(no load at all, or only the address a call is given), the calls are
	followed into the object's functions as if inlined: the condition's
	load may be in one the compiler did not inline (refcount_inc_not_zero()
	at -Os, csd_lock_wait_toolong())."""
	def marks(v: SiteVerdict) -> bool:
		return any(marked(v.graph.insns[n]) for n in v.tested)

	first = site_verdict(arch, g, file, reg, branch_required, marked)
	if first.branches and not marks(first):
		inlined = site_verdict(arch, ctrldep.inline_calls(obj, g, decoder),
				       file, reg, branch_required, marked)
		if marks(inlined) or (inlined.tested and not first.tested):
			w = inlined.verdict
			w.path = first.verdict.path
			w.why = '; '.join(x for x in (w.why, 'the load is in a '
				'function it calls, followed as if inlined') if x)
			return inlined
	return first


def branches(g: ctrldep.Graph, file: str, reg: Region) -> List[int]:
	"""The conditional branches of @g made for the condition of the site
	of @file at @reg, at any depth of inlining: the compiler's branch on
	the condition, the branches of the functions the condition calls (a
	cmpxchg loop), and an asm's branch; and those that test a value
	computed there, which the line table may give another line (powerpc's
	conditional return, bltlr, is the function's closing brace; clang 14
	for riscv leaves refcount_inc_not_zero()'s first test with no line of
	the site's file).  Not a branch of a line of the code the site orders:
	that is a branch of its own, on a value the condition computed too
	(gcc 12 -Os for powerpc tests perf's "backward", compared once at the
	condition, again at ring_buffer.c:217, on the overwrite path, which
	skips the site).  The region's last line, the closing brace, tests
	nothing of its own.  Nor one whose line is before the condition: it
	tests such a value on the next round of a loop (clang 14 for riscv
	reloads a spilled variable that gc_worker() tests at its top on the
	path that leaves nf_conntrack_core.c:1582's if, with that if's line)."""
	own = reg.ordered - reg.condition - {max(reg.ordered)}
	first = min(reg.condition)

	def before(i: disasm.Insn) -> bool:
		lines = _lines(i, file)
		return bool(lines) and 0 < lines[0] < first
	return [n for n, (i, s) in enumerate(zip(g.insns, g.sems))
		if s.flow == 'cond' and
		(_at(i, file, reg.condition) or
		 (not _at(i, file, own) and not before(i) and
		  any(_at(g.insns[d], file, reg.condition)
		      for d in ctrldep.defs_tested(g, n))))]


def _through_marked(g: ctrldep.Graph, load: int,
		    marked: Callable[[disasm.Insn], bool]) -> bool:
	"""Whether the address of @load comes from a @marked load, through
	registers and the addresses of other loads (p->q->x of a marked p)."""
	work, seen = [load], set()
	while work:
		n = work.pop()
		if n in seen:
			continue
		seen.add(n)
		for m in ctrldep.loads_feeding(g, n, g.sems[n].addr):
			if marked(g.insns[m]):
				return True
			work.append(m)
	return False


def frame_registers(g: ctrldep.Graph, spec: isa.Isa) -> FrozenSet[str]:
	"""The registers that address @g's stack frame: the stack pointer, and
	a frame pointer (isa.Isa.stack) where the function sets it from the
	stack pointer; elsewhere it may be a general register (clang 22 for
	arm at -Os keeps ntf.c:854's ndev in r11: `str r1, [fp, #20]`)."""
	return frozenset({spec.sp} | {
		r for r in spec.stack for s in g.sems
		if s.defs == frozenset({r}) and s.uses == frozenset({spec.sp})})


def site_verdict(arch: arches.Arch, g: ctrldep.Graph, file: str,
		 reg: Region, branch_required: bool,
		 marked: Optional[Callable[[disasm.Insn], bool]] = None
		 ) -> SiteVerdict:
	"""The verdict on the site of @file at @reg in @g, the site's branches
	and the loads they test.  The loads to order after are those the
	site's branches test (following registers and spill slots, atomic
	read-modify-writes included) that are @marked accesses, when there
	are such (a plain load the condition tests as well, a tuning variable
	say, orders nothing); else those that read through a pointer a
	marked access loaded (IS_TNODE(n) of an rcu_dereference()d n); all of
	them without @marked or when none is either.  A site without a branch has
	the loads of its condition instead, so that the stores are found
	unordered.  The stores, calls (a callee may store) and returns (the
	caller's code follows) of @reg.ordered, but not of the functions the
	condition calls, must be ordered on the paths through the site's
	branches (all paths if it has none), and where the compiler put them
	ahead of those branches or of the loads (but for stores to the
	function's frame, which no other CPU sees): a store on a path that
	skips the site, such as the overwrite path around the one in perf's
	ring buffer, is not its to order.  A jump out of the function (a
	tail call, such as into gcc's foo.part.0) counts as a call.  A site whose loads no path
	from the entry reaches (behind a switch's jump to a register whose
	cases the graph does not know: ctrldep.graph()) is unknown."""
	found = branches(g, file, reg)
	tested = {n for b in found for n in ctrldep.loads_tested(g, b)}
	seeds = tested
	if marked:
		seeds = {n for n in seeds if marked(g.insns[n])} or \
			{n for n in seeds if _through_marked(g, n, marked)} or seeds
	if not found:
		seeds = {n for n, (i, s) in enumerate(zip(g.insns, g.sems))
			 if s.load and _at(i, file, reg.condition)}
	effects = {n for n, s in enumerate(g.sems)
		   if s.store or s.flow in ('call', 'ret') or s.leaves or
		   n in g.tail_calls}
	stores = {n for n in effects if _at(g.insns[n], file, reg.ordered) and
		  not _called(g.insns[n], file, reg.condition)}
	# A call at the condition's lines on the way to its branch is taken
	# for the condition's own (f() of if (f(READ_ONCE(x)))), since the
	# region starts at the condition's last line.  A call of both legs
	# that a compiler hoisted there with the condition's line would be
	# missed: it cannot, past volatile_if's asm, but with a plain if ()
	# clang may.  So would a store that the line table gives to the
	# condition's code: clang 14 for arm and riscv gives ntf.c:854's lifted
	# store the line of the condition's atomic_read().
	own_calls = {n for n in stores if g.sems[n].flow == 'call' and
		     _at(g.insns[n], file, reg.condition)}
	ahead = ctrldep.ahead(g, set(found), seeds)
	stores -= ahead & own_calls
	# Ahead of the branch, a store or call with no line of its own may be
	# the legs'.
	stores |= {n for n in ahead & effects
		   if _merged(g.insns[n], file, reg.condition)}
	# Where the compiler put them ahead of the site's branch or of its
	# loads, stores to the function's frame are its spills or locals: no
	# other CPU sees them (unless the function publishes a local's
	# address, which is not followed).  clang 22 for arm spills
	# _raw_spin_lock_irqsave()'s flags between try_to_wake_up()'s load
	# and its branch.
	spec = isa.get(arch.isa)
	frame = frame_registers(g, spec)
	private = {n for n in effects if g.sems[n].store and
		   g.sems[n].addr and g.sems[n].addr <= frame}
	stores -= ahead & private
	# Before the condition's loads, where a plain if () lets a compiler
	# move a leg's plain store: the site's stores there, but not the
	# condition's calls.
	above = ctrldep.above(g, set(found), seeds,
			      stores - own_calls - private)
	verdict = ctrldep.analyse(g, seed=lambda n, _: n in seeds,
				  ordered=lambda n, _: n in stores,
				  clobbered=spec.clobbered,
				  result=spec.result, tso=arch.tso,
				  before_load=False, through=set(found) or None,
				  ahead=ahead, above=above,
				  branch_required=branch_required)
	if verdict.status in ('unknown',) or g.outside:
		pass
	elif seeds and not verdict.loads:
		verdict.status, verdict.why = 'unknown', 'no path from the ' \
			'entry reaches the condition\'s load: it is behind a jump ' \
			'to a register whose targets the code does not show (a ' \
			'switch whose table the analysis does not read)'
	elif not found and verdict.status in ctrldep.ORDERED + ('none',):
		verdict.status, verdict.why = 'broken', \
			'no conditional branch at the condition\'s lines'
	elif found and not seeds:
		verdict.status, verdict.why = 'broken', \
			'its branches test no load: a constant, or the value ' \
			'of a function of another object'
	return SiteVerdict(verdict, found, tested, g)


def _site_in(arch, objects: Dict[str, _Object], site: Site, file: str,
	     reg: Region, compiler: str) -> List[SiteResult]:
	"""The results of @site in every function of objects['volatile_if']
	that has code of its condition, with the verdicts of the other
	@objects (variants) in that function; but not of a variant that calls
	the site there (calls_site()).  A variant with no code of the site
	anywhere keeps its verdict (a select is broken)."""
	results = []
	conv = objects['volatile_if']
	here = {v: o.with_site(file, reg) for v, o in objects.items()}
	for name in conv.functions_at(file, reg.condition):
		v, found, _, g = conv.verdict(
			name, file, reg, corpus.VARIANTS['volatile_if'].guarantees)
		result = SiteResult(site, arch.name, compiler, name, v,
				    branch=g.insns[found[0]].addr if found else None)
		result.variants['volatile_if'] = v
		for variant, o in objects.items():
			if variant == 'volatile_if' or name not in o.obj.functions:
				continue
			if calls_site(here[variant], name):
				result.elsewhere.append(variant)
				continue
			v, *_ = o.verdict(
				name, file, reg, corpus.VARIANTS[variant].guarantees)
			if variant == 'if':
				result.unconverted = v
			result.variants[variant] = v
		results.append(result)
	return results


def only_unconverted(objects: Dict[str, _Object], file: str,
		     reg: Region) -> Dict[str, Dict[str, bool]]:
	"""The functions that have code of the site of @file at @reg in the
	if () object and none of its condition in the volatile_if one: the
	reverse of _site_in()'s `elsewhere`, a function into which only if ()
	inlined the site.  _site_in() gives them no result, since it takes
	its functions from volatile_if.  Each maps the other variants of
	@objects to whether they have code of the site there too."""
	if 'if' not in objects:
		return {}
	others = {v: set(o.with_site(file, reg)) for v, o in objects.items()
		  if v not in ('if', 'volatile_if')}
	return {f: {v: f in fs for v, fs in sorted(others.items())}
		for f in sorted(set(objects['if'].with_site(file, reg)) -
				set(objects['volatile_if'].functions_at(
					file, reg.condition)))}


WEAK = tuple(name for name, a in arches.ARCHES.items() if a.isa and not a.tso)


def compile_object(b: kbuild.KernelBuild, target: str, variants: Sequence[str],
		   report: SiteReport) -> Dict[str, _Object]:
	"""@target of build @b compiled with -g as volatile_if (an Error if it
	does not compile) and as each of @variants (left out, and noted in
	@report, if it does not), disassembled."""
	argv = recompile.recorded(b, target)
	source = Path(argv[-1])
	out = corpus.OUT / b.tree.name / 'sites' / b.out.name
	objects = {}
	lines = SourceLines(b.tree)     # one for every variant's object
	# volatile_if first: its functions are the sites'
	for v in ('volatile_if',) + tuple(x for x in variants if x != 'volatile_if'):
		overlay = corpus.VARIANTS[v].overlay
		try:
			path = recompile.compile_c(
				b, argv, source, out / v / target,
				include=corpus.CORPUS / 'variants' / overlay
				if overlay else None,
				defines=corpus.VARIANTS[v].defines, debug=True)
		except Error as e:
			if v == 'volatile_if':
				raise
			report.failed.append({
				'object': target, 'arch': b.arch.name,
				'compiler': b.cc, 'variant': v,
				'why': corpus.compile_error(e)})
			continue
		objects[v] = _Object(b.arch, disasm.disassemble(
			b.arch.objdump, path, lines=True,
			layouts=isa.get(b.arch.isa).alternatives), lines)
	return objects


def analyse(worktree: Path, sites: Sequence[Site], *,
	    arch_names: Sequence[str] = WEAK,
	    compilers: Sequence[str] = corpus.COMPILERS,
	    variants: Sequence[str] = ('if',)) -> SiteReport:
	"""Check @sites of @worktree in the objects of each of @arch_names
	and each compiler; @variants (corpus.VARIANTS) are compiled for
	comparison, 'if' being the unconverted object."""
	report = SiteReport(list(arch_names), list(compilers), [])
	by_object: Dict[str, List[Site]] = {}
	for s in sites:
		by_object.setdefault(kbuild.object_for(worktree, s.file), []).append(s)
	regions = {s: region((worktree / s.file).read_text(errors='replace'), s.line)
		   for s in sites}
	for arch_name in arch_names:
		arch = arches.get(arch_name)
		for compiler in compilers:
			found: Set[Site] = set()
			b = corpus.kernel_build(worktree, arch, compiler)
			for target, group in sorted(by_object.items()):
				progress(f'[codegen {arch_name} {compiler}] {target}: '
					 f'{len(group)} sites')
				try:
					objects = compile_object(b, target, variants, report)
				except Error as e:
					# volatile_if itself: its sites are missing here
					report.failed.append({
						'object': target, 'arch': arch_name,
						'compiler': compiler,
						'variant': 'volatile_if',
						'why': corpus.compile_error(e)})
					continue
				for s in group:
					rs = _site_in(arch, objects, s, s.file,
						      regions[s], compiler)
					found.update(r.site for r in rs)
					report.results.extend(rs)
					report.only_if += [
						{'file': s.file, 'line': s.line,
						 'function': f, 'arch': arch_name,
						 'compiler': compiler, 'inlined': also}
						for f, also in only_unconverted(
							objects, s.file,
							regions[s]).items()]
			report.missing += [{'file': s.file, 'line': s.line,
					    'origin': s.origin, 'arch': arch_name,
					    'compiler': compiler}
					   for s in sites if s not in found]
	return report


def all_sites(worktree: Path, patches: Optional[Sequence[Path]] = None
	      ) -> List[Site]:
	"""The sites of the KUnit test of @worktree and of @patches (default:
	generated-patches)."""
	patches = tree.series(GENERATED_PATCHES) if patches is None else patches
	sites = kunit_sites(worktree)
	for p in patches:
		if not tree.is_cover_letter(p):
			sites += patch_sites(p)
	return sites


def run(worktree: Optional[Path] = None, patches: Optional[Sequence[Path]] = None,
	**options) -> SiteReport:
	"""The sites of @patches (default: generated-patches) and of the KUnit
	test, checked in @worktree (default: corpus.default_tree())."""
	wt = worktree or corpus.default_tree()
	return analyse(wt, all_sites(wt, patches), **options)
