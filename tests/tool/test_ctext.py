# SPDX-License-Identifier: GPL-2.0
"""ctext: C text without a parser."""

import pytest

from volatile_if import ctext

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('src, want', [
	('a /* b */ c', 'a         c'),
	('a /*/ b */ c', 'a          c'),
	('a /* b', 'a     '),
	('a // b \\\n c\nd', 'a       \n  \nd'),
	('s = "x\\"y/*"; t', 's = "      "; t'),
	("c = '\\''; d = '\"';", "c = '  '; d = ' ';"),
	('s = "open\nnext', 's = "    \nnext'),
	('"a\\\nb" x', '"  \n " x'),
], ids=['block', 'slash-star-slash', 'unclosed-block', 'line-continued',
	'escaped-quote', 'char', 'unclosed-string', 'string-continued'])
def test_blank_hides_comments_and_literals_in_place(src, want):
	assert ctext.blank(src) == want
	assert len(ctext.blank(src, literals=False)) == len(src)


def test_blank_can_keep_literals():
	assert ctext.blank('f("/* x */"); /* y */', literals=False) == \
		'f("/* x */");        '


STORES = ('WRITE_ONCE',)


def ifs(src):
	return [ctext.line_of(src, p) for p in ctext.ifs_storing_alike(src, STORES)]


def test_ifs_storing_alike_in_both_legs():
	src = ('void f(int *a, struct s *p)\n{\n'
	       '\tif (READ_ONCE(*a)) {\n\t\tp->x = 1;\n\t\tg();\n'
	       '\t} else {\n\t\th();\n\t\tp -> x  =  (1);\n\t}\n'
	       '\tif (READ_ONCE(*a))\n\t\tWRITE_ONCE(*p, 2);\n'
	       '\telse if (b)\n\t\tfor (;;)\n\t\t\tWRITE_ONCE( *p , 2 );\n'
	       '\tvolatile_if (READ_ONCE(*a))\n\t\tout: p->y = 3;\n'
	       '\telse\n\t\tlist_for_each(q, l) p->y = 3;\n}\n')
	assert ifs(src) == [3, 10, 15]


def test_ifs_storing_differently_or_without_else_are_left_out():
	src = ('void f(int *a, struct s *p)\n{\n'
	       '\tif (READ_ONCE(*a))\n\t\tp->x = 1;\n\tp->x = 1;\n'
	       '\tif (READ_ONCE(*a))\n\t\tp->x = 1;\n\telse\n\t\tp->x = 2;\n'
	       '\tif (READ_ONCE(*a))\n\t\tp->x == 1;\n\telse\n\t\tp->x == 1;\n'
	       '\tif (READ_ONCE(*a))\n\t\tWRITE_ONCE(*p, 1);\n'
	       '\telse\n\t\tatomic_set(p, 1);\n}\n')
	assert ifs(src) == []


def test_ifs_storing_alike_across_preprocessor_lines():
	# spatch reads the code around #if and #endif as if they were not there.
	src = ('void f(int *a, struct s *p)\n{\n\tif (READ_ONCE(*a))\n'
	       '\t\tp->x = 1;\n#ifdef CONFIG_X\n\telse\n#endif\n\t\tp->x = 1;\n}\n')
	assert ifs(src) == [3]


def test_ifs_storing_alike_are_all_ifs_where_the_text_is_not_c():
	src = 'void f(void)\n{\n\tif (a) {\n\t\tx = 1;\n\t} else (\n}\n'
	assert ifs(src) == [3]
