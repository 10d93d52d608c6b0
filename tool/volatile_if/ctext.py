# SPDX-License-Identifier: GPL-2.0
"""C text, without a parser: comments and literals blanked, brackets
matched, the ends of conditions, statements and functions found.

Every function works on offsets into one string.  blank() keeps the length
and the line breaks of its input, so that an offset into the blanked text
is an offset into the source; the others take either, and blank it
themselves where they need to."""

import re
from functools import lru_cache
from typing import List, Optional, Tuple

_PAIRS = {'(': ')', '[': ']', '{': '}'}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_SPACES = re.compile(r'[^\n]')
_BRACKET = re.compile(r'[][(){}]')


class CTextError(Exception):
	"""The text is not C of the shape asked for (unbalanced, no
	condition, ...)."""


# A comment, or a literal (what is between its quotes in group 1 or 2); one
# that is not closed runs to the end of the text, or of its line.
_HIDDEN = re.compile(r'/\*[\s\S]*?(?:\*/|\Z)|//(?:\\\n|[^\n])*'
		     r'|"((?:\\[\s\S]?|[^"\\\n])*)"?|\'((?:\\[\s\S]?|[^\'\\\n])*)\'?')


@lru_cache(maxsize=64)
def blank(text: str, literals: bool = True) -> str:
	"""@text with comments, and string literals and character constants
	unless not @literals, turned into spaces (the quotes stay), newlines
	kept, so that offsets do not move.  A backslash-newline inside a //
	comment continues it, as in C."""
	def hide(m):
		if m.lastindex is None:
			return _SPACES.sub(' ', m.group(0))
		if not literals:
			return m.group(0)
		g = m.lastindex
		return (m.group(0)[:m.start(g) - m.start()] +
			_SPACES.sub(' ', m.group(g)) + m.group(0)[m.end(g) - m.start():])
	return _HIDDEN.sub(hide, text)


def offset(text: str, line: int, column: int) -> int:
	"""The offset in @text of @line (1-based), @column (0-based)."""
	pos = 0
	for _ in range(line - 1):
		pos = text.index('\n', pos) + 1
	return pos + column


def line_of(text: str, pos: int) -> int:
	"""The line (1-based) of offset @pos."""
	return text.count('\n', 0, pos) + 1


def match(text: str, pos: int) -> int:
	"""The offset of the bracket that closes the one at @pos ((, [ or {),
	comments and literals skipped."""
	code = blank(text)
	if code[pos] not in _PAIRS:
		raise CTextError(f'offset {pos}: {code[pos]!r} is not an open bracket')
	stack = []
	for m in _BRACKET.finditer(code, pos):
		c = m.group(0)
		if c in _PAIRS:
			stack.append(c)
		else:
			if not stack or stack[-1] != _CLOSERS[c]:
				raise CTextError(f'line {line_of(text, m.start())}: '
						 f'{c!r} closes nothing open')
			stack.pop()
			if not stack:
				return m.start()
	raise CTextError(f'line {line_of(text, pos)}: unbalanced {code[pos]!r}')


def _skip_space(code: str, pos: int) -> int:
	while pos < len(code) and (code[pos].isspace() or
				   code[pos:pos + 2] == '\\\n'):
		pos += 2 if code[pos] == '\\' else 1
	return pos


def condition(text: str, pos: int) -> Tuple[int, int]:
	"""(open, close): the offsets of the parentheses around the condition
	of the keyword (if, while, for, switch) at @pos."""
	code = blank(text)
	m = re.compile(r'[A-Za-z_]\w*').match(code, pos)
	if not m:
		raise CTextError(f'line {line_of(text, pos)}: no keyword here')
	start = _skip_space(code, m.end())
	if start >= len(code) or code[start] != '(':
		raise CTextError(f'line {line_of(text, pos)}: no condition after {m.group(0)}')
	return start, match(text, start)


def statement_end(text: str, pos: int) -> int:
	"""The offset just past the statement that starts at @pos: a block,
	an if (with its else), a loop, or a simple statement up to its ;."""
	code = blank(text)
	pos = _skip_space(code, pos)
	if pos >= len(code):
		raise CTextError('no statement at the end of the text')
	if code[pos] == '{':
		return match(text, pos) + 1
	m = re.compile(r'([A-Za-z_]\w*)').match(code, pos)
	word = m.group(1) if m else ''
	if word in ('if', 'while', 'for', 'switch') or \
	   re.fullmatch(r'volatile_if|\w+_for_each\w*|for_each\w*', word):
		_, close = condition(text, pos)
		end = statement_end(text, close + 1)
		if word in ('if', 'volatile_if'):
			after = _skip_space(code, end)
			if re.compile(r'else\b').match(code, after):
				end = statement_end(text, after + 4)
		return end
	if word == 'do':
		body = statement_end(text, pos + 2)
		m = re.compile(r'\s*while\b').match(code, body)
		if not m:
			raise CTextError(f'line {line_of(text, pos)}: do without while')
		_, close = condition(text, _skip_space(code, body))
		return code.index(';', close) + 1
	depth = 0
	for i in range(pos, len(code)):
		c = code[i]
		if c in _PAIRS:
			depth += 1
		elif c in _CLOSERS:
			depth -= 1
			if depth < 0:
				raise CTextError(f'line {line_of(text, pos)}: statement '
						 'runs out of its block')
		elif c == ';' and depth == 0:
			return i + 1
	raise CTextError(f'line {line_of(text, pos)}: no ; ends the statement')


def function_at(text: str, pos: int) -> Optional[Tuple[int, int, int]]:
	"""(start, open, close) of the function definition holding offset
	@pos: where its header starts, its body's { and }.  Kernel style is
	assumed: the body's braces are the first character of their lines.
	None if @pos is in no function."""
	code = blank(text)
	for m in reversed(list(re.finditer(r'^\{', code[:pos + 1], re.M))):
		try:
			close = match(text, m.start())
		except CTextError:
			continue
		if close < pos:
			return None
		# The header: back to the line after the previous blank line,
		# }, ; or preprocessor line.
		start = m.start()
		while start > 0:
			prev = code.rfind('\n', 0, start - 1) + 1
			line = code[prev:start - 1]
			if not line.strip() or line.rstrip().endswith((';', '}')) or \
			   line.lstrip().startswith('#'):
				break
			start = prev
		return start, m.start(), close
	return None


_CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
NOT_CALLS = frozenset(('if', 'while', 'for', 'switch', 'return', 'sizeof',
		       'typeof', '__typeof__', 'alignof', '_Alignof',
		       'volatile_if', 'defined', '__builtin_expect'))


def calls(text: str) -> List[Tuple[str, int]]:
	"""(name, offset) of each call in @text, keywords left out."""
	code = blank(text)
	return [(m.group(1), m.start()) for m in _CALL.finditer(code)
		if m.group(1) not in NOT_CALLS]


def split_top(text: str, separators: Tuple[str, ...]) -> List[str]:
	"""@text cut at each of @separators (e.g. '&&', '||', ',') that is
	outside all brackets."""
	code = blank(text)
	parts, depth, last, i = [], 0, 0, 0
	while i < len(code):
		c = code[i]
		if c in _PAIRS:
			depth += 1
		elif c in _CLOSERS:
			depth -= 1
		elif depth == 0:
			sep = next((s for s in separators if code.startswith(s, i)), None)
			if sep:
				parts.append(text[last:i])
				last = i = i + len(sep)
				continue
		i += 1
	return parts + [text[last:]]


def split_and(text: str) -> Optional[Tuple[str, str]]:
	"""(first, rest) of @text, its outer parentheses dropped, where it is
	parts joined by && alone at its top level: rest is the later parts as
	written; None for anything else (one part, or a || at the top)."""
	text = strip_parens(text)
	parts = split_top(text, ('&&',))
	if len(parts) < 2 or len(split_top(text, ('||',))) > 1:
		return None
	return parts[0].strip(), '&&'.join(parts[1:]).strip()


def strip_parens(text: str) -> str:
	"""@text without the parentheses that wrap all of it."""
	text = text.strip()
	while text.startswith('(') and match(text, 0) == len(text) - 1:
		text = text[1:-1].strip()
	return text


def one_line(text: str) -> str:
	"""@text, comments dropped and white space squeezed to one space."""
	return ' '.join(blank(text, literals=False).split())


# x == NULL, x != NULL as a whole operand: after ( && || or at the start,
# before ) && || or at the end; x a name or a chain of members
_NULL_TEST = re.compile(
	r'(^|[(]|&&|\|\|)(\s*)([A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*)'
	r'[ \t]*(==|!=)[ \t]*NULL\b(?=\s*(?:$|[)]|&&|\|\|))')


def null_tests(cond: str) -> str:
	"""The condition @cond with each comparison of a name to NULL written
	as checkpatch --strict asks ("!x", "x"), where that is the same
	expression: the comparison is a whole operand of (), && or ||."""
	return _NULL_TEST.sub(lambda m: m.group(1) + m.group(2) +
			      ('!' if m.group(4) == '==' else '') + m.group(3),
			      cond)


def null_tests_at(text: str, pos: int) -> str:
	"""@text with the condition of the if statement at @pos as
	null_tests() writes it."""
	open_, close = condition(text, pos)
	return text[:open_ + 1] + null_tests(text[open_ + 1:close]) + text[close:]


# Preprocessor lines but #define: spatch reads the code around them as if
# they were not there.
_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*(?!define\b)\w*(?:.*\\\n)*.*$', re.M)
_IF = re.compile(r'(?<!\w)(?:volatile_)?if\s*\(')
_ELSE = re.compile(r'\s*else\b')
# Where a statement can start inside a piece cut at ; { and }: after a
# control or iterator header's ), a label's or case's :, else or do.
_STATEMENT_START = re.compile(r'[):]|\b(?:else|do)\b')
_ASSIGN = re.compile(r'(?<![=!<>+\-*/%&|^])=(?!=)')
_NOISE = re.compile(r'[\s()\\]')


def _stores(code: str, start: int, end: int,
	    call: Optional[re.Pattern]) -> set:
	"""Every X = V and every call that @call matches in code[@start:@end],
	as text without white space and parentheses, and more: any text of a
	statement that may be one, so that no store is missed."""
	out = set()
	if call:
		for m in call.finditer(code, start, end):
			close = match(code, m.end() - 1)
			out.add(m.group(1) + _NOISE.sub('', code[m.end():close]))
	for piece in re.split(r'[;{}]', code[start:end]):
		starts = [0] + [m.end() for m in _STATEMENT_START.finditer(piece)]
		for s in starts:
			text = _NOISE.sub('', piece[s:])
			if _ASSIGN.search(text):
				out.add(text)
	return out


def ifs_storing_alike(text: str, calls: Tuple[str, ...] = ()) -> List[int]:
	"""The offsets of the ifs (and volatile_ifs) of @text that have an
	else, where both legs make a store alike: X = V, or a call to one of
	@calls, compared as text without white space and parentheses, at any
	depth of the leg.  A cheap superset of what a semantic patch that
	matches the same store in both legs can find; where @text does not
	read as C (unbalanced brackets), every if is given."""
	code = _DIRECTIVE.sub(lambda m: _SPACES.sub(' ', m.group(0)), blank(text))
	call = re.compile(r'\b(%s)\s*\(' % '|'.join(map(re.escape, calls))) \
		if calls else None
	found = []
	for m in _IF.finditer(code):
		try:
			then = match(code, m.end() - 1) + 1
			then_end = statement_end(code, then)
			e = _ELSE.match(code, then_end)
			if not e:
				continue
			else_end = statement_end(code, e.end())
			if _stores(code, then, then_end, call) & \
			   _stores(code, e.end(), else_end, call):
				found.append(m.start())
		except CTextError:
			return [m.start() for m in _IF.finditer(code)]
	return found
