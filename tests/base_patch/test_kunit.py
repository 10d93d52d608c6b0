# SPDX-License-Identifier: GPL-2.0
"""The KUnit suite of base-patch, booted under QEMU through kunit.py."""

import re

import pytest

from volatile_if import arches


def declared_cases(tree):
	source = (tree / 'lib/volatile_if_kunit.c').read_text()
	return {f'volatile_if.{c}' for c in re.findall(r'KUNIT_CASE\((\w+)\)', source)}


@pytest.mark.slow
@pytest.mark.parametrize('arch', arches.QEMU_ARCHES)
def test_every_case_passes(kunit_run, test_tree, arch):
	run = kunit_run(arch)
	cases = {k: v for k, v in run.results.items() if k.startswith('volatile_if.')}
	# A case that did not run (crash, missing) fails as surely as a FAIL;
	# so does a SKIP: the SMP cases must have had two CPUs.
	assert set(cases) == declared_cases(test_tree)
	assert {k: v for k, v in run.results.items() if v != 'PASS'} == {}


@pytest.mark.slow
@pytest.mark.parametrize('arch', arches.QEMU_ARCHES)
def test_litmus_cases_raced(kunit_run, arch):
	"""The SMP cases ran: each thread ran as many iterations as the other
	and as the tally counts, each on one CPU (the thread itself tells
	which, or -1 if it moved), not the other's."""
	log = kunit_run(arch).log
	lines = re.findall(r'(\d+),(\d+) iterations on CPUs (-?\d+),(-?\d+): '
			   r'r0,r1 = 0,0: (\d+)  0,1: (\d+)  1,0: (\d+)  1,1: (\d+)',
			   log)
	assert len(lines) == 2, log
	for n0, n1, cpu0, cpu1, *outcomes in lines:
		assert int(n0) == int(n1) == sum(map(int, outcomes)) > 0
		assert -1 not in (int(cpu0), int(cpu1)) and cpu0 != cpu1
