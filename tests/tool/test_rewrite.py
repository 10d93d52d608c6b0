# SPDX-License-Identifier: GPL-2.0
"""rewrite: `if` becomes `volatile_if`, and nothing else moves."""

import pytest

from volatile_if import ctext
from volatile_if import rewrite
from volatile_if.rewrite import RewriteError, convert_all, convert_if, split_if

pytestmark = pytest.mark.unit


def test_single_line():
	src = '\tif (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))\n\t\tgoto unlock;\n'
	assert convert_if(src, 1, 1) == \
		'\tvolatile_if (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))\n\t\tgoto unlock;\n'


def test_continuation_lines_stay_aligned_with_the_parenthesis():
	src = ('\t\tif (!(atomic_long_read(&sem->count) &\n'
	       '\t\t     (RWSEM_WRITER_MASK | RWSEM_FLAG_HANDOFF))) {\n'
	       '\t\t\tsmp_acquire__after_ctrl_dep();\n')
	assert convert_if(src, 1, 2) == (
		'\t\tvolatile_if (!(atomic_long_read(&sem->count) &\n'
		'\t\t\t      (RWSEM_WRITER_MASK | RWSEM_FLAG_HANDOFF))) {\n'
		'\t\t\tsmp_acquire__after_ctrl_dep();\n')


def test_a_tab_after_spaces_goes_to_the_next_tab_stop():
	# " \t    b": column 12, under the a; after the rewrite, column 21
	src = '\tif (a &&\n \t    b)\n\t\tx();\n'
	assert convert_if(src, 1, 1).splitlines()[1] == '\t\t     b)'


def test_backslash_reached_exactly_gets_a_space():
	old = 'x' * 10 + '\t\\\n'                  # the backslash in column 16
	assert rewrite._keep_backslash(old, 'y' * 16 + ' \\\n') == 'y' * 16 + ' \\\n'
	assert rewrite._keep_backslash(old, 'y' * 11 + ' \\\n') == \
		'y' * 11 + '\t\\\n'


def test_nested_parentheses_comments_and_strings_do_not_end_the_condition():
	src = ('\tif (f(a, (b)) /* ) */ && g(")", \')\') &&\n'
	       '\t    h((c))) // )\n'
	       '\t\tx(1,\n'
	       '\t\t  2);\n')
	out = convert_if(src, 1, 1)
	assert out.splitlines()[1] == '\t\t     h((c))) // )'
	# The body after the condition is left alone.
	assert out.splitlines()[2:] == src.splitlines()[2:]


def test_else_if_and_code_before_on_the_line():
	src = '\t} else if (READ_ONCE(x) == 1) {\n'
	assert convert_if(src, 1, 8) == '\t} else volatile_if (READ_ONCE(x) == 1) {\n'


def test_macro_line_continuations_keep_the_backslash_column():
	src = ('#define WAIT(p)\t\t\t\t\\\n'
	       '\tdo {\t\t\t\t\\\n'
	       '\t\tif (READ_ONCE(*p) &&\t\\\n'
	       '\t\t    other)\t\t\\\n'
	       '\t\t\tbreak;\t\t\\\n'
	       '\t} while (0)\n')
	assert {line.index('\\') for line in src.expandtabs(8).splitlines()[:5]} == {40}
	out = convert_if(src, 3, 2).splitlines()
	# Grown past the backslash: one space before it.
	assert out[2] == '\t\tvolatile_if (READ_ONCE(*p) && \\'
	# Moved right, backslash kept in its column.
	assert out[3] == '\t\t\t     other)\t\\'
	assert out[3].expandtabs(8).index('\\') == 40
	assert out[4:] == src.splitlines()[4:]


def test_comparison_to_null_as_checkpatch_wants_it_on_the_touched_line():
	src = ('\t\tif (unlikely(sighand == NULL)) {\n'
	       '\t\t\tif (p == NULL)\n')
	assert convert_if(src, 1, 2) == ('\t\tvolatile_if (unlikely(!sighand)) {\n'
					 '\t\t\tif (p == NULL)\n')
	src = ('\tif (READ_ONCE(x) &&\n'
	       '\t    s->next != NULL && a + b == NULL)\n')
	assert convert_if(src, 1, 1) == ('\tvolatile_if (READ_ONCE(x) &&\n'
					 '\t\t     s->next && a + b == NULL)\n')


@pytest.mark.parametrize('cond, want', [
	('unlikely(sighand == NULL)', 'unlikely(!sighand)'),
	('p->q != NULL && r', 'p->q && r'),
	('(a ||\n s.t == NULL)', '(a ||\n !s.t)'),
	# not a whole operand, or not a name: the same expression only as is
	('a + b == NULL', 'a + b == NULL'),
	('*p == NULL', '*p == NULL'),
	('f(x) == NULL', 'f(x) == NULL'),
	('y->z[1] != NULL', 'y->z[1] != NULL'),
	('c ? x == NULL : y', 'c ? x == NULL : y'),
	('x == NULL + 1', 'x == NULL + 1'),
	('x == NULLABLE', 'x == NULLABLE'),
])
def test_null_tests(cond, want):
	assert ctext.null_tests(cond) == want


def test_idempotent():
	src = '\tif (READ_ONCE(a))\n\t\tWRITE_ONCE(b, 1);\n'
	once = convert_if(src, 1, 1)
	# The same position, or the position of the if inside volatile_if.
	assert convert_if(once, 1, 1) == once
	assert convert_if(once, 1, 10) == once
	assert convert_all(src, [(1, 1, False), (1, 1, False)]) == once


def test_several_sites_in_one_file():
	src = '\tif (a)\n\t\tx();\n\tif (b &&\n\t    c)\n\t\ty();\n'
	assert convert_all(src, [(1, 1, False), (3, 1, False)]) == \
		'\tvolatile_if (a)\n\t\tx();\n\tvolatile_if (b &&\n\t\t     c)\n\t\ty();\n'


@pytest.mark.parametrize('src, line, col', [
	('\tfoo(a);\n', 1, 1),            # not an if
	('\tdif (a);\n', 1, 2),           # the end of an identifier
	('\tifa (a);\n', 1, 1),           # the start of one
	('\tif (a;\n', 1, 1),             # unbalanced
	('\tif (a)\n', 3, 1),             # past the end
])
def test_wrong_position_is_an_error(src, line, col):
	with pytest.raises(RewriteError):
		convert_if(src, line, col)
	with pytest.raises(RewriteError):
		split_if(src, line, col)


def test_split_moves_the_rest_of_the_condition_into_the_leg():
	src = ('\tsmp_rmb();\n'
	       '\tif (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))\n'
	       '\t\tgoto unlock;\n'
	       '\n')
	assert split_if(src, 2, 1) == (
		'\tsmp_rmb();\n'
		'\tvolatile_if (READ_ONCE(p->on_rq)) {\n'
		'\t\tif (ttwu_runnable(p, wake_flags))\n'
		'\t\t\tgoto unlock;\n'
		'\t}\n'
		'\n')


def test_split_of_a_block_keeps_preprocessor_lines_and_the_rest_of_the_line():
	src = ('\t} else if ((x != NULL && f(x) && g(y))) { /* hot */\n'
	       '#ifdef C\n'
	       '\t\ta = 1;\n'
	       '#endif\n'
	       '\t}\n'
	       '\treturn a;\n')
	assert split_if(src, 1, 8) == (
		'\t} else volatile_if (x) {\n'
		'\t\tif (f(x) && g(y)) { /* hot */\n'
		'#ifdef C\n'
		'\t\t\ta = 1;\n'
		'#endif\n'
		'\t\t}\n'
		'\t}\n'
		'\treturn a;\n')


def test_split_is_idempotent_and_chosen_per_site():
	src = '\tif (READ_ONCE(a) && f())\n\t\tb();\n\tif (READ_ONCE(c))\n\t\td();\n'
	once = convert_all(src, [(1, 1, True), (3, 1, False)])
	assert once == ('\tvolatile_if (READ_ONCE(a)) {\n\t\tif (f())\n\t\t\tb();\n\t}\n'
			'\tvolatile_if (READ_ONCE(c))\n\t\td();\n')
	assert split_if(once, 1, 1) == once


@pytest.mark.parametrize('src', [
	'\tif (READ_ONCE(a) && f())\n\t\tb();\n\telse\n\t\tc();\n',
	'\tif (READ_ONCE(a) &&\n\t    f())\n\t\tb();\n',
	'\tif (READ_ONCE(a) || f())\n\t\tb();\n',
	'\tif (READ_ONCE(a) && f() || g())\n\t\tb();\n',
])
def test_split_refuses_what_is_not_the_same_statement_split(src):
	with pytest.raises(RewriteError):
		split_if(src, 1, 1)
