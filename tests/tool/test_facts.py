# SPDX-License-Identifier: GPL-2.0
"""ctext and facts on canned C (tests/tool/data/facts.c): what a branch
tests, what follows it, and when there is nothing for it to order."""

import re
from pathlib import Path

import pytest

from volatile_if import ctext, facts

pytestmark = pytest.mark.unit

SOURCE = (Path(__file__).parent / 'data' / 'facts.c').read_text()


class CannedDefinitions(facts.Definitions):
	"""The functions of canned C (facts.c unless given), without a tree."""

	def __init__(self, source=SOURCE):
		super().__init__(None)
		self.source = source

	def find(self, name, near='', local=False):
		m = re.search(rf'^\S.*\b{name}\(', self.source, re.M)
		if not m:
			return None
		start = self.source.index('\n{', m.start()) + 1
		return self.source, self.source[start:ctext.match(self.source, start) + 1]


def at(needle):
	"""(line, column) of the `if` of the line holding @needle."""
	for n, line in enumerate(SOURCE.splitlines(), 1):
		if needle in line:
			return n, line.index('if')
	raise AssertionError(needle)


def site(needle, idiom):
	return facts.site_facts(SOURCE, *at(needle), idiom, CannedDefinitions(), 'facts.c')


def test_blank_keeps_offsets_and_drops_comments_and_literals():
	text = 'a = "(/*" + \'(\'; /* ( */ f(x) // )\n'
	code = ctext.blank(text)
	assert len(code) == len(text) and code.count('\n') == 1
	assert '(' not in code.replace('f(', '')
	assert ctext.one_line('f(x) /* c */\n\t+ 1') == 'f(x) + 1'


def test_condition_and_statement_end_skip_comments():
	n, col = at('toolong(p, &id)')
	pos = ctext.offset(SOURCE, n, col)
	open_, close = ctext.condition(SOURCE, pos)
	assert SOURCE[open_ + 1:close] == 'toolong(p, &id)'
	assert SOURCE[close + 1:ctext.statement_end(SOURCE, pos)].split() == [
		'/*', '"if', '("', 'in', 'a', 'comment', '*/', 'break;']
	with pytest.raises(ctext.CTextError):
		ctext.condition('if x', 0)


def test_split_top_and_function_at():
	assert ctext.split_top('a && (b || c) || f(x, y && z)', ('&&', '||')) == \
		['a ', ' (b || c) ', ' f(x, y && z)']
	start, open_, close = ctext.function_at(SOURCE, SOURCE.index('cpu_relax'))
	assert SOURCE[start:open_].startswith('static void wait(')


def test_a_load_through_a_local():
	f = site('if (old == i)', 'acquire-in-branch')
	assert [l.text for l in f.loads] == ['old = atomic_fetch_sub_release(i, &p->refs)']
	assert f.barrier and f.returns == 'true' and f.guards


def test_the_load_in_a_callee_is_named_as_such():
	f = site('toolong(p, &id)', 'acquire-loop-exit')
	assert len(f.loads) == 1
	load = f.loads[0]
	assert (load.text, load.through, load.test) == \
		('flags = READ_ONCE(p->flags)', ['toolong'], '!(flags & LOCKED)')
	# Not the counter toolong() also loads.
	assert 'atomic_inc_return' not in load.describe()
	assert f.returns == 'to its callers' and f.guards


def test_the_shared_load_not_the_local_one():
	f = site('has_space(head, tail', 'documented-ctrl-dep')
	assert [l.text for l in f.loads] == ['tail = READ_ONCE(q->user->tail)']
	assert not f.barrier and f.leg_exits
	assert f.stores == ['q->data[head]', 'WRITE_ONCE(p->state, ...)']
	assert f.returns == '0'


def test_nothing_to_order_after_a_branch_that_only_reads():
	f = site('if (!ready(p))', 'acquire-early-exit')
	assert not f.stores and not f.calls and not f.returns
	assert not f.guards
	assert 'LOAD->LOAD' in f.why_not()
	assert [l.describe() for l in f.loads] == [
		'the load test_bit(READY_BIT, &p->flags) in ready(), which it returns']


def test_without_a_barrier_the_leaving_leg_counts_too():
	src = ('int f(struct s *p)\n{\n\tif (!READ_ONCE(p->size)) {\n'
	       '\t\tWRITE_ONCE(p->nest, 0);\n\t\tgoto err;\n\t}\n'
	       '\treturn p->head;\nerr:\n\treturn -1;\n}\n')
	f = facts.site_facts(src, 3, 1, 'documented-ctrl-dep')
	assert f.leg_exits and not f.barrier
	assert f.stores == ['WRITE_ONCE(p->nest, ...)'] and f.guards


@pytest.mark.parametrize('cond, compound', [
	('READ_ONCE(p->on_rq) && ttwu(p)', 'first'),
	('likely(READ_ONCE(p->on_rq)) || !ttwu(p)', 'first'),
	('ttwu(p) || READ_ONCE(p->on_rq)', 'later'),
	('READ_ONCE(p->on_rq) == 1', ''),
])
def test_compound_condition_says_which_part_loads(cond, compound):
	src = (f'int f(struct s *p)\n{{\n\tif ({cond})\n\t\tgoto out;\n'
	       '\tsmp_acquire__after_ctrl_dep();\n\tWRITE_ONCE(p->state, 1);\n'
	       'out:\n\treturn 0;\n}\n')
	assert facts.site_facts(src, 3, 1, 'acquire-early-exit').compound == compound


@pytest.mark.parametrize('cond, after, split', [
	('READ_ONCE(p->on_rq) && ttwu(p)', '', True),
	('(READ_ONCE(p->on_rq) && ttwu(p) && q)', '', True),
	# the later part tests a load: the whole condition is the load's
	('READ_ONCE(p->on_rq) && READ_ONCE(p->x)', '', False),
	('READ_ONCE(p->on_rq) && v == 2 && ttwu(p)', '', False),
	# no call, or only the compiler's words
	('READ_ONCE(p->on_rq) && q', '', False),
	('READ_ONCE(p->on_rq) && likely(q)', '', False),
	# not one if (a && b) without else on one line
	('READ_ONCE(p->on_rq) && ttwu(p)', '\telse\n\t\tq = 0;\n', False),
	('READ_ONCE(p->on_rq) &&\n\t    ttwu(p)', '', False),
	('READ_ONCE(p->on_rq) && ttwu(p) || q', '', False),
	('unlikely(READ_ONCE(p->on_rq) && ttwu(p))', '', False),
	('ttwu(p) && READ_ONCE(p->on_rq)', '', False),
])
def test_split_only_where_the_load_and_a_call_decide(cond, after, split):
	src = (f'int f(struct s *p, int q)\n{{\n\tint v = READ_ONCE(p->v);\n\n'
	       f'\tif ({cond})\n\t\tgoto out;\n{after}'
	       '\tsmp_acquire__after_ctrl_dep();\n\tWRITE_ONCE(p->state, 1);\n'
	       'out:\n\treturn 0;\n}\n')
	assert facts.site_facts(src, 5, 1, 'acquire-early-exit').split == split


def test_stores_are_those_others_see():
	"""A function's locals, assigned or incremented, are not memory
	another CPU reads; what a pointer reaches is."""
	src = ('int f(struct s *p, int n)\n{\n\tint ret, i;\n\n'
	       '\tif (!READ_ONCE(p->ready))\n\t\treturn -1;\n'
	       '\tret = -EINVAL;\n\ti++;\n\tn = 2;\n'
	       '\tp->count = 1;\n\tp->seq++;\n\treturn ret;\n}\n')
	f = facts.site_facts(src, 5, 1, 'acquire-early-exit')
	assert f.stores == ['p->count', 'p->seq++']


def test_a_return_in_a_block_of_its_own_does_not_end_the_path():
	src = ('int f(struct s *p, int q)\n{\n'
	       '\tif (!READ_ONCE(p->ready))\n\t\treturn -1;\n'
	       '\tsmp_acquire__after_ctrl_dep();\n'
	       '\tif (q) {\n\t\treturn 1;\n\t}\n'
	       '\tWRITE_ONCE(p->state, 1);\n\treturn 0;\n}\n')
	f = facts.site_facts(src, 3, 1, 'acquire-early-exit')
	assert f.stores == ['WRITE_ONCE(p->state, ...)'] and f.returns == '0'


def test_a_local_set_under_an_if_is_no_constant_return():
	src = ('int f(struct s *p, int q)\n{\n\tint ret;\n\n'
	       '\tif (!READ_ONCE(p->ready))\n\t\treturn -1;\n'
	       '\tsmp_acquire__after_ctrl_dep();\n\tret = 0;\n'
	       '\tif (q)\n\t\tret = 1;\n\treturn ret;\n}\n')
	assert facts.site_facts(src, 5, 1, 'acquire-early-exit').returns == ''
	# set once, on every path: the caller acts on that constant
	once = src.replace('\tif (q)\n\t\tret = 1;\n', '')
	assert facts.site_facts(once, 5, 1, 'acquire-early-exit').returns == 'ret = 0'


def test_the_load_of_the_local_least_deep_in_the_condition():
	src = ('int f(struct s *p)\n{\n\tint a, b;\n\n'
	       '\ta = READ_ONCE(p->a);\n\tb = READ_ONCE(p->b);\n'
	       '\tif (check(a, g(b)))\n\t\treturn -1;\n'
	       '\tsmp_acquire__after_ctrl_dep();\n\tWRITE_ONCE(p->state, 1);\n'
	       '\treturn 0;\n}\n')
	f = facts.site_facts(src, 7, 1, 'acquire-early-exit')
	assert [l.text for l in f.loads] == ['a = READ_ONCE(p->a)']
	# assigned again from something else: no longer that load's value
	again = src.replace('\tif (check', '\ta = 3;\n\tif (check')
	f = facts.site_facts(again, 8, 1, 'acquire-early-exit')
	assert [l.text for l in f.loads] == ['b = READ_ONCE(p->b)']


def test_a_call_that_calls_a_store_may_store():
	src = ('static int setter(struct s *p)\n{\n\tWRITE_ONCE(p->x, 1);\n'
	       '\treturn 0;\n}\n\n'
	       'static int peek(struct s *p)\n{\n\treturn READ_ONCE(p->x);\n}\n\n'
	       'static int helper(struct s *p)\n{\n\treturn setter(p);\n}\n\n'
	       'int f(struct s *p)\n{\n'
	       '\tif (!READ_ONCE(p->ready))\n\t\treturn -1;\n'
	       '\tsmp_acquire__after_ctrl_dep();\n\tpeek(p);\n\thelper(p);\n'
	       '\treturn 0;\n}\n')
	line = src.splitlines().index('\tif (!READ_ONCE(p->ready))') + 1
	f = facts.site_facts(src, line, 1, 'acquire-early-exit',
			     CannedDefinitions(src), 'f.c')
	assert f.calls == ['helper'] and f.reads == ['peek']


def test_names():
	assert facts.names(['a']) == 'a'
	assert facts.names(['a', 'b', 'c']) == 'a, b and c'
	assert facts.names(['a', 'b', 'c', 'd']) == 'a, b, c and 1 more'
