# SPDX-License-Identifier: GPL-2.0
"""checkpatch: its verdict read from what checkpatch.pl prints."""

from pathlib import Path

import pytest

from volatile_if import checkpatch
from volatile_if.common import Error

# checkpatch.pl --strict --show-types on a patch with one of each
OUTPUT = """\
WARNING:LONG_LINE: line length of 105 exceeds 100 columns
#25: FILE: kernel/foo.c:10:
+	volatile_if (READ_ONCE(a) && READ_ONCE(b) && READ_ONCE(c) && READ_ONCE(d) && e)

ERROR:SPACING: space required after that ',' (ctx:VxV)
#31: FILE: kernel/foo.c:16:
+	f(a,b);

CHECK:PARENTHESIS_ALIGNMENT: Alignment should match open parenthesis
#40: FILE: kernel/foo.c:25:
+	g(a,
+		b);

total: 1 errors, 1 warnings, 1 checks, 52 lines checked

NOTE: For some of the reported defects, checkpatch may be able to
      mechanically convert to the typical style using --fix or --fix-inplace.

x.patch has style problems, please review.
"""


@pytest.mark.unit
def test_the_verdict_is_checkpatch_s_total_and_messages():
	v = checkpatch.parse(Path('x.patch'), OUTPUT)
	assert (v.errors, v.warnings, v.checks) == (1, 1, 1)
	assert v.messages == [
		'WARNING:LONG_LINE: line length of 105 exceeds 100 columns',
		"ERROR:SPACING: space required after that ',' (ctx:VxV)",
		'CHECK:PARENTHESIS_ALIGNMENT: Alignment should match open '
		'parenthesis']
	# without --strict checkpatch prints no count of checks
	v = checkpatch.parse(Path('x.patch'), 'total: 0 errors, 2 warnings, '
			     '10 lines checked\n')
	assert (v.errors, v.warnings, v.checks) == (0, 2, 0)


@pytest.mark.unit
def test_no_total_is_an_error():
	with pytest.raises(Error, match='printed no verdict for x.patch'):
		checkpatch.parse(Path('x.patch'), OUTPUT.split('total:')[0])
