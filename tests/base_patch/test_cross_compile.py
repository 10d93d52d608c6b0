# SPDX-License-Identifier: GPL-2.0
"""Every architecture of arches.py compiles code that uses volatile_if()
through its own asm/barrier.h, with Debian's cross gcc and its defconfig."""

import pytest

from volatile_if import arches

OBJECT = 'lib/volatile_if_kunit.o'


@pytest.mark.slow
@pytest.mark.parametrize('arch', list(arches.ARCHES))
def test_kunit_object_builds(check_build, arch):
	build = check_build(arch)
	build.build(OBJECT)
	assert (build.out / OBJECT).stat().st_size > 0
