# SPDX-License-Identifier: GPL-2.0
"""Per-architecture facts, in the one table that every step reads.

The base-patch tests, the cross-builds of `check`, the QEMU boots and the
code-generation matrix all look an architecture up here, so adding one is
one entry, not an if-chain in each of them; for codegen to read its machine
code, a new instruction set also needs a decoder (a module of codegen/isa/).
"""

from dataclasses import dataclass, field
from typing import Optional

from .common import Error

# How an architecture implements volatile_cond() in base-patch/.
BRANCH = 'branch'                      # the compiler's branch to a leg that
				       # starts with an asm (each leg, or the
				       # taken one without conditional stores)
COMPILER_BARRIER = 'compiler-barrier'  # TSO: LOAD->STORE is never reordered


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
	# Its instruction set, for reading its machine code (codegen): the
	# name of a module of codegen/isa/.
	isa: Optional[str] = None
	# Extra compiler flags for user-space compiles of the codegen corpus.
	cflags: tuple = field(default=())
	bits: int = 64            # word size of the defconfig's kernel
	# Whether `check` cross-builds a series for it; the others only
	# compile the KUnit object, once on the smp_mb() fallback of v1.
	check: bool = True

	@property
	def tso(self) -> bool:
		"""Whether the architecture never reorders a load with a later
		store, so volatile_cond() needs only a compiler barrier."""
		return self.flavour == COMPILER_BARRIER

	@property
	def gcc(self) -> str:
		return self.cross_compile + 'gcc'

	@property
	def objdump(self) -> str:
		return self.cross_compile + 'objdump'


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
	Arch(name='x86_64', linux_arch='x86_64', cross_compile='x86_64-linux-gnu-',
	     gcc_package='gcc', defconfig='x86_64_defconfig',
	     flavour=COMPILER_BARRIER, clang_target='x86_64-linux-gnu',
	     qemu=_X86_64_QEMU, isa='x86'),
	Arch(name='arm64', linux_arch='arm64', cross_compile='aarch64-linux-gnu-',
	     gcc_package='gcc-aarch64-linux-gnu', defconfig='defconfig',
	     flavour=BRANCH, clang_target='aarch64-linux-gnu',
	     qemu=_ARM64_QEMU, isa='arm64'),
	Arch(name='arm', linux_arch='arm', cross_compile='arm-linux-gnueabihf-',
	     gcc_package='gcc-arm-linux-gnueabihf', defconfig='multi_v7_defconfig',
	     flavour=BRANCH, clang_target='arm-linux-gnueabihf',
	     cflags=('-march=armv7-a', '-marm'), isa='arm', bits=32),
	Arch(name='powerpc', linux_arch='powerpc',
	     cross_compile='powerpc64le-linux-gnu-',
	     gcc_package='gcc-powerpc64le-linux-gnu',
	     defconfig='ppc64le_defconfig', flavour=BRANCH,
	     clang_target='powerpc64le-linux-gnu', isa='powerpc'),
	Arch(name='s390', linux_arch='s390', cross_compile='s390x-linux-gnu-',
	     gcc_package='gcc-s390x-linux-gnu', defconfig='defconfig',
	     flavour=COMPILER_BARRIER, clang_target='s390x-linux-gnu'),
	Arch(name='sparc64', linux_arch='sparc64',
	     cross_compile='sparc64-linux-gnu-',
	     gcc_package='gcc-sparc64-linux-gnu', defconfig='sparc64_defconfig',
	     flavour=COMPILER_BARRIER, clang_target='sparc64-linux-gnu'),
	Arch(name='riscv', linux_arch='riscv', cross_compile='riscv64-linux-gnu-',
	     gcc_package='gcc-riscv64-linux-gnu', defconfig='defconfig',
	     flavour=BRANCH, clang_target='riscv64-linux-gnu',
	     isa='riscv'),
	Arch(name='mips', linux_arch='mips', cross_compile='mips-linux-gnu-',
	     gcc_package='gcc-mips-linux-gnu', defconfig='maltasmvp_defconfig',
	     flavour=BRANCH, clang_target='mips-linux-gnu', bits=32,
	     check=False),
	Arch(name='alpha', linux_arch='alpha', cross_compile='alpha-linux-gnu-',
	     gcc_package='gcc-alpha-linux-gnu', defconfig='defconfig',
	     flavour=BRANCH, clang_target='alpha-linux-gnu', check=False),
)}

# The architectures `check` cross-builds a series for.
CHECK_ARCHES = tuple(name for name, a in ARCHES.items() if a.check)

# The architectures the tests boot under QEMU.
QEMU_ARCHES = tuple(name for name, a in ARCHES.items() if a.qemu)

# The architectures whose machine code codegen reads.
CODEGEN_ARCHES = tuple(name for name, a in ARCHES.items() if a.isa)


def get(name: str) -> Arch:
	"""The architecture called @name; the tool's Error if there is none."""
	try:
		return ARCHES[name]
	except KeyError:
		raise Error(f'unknown architecture {name!r}; known: '
			    f'{", ".join(ARCHES)}') from None
