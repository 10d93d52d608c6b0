# SPDX-License-Identifier: GPL-2.0
"""Compiles through ccache, in depend mode; and sent through distcc: with
DISTCC_HOSTS set, ccache hands what it misses to distcc (CCACHE_PREFIX),
and make -j counts distcc's slots.  Tried against a distccd on 127.0.0.1,
as a build farm would be."""

import re
import socket
import subprocess
import time

import pytest

from volatile_if import common


@pytest.fixture
def distccd(tmp_path):
	"""A distccd on a free port of 127.0.0.1: (port, its log file)."""
	common.require('distccd', 'distcc')
	with socket.socket() as s:
		s.bind(('127.0.0.1', 0))
		port = s.getsockname()[1]
	log = tmp_path / 'distccd.log'
	# --log-stderr: as root, distccd drops to its own user, which could
	# not open a log file here
	proc = subprocess.Popen(['distccd', '--daemon', '--no-detach',
				 '--listen', '127.0.0.1', '--allow', '127.0.0.1',
				 '--port', str(port), '--log-stderr',
				 '--log-level', 'info', '--jobs', '2'],
				stderr=open(log, 'w'))
	try:
		for _ in range(100):
			try:
				socket.create_connection(('127.0.0.1', port), 0.1).close()
				break
			except OSError:
				time.sleep(0.1)
		else:
			pytest.fail('distccd did not listen on 127.0.0.1')
		yield port, log
	finally:
		proc.terminate()
		proc.wait()


def test_ccache_sends_misses_to_distcc(distccd, tmp_path, monkeypatch):
	port, log = distccd
	monkeypatch.setenv('DISTCC_HOSTS', f'127.0.0.1:{port}/8')
	monkeypatch.setenv('DISTCC_FALLBACK', '0')     # no silent local compile
	monkeypatch.setenv('CCACHE_DIR', str(tmp_path / 'ccache'))
	src = tmp_path / 'unit.c'
	src.write_text('int twice(int x) { return 2 * x; }\n')
	env = common.ccache_env()
	assert env['CCACHE_PREFIX'] == 'distcc'
	# as kbuild compiles: depend mode, through distcc too
	common.run(['ccache', 'gcc', f'-Wp,-MMD,{tmp_path}/.unit.o.d', '-O2',
		    '-c', src, '-o', tmp_path / 'unit.o'], env=env)
	assert (tmp_path / 'unit.o').is_file()
	assert (tmp_path / '.unit.o.d').is_file()
	assert re.search(r'unit\.c on localhost completed ok', log.read_text())
	assert common.build_jobs() == max(8, common.jobs())


def test_without_hosts_nothing_goes_to_distcc(monkeypatch):
	monkeypatch.delenv('DISTCC_HOSTS', raising=False)
	monkeypatch.delenv('CCACHE_PREFIX', raising=False)
	assert 'CCACHE_PREFIX' not in common.ccache_env()
	assert common.build_jobs() == common.jobs()


def _ccache_stats(env) -> dict:
	out = common.run(['ccache', '--print-stats'], env=env).stdout
	return dict(line.split('\t') for line in out.splitlines() if '\t' in line)


def test_depend_mode_hits_and_sees_a_header_change(tmp_path, monkeypatch):
	"""kbuild's form of compile, twice, then with a header changed: a
	hit, then a miss, and no miss runs the preprocessor (ccache's log).
	A user's CCACHE_DEPEND stays."""
	common.require('ccache', 'ccache')
	monkeypatch.setenv('CCACHE_DIR', str(tmp_path / 'ccache'))
	monkeypatch.setenv('CCACHE_LOGFILE', str(tmp_path / 'ccache.log'))
	monkeypatch.delenv('CCACHE_PREFIX', raising=False)
	monkeypatch.delenv('DISTCC_HOSTS', raising=False)
	monkeypatch.delenv('CCACHE_DEPEND', raising=False)
	env = common.ccache_env()
	assert env['CCACHE_DEPEND'] == '1'
	(tmp_path / 'h.h').write_text('#define N 2\n')
	src = tmp_path / 'unit.c'
	src.write_text('#include "h.h"\nint twice(int x) { return N * x; }\n')
	cmd = ['ccache', 'gcc', f'-Wp,-MMD,{tmp_path}/.unit.o.d', '-O2', '-c',
	       src, '-o', tmp_path / 'unit.o']
	for header in ('#define N 2\n', '#define N 2\n', '#define N 3\n'):
		(tmp_path / 'h.h').write_text(header)
		common.run(cmd, env=env)
	stats = _ccache_stats(env)
	assert (stats['direct_cache_hit'], stats['cache_miss']) == ('1', '2'), stats
	log = (tmp_path / 'ccache.log').read_text()
	assert log.count('Got result key from dependency file') == 2, log
	assert 'Running preprocessor' not in log, log
	monkeypatch.setenv('CCACHE_DEPEND', '0')
	assert common.ccache_env()['CCACHE_DEPEND'] == '0'
