# SPDX-License-Identifier: GPL-2.0
"""ctext and facts on canned C (tests/tool/data/facts.c): what a branch
tests, what follows it, and when there is nothing for it to order."""

from pathlib import Path

import pytest

from volatile_if import ctext, facts

pytestmark = pytest.mark.unit

SOURCE = (Path(__file__).parent / 'data' / 'facts.c').read_text()


class CannedDefinitions(facts.Definitions):
	"""The functions of facts.c, without a tree."""

	def __init__(self):
		super().__init__(None)

	def find(self, name, near=''):
		m = __import__('re').search(rf'^\S.*\b{name}\(', SOURCE, __import__('re').M)
		if not m:
			return None
		start = SOURCE.index('\n{', m.start()) + 1
		return SOURCE, SOURCE[start:ctext.match(SOURCE, start) + 1]


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
