# SPDX-License-Identifier: GPL-2.0
"""The workload boot: tests/boot/init.c as PID 1 of the KUnit kernel under
QEMU (slow), and the parts of workload.py that need no QEMU: the cpio
writer, the console-log parser, the kernel command line."""

import re
import shutil
import stat
import struct
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from volatile_if import arches, boot, kunit_qemu, workload
from volatile_if.common import Error


@pytest.mark.slow
@pytest.mark.parametrize('arch', arches.QEMU_ARCHES)
def test_workloads_pass_without_kernel_problems(kunit_run, arch):
	build_dir = kunit_run(arch).build_dir
	try:
		boot = workload.boot(arches.get(arch), build_dir)
	except Error as e:
		pytest.fail(f'{e}\n{e.details}')
	assert not boot.timed_out, boot.summary()
	# A workload without its line hung, crashed or never ran: a failure.
	assert boot.failures() == {}, boot.summary()
	assert boot.console.done == (len(workload.WORKLOADS), 0), boot.summary()
	assert boot.problems == [], boot.summary()


# ---------------------------------------------------------------------------
# The initramfs

def read_newc(data: bytes) -> list:
	"""(name, mode, data, (rdev major, minor)) of each member of a newc
	archive, checking the 4-byte alignment the kernel's unpacker needs."""
	members, offset = [], 0
	while True:
		assert offset % 4 == 0
		assert data[offset:offset + 6] == b'070701'
		fields = [int(data[offset + 6 + 8 * i:offset + 14 + 8 * i], 16)
			  for i in range(13)]
		size, namesize = fields[6], fields[11]
		name = data[offset + 110:offset + 110 + namesize - 1].decode()
		assert data[offset + 110 + namesize - 1] == 0
		offset = (offset + 110 + namesize + 3) & ~3
		body = data[offset:offset + size]
		offset = (offset + size + 3) & ~3
		if name == 'TRAILER!!!':
			assert offset == len(data)
			return members
		members.append((name, fields[1], body, (fields[9], fields[10])))


ENTRIES = (
	('dev', stat.S_IFDIR | 0o755, b'', (0, 0)),
	('dev/console', stat.S_IFCHR | 0o600, b'', (5, 1)),
	('a', stat.S_IFREG | 0o644, b'x', (0, 0)),
	('bb', stat.S_IFREG | 0o644, b'yz', (0, 0)),
	('ccc', stat.S_IFREG | 0o755, b'\0\1\2', (0, 0)),
	('dddd', stat.S_IFREG | 0o644, bytes(range(256)) * 3 + b'tail', (0, 0)),
	('empty', stat.S_IFREG | 0o644, b'', (0, 0)),
)


@pytest.mark.unit
def test_cpio_members_read_back():
	assert read_newc(workload.cpio_newc(ENTRIES)) == list(ENTRIES)


@pytest.mark.unit
def test_cpio_is_read_by_gnu_cpio(tmp_path):
	if not shutil.which('cpio'):
		pytest.skip('cpio is not installed')
	archive = workload.cpio_newc(ENTRIES)
	listing = subprocess.run(['cpio', '-t', '--quiet'], input=archive,
				 capture_output=True, check=True).stdout.decode()
	assert listing.split() == [e[0] for e in ENTRIES]


def elf_is_static_executable(data: bytes) -> bool:
	"""A 64-bit little-endian ELF executable without PT_INTERP: the kernel
	can run it as init with nothing else in the initramfs."""
	if data[:6] != b'\x7fELF\x02\x01':
		return False
	e_type, = struct.unpack_from('<H', data, 16)
	phoff, = struct.unpack_from('<Q', data, 32)
	phentsize, phnum = struct.unpack_from('<HH', data, 54)
	types = [struct.unpack_from('<I', data, phoff + i * phentsize)[0]
		 for i in range(phnum)]
	return e_type == 2 and 3 not in types	# ET_EXEC, PT_INTERP


@pytest.mark.parametrize('arch', arches.QEMU_ARCHES)
def test_initramfs_holds_a_static_init(arch, tmp_path):
	try:
		archive = workload.initramfs(arches.get(arch), tmp_path)
	except Error as e:
		pytest.fail(f'{e}\n{e.details}')
	members = {m[0]: m for m in read_newc(archive.read_bytes())}
	assert set(members) == {'dev', 'dev/console', 'proc', 'init'}
	name, mode, body, _ = members['init']
	assert stat.S_ISREG(mode) and mode & 0o111
	assert elf_is_static_executable(body)
	assert members['dev/console'][3] == (5, 1)


@pytest.mark.unit
def test_workload_names_are_those_of_init_c():
	source = workload.INIT_C.read_text()
	table = source[source.index('workloads[] = {'):]
	table = table[:table.index('};')]
	assert tuple(re.findall(r'\{ "([\w-]+)", \w+ \}', table)) == workload.WORKLOADS


# ---------------------------------------------------------------------------
# The console log

BOOT = '''\
Booting Linux on physical CPU 0x0000000000 [0x411fd070]
Kernel command line: console=ttyAMA0 rdinit=/init panic=-1 kunit.enable=0
Unknown kernel command line parameters "vif_watchdog=120", will be passed to user space.
rcu: \tRCU lockdep checking is enabled.
Running RCU self tests
Callback from call_rcu_tasks() invoked.
Unstable clock detected, switching default tracing clock to "global"
kunit: disabled
Run /init as init process
volatile-if-init: 4 CPUs, scale 1, watchdog 120 s
'''


def results(names=workload.WORKLOADS, failed=()):
	lines = []
	for i, name in enumerate(names):
		if name in failed:
			lines.append(f'volatile-if-workload: {name} FAIL {failed[name]}')
		else:
			lines.append(f'volatile-if-workload: {name} ok iterations={i + 10} ms={i * 100}')
	ok = len(names) - len(failed)
	lines.append(f'volatile-if-workload: done {ok} ok {len(failed)} failed')
	return '\n'.join(lines) + '\nreboot: Restarting system\n'


def boot_of(text: str, timed_out: bool = False) -> workload.Boot:
	return workload.Boot('arm64', Path('console.log'), [], workload.parse_console(text),
			     1.0, timed_out, None if timed_out else 0)


LOCKDEP = '''\

======================================================
WARNING: possible circular locking dependency detected
6.1.192 #1 Not tainted
------------------------------------------------------
init/1 is trying to acquire lock:
ffff0000c1a2b3c8 (&mm->mmap_lock){++++}-{3:3}, at: do_page_fault+0x1a4/0x6c0

but task is already holding lock:
ffff0000c0f1e2d0 (&sem->lock){+.+.}-{2:2}, at: do_semtimedop+0x2c0/0x1180

which lock already depends on the new lock.

stack backtrace:
CPU: 2 PID: 1 Comm: init Not tainted 6.1.192 #1
Call trace:
 dump_backtrace+0xe4/0x140
 show_stack+0x20/0x30
'''

KASAN = '''\
==================================================================
BUG: KASAN: slab-use-after-free in do_msgrcv+0x5d4/0x8e0
Read of size 8 at addr ffff0000c3d4e5f8 by task init/57

CPU: 1 PID: 57 Comm: init Not tainted 6.1.192 #1
Call Trace:
 <TASK>
 dump_stack_lvl+0x5b/0x77
==================================================================
'''

WARNING = '''\
------------[ cut here ]------------
WARNING: CPU: 3 PID: 88 at kernel/smp.c:912 smp_call_function_many_cond+0x4f0/0x610
Modules linked in:
CPU: 3 PID: 88 Comm: init Not tainted 6.1.192 #1
Call trace:
 smp_call_function_many_cond+0x4f0/0x610
---[ end trace 0000000000000000 ]---
'''


@pytest.mark.unit
def test_clean_log():
	boot = boot_of(BOOT + results())
	assert boot.problems == []
	assert boot.failures() == {}
	assert boot.console.done == (len(workload.WORKLOADS), 0)
	assert boot.workloads['sysv-msg'] == workload.Workload('sysv-msg', True, 10, 0)
	assert boot.ok


@pytest.mark.unit
def test_lockdep_splat():
	boot = boot_of(BOOT + LOCKDEP + results())
	assert [(p.kind, p.text) for p in boot.problems] == [
		('lockdep', 'WARNING: possible circular locking dependency detected'),
		('call-trace', 'Call trace:')]
	assert boot.problems[0].line == BOOT.count('\n') + 3
	assert boot.failures() == {} and not boot.ok


@pytest.mark.unit
def test_kasan_report():
	kinds = [p.kind for p in boot_of(BOOT + KASAN + results()).problems]
	assert kinds == ['kasan', 'call-trace']


@pytest.mark.unit
def test_warning():
	boot = boot_of(BOOT + WARNING + results())
	assert [p.kind for p in boot.problems] == ['warning', 'call-trace']
	assert 'kernel/smp.c:912' in boot.problems[0].text


@pytest.mark.unit
@pytest.mark.parametrize('line, kind', [
	('WARNING: inconsistent lock state', 'lockdep'),
	('WARNING: suspicious RCU usage', 'rcu'),
	('rcu: INFO: rcu_sched detected stalls on CPUs/tasks:', 'rcu'),
	('BUG: sleeping function called from invalid context at mm/memory.c:5670', 'atomic-sleep'),
	('INFO: task init:1 blocked for more than 120 seconds.', 'hang'),
	('Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b', 'panic'),
	('Internal error: Oops: 0000000096000004 [#1] SMP', 'oops'),
	('Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008', 'oops'),
	('general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1]', 'oops'),
	('kernel BUG at kernel/signal.c:1432!', 'oops'),
	('BUG: scheduling while atomic: init/1/0x00000002', 'atomic-sleep'),
	('BUG: spinlock bad magic on CPU#0, init/1', 'bug'),
	('UBSAN: shift-out-of-bounds in kernel/events/ring_buffer.c:123:4', 'ubsan'),
	('INFO: lockdep is turned off.', 'lockdep'),
	('[   12.345678] BUG: KASAN: wild-memory-access in ipc_obtain_object_check', 'kasan'),
])
def test_problem_kinds(line, kind):
	assert workload.problem_kind(line) == kind


@pytest.mark.unit
def test_user_space_lines_are_not_kernel_problems():
	# init's own reasons may quote anything; a user segfault is not a
	# kernel problem either.
	text = (BOOT + 'init[141]: segfault at 7f5a3a2d8000 ip 00000000004022f0 error 7\n'
		+ results(failed={'ipi': 'CPU 1 wrote a page (BUG: like text)'}))
	boot = boot_of(text)
	assert boot.problems == []
	assert boot.failures() == {'ipi': 'CPU 1 wrote a page (BUG: like text)'}


@pytest.mark.unit
def test_missing_and_failed_workloads():
	names = [n for n in workload.WORKLOADS if n != 'rwsem']
	boot = boot_of(BOOT + results(names, failed={'posix-mq': 'mq_send: Bad file descriptor'}))
	assert boot.failures() == {
		'posix-mq': 'mq_send: Bad file descriptor',
		'rwsem': 'no result line (hung, crashed or not run)'}
	assert not boot.ok


@pytest.mark.unit
def test_a_failure_is_not_undone_by_a_later_line():
	ok = 'volatile-if-workload: ipi ok iterations=5 ms=7\n'
	fail = 'volatile-if-workload: ipi FAIL lost an IPI\n'
	for text in (ok + fail, fail + ok):
		assert boot_of(BOOT + text).failures()['ipi'] == 'lost an IPI'


@pytest.mark.unit
def test_hung_boot_has_no_done_line():
	text = BOOT + 'volatile-if-workload: sysv-msg ok iterations=600 ms=4000\n'
	boot = boot_of(text, timed_out=True)
	failures = boot.failures()
	assert set(failures) == set(workload.WORKLOADS[1:]) | {'done'}
	assert 'timed out' in boot.summary()


@pytest.mark.unit
def test_watchdog_line():
	text = BOOT + ('volatile-if-workload: sysv-msg FAIL timed out after 120 s (watchdog)\n'
		       'volatile-if-workload: done 0 ok 1 failed\n')
	boot = boot_of(text)
	assert boot.failures()['sysv-msg'] == 'timed out after 120 s (watchdog)'
	assert boot.console.done == (0, 1)


@pytest.mark.unit
def test_result_after_kernel_text_on_the_same_line():
	text = BOOT + ('[  31.2] random: crng init donevolatile-if-workload: '
		       'sysv-msg ok iterations=600 ms=4000\r\n')
	assert boot_of(text).workloads['sysv-msg'].ok


# ---------------------------------------------------------------------------
# The command line

@pytest.mark.unit
def test_kunit_off():
	assert workload.kunit_off({'CONFIG_KUNIT': 'y', 'CONFIG_KUNIT_DEFAULT_ENABLED': 'y'}) == ['kunit.enable=0']
	# Disabled by default still exists: say it anyway.
	assert workload.kunit_off({'CONFIG_KUNIT': 'y', 'CONFIG_KUNIT_DEFAULT_ENABLED': 'n'}) == ['kunit.enable=0']
	assert workload.kunit_off({'CONFIG_KUNIT': 'y'}) == ['kunit.filter_glob=volatile-if-workload-none']
	assert workload.kunit_off({'CONFIG_KUNIT': 'n'}) == []


@pytest.mark.parametrize('arch', arches.QEMU_ARCHES)
def test_qemu_command(arch, tmp_path):
	a = arches.get(arch)
	(tmp_path / a.qemu.kernel_path).parent.mkdir(parents=True)
	(tmp_path / a.qemu.kernel_path).write_bytes(b'')
	(tmp_path / '.config').write_text('CONFIG_KUNIT=y\nCONFIG_KUNIT_DEFAULT_ENABLED=y\n')
	try:
		cmd = workload.qemu_command(a, tmp_path, tmp_path / 'initramfs.cpio')
	except Error as e:
		pytest.fail(str(e))
	append = cmd[cmd.index('-append') + 1].split()
	assert a.qemu.console in append and 'rdinit=/init' in append
	assert 'panic=-1' in append and 'kunit.enable=0' in append
	assert 'watchdog_thresh=60' in append
	assert f'vif_watchdog={workload.WATCHDOG}' in append
	cmd = workload.qemu_command(a, tmp_path, tmp_path / 'initramfs.cpio',
				    watchdog=7)
	assert 'vif_watchdog=7' in cmd[cmd.index('-append') + 1].split()
	assert cmd[cmd.index('-smp') + 1] == str(workload.SMP)
	assert cmd[cmd.index('-kernel') + 1] == str(tmp_path / a.qemu.kernel_path)
	assert '-no-reboot' in cmd
	assert cmd[-len(a.qemu.extra_qemu_params):] == list(a.qemu.extra_qemu_params)


@pytest.mark.unit
def test_a_boot_fails_on_anything_but_pass():
	"""boot's verdict: a KUnit case that did not PASS (SKIP too), no
	volatile_if case at all, a workload that failed, a kernel problem, a
	boot that timed out."""
	run = kunit_qemu.KunitRun('arm64', Path('.'), {'volatile_if.a': 'PASS'})
	clean = boot.ArchBoot(run, boot_of(BOOT + results()))
	assert clean.failures() == {}
	for results_, why in (({'volatile_if.a': 'SKIP'}, 'kunit volatile_if.a'),
			      ({'volatile_if.a': 'ERROR'}, 'kunit volatile_if.a'),
			      ({'other.a': 'PASS'}, 'kunit volatile_if')):
		bad = boot.ArchBoot(replace(run, results=results_),
				    boot_of(BOOT + results()))
		assert list(bad.failures()) == [why]
	bad = boot.ArchBoot(run, boot_of(BOOT + WARNING + results(
		failed={'sysv-msg': 'lost a message'})))
	assert bad.failures() == {
		'workload sysv-msg': 'lost a message',
		'console line 12': 'warning: WARNING: CPU: 3 PID: 88 at kernel/'
				   'smp.c:912 smp_call_function_many_cond+0x4f0/0x610',
		'console line 15': 'call-trace: Call trace:'}
	bad = boot.ArchBoot(run, boot_of(BOOT + results(), timed_out=True))
	assert 'workload boot' in bad.failures()


@pytest.mark.unit
def test_kunit_results_of_nested_suites():
	"""kunit.py's JSON: a case is named by its suites and itself, at any
	depth; the unnamed top group adds nothing."""
	data = {'name': 'KUnit Test Group', 'test_cases': [], 'sub_groups': [
		{'name': 'volatile_if', 'test_cases': [
			{'name': 'a', 'status': 'PASS'}], 'sub_groups': [
			{'name': 'litmus', 'test_cases': [
				{'name': 'lb', 'status': 'SKIP'}]}]},
		{'name': 'other', 'test_cases': [{'name': 'b', 'status': 'FAIL'}]}]}
	assert kunit_qemu._cases(data) == {'volatile_if.a': 'PASS',
					   'volatile_if.litmus.lb': 'SKIP',
					   'other.b': 'FAIL'}


@pytest.mark.unit
def test_no_kernel_is_an_error(tmp_path):
	with pytest.raises(Error, match='build it first'):
		workload.qemu_command(arches.get(arches.QEMU_ARCHES[0]), tmp_path,
				      tmp_path / 'initramfs.cpio')
