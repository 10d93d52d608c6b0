# SPDX-License-Identifier: GPL-2.0
"""Per-architecture facts, in the one table that every step reads.

The base-patch tests, the cross-builds of `check`, the QEMU boots and the
code-generation matrix all look an architecture up here, so adding one is
one entry, not an if-chain in each of them.
"""

from dataclasses import dataclass, field
from typing import Optional

from .common import Error

# How an architecture implements volatile_cond() in base-patch/.
BRANCH = 'branch'                      # generic: the compiler's branch between
				       # a distinct asm in each leg
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
class Isa:
	"""How to read this architecture's machine code in GNU objdump's syntax,
	for the control-dependency analysis of isa.py and ctrldep.py.  Mnemonic
	patterns are regular expressions matched against the whole mnemonic
	(for arm: without its condition and flag-setting suffixes)."""
	syntax: str               # operand grammar: arm64, arm, powerpc, riscv, att
	regs: str                 # a general register name, as objdump prints it
	args: tuple               # integer argument registers, in order
	clobbered: tuple          # what a call may change (registers and flags)
	stack: tuple              # registers that address spill slots
	comment: str              # where objdump's trailing comments start
	load: str                 # mnemonics that read memory into registers
	store: str                # mnemonics that write registers to memory
	cond_branch: str          # conditional branches
	jump: str                 # direct unconditional branches
	call: str
	ret: str
	indirect: str             # unconditional branches to a register
	sets_flags: str = '$^'    # mnemonics that set the condition flags
	reads_flags: str = '$^'   # mnemonics that test them
	no_dest: str = '$^'       # first operand is a source, not a destination
	reads_dest: str = '$^'    # destination is read too (a partial write)
	acquire: str = '$^'       # loads that order later accesses after them
	atomic: str = '$^'        # read-modify-write of memory
	# 'mnemonic operands' of barriers that order earlier loads before
	# later stores, which makes a control dependency unnecessary.
	fence: str = '$^'
	aliases: tuple = ()       # (regex, canonical name) pairs
	zero: tuple = ()          # registers that always read as zero


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
	isa: Optional[Isa] = None  # for reading its disassembly (codegen)
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

_X86_64_ISA = Isa(
	syntax='att',
	regs=r'%\w+',
	args=('rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9'),
	clobbered=('rax', 'rcx', 'rdx', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11',
		   'flags'),
	stack=('rsp', 'rbp'),
	comment='#',
	load=r'pop[q]?',
	store=r'push[q]?',
	cond_branch=r'j(?!mp)[a-z]+',
	jump=r'jmp[q]?',
	call=r'call[q]?',
	ret=r'ret[q]?',
	indirect=r'$^',
	sets_flags=r'(add|sub|and|or|xor|cmp|test|inc|dec|neg|sh[lr]|sa[lr]|'
		   r'ro[lr]|adc|sbb|bt[src]?|i?mul|bs[fr]|tzcnt|lzcnt|popcnt|'
		   r'cmpxchg|xadd)[bwlq]?',
	reads_flags=r'j(?!mp)[a-z]+|set[a-z]+|cmov[a-z]+|(adc|sbb)[bwlq]?',
	no_dest=r'(cmp|test|bt)[bwlq]?|push[q]?|nop[wlq]?|endbr64|[lms]fence|'
		r'int3|ud2|pause|hlt|prefetch\w*|clflush',
	reads_dest=r'(add|sub|and|or|xor|adc|sbb|sh[lr]|sa[lr]|ro[lr]|imul|'
		   r'inc|dec|neg|not|bt[src]|xadd|xchg|cmov[a-z]+)[bwlq]?',
	atomic=r'(xchg|cmpxchg|xadd)[bwlq]?',
	fence=r'[lm]fence|lock .*',
)

_ARM64_ISA = Isa(
	syntax='arm64',
	regs=r'\b([xw]([0-9]|[12][0-9]|30)|w?sp|[xw]zr)\b',
	args=tuple(f'x{n}' for n in range(8)),
	clobbered=tuple(f'x{n}' for n in range(18)) + ('x30', 'flags'),
	stack=('sp', 'x29'),
	comment='//',
	load=r'ldr(b|h|sb|sh|sw)?|ldur(b|h|sb|sh|sw)?|ldp(sw)?|ldnp|'
	     r'lda?x[rp][bh]?|ldar[bh]?|ldapr[bh]?|ldapur\w*|ldlar[bh]?|'
	     r'ldtr\w*',
	store=r'str[bh]?|stur[bh]?|stn?p|stl?x[rp][bh]?|stl?l?r[bh]?|stlur[bh]?|'
	      r'sttr[bh]?',
	atomic=r'(ld(add|clr|eor|set|[su]max|[su]min)|swp|casp?)(a|al|l)?[bh]?|'
	       r'st(add|clr|eor|set|[su]max|[su]min)l?[bh]?',
	acquire=r'ldar[bh]?|ldapr[bh]?|ldapur\w*|ldax[rp][bh]?|ldlar[bh]?|'
		r'(ld(add|clr|eor|set|[su]max|[su]min)|swp|casp?)(a|al)[bh]?',
	cond_branch=r'b\.\w+|cbn?z|tbn?z',
	jump=r'b',
	call=r'bl|blr|blra[ab]z?',
	ret=r'ret|reta[ab]|eret',
	indirect=r'br|bra[ab]z?',
	sets_flags=r'cmp|cmn|tst|adds|subs|ands|bics|negs|ngcs|adcs|sbcs|'
		   r'ccm[pn]|fc?cmpe?',
	reads_flags=r'b\.\w+|csel|csinc|csinv|csneg|csetm?|cinc|cinv|cneg|'
		    r'ccm[pn]|adcs?|sbcs?|ngcs?|fcsel',
	no_dest=r'cmp|cmn|tst|ccm[pn]|fc?cmpe?|prfu?m|msr|d[ms]b|isb|hint|nop|'
		r'yield|wf[ei]|sevl?|bti|pacia\w*|autia\w*|xpaclri|brk|hvc|svc|'
		r'smc|dc|ic|tlbi|at|clrex|esb|csdb|sb|p?ssbb',
	reads_dest=r'movk|bfi|bfxil|bfm|bfc',
	# dmb/dsb, except the store-store only ones (ishst, st, ...)
	fence=r'd[ms]b (?!\w*st$)\w+',
	aliases=((r'^w(\d+)$', r'x\1'), (r'^wsp$', 'sp')),
	zero=('xzr', 'wzr'),
)

_ARM_ISA = Isa(
	syntax='arm',
	regs=r'\b(r[0-9]|r1[0-5]|sl|fp|ip|sp|lr|pc)\b',
	args=('r0', 'r1', 'r2', 'r3'),
	clobbered=('r0', 'r1', 'r2', 'r3', 'ip', 'lr', 'flags'),
	stack=('sp', 'fp'),
	comment='@',
	load=r'ldr(b|h|sb|sh|d|t|bt|ht|sbt|sht)?|ldrex[bhd]?|lda(ex)?[bhd]?|'
	     r'ldm(ia|ib|da|db|fd|fa|ea|ed)?|pop|vldr|vpop|vldm\w*',
	store=r'str(b|h|d|t|bt|ht)?|strex[bhd]?|stl(ex)?[bhd]?|'
	      r'stm(ia|ib|da|db|fd|fa|ea|ed)?|push|vstr|vpush|vstm\w*',
	acquire=r'lda(ex)?[bhd]?',
	cond_branch=r'cbn?z',
	jump=r'b',
	call=r'bl|blx',
	ret=r'$^',
	indirect=r'bx',
	# Data processing that takes an "s" to set the flags; the others.
	sets_flags=r'cmp|cmn|tst|teq|(mov|mvn|add|adc|sub|sbc|rsb|rsc|and|orr|'
		   r'orn|eor|bic|lsl|lsr|asr|ror|rrx|mul|mla|umull|umlal|smull|'
		   r'smlal)s',
	reads_flags=r'adcs?|sbcs?|rscs?|rrxs?',
	no_dest=r'cmp|cmn|tst|teq|d[ms]b|isb|nop|yield|wf[ei]|sev|it[te]*|'
		r'pl[di]w?|svc|udf|bkpt|clrex|mcrr?2?|cps\w*|msr|setend',
	reads_dest=r'movt|bfi|bfc|[us]mlals?',
	fence=r'd[ms]b( (?!\w*st$)\w+)?',
	aliases=((r'^r10$', 'sl'), (r'^r11$', 'fp'), (r'^r12$', 'ip'),
		 (r'^r13$', 'sp'), (r'^r14$', 'lr'), (r'^r15$', 'pc')),
)

_POWERPC_ISA = Isa(
	syntax='powerpc',
	regs=r'\b(r([0-9]|[12][0-9]|3[01])|cr[0-7]|lr|ctr)\b',
	args=tuple(f'r{n}' for n in range(3, 11)),
	clobbered=('r0',) + tuple(f'r{n}' for n in range(3, 13)) +
		  ('ctr', 'lr', 'ca', 'cr0', 'cr1', 'cr5', 'cr6', 'cr7'),
	stack=('r1', 'r31'),
	comment='#',
	load=r'l(bz|hz|ha|wz|wa|d)u?x?|l(hbr|wbr|dbr)x|l[bhwd]arx|lmw|lq',
	store=r'st[bhwd]u?x?|st(hbr|wbr|dbr)x|st[bhwd]cx\.|stmw|stq',
	cond_branch=r'(bdn?z[tf]?|b(eq|ne|lt|gt|le|ge|so|ns|un|nu|nl|ng))'
		    r'(lr|ctr)?l?[+-]?|bc(lr|ctr)?l?[+-]?',
	jump=r'b',
	call=r'bl|bctrl|blrl',
	ret=r'blr',
	indirect=r'bctr',
	# The carry (XER[CA]); isa.py knows the condition register fields.
	sets_flags=r'(addic|subfic|addc|subfc|adde|subfe|add[zm]e|subf[zm]e|'
		   r'sra[wd]i?)\.?',
	reads_flags=r'(adde|subfe|add[zm]e|subf[zm]e)\.?',
	no_dest=r'cmp\w*|mt(lr|ctr|spr|xer|crf|ocrf|msrd?)|(hw|lw|pte|i)?sync|'
		r'eieio|nop|tw\w*|td\w*|dcb\w*|icbi|trap|sc|rfid|st\w+',
	reads_dest=r'rl[wd]imi|ins[rl][wd]i',
	fence=r'(hw|lw|pte)?sync( [01])?',
)

_RISCV_ISA = Isa(
	syntax='riscv',
	regs=r'\b(zero|ra|sp|gp|tp|t[0-6]|s[0-9]|s1[01]|a[0-7]|fp)\b',
	args=tuple(f'a{n}' for n in range(8)),
	clobbered=('ra',) + tuple(f't{n}' for n in range(7)) +
		  tuple(f'a{n}' for n in range(8)),
	stack=('sp', 's0'),
	comment='#',
	load=r'l[bhwd]u?|lr\.[wd](\.aq|\.rl|\.aqrl)?',
	store=r's[bhwd]|sc\.[wd](\.aq|\.rl|\.aqrl)?',
	atomic=r'amo\w+\.[wd](\.aq|\.rl|\.aqrl)?',
	acquire=r'lr\.[wd]\.aq(rl)?|amo\w+\.[wd]\.aq(rl)?',
	cond_branch=r'b(eq|ne|lt|ge|ltu|geu|gt|le|gtu|leu)|b(eq|ne|lt|ge|gt|le)z',
	jump=r'j',
	call=r'jalr?',
	ret=r'ret',
	indirect=r'jr',
	no_dest=r'fence(\.i|\.tso)?|nop|ecall|ebreak|csr[wsc]i?|sfence\.vma|wfi|'
		r'pause|cbo\.\w+|prefetch\.\w',
	# fence with a read before and a write after it; fence.tso; bare fence
	fence=r'fence(\.tso|( [iorw]*r[iorw]*,[iorw]*w[iorw]*)?)',
	aliases=((r'^fp$', 's0'),),
	zero=('zero',),
)

ARCHES = {a.name: a for a in (
	Arch(name='x86_64', linux_arch='x86_64', cross_compile='x86_64-linux-gnu-',
	     gcc_package='gcc', defconfig='x86_64_defconfig',
	     flavour=COMPILER_BARRIER, clang_target='x86_64-linux-gnu',
	     qemu=_X86_64_QEMU, isa=_X86_64_ISA),
	Arch(name='arm64', linux_arch='arm64', cross_compile='aarch64-linux-gnu-',
	     gcc_package='gcc-aarch64-linux-gnu', defconfig='defconfig',
	     flavour=BRANCH, clang_target='aarch64-linux-gnu',
	     qemu=_ARM64_QEMU, isa=_ARM64_ISA),
	Arch(name='arm', linux_arch='arm', cross_compile='arm-linux-gnueabihf-',
	     gcc_package='gcc-arm-linux-gnueabihf', defconfig='multi_v7_defconfig',
	     flavour=BRANCH, clang_target='arm-linux-gnueabihf',
	     cflags=('-march=armv7-a', '-marm'), isa=_ARM_ISA, bits=32),
	Arch(name='powerpc', linux_arch='powerpc',
	     cross_compile='powerpc64le-linux-gnu-',
	     gcc_package='gcc-powerpc64le-linux-gnu',
	     defconfig='ppc64le_defconfig', flavour=BRANCH,
	     clang_target='powerpc64le-linux-gnu', isa=_POWERPC_ISA),
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
	     isa=_RISCV_ISA),
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


def get(name: str) -> Arch:
	"""The architecture called @name; the tool's Error if there is none."""
	try:
		return ARCHES[name]
	except KeyError:
		raise Error(f'unknown architecture {name!r}; known: '
			    f'{", ".join(ARCHES)}') from None
