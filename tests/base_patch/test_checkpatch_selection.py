# SPDX-License-Identifier: GPL-2.0
"""The patched checkpatch.pl reads volatile_if as it reads if."""

import re

from volatile_if import checkpatch

SAMPLE = __import__('pathlib').Path(__file__).with_name('selection-sample.c')


def verdict(tree, path):
	"""(line, TYPE) of each message of checkpatch -f on @path."""
	out = checkpatch.checkpatch(tree, path, source_file=True).output
	return re.findall(r'^(?:ERROR|WARNING|CHECK):(\w+):.*\n#\d+: FILE: .*:(\d+):',
			  out, re.M)


def test_volatile_if_is_checked_like_if(test_tree, tmp_path):
	as_if = tmp_path / 'if-sample.c'
	as_if.write_text(SAMPLE.read_text().replace('volatile_if', 'if'))
	got = verdict(test_tree, SAMPLE)
	assert got == verdict(test_tree, as_if)
	# Not vacuous: the statements marked bad are reported ...
	bad = [str(i + 1) for i, line in
	       enumerate(SAMPLE.read_text().splitlines(), 1) if '/* bad:' in line]
	assert sorted({line for _, line in got} & set(bad)) == sorted(bad)
	# ... and no use of volatile_if is taken for a function call.
	assert 'SPACING' not in [t for t, line in got if line not in bad]
