# SPDX-License-Identifier: GPL-2.0
"""volatile-if: find control dependencies in a kernel tree and protect them
with volatile_if().

The pipeline, one subcommand each (cli.py):
  scan (scan.py) -> convert (convert.py: rewrite.py, facts.py, series.py,
  recipients.py) -> check (check.py, checkpatch.py) -> boot (boot.py:
  kunit_qemu.py, workload.py); review (review.py) decides report-only
  sites for convert.
Below it: common.py (paths, errors, programs), tree.py (kernel trees,
scratch worktrees, the series tree), kbuild.py (kernel builds, the objects
of source files), arches.py (per-architecture facts), ctext.py (C text:
comments, brackets, statement ends), data/ (subject prefixes, header
objects).
Beside it, the machine-code analysis of `codegen` and `survey`, codegen/:
corpus.py, sites.py and survey.py, on recompile.py, disasm.py, ctrldep.py
and isa/ (a module per instruction set, named by arches.py)."""
