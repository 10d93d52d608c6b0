# SPDX-License-Identifier: GPL-2.0
# `make run`: the main job on the default tree.  `make test`: every test.
# Both install what they need first (scripts/setup).

# Debian's interpreter: it has python3-pytest, whatever python3 PATH finds.
PYTHON ?= /usr/bin/python3
PYTEST = $(PYTHON) -m pytest -v tests

.PHONY: setup run test test-quick

setup:
	scripts/setup

# The committed generated-patches/ are example output under this made-up
# name; to submit, run tool/volatile-if convert under your own.
IDENTITY ?= Example Submitter <submitter@example.org>

# The kernel version to work on: 6.1 (Debian 12's) or 6.12 (Debian 13's).
TREE ?= 6.1

run:
	scripts/setup $(TREE)
	$(PYTHON) tool/volatile-if all --tree build/linux-$(TREE) --identity "$(IDENTITY)"

test: setup
	$(PYTEST)

# Everything that does not build or boot a kernel.
test-quick: setup
	$(PYTEST) -m 'not slow'
