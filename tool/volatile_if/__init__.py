# SPDX-License-Identifier: GPL-2.0
"""volatile-if: find control dependencies in a kernel tree and protect them
with volatile_if().  The pipeline is scan -> rewrite -> series -> check ->
boot, one module each; arches holds the per-architecture facts."""
