# SPDX-License-Identifier: GPL-2.0
"""Kernel builds: one build directory per tree, architecture, compiler and
configuration, configured and prepared once, then asked for objects; and
which object a source file is built into."""

import hashlib
import re
from pathlib import Path
from typing import Dict, Optional

from . import arches
from .common import (BUILD, CONFIGS, Error, ccache_env, compiler_vars, jobs,
		     progress, require, run, table)

OUT = BUILD / 'out'
# What the check builds add to the defconfig; codegen's builds start from it.
CHECK_CONFIG = CONFIGS / 'check.config'
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


class KernelBuild:
	"""@tree built for @arch under build/out/<tree>/<arch>[-llvm]-<name>,
	from the arch's defconfig (or @base, e.g. 'olddefconfig' on an empty
	config) plus the options of @fragment."""

	def __init__(self, tree: Path, arch: arches.Arch, name: str,
		     fragment: str = '', llvm: bool = False,
		     base: Optional[str] = None):
		self.tree = tree
		self.arch = arch
		self.fragment = fragment
		self.llvm = llvm
		self.base = base or arch.defconfig
		suffix = '-llvm' if llvm else ''
		self.label = f'{arch.name}{suffix}'
		self.out = OUT / tree.name / f'{arch.name}{suffix}-{name}'

	def compiler(self) -> str:
		if self.llvm:
			return require('clang', 'clang')
		return require(self.arch.gcc, self.arch.gcc_package)

	def make_command(self, *targets: str) -> list:
		cc = 'clang' if self.llvm else self.arch.gcc
		cmd = ['make', '-C', self.tree, f'O={self.out}',
		       f'ARCH={self.arch.linux_arch}', f'-j{jobs()}']
		cmd.append('LLVM=1' if self.llvm
			   else f'CROSS_COMPILE={self.arch.cross_compile}')
		return cmd + compiler_vars(cc) + list(targets)

	def make(self, *targets: str, log: Optional[Path] = None):
		return run(self.make_command(*targets), env=ccache_env(), log=log,
			   what=f'[{self.label}] make {" ".join(targets)}')

	def _key(self) -> str:
		head = run(['git', '-C', self.tree, 'rev-parse', 'HEAD']).stdout
		text = '\0'.join((self.base, self.fragment, head, str(self.llvm)))
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
		if self.fragment:
			frag = self.out / 'volatile-if.config'
			frag.write_text(self.fragment)
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

	def enables(self, obj: str) -> bool:
		"""Whether this configuration builds @obj ('dir/name.o'), by
		the obj-$(CONFIG_...) line of its directory's Makefile: an
		arm64-only driver is not built for x86_64.  An object no line
		names directly (a part of a composite) counts as built."""
		directory, name = obj.rsplit('/', 1)
		makefile = self.tree / directory / 'Makefile'
		if not makefile.is_file():
			return True
		text = makefile.read_text(errors='replace').replace('\\\n', ' ')
		m = re.search(r'^obj-(\$\((CONFIG_\w+)\)|y)\s*[:+]?=.*\b'
			      + re.escape(name) + r'\b', text, re.M)
		if not m or not m.group(2):
			return True
		config = parse_config((self.out / '.config').read_text())
		return config.get(m.group(2), 'n') in ('y', 'm')

	def build(self, target: str) -> Path:
		"""Build one target, e.g. 'kernel/smp.o'; returns its log."""
		log = self.out / 'logs' / (target.replace('/', '_') + '.log')
		self.make(target, log=log)
		return log


def object_for(worktree: Path, path: str) -> str:
	"""The object that kbuild compiles @path of @worktree into; for a
	header, that of data/header-objects or of a .c file including it."""
	if path.endswith('.c'):
		return path[:-2] + '.o'
	if path in HEADER_OBJECTS:
		return HEADER_OBJECTS[path]
	name = re.sub(r'^include/', '', path)
	users = run(['git', '-C', worktree, 'grep', '-l', f'#include <{name}>',
		     '--', '*.c']).stdout.split()
	if not users:
		raise Error(f'no .c file includes {path}: name an object that uses it '
			    'in tool/volatile_if/data/header-objects')
	return users[0][:-2] + '.o'
