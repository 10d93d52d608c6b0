# SPDX-License-Identifier: GPL-2.0
# `make run`: the main job on the default tree.  `make test`: every test.
# Both install what they need first (scripts/setup).

# Debian's interpreter: it has python3-pytest, whatever python3 PATH finds.
PYTHON ?= /usr/bin/python3
# --durations: where the time of a run goes, in every log.
PYTEST = $(PYTHON) -m pytest -v --durations=25 tests

.PHONY: setup run test test-quick check

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

# tests/base_patch/test_other_trees.py checks base-patch/6.12 on its tree.
test: setup
	scripts/setup 6.12
	$(PYTEST)

# Everything that does not build or boot a kernel.
test-quick: setup
	$(PYTEST) -m 'not slow'

# The unit tier, lint included (tests/tool/test_lint.py): no kernel tree,
# nothing unpacked; installs only what these need.
CHECK_PACKAGES = python3-pytest python3-pyflakes python3-mypy coccinelle git

check:
	@missing=$$(for p in $(CHECK_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		$$sudo apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q $$missing; \
	fi
	$(PYTEST) -m 'unit and not tree and not slow'
