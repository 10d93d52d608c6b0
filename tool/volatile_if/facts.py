# SPDX-License-Identifier: GPL-2.0
"""Facts: what the branch of a site tests and what it guards, read from
the code, for its commit message and for whether to convert it at all.

Input: the source of the site's file, the site, and the tree (to read the
functions its condition calls).  Output: a Facts record.  Nothing here is
a parser: it is ctext's bracket matching and a few patterns, and where it
finds nothing it says so rather than guess."""

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import ctext
from .common import git_or_none

# Loads of shared memory, by the call that makes them.  local_read() is
# not one: a local_t is only written by its own CPU.
MARKED = re.compile(
	r'\b(READ_ONCE|smp_load_acquire|rcu_dereference\w*|refcount_read|'
	r'atomic(?:64|_long)?_read(?:_acquire)?|'
	r'atomic(?:64|_long)?_(?:\w+_return\w*|fetch_\w+|xchg\w*|'
	r'cmpxchg\w*|try_cmpxchg\w*)|\w*test_and_\w+|test_bit)\s*\(')

# Calls that only read memory (or order, or hint): they make no store.
READ_ONLY = re.compile(
	r'(READ_ONCE|smp_load_acquire|rcu_dereference\w*|rcu_access_pointer|'
	r'refcount_read|atomic(?:64|_long)?_read(?:_acquire)?|test_bit|'
	r'likely|unlikely|smp_acquire__after_ctrl_dep|smp_rmb|barrier|'
	r'ERR_PTR|PTR_ERR|IS_ERR\w*|container_of|min|max|min_t|max_t|'
	r'BIT|GENMASK\w*|WARN_ON\w*|BUILD_BUG_ON\w*)')

BARRIER = 'smp_acquire__after_ctrl_dep'
_EXIT = re.compile(r'\s*(return\b|goto\s+\w+|break\b|continue\b)')
_CONSTANT = re.compile(r'(true|false|NULL|-?\d+[uUlL]*|-?E[A-Z0-9]+|'
		       r'ERR_PTR\(-E[A-Z0-9]+\))')


@dataclass
class Load:
	"""The load a branch depends on."""
	text: str                 # 'READ_ONCE(x->y)' or 'v = READ_ONCE(x->y)'
	# Where it is not in the condition itself: the functions the condition
	# calls to reach it, outermost first, and the test made there.
	through: List[str] = field(default_factory=list)
	test: str = ''

	def describe(self) -> str:
		if not self.through:
			return self.text
		callee = self.through[-1]
		via = ''
		if len(self.through) > 1:
			via = ' (called through ' + ', '.join(
				f'{f}()' for f in self.through[:-1]) + ')'
		how = f'tested there by "{self.test}"' if self.test else 'which it returns'
		return f'the load {self.text} in {callee}(){via}, {how}'


@dataclass
class Facts:
	"""What the code says about one site."""
	condition: str                           # on one line
	loads: List[Load] = field(default_factory=list)
	# The condition joins its parts with && or ||: 'first' when the first
	# part holds the load (a branch on it precedes the rest and both legs),
	# 'later' when only a later part does; '' for a simple condition.
	compound: str = ''
	# volatile_if() takes the first part alone and an if () in its leg
	# the rest (rewrite.py): the condition is one line, "load && call",
	# the later parts test no load, and there is no else.
	split: bool = False
	barrier: bool = False                    # smp_acquire__after_ctrl_dep() orders the path
	stores: List[str] = field(default_factory=list)  # after the branch, on the ordered path
	calls: List[str] = field(default_factory=list)   # calls there that may store
	returns: str = ''                        # constant the path returns to the caller, if any
	leg_exits: bool = False                  # a leg leaves (return, goto, break, continue)
	reads: List[str] = field(default_factory=list)   # read-only calls on the path

	@property
	def guards(self) -> bool:
		"""Whether anything after the branch is ordered by it: a store, a
		call that may store, or a constant returned to callers that
		act on it."""
		return bool(self.stores or self.calls or self.returns)

	def why_not(self) -> str:
		"""Why the site is not converted (when not guards)."""
		after = 'smp_acquire__after_ctrl_dep()' if self.barrier else 'the branch'
		what = (' it only reads (' + ', '.join(f'{c}()' for c in self.reads) +
			') and returns what it read' if self.reads else
			' it returns what it read' if not self.returns else '')
		need = ('  What it needs is LOAD->LOAD order, which only the barrier '
			'gives, not a control dependency' if self.barrier else '')
		return (f'no store and no call that may store follows {after} on '
			'the path it orders:' + what + '.' + need)


def _identifiers(text: str) -> List[str]:
	code = ctext.blank(text)
	seen = []
	for m in re.finditer(r'(?<![\w.>])([A-Za-z_]\w*)\b(?!\s*\()', code):
		if m.group(1) not in seen:
			seen.append(m.group(1))
	return seen


def _marked_in(text: str) -> Optional[str]:
	"""The first marked load written in @text, with its arguments."""
	code = ctext.blank(text)
	m = MARKED.search(code)
	if not m:
		return None
	close = ctext.match(text, m.end() - 1)
	return ctext.one_line(text[m.start():close + 1])


def _assigned(var: str, before: str) -> Optional[str]:
	"""'var = <marked load>': the last assignment of @var in @before that
	loads shared memory."""
	code = ctext.blank(before)
	found = None
	for m in re.finditer(rf'(?<![\w.>*])\b{re.escape(var)}\s*=(?!=)\s*', code):
		load = MARKED.match(code, m.end())
		if load:
			close = ctext.match(before, load.end() - 1)
			found = ctext.one_line(f'{var} = {before[m.end():close + 1]}')
		else:
			found = None
	return found


class Definitions:
	"""Function definitions in a tree, found with git grep."""

	def __init__(self, tree: Optional[Path]):
		self.tree = tree

	@lru_cache(maxsize=None)
	def find(self, name: str, near: str = '',
		 local: bool = False) -> Optional[Tuple[str, str]]:
		"""(file text, body) of function @name, preferring the file
		@near (with @local, only there); None if not found."""
		if not self.tree:
			return None
		files = [near] if near else []
		if local:
			return self._search(name, files)
		where = ['include/'] + ([str(Path(near).parent) + '/'] if near else [])
		found = git_or_none(self.tree, 'grep', '-l', '-w', '-F', name,
				    '--', *where) or ''
		files += sorted((f for f in found.split() if f != near),
				key=lambda f: (not f.startswith('include/linux/'), f))
		return self._search(name, files[:20])

	def _search(self, name: str, files: Sequence[str]) -> Optional[Tuple[str, str]]:
		assert self.tree	# find() returns None without one
		for f in files:
			text = (self.tree / f).read_text(errors='replace')
			code = ctext.blank(text)
			for m in re.finditer(rf'^[A-Za-z_][^;{{}}]*\b{name}\(', code, re.M):
				try:
					close = ctext.match(text, m.end() - 1)
				except ctext.CTextError:
					continue
				rest = code[close + 1:close + 200]
				body = re.match(r'[^;{]*?\n\{', rest) or re.match(r'\s*\{', rest)
				if not body:
					continue
				start = close + 1 + body.end() - 1
				try:
					end = ctext.match(text, start)
				except ctext.CTextError:
					continue
				return text, text[start:end + 1]
		return None


def _in_callee(condition: str, defs: Definitions, near: str,
	       depth: int = 4, seen: Tuple[str, ...] = ()) -> Optional[Load]:
	"""The load reached through the functions @condition calls: in each
	callee, the first if whose condition loads (directly or through a
	local), else the functions its return statements call."""
	if depth == 0:
		return None
	for name, _ in ctext.calls(condition):
		if MARKED.fullmatch(name + '(') or READ_ONLY.fullmatch(name) or name in seen:
			continue
		found = defs.find(name, near)
		if not found:
			continue
		_, body = found
		code = ctext.blank(body)
		for m in re.finditer(r'\bif\s*\(', code):
			try:
				open_, close = ctext.condition(body, m.start())
			except ctext.CTextError:
				continue
			cond = body[open_ + 1:close]
			load = _marked_in(cond)
			if load:
				return Load(load, [name], ctext.one_line(cond))
			for var in _identifiers(cond):
				load = _assigned(var, body[:m.start()])
				if load:
					return Load(load, [name], ctext.one_line(cond))
		for m in re.finditer(r'\breturn\b([^;]*);', code):
			load = _marked_in(body[m.start(1):m.end(1)])
			if load:
				return Load(load, [name])
			inner = _in_callee(body[m.start(1):m.end(1)], defs, near,
					   depth - 1, seen + (name,))
			if inner:
				inner.through.insert(0, name)
				return inner
	return None


def find_loads(condition: str, before: str, defs: Optional[Definitions] = None,
	       near: str = '') -> List[Load]:
	"""The loads @condition depends on: one written in it; else the
	locals it tests, where @before (the function up to the branch)
	assigns them a load; else the load in a function it calls."""
	load = _marked_in(condition)
	if load:
		return [Load(load)]
	loads = []
	# The locals tested least deep in brackets: in f(a, g(b)), a before b.
	code = ctext.blank(condition)
	depth: Dict[str, int] = {}
	for var in _identifiers(condition):
		for m in re.finditer(rf'(?<![\w.>]){re.escape(var)}\b', code):
			d = code[:m.start()].count('(') - code[:m.start()].count(')')
			depth[var] = min(depth.get(var, d), d)
	for level in sorted(set(depth.values())):
		for var in [v for v in depth if depth[v] == level]:
			load = _assigned(var, before)
			if load:
				loads.append(Load(load))
		if loads:
			break
	if loads or not defs:
		return loads
	inner = _in_callee(condition, defs, near)
	return [inner] if inner else []


_TYPE = (r'(?:const\s+|volatile\s+|static\s+|unsigned\s+|signed\s+)*'
	 r'(?:struct\s+\w+|enum\s+\w+|union\s+\w+|int|long|short|char|bool|'
	 r'void|unsigned|signed|u8|u16|u32|u64|s8|s16|s32|s64|\w+_t)\b')


def _declared(name: str, function: str) -> bool:
	"""Whether @function declares @name as a local (in a declaration
	line, alone or in a list) or as a parameter."""
	code = ctext.blank(function)
	n = re.escape(name)
	if re.search(rf'^\s*{_TYPE}[^;(=]*?[\s*,]\**\s*{n}\s*(?:[=;,\[]|$)',
		     code, re.M):
		return True
	header = code[:code.find('{')] if '{' in code else ''
	return bool(re.search(rf'{_TYPE}[\s*]+{n}\s*[,)]', header))


_ASSIGN = re.compile(r'(?:^|[;{}])\s*([^;{}=!<>]*?[^;{}=!<>\s+\-*/%&|^])\s*'
		     r'(?:[-+*/%&|^]|<<|>>)?=(?!=)')
_INCDEC = re.compile(r'(?:\+\+|--)\s*([A-Za-z_][\w.\->\[\]]*)|'
		     r'([A-Za-z_][\w.\->\[\]]*)\s*(?:\+\+|--)')
_STORE_CALL = re.compile(r'\b(WRITE_ONCE|smp_store_release|atomic(?:64|_long)?_set'
			 r'(?:_release)?)\s*\(')
_DECL = re.compile(r'^(?:const\s+|static\s+|unsigned\s+|signed\s+|struct\s+|'
		   r'enum\s+|union\s+)*[A-Za-z_]\w*[\s*]+[A-Za-z_]\w*$')


def _effects(region: str, function: str, defs: Optional[Definitions],
	     near: str, depth: int = 3) -> Tuple[List[str], List[str], List[str]]:
	"""(stores, calls that may store, read-only calls) in @region; stores
	to the function's locals are not stores to memory anyone else sees."""
	code = re.sub(r'^[ \t]*#.*$', lambda m: ' ' * len(m.group(0)),
		      ctext.blank(region), flags=re.M)
	stores, calls, reads = [], [], []
	# '->' as two other characters, so that the patterns need not allow
	# '>' in an lvalue (which would admit comparisons).
	for m in _ASSIGN.finditer(code.replace('->', '.:')):
		lhs = m.group(1).strip()
		if _DECL.match(lhs) or re.fullmatch(r'\w+', lhs) and _declared(lhs, function):
			continue
		stores.append(ctext.one_line(region[m.start(1):m.end(1)]))
	for m in _STORE_CALL.finditer(code):
		close = ctext.match(code, m.end() - 1)
		target = ctext.split_top(region[m.end():close], (',',))[0]
		stores.append(f'{m.group(1)}({ctext.one_line(target)}, ...)')
	for m in _INCDEC.finditer(code):
		lhs = m.group(1) or m.group(2)
		if not (re.fullmatch(r'\w+', lhs) and _declared(lhs, function)):
			stores.append(ctext.one_line(m.group(0)))
	for name, _ in ctext.calls(region):
		if name == BARRIER or name in calls or name in reads or \
		   _STORE_CALL.match(name + '('):
			continue
		if READ_ONLY.fullmatch(name) or _reads_only(name, defs, near, depth):
			reads.append(name)
		else:
			calls.append(name)
	return stores, calls, reads


def _reads_only(name: str, defs: Optional[Definitions], near: str,
		depth: int = 3) -> bool:
	"""Whether function @name, as the tree defines it, makes no store and
	calls only functions that make none."""
	if MARKED.fullmatch(name + '(') and re.fullmatch(
			r'READ_ONCE|smp_load_acquire|rcu_dereference\w*|refcount_read|'
			r'atomic\w*_read\w*|test_bit', name):
		return True
	if depth == 0 or not defs:
		return False
	# Only functions of the site's own file: a git grep for every call
	# would cost minutes; elsewhere a call counts as one that may store.
	found = defs.find(name, near, local=True)
	if not found:
		return False
	_, body = found
	stores, calls, _ = _effects(body[1:-1], body, defs, near, depth - 1)
	return not stores and all(_reads_only(c, defs, near, depth - 1) for c in calls)


def _last_statement(leg: str) -> str:
	code = ctext.blank(leg).strip()
	if code.startswith('{'):
		code = code[1:-1].strip()
	parts = [p for p in re.split(r'[;}]', code) if p.strip()]
	return parts[-1].strip() if parts else ''


def _enclosing_loop_end(source: str, code: str, pos: int, start: int) -> Optional[int]:
	"""The end of the innermost loop around offset @pos that begins
	after @start."""
	best = None
	for m in re.finditer(r'\b(for|while|do)\b|\b\w*for_each\w*\s*\(', code[start:pos]):
		at = start + m.start()
		try:
			end = ctext.statement_end(source, at)
		except ctext.CTextError:
			continue
		if end > pos and (best is None or at > best[0]):
			best = (at, end)
	return best[1] if best else None


def _path_after(source: str, code: str, at: int, body_open: int,
		body_close: int, function: str, facts: 'Facts') -> str:
	"""The text run on the ordered path from @at: up to the first
	return, following a goto to its label and a break out of its loop,
	and the function's end if it gets there (noted in @facts)."""
	region, pos, hops = '', at, 0
	while pos < body_close and hops < 8:
		hops += 1
		rest = code[pos:body_close]
		m = None
		for cand in re.finditer(r'\b(return\b\s*([^;]*);|goto\s+(\w+)\s*;|break\s*;)', rest):
			before = rest[:cand.start()]
			# Only a jump every path from @pos takes: not one in a
			# nested block, not one an if or else guards.
			if before.count('{') <= before.count('}') and \
			   not re.search(r'(\)|\belse)\s*$', before):
				m = cand
				break
		if not m:
			region += source[pos:body_close]
			facts.returns = facts.returns or 'to its callers'
			break
		region += source[pos:pos + m.start()]
		if m.group(2) is not None:
			value = ctext.one_line(source[pos + m.start(2):pos + m.end(2)])
			if _CONSTANT.fullmatch(value):
				facts.returns = value
			elif re.fullmatch(r'\w+', value):
				path = ctext.blank(region)
				set_ = re.findall(rf'\b{value}\s*=(?!=)\s*([^;]*);', path)
				if set_ and _CONSTANT.fullmatch(set_[-1].strip()) and \
				   not re.search(r'\bif\b', path):
					facts.returns = f'{value} = {set_[-1].strip()}'
			else:
				region += ' ' + source[pos + m.start(2):pos + m.end(2)] + ';'
			break
		if m.group(3):
			label = re.compile(rf'^\s*{m.group(3)}\s*:(?!:)', re.M).search(
				code, body_open, body_close)
			if not label:
				break
			pos = label.end()
			continue
		loop_end = _enclosing_loop_end(source, code, pos + m.start(), body_open)
		if loop_end is None:
			break
		pos = loop_end
	return region


_NOT_CALLS = {'likely', 'unlikely', 'sizeof', 'typeof', '__typeof__'}


def _splits(cond: str, before: str, statement: str) -> bool:
	"""Whether @cond is "load && call": parts joined by && only, the later
	ones testing no load (written in them or assigned to a local they test)
	and calling a function.  There the call decides wherever the load does
	not, and volatile_if (cond) would branch on its result; volatile_if
	(first) { if (rest) ... } branches on the load.  On one line and not in
	a macro, which rewrite.split_if() does not handle."""
	parts = ctext.split_and(ctext.blank(cond))
	if not parts or '\n' in cond or '\\\n' in statement:
		return False
	rest = parts[1]
	return not find_loads(rest, before) and any(
		m.group(1) not in _NOT_CALLS
		for m in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', rest))


def site_facts(source: str, line: int, column: int, idiom: str,
	       defs: Optional[Definitions] = None, near: str = '') -> Facts:
	"""The facts of the site whose `if` is at @line, @column of @source."""
	pos = ctext.offset(source, line, column)
	open_, close = ctext.condition(source, pos)
	cond = source[open_ + 1:close]
	# as the patch writes it (rewrite.py)
	facts = Facts(ctext.one_line(ctext.null_tests(cond)))
	func = ctext.function_at(source, pos)
	start, body_open, body_close = func if func else (0, 0, len(source) - 1)
	function = source[start:body_close + 1]
	facts.loads = find_loads(cond, source[body_open:pos], defs, near)
	parts = ctext.split_top(ctext.strip_parens(
		re.sub(r'^\s*!?\s*(?:un)?likely\s*\(', '(', ctext.blank(cond))),
		('&&', '||'))
	if len(parts) > 1:
		facts.compound = 'first' if find_loads(
			parts[0], source[body_open:pos], defs, near) else 'later'
	code = ctext.blank(source)
	then_end = ctext.statement_end(source, close + 1)
	if_end = ctext.statement_end(source, pos)
	legs = [(close + 1, then_end)]
	if if_end > then_end:
		legs.append((code.index('else', then_end) + 4, if_end))
	facts.split = facts.compound == 'first' and len(legs) == 1 and \
		_splits(cond, source[body_open:pos], source[pos:if_end])
	facts.leg_exits = any(_EXIT.match(_last_statement(source[a:b]))
			      for a, b in legs)
	barrier = re.compile(rf'\b{BARRIER}\s*\(').search(code, close, body_close)
	facts.barrier = bool(barrier)
	if barrier:
		at = barrier.start()
	elif facts.leg_exits:
		at = if_end
	else:
		at = close + 1
	region = _path_after(source, code, at, body_open, body_close, function, facts)
	if not barrier:
		# With no barrier, the branch orders what both ways from it
		# do: the legs that leave as well as the way on.
		region = ''.join(source[a:b] for a, b in legs) + region
	facts.stores, facts.calls, facts.reads = _effects(region, function, defs, near)
	return facts


def names(items: Sequence[str], limit: int = 3) -> str:
	"""'a, b and c', or 'a, b, c and 4 more'."""
	items = list(items)
	if len(items) > limit:
		items = items[:limit] + [f'{len(items) - limit} more']
	if len(items) <= 1:
		return ''.join(items)
	return ', '.join(items[:-1]) + ' and ' + items[-1]
