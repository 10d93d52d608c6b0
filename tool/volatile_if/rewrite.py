# SPDX-License-Identifier: GPL-2.0
"""Rewrite: turn the `if` of a site into `volatile_if`, in the text.

spatch gives the position of the `if` keyword; the change is made here, in
the source text, so that nothing else moves: the condition keeps its words
and line breaks, and the lines that continue it move right by the width of
"volatile_", which keeps them aligned with the open parenthesis as
checkpatch wants.  The one exception is what checkpatch --strict asks of the
lines a patch touches: a comparison to NULL becomes "!x" or "x".  A site
whose condition is "load && call" (facts.Facts.split) is split instead:
volatile_if (load) { if (call) ... }.
Input: source text and positions; output: source text.
"""

import re
from typing import Iterable, Sequence, Tuple

from . import ctext

PREFIX = 'volatile_'
_IDENT = re.compile(r'\w')


class RewriteError(Exception):
	pass


def width(text: str) -> int:
	"""Visual width of leading whitespace, tabs every 8 columns."""
	col = 0
	for ch in text:
		if ch == '\t':
			col = (col // 8 + 1) * 8
		elif ch == ' ':
			col += 1
		else:
			break
	return col


def indent(columns: int) -> str:
	"""Kernel-style whitespace for @columns: tabs, then spaces."""
	return '\t' * (columns // 8) + ' ' * (columns % 8)


def condition_end(lines: Sequence[str], row: int,
		  col: int) -> Tuple[int, int]:
	"""(row, col) of the parenthesis closing the condition of the `if`
	at lines[row][col], skipping comments, strings and character
	constants; lines end with their newline."""
	text = ''.join(lines)
	try:
		_, close = ctext.condition(text, ctext.offset(text, row + 1, col))
	except ctext.CTextError as e:
		raise RewriteError(f'line {row + 1}: {e}') from None
	end_row = ctext.line_of(text, close) - 1
	return end_row, close - ctext.offset(text, end_row + 1, 0)


_BACKSLASH = re.compile(r'^(.*?\S)[ \t]+\\\n$')


def _keep_backslash(old: str, new: str) -> str:
	"""In a macro, keep the backslash that ends @old in its column in
	@new, or one space after the text where the text has grown past it."""
	m_old, m_new = _BACKSLASH.match(old), _BACKSLASH.match(new)
	if not (m_old and m_new):
		return new
	column = len(old[:old.rindex('\\')].expandtabs(8))
	body = m_new.group(1)
	start = len(body.expandtabs(8))
	if start >= column:
		return body + ' \\\n'
	fill, col = '', start
	while (col // 8 + 1) * 8 <= column:
		fill += '\t'
		col = (col // 8 + 1) * 8
	return body + fill + ' ' * (column - col) + '\\\n'


def _expect_if(text: str, line: int, col: int) -> None:
	"""Fails unless the keyword `if` is at @col of @text, line @line."""
	if text[col:col + 2] != 'if' or \
	   (col and _IDENT.match(text[col - 1])) or \
	   (col + 2 < len(text) and _IDENT.match(text[col + 2])):
		raise RewriteError(f'line {line}, column {col}: expected "if", '
				   f'found {text.strip()!r}')


def convert_if(source: str, line: int, col: int) -> str:
	"""@source with the `if` at @line (1-based), @col (0-based) turned into
	volatile_if.  A site already converted is left as it is."""
	lines = source.splitlines(keepends=True)
	row = line - 1
	if not 0 <= row < len(lines):
		raise RewriteError(f'line {line}: past the end of the file')
	text = lines[row]
	if PREFIX + 'if' in (text[col:col + len(PREFIX) + 2],
			     text[max(col - len(PREFIX), 0):col + 2]):
		return source
	_expect_if(text, line, col)
	end_row, _ = condition_end(lines, row, col)
	old = lines
	# as many lines: a comparison to NULL only gets shorter
	lines = ctext.null_tests_at(source, ctext.offset(source, line, col)) \
		.splitlines(keepends=True)
	text = lines[row]
	lines[row] = _keep_backslash(old[row], text[:col] + PREFIX + text[col:])
	for i in range(row + 1, end_row + 1):
		body = lines[i].lstrip(' \t')
		if body.strip():
			lines[i] = _keep_backslash(
				old[i], indent(width(lines[i]) + len(PREFIX)) + body)
	return ''.join(lines)


def split_if(source: str, line: int, col: int) -> str:
	"""@source with the `if (a && b) s` at @line, @col (no else, its
	condition on one line) turned into `volatile_if (a) { if (b) s }`: the
	same statement, whose volatile_if() tests a alone.  The statement moves
	right by a tab.  A site already split is left as it is."""
	lines = source.splitlines()
	if not 0 < line <= len(lines):
		raise RewriteError(f'line {line}: past the end of the file')
	pos = ctext.offset(source, line, col)
	if source.startswith(PREFIX + 'if', pos):
		return source
	_expect_if(lines[line - 1], line, col)
	try:
		source = ctext.null_tests_at(source, pos)
		open_, close = ctext.condition(source, pos)
		end = ctext.statement_end(source, close + 1)
	except ctext.CTextError as e:
		raise RewriteError(f'line {line}: {e}') from None
	cond = source[open_ + 1:close]
	parts = ctext.split_and(cond)
	if not parts or '\n' in cond or \
	   re.compile(r'\s*else\b').match(ctext.blank(source), end):
		raise RewriteError(f'line {line}: not "if (a && b)" on one line '
				   'without else: cannot split it')
	start = source.rfind('\n', 0, pos) + 1
	m = re.match(r'[ \t]*', source[start:])
	assert m	# [ \t]* matches any text
	ind = m.group(0)
	# Every line of the statement after the first, but preprocessor lines.
	body = re.sub(r'\n(?=[ \t]*[^\s#])', '\n\t', source[close + 1:end])
	return (f'{source[:pos]}{PREFIX}if ({parts[0]}) {{\n'
		f'{ind}\tif ({parts[1]}){body}\n'
		f'{ind}}}{source[end:]}')


def convert_all(source: str, positions: Iterable[Tuple[int, int, bool]]) -> str:
	"""Convert several sites of one file, each (line, column, whether to
	split it); later lines first, so that the positions of the earlier
	ones still hold."""
	for line, col, split in sorted(set(positions), reverse=True):
		source = (split_if if split else convert_if)(source, line, col)
	return source
