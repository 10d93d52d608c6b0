# SPDX-License-Identifier: GPL-2.0
"""Control dependencies in machine code.

A function's instructions become a control-flow graph; every path through
it is followed (states are merged only when equal) while tracking which
registers, flags and stack slots hold values derived from the marked loads.
A store that must be ordered after those loads is

  ok      if a conditional branch that tests a value derived from each load
	  executed between the load and the store on every path, or a
	  barrier did, or the load was an acquire (on TSO: if the store comes
	  after the load on every path);
  dep     if it is ordered only because its address or value depends on
	  the load (the compiler turned the control dependency into a data
	  dependency, as a conditional select does: still ordered);
  pred    arm: if it is ordered only by its own condition code;
  broken  otherwise, or if it can execute before the load.

Each path keeps the loads not ordered yet; executing a load again (a loop)
forgets the values of its earlier execution, so they cannot order it.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Set

from .disasm import Function, Insn, Object
from .isa import NONE, Decoder, Sem

RANK = ('ok', 'dep', 'pred', 'broken')   # better to worse
LIMIT = 200000     # (instruction, state) pairs before giving up


@dataclass
class Graph:
	insns: List[Insn]
	sems: List[Sem]
	succs: List[List[int]]


def graph(obj: Object, func: Function, decoder: Decoder) -> Graph:
	"""@func and its gcc-split parts (foo.cold) as a control-flow graph."""
	parts = [func] + [f for n, f in sorted(obj.functions.items())
			  if n.startswith(func.name + '.cold')]
	insns = [i for p in parts for i in p.insns]
	index = {(i.section, i.addr): n for n, i in enumerate(insns)}
	ends = set()
	total = 0
	for p in parts:
		total += len(p.insns)
		ends.add(total - 1)
	sems = [decoder.decode(i) for i in insns]
	succs = []
	for n, (insn, sem) in enumerate(zip(insns, sems)):
		nxt = [] if n in ends else [n + 1]
		target = obj.resolve(insn) if sem.flow in ('cond', 'jump') else None
		taken = [index[target]] if target in index else []
		succs.append({'next': nxt, 'call': nxt, 'cond': nxt + taken,
			      'jump': taken}.get(sem.flow, []))
	return Graph(insns, sems, succs)


@dataclass
class StoreVerdict:
	addr: int
	text: str
	status: str
	why: str = ''


@dataclass
class Verdict:
	status: str                 # a RANK, or 'none' or 'unknown'
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
	    clobbered: tuple = (), tso: bool = False,
	    before_load: bool = True,
	    through: Optional[Set[int]] = None) -> Verdict:
	"""Follow every path of @g.  @seed(n, address labels) says whether
	instruction n is a marked load, @ordered(n, address labels) whether
	the store (or the call, which may store) at n must be ordered after
	them; @init labels registers at entry (e.g. the argument that points
	to the marked variable).  A store on a path that has not executed a
	marked load is broken if @before_load, else that path is not the
	dependency's and is ignored.
	Given @through, only the paths through one of these instructions (a
	site's branch) after the latest marked load are the dependency's: a
	store on another path is not checked."""
	verdict = _paths(g, seed, ordered, init, clobbered, tso, before_load,
			 through)
	verdict.path = longest_path(g)
	return verdict


def _paths(g, seed, ordered, init, clobbered, tso, before_load,
	   through) -> Verdict:
	start = (NONE, False, frozenset((init or {}).items()))
	work, visited = [(0, start)], set()
	stores: Dict[int, StoreVerdict] = {}
	loads: Set[int] = set()
	while work:
		n, state = work.pop()
		if (n, state) in visited:
			continue
		visited.add((n, state))
		if len(visited) > LIMIT:
			return Verdict('unknown', len(g.insns),
				       why=f'more than {LIMIT} paths states')
		state = _step(g, n, state, seed, ordered, clobbered, tso,
			      before_load, through, stores, loads)
		work.extend((m, state) for m in g.succs[n])
	found = sorted(stores.values(), key=lambda s: s.addr)
	if not loads:
		return Verdict('none', len(g.insns), why='no marked load')
	if not found:
		return Verdict('none', len(g.insns), loads=sorted(loads),
			       why='no store to order')
	worst = max(found, key=lambda s: RANK.index(s.status))
	return Verdict(worst.status, len(g.insns), loads=sorted(loads),
		       stores=found, why=worst.why)


def longest_path(g: Graph) -> int:
	"""Instructions on the longest path from the entry to an exit that
	takes no back edge: one pass through the function, loops once.  Unlike
	the size, it does not grow when the compiler duplicates a tail."""
	if not g.insns:
		return 0
	longest: Dict[int, int] = {}
	on_stack, stack = {0}, [(0, iter(g.succs[0]))]
	while stack:
		n, children = stack[-1]
		m = next(children, None)
		if m is None:
			stack.pop()
			on_stack.discard(n)
			longest[n] = 1 + max((longest[x] for x in g.succs[n]
					      if x in longest), default=0)
		elif m not in on_stack and m not in longest:
			on_stack.add(m)
			stack.append((m, iter(g.succs[m])))
	return longest[0]


def predecessors(g: Graph) -> List[List[int]]:
	preds: List[List[int]] = [[] for _ in g.insns]
	for n, succs in enumerate(g.succs):
		for m in succs:
			preds[m].append(n)
	return preds


def loads_tested(g: Graph, branch: int) -> List[int]:
	"""The loads whose values the conditional branch at @branch tests,
	following registers and spill slots back along every path."""
	preds = predecessors(g)
	found: Set[int] = set()
	work = [(p, g.sems[branch].cond) for p in preds[branch]]
	seen = set()
	while work:
		n, needed = work.pop()
		if (n, needed) in seen or not needed:
			continue
		seen.add((n, needed))
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
		work.extend((p, needed) for p in preds[n])
	return sorted(found)


def _step(g, n, state, seed, ordered, clobbered, tso, before_load, through,
	  stores, loads):
	"""The state after instruction @n; records the stores it checks."""
	pending, seen, env = state
	env = dict(env)
	insn, s = g.insns[n], g.sems[n]

	def lab(regs) -> FrozenSet[str]:
		return frozenset().union(*(env.get(r, NONE) for r in regs))
	addr = lab(s.addr)
	if (s.store or s.flow == 'call') and ordered(n, addr) and \
	   (seen or before_load):
		covered = _seeds(lab(s.values) | addr)
		if not seen:
			v = ('broken', 'can execute before the marked load')
		elif tso or not pending:
			v = ('ok', '')
		elif s.predicated and pending <= covered | _seeds(lab(s.cond)):
			v = ('pred', 'ordered by its condition code only')
		elif pending <= covered:
			v = ('dep', 'ordered by a data or address dependency only')
		else:
			v = ('broken', 'no conditional branch on the load at ' +
			     ', '.join(sorted(p[1:] for p in pending)) + ' before it')
		old = stores.get(insn.addr)
		if not old or RANK.index(v[0]) > RANK.index(old.status):
			stores[insn.addr] = StoreVerdict(insn.addr, insn.text, *v)
	mem = NONE
	if s.load:
		mem = _seeds(addr) | (env.get(s.slot, NONE) if s.slot else NONE)
		if seed(n, addr):
			t = f'@{insn.addr:x}'
			env = {k: v - {t} for k, v in env.items()}
			mem |= {t}
			# Given @through, a path is the dependency's once it
			# passes the site's branch after its latest load.
			seen = through is None
			loads.add(insn.addr)
			if not s.acquire and not tso:
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
		for r in clobbered:
			env.pop(r, None)
	if s.flow == 'cond':
		pending = pending - _seeds(lab(s.cond))
		seen = seen or (through is not None and n in through)
	if s.fence:
		pending = NONE
	return (pending, seen, frozenset((k, v) for k, v in env.items() if v))
