# SPDX-License-Identifier: GPL-2.0
"""check's view of which objects an architecture's configuration builds."""

import pytest

from volatile_if import arches, kbuild


@pytest.mark.unit
def test_enables_reads_the_makefile_and_the_config(tmp_path):
	(tmp_path / 'drivers' / 'irqchip').mkdir(parents=True)
	(tmp_path / 'drivers' / 'irqchip' / 'Makefile').write_text(
		'obj-y\t\t\t+= irqchip.o\n'
		'obj-$(CONFIG_APPLE_AIC)\t\t+= irq-apple-aic.o\n'
		'obj-$(CONFIG_ARM_GIC)\t\t+= irq-gic.o \\\n'
		'\t\t\t\t   irq-gic-common.o\n')
	b = kbuild.KernelBuild(tmp_path, arches.get('x86_64'), 'check')
	b.out = tmp_path / 'out'
	b.out.mkdir()
	(b.out / '.config').write_text('CONFIG_ARM_GIC=y\n'
				       '# CONFIG_APPLE_AIC is not set\n')
	assert b.enables('drivers/irqchip/irqchip.o')
	assert not b.enables('drivers/irqchip/irq-apple-aic.o')
	# a name on a continuation line of the rule
	assert b.enables('drivers/irqchip/irq-gic-common.o')
	(b.out / '.config').write_text('CONFIG_APPLE_AIC=y\n')
	assert b.enables('drivers/irqchip/irq-apple-aic.o')
	assert not b.enables('drivers/irqchip/irq-gic-common.o')
