# SPDX-License-Identifier: GPL-2.0
"""The workload boot: a QEMU kernel (the one kunit_qemu builds) booted with
tests/boot/init.c as PID 1, which runs the converted control-dependency
paths (IPC wake-ups, signals to exiting tasks, mmap_lock, cross-CPU calls,
the perf ring buffer) on several CPUs at once and checks their results.

Input: an architecture and a build directory.  Output: a Boot, the result
line of each workload and the kernel problems (oops, BUG, WARNING, lockdep,
KASAN, panic) of the console log."""

import re
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import arches
from .common import REPO, Error, progress, require, run
from .kbuild import parse_config

INIT_C = REPO / 'tests/boot/init.c'

# What init.c runs, in its order; a name missing from the log is a failure.
WORKLOADS = ('sysv-msg', 'posix-mq', 'sysv-sem', 'signal-exit', 'rwsem',
	     'ipi', 'perf-ring')

SMP = 4
MEMORY_MB = 1024	# what kunit.py gives the same kernel; KASAN fits in it
TIMEOUT = 420		# boot, workloads and reboot: TCG on 2 busy cores
WATCHDOG = 120		# per workload, in init.c


# ---------------------------------------------------------------------------
# The initramfs

def cpio_newc(entries: Sequence[Tuple]) -> bytes:
	"""A newc ("070701") cpio archive, the initramfs format, of @entries:
	(name, mode[, data[, (rdev major, rdev minor)]]), names without a
	leading slash, parents before children."""
	out = bytearray()

	def add(ino, name, mode, data=b'', rdev=(0, 0)):
		name = name.encode() + b'\0'
		fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0],
			  rdev[1], len(name), 0)
		out.extend(b'070701' + b''.join(b'%08X' % f for f in fields))
		out.extend(name + b'\0' * (-(len(out) + len(name)) % 4))
		out.extend(data + b'\0' * (-len(data) % 4))

	for ino, entry in enumerate(entries, 1):
		add(ino, *entry)
	add(0, 'TRAILER!!!', 0)
	return bytes(out)


def compile_init(arch: arches.Arch, out: Path) -> Path:
	"""tests/boot/init.c as a static @arch executable."""
	require(arch.gcc, arch.gcc_package)
	out.parent.mkdir(parents=True, exist_ok=True)
	try:
		run([arch.gcc, *arch.cflags, '-static', '-O2', '-pthread', '-Wall',
		     '-o', out, INIT_C], what=f'[{arch.name}] {arch.gcc} init.c')
	except Error as e:
		if re.search(r'cannot find -l|No such file or directory', e.details):
			raise Error(f'[{arch.name}] {arch.gcc} cannot build static '
				    f'programs: install the C library for '
				    f'{arch.cross_compile.rstrip("-")} (Debian: '
				    f'libc6-dev-<arch>-cross)', e.details) from None
		raise
	return out


def initramfs(arch: arches.Arch, out_dir: Path) -> Path:
	"""The initramfs: /init and what it needs before it mounts /proc."""
	init = compile_init(arch, out_dir / 'init')
	archive = out_dir / 'initramfs.cpio'
	archive.write_bytes(cpio_newc((
		('dev', stat.S_IFDIR | 0o755),
		# The kernel opens it as init's stdin, stdout and stderr.
		('dev/console', stat.S_IFCHR | 0o600, b'', (5, 1)),
		('proc', stat.S_IFDIR | 0o555),
		('init', stat.S_IFREG | 0o755, init.read_bytes()),
	)))
	return archive


# ---------------------------------------------------------------------------
# The console log

@dataclass
class Workload:
	name: str
	ok: bool
	iterations: int = 0
	ms: int = 0
	reason: str = ''


@dataclass
class Problem:
	line: int	# 1-based, in the console log
	kind: str
	text: str


# Console messages that say the kernel went wrong, from the 6.1 sources:
# kernel/locking/lockdep.c, kernel/rcu/, mm/kasan/report.c, kernel/panic.c,
# kernel/sched/core.c, kernel/hung_task.c, lib/ubsan.c and the arch fault
# handlers.  Most specific first: a line is reported once, as its first kind.
_PROBLEMS = tuple((kind, re.compile(pattern)) for kind, pattern in (
	('kasan', r'BUG: KASAN: '),
	('lockdep', r'WARNING: (possible circular locking dependency|'
		    r'inconsistent lock state|possible recursive locking|'
		    r'possible irq lock inversion|\S+-safe -> \S+-unsafe lock order|'
		    r'bad unlock balance|held lock freed|'
		    r'lock held when returning to user space|'
		    r'Nested lock was not taken|\S+ still has locks held|'
		    r'chain_key collision|bad contention)|'
		    r'BUG: (MAX_LOCK\w+ too low|key \S+ has not been registered|'
		    r'looking up invalid subclass)|'
		    r'INFO: (trying to register non-static key|lockdep is turned off)|'
		    r'DEBUG_LOCKS_WARN_ON'),
	('rcu', r'WARNING: suspicious RCU usage|detected stalls? on CPU|'
		r'self-detected stall'),
	('atomic-sleep', r'BUG: (sleeping function called from invalid context|'
			 r'scheduling while atomic)'),
	('hang', r'INFO: task \S+ blocked for more than|BUG: soft lockup|'
		 r'BUG: workqueue lockup'),
	('panic', r'Kernel panic - not syncing'),
	('oops', r'Internal error: Oops|\bOops\b|Unable to handle kernel|'
		 r'BUG: unable to handle|general protection fault|'
		 r'kernel BUG at|invalid opcode:'),
	('bug', r'\bBUG: '),
	('ubsan', r'UBSAN: '),
	('warning', r'\bWARNING: '),
	('call-trace', r'Call [Tt]race:'),
))

_RESULT = re.compile(r'volatile-if-workload: (\S+) (?:ok iterations=(\d+) '
		     r'ms=(\d+)|FAIL (.*))')
_DONE = re.compile(r'volatile-if-workload: done (\d+) ok (\d+) failed')
_OURS = re.compile(r'volatile-if-(workload|info|init): ')


@dataclass
class Console:
	workloads: Dict[str, Workload] = field(default_factory=dict)
	done: Optional[Tuple[int, int]] = None	# (ok, failed)
	problems: List[Problem] = field(default_factory=list)


def problem_kind(line: str) -> Optional[str]:
	for kind, pattern in _PROBLEMS:
		if pattern.search(line):
			return kind
	return None


def parse_console(text: str) -> Console:
	"""init.c's result lines and the kernel's problems.  Both are searched
	anywhere in a line: kernel messages and user output share the serial
	console and can end up on one line."""
	con = Console()
	for number, line in enumerate(text.splitlines(), 1):
		line = line.rstrip('\r')
		m = _RESULT.search(line)
		if m and m.group(1) != 'done':
			name, iterations, ms, reason = m.groups()
			w = Workload(name, reason is None, int(iterations or 0),
				     int(ms or 0), reason or '')
			# A workload says once how it went; should a line come
			# twice, no later ok hides a failure.
			if con.workloads.setdefault(name, w).ok:
				con.workloads[name] = w
		m = _DONE.search(line)
		if m:
			con.done = (int(m.group(1)), int(m.group(2)))
		if _OURS.search(line):
			continue
		kind = problem_kind(line)
		if kind:
			con.problems.append(Problem(number, kind, line.strip()))
	return con


# ---------------------------------------------------------------------------
# The boot

@dataclass
class Boot:
	arch: str
	log: Path
	command: List[str]
	console: Console
	seconds: float
	timed_out: bool
	returncode: Optional[int]

	@property
	def workloads(self) -> Dict[str, Workload]:
		return self.console.workloads

	@property
	def problems(self) -> List[Problem]:
		return self.console.problems

	def failures(self, expected: Sequence[str] = WORKLOADS) -> Dict[str, str]:
		"""Expected workload (or 'done') -> why it did not pass."""
		bad = {}
		for name in expected:
			w = self.workloads.get(name)
			if not w:
				bad[name] = 'no result line (hung, crashed or not run)'
			elif not w.ok:
				bad[name] = w.reason
		if not self.console.done:
			bad['done'] = 'no done line: init did not finish'
		return bad

	@property
	def ok(self) -> bool:
		return not (self.failures() or self.problems or self.timed_out)

	def summary(self, problems: int = 20) -> str:
		lines = [f'[{self.arch}] console log: {self.log} '
			 f'({self.seconds:.0f} s{", timed out" if self.timed_out else ""})']
		lines += [f'  {name}: {why}' for name, why in self.failures().items()]
		lines += [f'  line {p.line}: {p.kind}: {p.text}'
			  for p in self.problems[:problems]]
		if len(self.problems) > problems:
			lines.append(f'  ... {len(self.problems) - problems} more problems')
		return '\n'.join(lines)


def kunit_off(config: Dict[str, str]) -> List[str]:
	"""Kernel parameters that keep the KUnit suite of a kunit.py kernel
	from running before init: kunit.enable exists where
	KUNIT_DEFAULT_ENABLED does (lib/kunit/test.c); before it, a filter
	that matches no suite."""
	if config.get('CONFIG_KUNIT', 'n') == 'n':
		return []
	if 'CONFIG_KUNIT_DEFAULT_ENABLED' in config:
		return ['kunit.enable=0']
	return ['kunit.filter_glob=volatile-if-workload-none']


def qemu_command(arch: arches.Arch, build_dir: Path, initrd: Path,
		 watchdog: int = WATCHDOG) -> List[str]:
	q = arch.qemu
	if not q:
		raise Error(f'{arch.name} has no QEMU configuration in arches.py')
	kernel = build_dir / q.kernel_path
	config = build_dir / '.config'
	if not kernel.is_file() or not config.is_file():
		raise Error(f'no kernel in {build_dir}: build it first (volatile-if '
			    f'boot, or the kunit_run fixture)')
	# Without a dot and with '=', a parameter is init's environment.  A
	# guest emulated on a busy host can miss the soft-lockup detector's
	# 20 s; at its maximum, 120 s like init's watchdog, it still reports
	# real lockups.
	append = [q.console, 'rdinit=/init', 'panic=-1', 'watchdog_thresh=60',
		  *kunit_off(parse_config(config.read_text())),
		  f'vif_watchdog={watchdog}']
	return [require(f'qemu-system-{q.qemu_arch}', q.package),
		'-nodefaults', '-m', str(MEMORY_MB), '-smp', str(SMP),
		'-kernel', str(kernel), '-initrd', str(initrd),
		'-append', ' '.join(append), '-no-reboot', '-nographic',
		'-serial', 'stdio', *q.extra_qemu_params]


def boot(arch: arches.Arch, build_dir: Path, timeout: int = TIMEOUT,
	 watchdog: int = WATCHDOG) -> Boot:
	"""Boot the kernel of @build_dir with the workload initramfs.  What the
	workloads and the kernel did is in the result, not an Error: the
	caller decides."""
	out = build_dir / 'workload'
	out.mkdir(parents=True, exist_ok=True)
	cmd = qemu_command(arch, build_dir, initramfs(arch, out), watchdog)
	log = out / 'console.log'
	progress(f'[{arch.name}] workload boot: {SMP} CPUs (log: {log})')
	start = time.monotonic()
	timed_out, returncode = False, None
	with open(log, 'wb') as sink:
		try:
			returncode = subprocess.run(
				cmd, stdin=subprocess.DEVNULL, stdout=sink,
				stderr=subprocess.STDOUT, timeout=timeout).returncode
		except subprocess.TimeoutExpired:
			timed_out = True	# run() has killed QEMU
	text = log.read_text(errors='replace')
	return Boot(arch.name, log, cmd, parse_console(text),
		    time.monotonic() - start, timed_out, returncode)
