# SPDX-License-Identifier: GPL-2.0
"""Control dependencies in machine code.

A function's instructions become a control-flow graph; every path through
it is followed (states are merged only when equal) while tracking which
registers, flags and stack slots hold values derived from the marked loads.
A store (or call, which may store, or return, after which the caller's
code runs; a conditional return is one where its condition holds, past
its own test) that must be ordered after those loads is

  guaranteed  if on every path a barrier executed between the load and the
	      store, or the load was an acquire, or a conditional branch that
	      tests a value derived from each load did and the source
	      requires that branch (@branch_required: built with volatile_if,
	      whose semantics make the compiler branch on the condition; on
	      TSO: the store comes after the load, which volatile_if's
	      compiler barrier requires), or if it is to the address the
	      load read (same base register and offset), which coherence
	      orders on every architecture;
  compiler    if the same holds only because the compiler chose to branch
	      (or, on TSO, to keep the order): a plain if (), or a variant
	      that does not require the branch;
  dep         if it is ordered only because its address or value depends
	      on the load (the compiler turned the control dependency into a
	      data dependency, as a conditional select does: still ordered);
  pred        arm: if only its own condition code, set from the load,
	      stands between them (a conditional store): not ordered in
	      herd7's ARMv7 model, and not volatile_if's guarantee;
  broken      otherwise, or if it can execute before the load.

The function's verdict is its worst store's; a conditional branch whose
target is not an instruction of the function (or of its .cold part, or a
.cold/.part split it may jump to) makes it broken: a displacement the
assembler got wrong, or a jump into another function.

Each path keeps the loads not ordered yet; executing a load again (a loop)
forgets the values of its earlier execution, so they cannot order it.
"""

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import (Callable, Dict, FrozenSet, List, NamedTuple, Optional,
		    Set, Tuple)

from ..common import table
from .disasm import Function, Insn, Object, callee
from .isa.base import NONE, Decoder, Sem

RANK = ('guaranteed', 'compiler', 'dep', 'pred', 'broken')   # better to worse
# machine code that orders every store, whatever the reason
ORDERED = ('guaranteed', 'compiler')
LIMIT = 200000     # (instruction, state) pairs before giving up
NORETURN = frozenset(name for name, _ in table('noreturns'))


@dataclass
class Graph:
	insns: List[Insn]
	sems: List[Sem]
	succs: List[List[int]]
	name: str = ''
	# conditional branches (index, why) whose target is not in the function
	outside: List[Tuple[int, str]] = field(default_factory=list)
	# jumps out of the function (tail calls): calls that do not return
	tail_calls: Set[int] = field(default_factory=set)
	# the function's own instructions, the first ones of @insns: not
	# those of the alternatives' replacements, or of inline_calls()
	size: int = 0
	# each replacement's first instruction -> the first of the code it
	# replaces (one loop head for longest_path())
	replaces: Dict[int, int] = field(default_factory=dict)

	@property
	def entries(self) -> List[int]:
		"""Where a path starts: the function's first instruction, and
		the replacement of an alternative that patches it."""
		return [0] + [r for r, code in self.replaces.items() if code == 0]

	@cached_property
	def preds(self) -> List[List[int]]:
		"""Each instruction's predecessors, made once: a graph's edges
		do not change once it is made (inline_calls() makes another)."""
		preds: List[List[int]] = [[] for _ in self.insns]
		for n, succs in enumerate(self.succs):
			for m in succs:
				preds[m].append(n)
		return preds


def _split(name: str, func: str, kinds: Tuple[str, ...]) -> bool:
	return any(name.startswith(func + k) for k in kinds)


def graph(obj: Object, func: Function, decoder: Decoder) -> Graph:
	"""@func and its gcc-split parts (foo.cold) as a control-flow graph.
	A conditional branch must land in these (on an instruction, or on a
	word objdump shows as data: arm's BUG() is ".word 0xe7f001f2"), on an
	instruction of a foo.part.N (gcc's partial inlining, entered by a tail
	call), or on a function's entry, here or in another object (a
	conditional tail call); any other target is recorded in
	Graph.outside.  A call of a function that does not return
	(NORETURN: __stack_chk_fail(), panic()) ends its path, as a BUG()'s
	trap (disasm.Object.bugs) does; a trap with a fixup
	(disasm.Object.fixups) goes there; any other trap, a WARN()'s or one
	the tables do not know, falls through.  Code that the kernel's
	alternatives may replace (disasm.Object.alternatives) has its
	replacement beside it, a path of its own that goes on after the
	code it replaces.  A static key's nop or branch
	(disasm.Object.jumps) goes both ways.  A jump to a register,
	conditional (arm's ldrls pc) or not, may go to any case of the
	function's switches, as far as the code shows them: its landing pads
	(arm64 BTI), and the code that switch tables hold
	(disasm.Object.cases); with neither, it is a tail call through a
	register (`br x16`, `bctr`), as a jump out of the function is,
	conditional or not (Graph.tail_calls)."""
	parts = [func] + [f for n, f in sorted(obj.functions.items())
			  if _split(n, func.name, ('.cold',))]
	# instructions of foo.part.N (a tail call may enter them anywhere),
	# and the entries of functions (a conditional tail call)
	legal = {(i.section, i.addr) for n, f in obj.functions.items()
		 if _split(n, func.name, ('.part',)) for i in f.insns} | \
		{(f.section, f.start) for f in obj.functions.values()}
	insns = [i for p in parts for i in p.insns]
	size = len(insns)
	index = {(i.section, i.addr): n for n, i in enumerate(insns)}
	# what follows an instruction where it is not the next one: nothing
	# after the last of a part
	follow: Dict[int, List[int]] = {}
	end = 0
	for p in parts:
		end += len(p.insns)
		follow[end - 1] = []
	# On a CPU with the feature, the replacement of an alternative runs
	# in place of the code it patches and goes on after it: its
	# instructions follow the function's, at the source location of that
	# code.  patched: (the code's first instruction, the replacement's
	# first, the code's instructions: an LL/SC loop's branch back to its
	# start does not enter the replacement).  A callback's replacement
	# is nops, not in the object: the code's first instruction, run as a
	# nop, goes on past the code too (nops).
	patched: List[Tuple[int, int, Set[int]]] = []
	nops: Dict[int, int] = {}
	for at, alt in obj.alternatives.items():
		if at not in index or index[at] >= size:
			continue
		n, after = index[at], index.get((at[0], at[1] + alt.length))
		code = {index[(at[0], at[1] + k)] for k in range(alt.length)
			if (at[0], at[1] + k) in index}
		if alt.insns:
			patched.append((n, len(insns), code))
			for i in alt.insns:
				index[(i.section, i.addr)] = len(insns)
				insns.append(replace(i, where=insns[n].where))
			follow[len(insns) - 1] = [] if after is None else [after]
		elif after is not None:
			nops[n] = after
	sems = [decoder.decode(i) for i in insns]
	cases = sorted({n for n, s in enumerate(sems) if s.landing} |
		       {index[t] for t in obj.cases if t in index})
	succs = []
	outside = []
	tail_calls = set()
	for n, (insn, sem) in enumerate(zip(insns, sems)):
		nxt = follow.get(n, [n + 1])
		target = obj.resolve(insn) if sem.flow in ('cond', 'jump') else None
		taken = [index[target]] if target in index else []
		if sem.flow == 'indirect' or sem.indirect:
			taken = cases
		if sem.flow == 'cond' and target is not None and not taken and \
		   target not in legal and \
		   not any(p.contains(*target) for p in parts):
			outside.append((n, f'the conditional branch at '
					f'{insn.addr:#x} ({insn.text}) goes to '
					f'{target[0]}+{target[1]:#x}, not to an '
					f'instruction of {func.name}'))
		# a jump out of the function, to a function's entry, into a
		# foo.part.N or through a register that no switch explains: a
		# tail call (a conditional one goes on where its condition
		# fails; a conditional return is not one)
		if not taken and (sem.flow in ('jump', 'indirect') or
				  sem.flow == 'cond' and not sem.leaves and
				  (sem.indirect or target is None or target in legal)):
			tail_calls.add(n)
		# A BUG() does not return: its trap, or (arm) the word objdump
		# shows as data before the next instruction, ends the path, as
		# a call of a NORETURN function does.  A trap with a fixup
		# resumes there (powerpc's WARN()).
		at = (insn.section, insn.addr)
		if nxt and (sem.flow == 'trap' and at in obj.bugs or
			    sem.flow == 'call' and callee(insn) in NORETURN or
			    any(s == insn.section and insn.addr < a < insns[nxt[0]].addr
				for s, a in obj.bugs)):
			nxt = []
		elif sem.flow == 'trap' and at in obj.fixups:
			nxt = [index[obj.fixups[at]]] if obj.fixups[at] in index else []
		out = {'next': nxt, 'call': nxt, 'cond': nxt + taken,
		       'jump': taken, 'indirect': taken, 'trap': nxt}.get(sem.flow, [])
		if n in nops and nops[n] not in out:
			out = out + [nops[n]]
		if at in obj.jumps:
			# a static key's nop or branch: patched, it goes the other way
			other = obj.jumps[at]
			out = sorted(set(out) | set(nxt) |
				     ({index[other]} if other in index else set()))
		succs.append(out)
	# Where the patched code is entered from elsewhere, so is its
	# replacement (at the function's entry: Graph.entries).
	for n, m, code in patched:
		for src in [k for k, out in enumerate(succs)
			    if n in out and k not in code]:
			if m not in succs[src]:
				succs[src].append(m)
	return Graph(insns, sems, succs, func.name, outside, tail_calls, size,
		     {m: n for n, m, _ in patched})


# the most instructions inline_calls() adds to a graph
INLINE_LIMIT = 4000


def inline_calls(obj: Object, g: Graph, decoder: Decoder,
		 depth: int = 2) -> Graph:
	"""@g with each call to another function of @obj followed into a copy
	of that function, as if the compiler had inlined it (to @depth calls
	deep, INLINE_LIMIT instructions in all): the copy's instructions carry
	the call's source location as the place they were inlined at, its
	stack slots are its own, and its returns and tail calls go on after
	the call.  For a condition whose load is in a function the compiler
	did not inline (refcount_inc_not_zero() at -Os)."""
	if depth < 1:
		return g
	entries = {(f.section, f.start): f for f in obj.functions.values()}
	insns, sems = list(g.insns), list(g.sems)
	succs = [list(x) for x in g.succs]
	tail_calls = set(g.tail_calls)
	replaces = dict(g.replaces)
	added = 0
	callees: Dict[str, Graph] = {}     # each made once, copied at each call
	for n in range(len(g.insns)):
		target = obj.resolve(insns[n]) if sems[n].flow == 'call' else None
		callee = entries.get(target) if target else None
		if callee is None or callee.name == g.name:
			continue
		if callee.name not in callees:
			callees[callee.name] = inline_calls(
				obj, graph(obj, callee, decoder), decoder, depth - 1)
		c = callees[callee.name]
		if added + len(c.insns) > INLINE_LIMIT:
			continue
		added += len(c.insns)
		base, after = len(insns), succs[n]
		for i, sem in zip(c.insns, c.sems):
			insns.append(replace(i, where=i.where + insns[n].where))
			sems.append(replace(
				sem, slot=sem.slot and f'{callee.name}:{sem.slot}',
				place=sem.place and (f'{callee.name}:{sem.place}'
						     if sem.slot else sem.place),
				flow='jump' if sem.flow == 'ret' else sem.flow,
				leaves=False))
		for m, x in enumerate(c.succs):
			# a return goes on after the call, and so does a tail
			# call, whose callee returns for the copy; a conditional
			# one also goes on in the copy
			back = c.sems[m].flow == 'ret' or c.sems[m].leaves or \
				m in c.tail_calls
			succs.append([base + y for y in x] +
				     (list(after) if back else []))
		tail_calls |= {base + m for m in c.tail_calls}
		replaces.update((base + r, base + o) for r, o in c.replaces.items())
		sems[n] = replace(sems[n], flow='jump')
		succs[n] = [base + e for e in c.entries]
	return Graph(insns, sems, succs, g.name, g.outside, tail_calls, g.size,
		     replaces)


@dataclass
class StoreVerdict:
	addr: int
	text: str
	status: str
	why: str = ''


@dataclass
class Verdict:
	status: str                 # a RANK, or 'none', 'unknown' or 'error'
	insns: int
	path: int = 0               # instructions on the longest path
	loads: List[int] = field(default_factory=list)
	stores: List[StoreVerdict] = field(default_factory=list)
	why: str = ''

	def json(self) -> dict:
		return {'status': self.status, 'insns': self.insns,
			'path': self.path,
			'loads': [f'{a:#x}' for a in self.loads],
			'stores': [{'addr': f'{s.addr:#x}', 'insn': s.text,
				    'status': s.status, 'why': s.why}
				   for s in self.stores],
			'why': self.why}


def _seeds(labels: FrozenSet[str]) -> FrozenSet[str]:
	return frozenset(x for x in labels if x.startswith('@'))


def analyse(g: Graph, *, seed: Callable[[int, FrozenSet[str]], bool],
	    ordered: Callable[[int, FrozenSet[str]], bool],
	    init: Optional[Dict[str, FrozenSet[str]]] = None,
	    clobbered: tuple = (), result: str = '', tso: bool = False,
	    before_load: bool = True,
	    through: Optional[Set[int]] = None,
	    ahead: FrozenSet[int] = frozenset(),
	    above: FrozenSet[int] = frozenset(),
	    branch_required: bool = False) -> Verdict:
	"""Follow every path of @g.  @seed(n, address labels) says whether
	instruction n is a marked load, @ordered(n, address labels) whether
	the store (or the call, which may store, or the return) at n must be
	ordered after them; @init labels registers at entry (e.g. the argument
	that points to the marked variable); @clobbered is what a call may
	change, @result the register a return passes its value in.  A store on
	a path that has not executed a marked load is broken if @before_load,
	else that path is not the dependency's and is ignored.
	Given @through, only the paths through one of these instructions (a
	site's branch) after the latest marked load are the dependency's: a
	store on another path is not checked, unless it is in @ahead (the
	instructions on the way to @through: ahead()) after the load, where
	the compiler put it ahead of the branch that should order it, or in
	@above (above()), where it put it ahead of the load.
	@branch_required: the source requires a conditional branch on the
	condition before the legs (volatile_if), so that a store the branch
	orders is guaranteed, not ordered by the compiler's choice."""
	q = _Query(g, seed, ordered, tuple(clobbered), result, tso, before_load,
		   None if through is None else frozenset(through),
		   branch_required, frozenset(ahead), frozenset(above))
	verdict = _paths(q, init)
	verdict.path = longest_path(g)
	if g.outside and verdict.status not in ('unknown',):
		verdict.status, verdict.why = 'broken', g.outside[0][1]
	return verdict


@dataclass(frozen=True)
class _Query:
	"""What analyse() was asked: see its parameters."""
	g: Graph
	seed: Callable[[int, FrozenSet[str]], bool]
	ordered: Callable[[int, FrozenSet[str]], bool]
	clobbered: tuple
	result: str
	tso: bool
	before_load: bool
	through: Optional[FrozenSet[int]]
	branch_required: bool
	ahead: FrozenSet[int]       # instructions on the way to @through
	above: FrozenSet[int]       # instructions before the loads: above()


def _closure(start, edges: List[List[int]], stop=frozenset()) -> Set[int]:
	"""The instructions reached from @start along @edges (successors or
	predecessors), not going past those in @stop."""
	found, work = set(), list(start)
	while work:
		for m in edges[work.pop()]:
			if m not in found and m not in stop:
				found.add(m)
				work.append(m)
	return found


def _reached(g: Graph, stop=frozenset()) -> Set[int]:
	"""The instructions a path from an entry of @g reaches, not going
	past (nor starting at) those in @stop."""
	starts = [e for e in g.entries if e not in stop]
	return set(starts) | _closure(starts, g.succs, stop=stop)


def ahead(g: Graph, through: Set[int], seeds: Set[int]) -> FrozenSet[int]:
	"""The instructions from which a path reaches one of @through
	without a marked load (one of @seeds, which would start another
	evaluation of the condition)."""
	return frozenset(_closure(through, g.preds, stop=seeds))


def above(g: Graph, through: Set[int], seeds: Set[int],
	  among: Set[int]) -> FrozenSet[int]:
	"""Those of @among that can run before the condition is evaluated:
	from them a path reaches one of @seeds (marked loads), and no path
	from @through (the site's branches) reaches them.  In a loop, where
	one round's legs come before the next round's load, those that a
	path from the entry reaches without passing @through or @seeds, and
	that every path from the entry to the loads passes (a store moved to
	the top of the loop).  Loads that no path reaches do not count."""
	before = _closure(seeds, g.preds) & among
	after = _closure(through, g.succs) | set(through)
	stop = set(through) | set(seeds)
	first = _reached(g, stop)
	live = set(seeds) & _reached(g)

	def dominates(n: int) -> bool:
		return bool(live) and not live & _reached(g, {n})
	return frozenset(n for n in before if n not in after or
			 (n in first and dominates(n)))


class _State(NamedTuple):
	"""Where a path stands, hashable so that equal states merge."""
	pending: FrozenSet[str]     # marked loads ('@addr') not ordered yet
	seen: bool                  # on the dependency's path
	env: FrozenSet[Tuple[str, FrozenSet[str]]]   # register -> labels
	# loads ordered by a branch (on TSO: by program order) only
	branched: FrozenSet[str]
	# (Sem.place, marked load): where each load read, while its base
	# register holds the same address
	places: FrozenSet[Tuple[str, str]]


def _paths(q: _Query, init) -> Verdict:
	g = q.g
	start = _State(NONE, False, frozenset((init or {}).items()), NONE,
		       frozenset())
	work, visited = [(e, start) for e in g.entries], set()
	stores: Dict[int, StoreVerdict] = {}
	loads: Set[int] = set()
	while work:
		n, state = work.pop()
		if (n, state) in visited:
			continue
		visited.add((n, state))
		if len(visited) > LIMIT:
			return Verdict('unknown', g.size,
				       why=f'more than {LIMIT} paths states')
		state = _step(q, n, state, stores, loads)
		work.extend((m, state) for m in g.succs[n])
	found = sorted(stores.values(), key=lambda s: s.addr)
	if not loads:
		return Verdict('none', g.size, why='no marked load')
	if not found:
		return Verdict('none', g.size, loads=sorted(loads),
			       why='no store to order')
	worst = max(found, key=lambda s: RANK.index(s.status))
	return Verdict(worst.status, g.size, loads=sorted(loads),
		       stores=found, why=worst.why)


def longest_path(g: Graph) -> int:
	"""Instructions on the longest path from the entry to an exit that runs
	each loop's body once.  A back edge is not taken: a path that can go on
	only through one (the end of a loop's body) goes on from the loop's
	head by the shortest way out of the function.  So a loop entered at its
	test (rotated) and one tested once before a body that tests at its end
	(peeled) count the same iteration.  Unlike the size, the path does not
	grow when the compiler duplicates a tail.  The first instructions of an
	alternative's code and of its replacement are one loop head: a
	branch back to either is a back edge, so a loop whose head is patched
	(riscv's Zawrs wait, entered at the `j` and at the `nop` that replaces
	it) runs its body once, whichever entry the walk meets first."""
	if not g.insns:
		return 0

	def head(n: int) -> int:
		return g.replaces.get(n, n)

	# the fewest instructions from each instruction to an exit, itself
	# included: a breadth-first search back from the exits
	nearest = {n: 1 for n, s in enumerate(g.succs) if not s}
	frontier = list(nearest)
	while frontier:
		later = []
		for n in frontier:
			for p in g.preds[n]:
				if p not in nearest:
					nearest[p] = nearest[n] + 1
					later.append(p)
		frontier = later
	longest: Dict[int, int] = {}
	for entry in g.entries:
		on_stack, stack = {head(entry)}, [(entry, iter(g.succs[entry]))]
		while stack:
			n, children = stack[-1]
			m = next(children, None)
			if m is None:
				stack.pop()
				on_stack.discard(head(n))
				ahead = [longest[x] for x in g.succs[n]
					 if x in longest]
				if not ahead:   # back edges only (or an exit)
					ahead = [nearest.get(x, 0)
						 for x in g.succs[n]]
				longest[n] = 1 + max(ahead, default=0)
			elif head(m) not in on_stack and m not in longest:
				on_stack.add(head(m))
				stack.append((m, iter(g.succs[m])))
	return max(longest[e] for e in g.entries)


def loads_tested(g: Graph, branch: int) -> List[int]:
	"""The loads whose values the conditional branch at @branch tests,
	following registers and spill slots back along every path."""
	return loads_feeding(g, branch, g.sems[branch].cond)


def _walk_back(g: Graph, at: int, regs: FrozenSet[str],
	       visit: Callable[[int, FrozenSet[str]], FrozenSet[str]]) -> None:
	"""Walk back from instruction @at along every path, wanting the values
	of @regs: @visit(n, wanted after n) gives what is still wanted before
	n; a path ends where nothing is."""
	preds = g.preds
	work = [(p, regs) for p in preds[at]]
	seen = set()
	while work:
		n, needed = work.pop()
		if (n, needed) in seen or not needed:
			continue
		seen.add((n, needed))
		needed = visit(n, needed)
		work.extend((p, needed) for p in preds[n])


def defs_tested(g: Graph, branch: int) -> List[int]:
	"""The instructions that, on some path, last wrote a register or flag
	that the conditional branch at @branch tests."""
	found: Set[int] = set()

	def visit(n: int, needed: FrozenSet[str]) -> FrozenSet[str]:
		s = g.sems[n]
		written = (s.defs | s.loaded) & needed
		if written:
			found.add(n)
			if not s.predicated:
				return needed - written
		return needed
	_walk_back(g, branch, g.sems[branch].cond, visit)
	return sorted(found)


def loads_feeding(g: Graph, at: int, regs: FrozenSet[str]) -> List[int]:
	"""The loads whose values @regs hold when instruction @at executes."""
	found: Set[int] = set()

	def visit(n: int, needed: FrozenSet[str]) -> FrozenSet[str]:
		s = g.sems[n]
		written = (s.defs | s.loaded) & needed
		if s.predicated:
			written = NONE          # may not execute: look further too
		if s.load and s.loaded & needed:
			# READ_ONCE() of a local whose address other CPUs have
			# looks like a spill reload: take it, and follow the slot.
			found.add(n)
			if s.slot:
				needed = needed | {s.slot}
		if s.store and s.slot in needed:
			needed = (needed - {s.slot}) | s.values
		if written:
			needed = (needed - written) | (s.uses if s.defs & written else NONE)
		return needed
	_walk_back(g, at, regs, visit)
	return sorted(found)


def _step(q: _Query, n: int, state: _State, stores: Dict[int, StoreVerdict],
	  loads: Set[int]) -> _State:
	"""The state after instruction @n; records the stores it checks in
	@stores and the marked loads it executes in @loads."""
	g, tso, through = q.g, q.tso, q.through
	pending, seen, labels, branched, places = state
	env = dict(labels)
	insn, s = g.insns[n], g.sems[n]

	def lab(regs) -> FrozenSet[str]:
		return frozenset().union(*(env.get(r, NONE) for r in regs))
	addr = lab(s.addr)
	# A branch's test comes first: a conditional return (s.leaves) is
	# checked as the exit it is where its condition holds.
	if s.flow == 'cond':
		tested = pending & _seeds(lab(s.cond))
		pending = pending - tested
		branched = branched | tested
		if through is not None and n in through:
			seen = True
			if tested:
				# The condition evaluated here is that of the loads
				# it tests; one whose value no register or slot
				# holds any more is of an evaluation the path left
				# (a loop the compiler peeled, and went round
				# without the site's branch).
				live = _seeds(frozenset().union(*env.values()))
				pending = pending & live
	# after the marked load, on the way to the site's branch
	early = not seen and bool(pending | branched) and n in q.ahead
	ret = s.flow == 'ret' or s.leaves
	if (s.store or s.flow == 'call' or ret or n in g.tail_calls) and \
	   q.ordered(n, addr) and \
	   (seen or q.before_load or early or n in q.above):
		values = s.values | {q.result} if ret else s.values
		covered = _seeds(lab(values) | addr)
		# coherence orders a store after the loads of its address, on
		# every architecture
		left = pending - {t for p, t in places if p == s.place}
		if not seen and not early:
			v = ('broken', 'can execute before the marked load')
		elif not left and \
		     ((q.branch_required and not early) or not branched):
			v = ('guaranteed', '')
			if pending:
				v = ('guaranteed', 'to the address the load at ' +
				     ', '.join(sorted(p[1:] for p in pending)) +
				     ' read: coherence orders it')
		elif not left:
			v = ('compiler', 'ordered only by ' +
			     ('the order of the accesses (TSO) after the load at '
			      if tso else 'a conditional branch on the load at ') +
			     ', '.join(sorted(p[1:] for p in branched)) +
			     ', which the source does not require: the '
			     'compiler\'s choice')
		elif s.predicated and left <= covered | _seeds(lab(s.cond)):
			v = ('pred', 'ordered by its condition code only')
		elif left <= covered:
			v = ('dep', 'ordered by a data or address dependency only')
		else:
			v = ('broken', 'no conditional branch on the load at ' +
			     ', '.join(sorted(p[1:] for p in left)) + ' before it')
		old = stores.get(insn.addr)
		if not old or RANK.index(v[0]) > RANK.index(old.status):
			stores[insn.addr] = StoreVerdict(insn.addr, insn.text, *v)
	mem = NONE
	if s.load:
		mem = _seeds(addr) | (env.get(s.slot, NONE) if s.slot else NONE)
		if q.seed(n, addr):
			t = f'@{insn.addr:x}'
			env = {k: v - {t} for k, v in env.items()}
			mem |= {t}
			# Given @through, a path is the dependency's once it
			# passes the site's branch after its latest load.
			seen = through is None
			loads.add(insn.addr)
			branched = branched - {t}
			places = frozenset((p, x) for p, x in places if x != t) | \
				frozenset({(s.place, t)} if s.place else ())
			if s.acquire:
				pass
			elif tso:
				branched = branched | {t}
			else:
				pending = pending | {t}
	new = {d: lab(s.uses) for d in s.defs}
	for d in s.loaded:
		new[d] = new.get(d, NONE) | mem
	if s.predicated:
		new = {d: v | env.get(d, NONE) | lab(s.cond) for d, v in new.items()}
	if s.store and s.slot:
		new[s.slot] = lab(s.values)
	env.update(new)
	if s.flow == 'call':
		for r in q.clobbered:
			env.pop(r, None)
	if places:
		killed = s.defs | s.loaded | \
			(frozenset(q.clobbered) if s.flow == 'call' else NONE)
		places = frozenset(x for x in places if _base(x[0]) not in killed)
	if s.fence:
		pending = branched = NONE
	return _State(pending, seen,
		      frozenset((k, v) for k, v in env.items() if v), branched,
		      places)


def _base(place: str) -> str:
	"""The register of a Sem.place ('x21+32': 'x21')."""
	m = re.match(r'(.*?)[+-]\d+$', place)
	assert m        # Decoder._place() makes it so
	return m.group(1)
