# SPDX-License-Identifier: GPL-2.0
"""A slice of the survey, made now: one converted site, arm64, gcc 12,
-O2.  scripts/bench-survey makes the whole of it (tool/docs/survey.json);
the slice must give the committed cells."""

import dataclasses
import json
from pathlib import Path

import pytest

from volatile_if import scan, tree
from volatile_if.codegen import survey

SURVEY = Path(__file__).resolve().parents[2] / 'tool' / 'docs' / 'survey.json'
SITE = ('kernel/signal.c', 'arm64', 'gcc', 'O2')


def _verdicts(cells) -> list:
	return sorted((c['symbol'], c['if']['status'],
		       c['volatile_if'] and c['volatile_if']['status'])
		      for c in cells)


@pytest.mark.slow
def test_slice_gives_the_committed_cells(test_tree, pristine):
	data = json.loads(SURVEY.read_text())['trees']['linux-6.1']
	file, arch, cc, opt = SITE
	site = next(s for s in data['sites'] if s['file'] == file and s['converted'])
	fields = [f.name for f in dataclasses.fields(scan.Site)]
	made = survey.run(test_tree, [scan.Site(**{k: site[k] for k in fields})],
			  tree.git(pristine, 'rev-parse', 'HEAD').strip(),
			  arch_names=[arch], compilers=[cc], opts=[opt]).json()
	want = [c for c in data['cells'] if (c['file'], c['line']) ==
		(file, site['line']) and (c['arch'], c['compiler'], c['opt']) ==
		(arch, cc, opt)]
	assert want and not made['not_compiled']
	assert _verdicts(made['cells']) == _verdicts(want)
	# a function that has the site only with if () has no volatile_if()
	# verdict (gcc 12 inlines __lock_task_sighand() into its callers there)
	converted = [c['volatile_if'] for c in made['cells'] if c['volatile_if']]
	assert converted and all(v['status'] == 'guaranteed' for v in converted)
