# SPDX-License-Identifier: GPL-2.0
"""Kernel builds: one build directory per tree, architecture, compiler and
configuration, configured and prepared once, then asked for objects; and
which object a source file is built into."""

import hashlib
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import arches
from .common import (BUILD, CONFIGS, Error, build_jobs, ccache_env,
		     compiler_vars, git, git_or_none, progress, require, run,
		     table)

OUT = BUILD / 'out'
# What the check builds add to the defconfig; codegen's builds start from it.
CHECK_CONFIG = CONFIGS / 'check.config'
# Asked for beyond check.config where the arch can have it, so that every
# site of the series is compiled: __csd_lock_wait()'s (kernel/smp.c) is under
# CONFIG_CSD_LOCK_WAIT_DEBUG, which depends on 64BIT.
SITE_OPTIONS = ('CONFIG_CSD_LOCK_WAIT_DEBUG',)
# A header has no object of its own: data/header-objects names one.
HEADER_OBJECTS = dict(table('header-objects'))

_OPTION = re.compile(r'^(CONFIG_\w+)=(.*)$|^# (CONFIG_\w+) is not set$')


def parse_config(text: str) -> Dict[str, str]:
	"""Kconfig lines as {option: value}, 'n' for '# ... is not set'."""
	options = {}
	for line in text.splitlines():
		m = _OPTION.match(line.strip())
		if m and m.group(1):
			options[m.group(1)] = m.group(2)
		elif m:
			options[m.group(3)] = 'n'
	return options


def check_compiler(name: str) -> None:
	"""An Error unless @name is a compiler KernelBuild knows."""
	if not re.fullmatch(r'gcc|clang(-\d+)?', name):
		raise Error(f'unknown compiler {name}: give gcc, clang or clang-N '
			    '(Debian\'s clang-N, e.g. clang-19)')


def require_compiler(name: str, arch: arches.Arch) -> None:
	"""An Error naming the Debian package if @name (for @arch) is not
	installed: the cross gcc, or clang[-N] with its lld."""
	check_compiler(name)
	if name == 'gcc':
		require(arch.gcc, arch.gcc_package)
		return
	suffix = name[len('clang'):]
	require(name, name)
	require('ld.lld' + suffix, 'lld' + suffix)


def require_compilers(arch_names: Sequence[str],
		      compilers: Sequence[str]) -> None:
	"""require_compiler() for each of @compilers and @arch_names: before
	any work."""
	for cc in compilers:
		for a in arch_names:
			require_compiler(cc, arches.get(a))


class KernelBuild:
	"""@tree built for @arch under build/out/<tree>/<arch>[-llvm[-N]]-<name>,
	from the arch's defconfig (or @base, e.g. 'olddefconfig' on an empty
	config) plus the options of @fragment, which it must have, and of
	@wanted, which olddefconfig may drop (has() tells), by @compiler:
	'gcc' (the arch's cross gcc), 'clang' (LLVM=1) or 'clang-N' (LLVM=-N,
	Debian's versioned LLVM)."""

	def __init__(self, tree: Path, arch: arches.Arch, name: str,
		     fragment: str = '', compiler: str = 'gcc',
		     base: Optional[str] = None, wanted: str = ''):
		check_compiler(compiler)
		self.tree = tree
		self.arch = arch
		self.fragment = fragment
		self.wanted = wanted
		self.cc = compiler
		self.llvm = compiler.startswith('clang')
		self.base = base or arch.defconfig
		suffix = compiler.replace('clang', '-llvm') if self.llvm else ''
		self.label = f'{arch.name}{suffix}'
		self.out = OUT / tree.name / f'{arch.name}{suffix}-{name}'

	def compiler(self) -> None:
		require_compiler(self.cc, self.arch)

	def make_command(self, *targets: str) -> list:
		cc = self.cc if self.llvm else self.arch.gcc
		cmd = ['make', '-C', self.tree, f'O={self.out}',
		       f'ARCH={self.arch.linux_arch}', f'-j{build_jobs()}']
		if self.llvm:
			cmd.append('LLVM=' + self.cc[len('clang'):] if '-' in self.cc
				   else 'LLVM=1')
		else:
			cmd.append(f'CROSS_COMPILE={self.arch.cross_compile}')
		return cmd + compiler_vars(cc) + list(targets)

	def make(self, *targets: str, log: Optional[Path] = None):
		return run(self.make_command(*targets), env=ccache_env(), log=log,
			   what=f'[{self.label}] make {" ".join(targets)}')

	def _key(self) -> str:
		head = git(self.tree, 'rev-parse', 'HEAD')
		text = '\0'.join((self.base, self.fragment, head, str(self.llvm)) +
				 ((self.wanted,) if self.wanted else ()))
		return hashlib.sha256(text.encode()).hexdigest()

	def prepare(self) -> 'KernelBuild':
		"""Configure and `make prepare`, unless done for this tree HEAD,
		base and fragment already."""
		self.compiler()
		stamp = self.out / '.volatile-if-prepared'
		key = self._key()
		if stamp.is_file() and stamp.read_text() == key:
			return self
		progress(f'[{self.label}] configuring ({self.base} + '
			 f'{len(parse_config(self.fragment))} options) and preparing')
		self.out.mkdir(parents=True, exist_ok=True)
		stamp.unlink(missing_ok=True)
		self.make(self.base, log=self.out / 'config.log')
		if self.fragment or self.wanted:
			frag = self.out / 'volatile-if.config'
			frag.write_text(self.fragment + self.wanted)
			run([self.tree / 'scripts/kconfig/merge_config.sh', '-m',
			     '-O', self.out, self.out / '.config', frag],
			    cwd=self.tree, what=f'[{self.label}] merge_config.sh')
			self.make('olddefconfig', log=self.out / 'config.log')
			self.check_config()
		self.make('prepare', log=self.out / 'prepare.log')
		stamp.write_text(key)
		return self

	def check_config(self) -> None:
		"""Fail if olddefconfig dropped an option of the fragment."""
		have = parse_config((self.out / '.config').read_text())
		missing = [f'{k}={v}' for k, v in parse_config(self.fragment).items()
			   if have.get(k, 'n') != v]
		if missing:
			raise Error(f'[{self.label}] the configuration lacks '
				    f'{", ".join(missing)} (unmet dependencies? see '
				    f'{self.out}/.config)')

	def has(self, option: str) -> bool:
		"""Whether @option is y or m in the configuration."""
		config = parse_config((self.out / '.config').read_text())
		return config.get(option, 'n') in ('y', 'm')

	def enables(self, obj: str) -> bool:
		"""Whether this configuration builds @obj ('dir/name.o'), by the
		Makefile lines that guard it (guards()): an arm64-only driver
		is not built for x86_64."""
		return all(self.has(c) for c in guards(self.tree, obj))

	def build(self, *targets: str) -> Path:
		"""Build @targets, e.g. 'kernel/smp.o', in one make, which keeps
		going past a target that fails; returns its log."""
		name = targets[0].replace('/', '_') if len(targets) == 1 else 'objects'
		log = self.out / 'logs' / f'{name}.log'
		self.make('-k', *targets, log=log)
		return log


def _makefile(tree: Path, directory: str) -> str:
	for name in ('Kbuild', 'Makefile'):
		path = tree / directory / name
		if path.is_file():
			return path.read_text(errors='replace').replace('\\\n', ' ')
	return ''


def guards(tree: Path, obj: str) -> List[str]:
	"""The CONFIG_ symbols that kbuild needs set to build @obj ('dir/name.o')
	of @tree, by its Makefiles: obj-$(CONFIG_X) += name.o in its directory,
	through a composite object (x-y += name.o, obj-$(CONFIG_X) += x.o),
	and obj-$(CONFIG_Y) += dir/ in each directory above.  A conditional
	that is not an obj-$(CONFIG_...) line (an ifdef around it) is not
	seen: enables() then says yes, and the build says no."""
	found: List[str] = []
	parts = obj.split('/')
	name = parts[-1]
	for depth in range(len(parts) - 1, 0, -1):
		text = _makefile(tree, '/'.join(parts[:depth]))
		seen = set()
		while name not in seen:
			seen.add(name)
			m = re.search(r'^\s*([\w-]+)-(y|objs|\$\((CONFIG_\w+)\))\s*[:+]?='
				      r'[^\n]*(?<![\w/.-])' + re.escape(name) +
				      r'(?![\w.-])', text, re.M)
			if not m:
				break
			if m.group(3) and m.group(3) not in found:
				found.append(m.group(3))
			if m.group(1) == 'obj':
				break
			name = m.group(1) + '.o'     # a part of composite object
		name = parts[depth - 1] + '/'
	return found


def check_build(tree: Path, arch: arches.Arch, compiler: str = 'gcc',
		name: str = 'check', fragment: str = '',
		wanted: Sequence[str] = ()) -> KernelBuild:
	"""The build that check and codegen use: the defconfig, check.config
	and @fragment, asking for SITE_OPTIONS and the options @wanted."""
	return KernelBuild(tree, arch, name, CHECK_CONFIG.read_text() + fragment,
			   compiler=compiler, wanted=''.join(
				   f'{o}=y\n' for o in SITE_OPTIONS + tuple(wanted)))


def object_for(worktree: Path, path: str) -> str:
	"""The object that kbuild compiles @path of @worktree into; for a
	header, that of data/header-objects or of a .c file including it."""
	if path.endswith('.c'):
		return path[:-2] + '.o'
	if path in HEADER_OBJECTS:
		return HEADER_OBJECTS[path]
	name = re.sub(r'^include/', '', path)
	users = (git_or_none(worktree, 'grep', '-l', '-F', f'#include <{name}>',
			     '--', '*.c') or '').split()
	if not users:
		raise Error(f'no .c file includes {path}: name an object that uses it '
			    'in tool/volatile_if/data/header-objects')
	return users[0][:-2] + '.o'
