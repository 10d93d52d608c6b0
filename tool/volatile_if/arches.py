# SPDX-License-Identifier: GPL-2.0
"""Per-architecture facts, in the one table that every step reads.

The base-patch tests, the cross-builds of `check`, the QEMU boots and the
code-generation matrix all look an architecture up here, so adding one is
one entry, not an if-chain in each of them.
"""

from dataclasses import dataclass, field
from typing import Optional

# How an architecture implements volatile_cond() in base-patch/.
ASM_GOTO = 'asm-goto'                 # weakly ordered: a real conditional branch
COMPILER_BARRIER = 'compiler-barrier'  # TSO: LOAD->STORE is never reordered
SMP_MB = 'smp_mb'                      # no arch support: the generic full barrier


@dataclass(frozen=True)
class Qemu:
	"""How to boot a kernel of this architecture; the shape of kunit.py's
	qemu_configs/*.py (QemuArchParams), so kunit.py can be fed from it."""
	qemu_arch: str            # qemu-system-<qemu_arch>
	package: str              # the Debian package that has it
	kernel_path: str          # image, relative to the build directory
	console: str              # kernel command line for the serial console
	kconfig: str              # options the console and machine need
	extra_qemu_params: tuple = ()


@dataclass(frozen=True)
class Arch:
	name: str                 # our name, used on the command line
	linux_arch: str           # ARCH=
	cross_compile: str        # CROSS_COMPILE=
	gcc_package: str          # the Debian package with $(CROSS_COMPILE)gcc
	defconfig: str            # make target that configures it
	flavour: str              # volatile_cond() implementation, see above
	clang_target: str         # --target= for clang
	qemu: Optional[Qemu] = None
	# Extra compiler flags for user-space compiles of the codegen corpus.
	cflags: tuple = field(default=())

	@property
	def gcc(self) -> str:
		return self.cross_compile + 'gcc'


_X86_64_QEMU = Qemu(
	qemu_arch='x86_64',
	package='qemu-system-x86',
	kernel_path='arch/x86/boot/bzImage',
	console='console=ttyS0',
	kconfig='CONFIG_SERIAL_8250=y\nCONFIG_SERIAL_8250_CONSOLE=y\n',
	# qboot is faster than SeaBIOS and leaves the terminal alone.
	extra_qemu_params=('-bios', 'qboot.rom'),
)

_ARM64_QEMU = Qemu(
	qemu_arch='aarch64',
	package='qemu-system-arm',
	kernel_path='arch/arm64/boot/Image.gz',
	console='console=ttyAMA0',
	kconfig='CONFIG_SERIAL_AMBA_PL011=y\nCONFIG_SERIAL_AMBA_PL011_CONSOLE=y\n',
	extra_qemu_params=('-machine', 'virt', '-cpu', 'cortex-a57'),
)

ARCHES = {a.name: a for a in (
	Arch('x86_64', 'x86_64', 'x86_64-linux-gnu-', 'gcc',
	     'x86_64_defconfig', COMPILER_BARRIER, 'x86_64-linux-gnu',
	     qemu=_X86_64_QEMU),
	Arch('arm64', 'arm64', 'aarch64-linux-gnu-', 'gcc-aarch64-linux-gnu',
	     'defconfig', ASM_GOTO, 'aarch64-linux-gnu', qemu=_ARM64_QEMU),
	Arch('arm', 'arm', 'arm-linux-gnueabihf-', 'gcc-arm-linux-gnueabihf',
	     'multi_v7_defconfig', ASM_GOTO, 'arm-linux-gnueabihf',
	     cflags=('-march=armv7-a', '-marm')),
	Arch('powerpc', 'powerpc', 'powerpc64le-linux-gnu-',
	     'gcc-powerpc64le-linux-gnu', 'ppc64le_defconfig', ASM_GOTO,
	     'powerpc64le-linux-gnu'),
	Arch('s390', 's390', 's390x-linux-gnu-', 'gcc-s390x-linux-gnu',
	     'defconfig', COMPILER_BARRIER, 's390x-linux-gnu'),
	Arch('sparc64', 'sparc64', 'sparc64-linux-gnu-', 'gcc-sparc64-linux-gnu',
	     'sparc64_defconfig', COMPILER_BARRIER, 'sparc64-linux-gnu'),
	Arch('riscv', 'riscv', 'riscv64-linux-gnu-', 'gcc-riscv64-linux-gnu',
	     'defconfig', ASM_GOTO, 'riscv64-linux-gnu'),
)}

# The architectures the tests boot under QEMU.
QEMU_ARCHES = tuple(name for name, a in ARCHES.items() if a.qemu)


def get(name: str) -> Arch:
	try:
		return ARCHES[name]
	except KeyError:
		raise KeyError(f'unknown architecture {name!r}; known: '
			       f'{", ".join(ARCHES)}') from None
