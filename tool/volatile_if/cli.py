# SPDX-License-Identifier: GPL-2.0
"""The command line: one subcommand per pipeline step, and `all`."""

import argparse
import json
import os
import sys
from pathlib import Path
from typing import List, Optional, Tuple, Union

from . import arches, b4, boot, check, convert, kbuild, review, scan, tree
from .codegen import corpus, sites, survey
from .common import DEFAULT_TREE, Error, generated_patches, jobs, require


def _scan_files(args) -> Tuple[Path, Optional[List[str]]]:
	"""The root to scan and the files below it (None: all of them)."""
	if args.paths and (args.tree or args.since):
		raise Error('give paths, or --tree/--since, not both')
	if args.paths:
		bases = [p.resolve() for p in args.paths]
		root = Path(os.path.commonpath([b if b.is_dir() else b.parent
						 for b in bases]))
		return root, scan.candidate_files(root, bases)
	root = tree.kernel_tree(args.tree or DEFAULT_TREE)
	if not args.since:
		return root, None
	return root, tree.changed_files(root, args.since)


def cmd_scan(args) -> int:
	root, files = _scan_files(args)
	result = scan.scan(root, files, jobs=args.jobs)
	if args.json:
		json.dump(result.json(), sys.stdout, indent=1)
		print()
		return 0
	for s in result.sites:
		print(s.text())
	if result.parse_errors:
		print(f'{len(result.parse_errors)} files have parts spatch could not '
		      'parse, where no site was looked for (they are listed by '
		      '--json)', file=sys.stderr)
	for f, why in sorted(result.failures.items()):
		print(f'{f}: spatch failed: {why}', file=sys.stderr)
	return 0


def cmd_convert(args) -> int:
	if args.b4:
		require('b4', 'b4')
		b4.check_branch(args.tree or DEFAULT_TREE)
	result = convert.convert(args.tree or DEFAULT_TREE, args.out,
				 args.identity, args.jobs, args.since)
	# convert() fills them in.
	assert result.series is not None and result.dismissed is not None
	print(f'{len(result.converted)} sites converted in '
	      f'{len(result.series.patches)} patches, {len(result.review)} left '
	      f'for review, {len(result.dismissed)} dismissed; branch '
	      f'{result.branch} in {result.worktree}')
	if result.stale:
		print(f'{len(result.stale)} review decisions are stale and were '
		      'not applied: see volatile-if review --list')
	for p in result.patches:
		print(p)
	if args.b4:
		print(b4.after_convert(args.tree or DEFAULT_TREE, result, args.identity))
	return 0


def _series_dir(args) -> Path:
	"""--patches, or generated-patches/<the tree's version>/."""
	if args.patches:
		return args.patches
	return generated_patches(tree.kernel_tree(args.tree or DEFAULT_TREE))


def _patches(directory: Path) -> list:
	patches = tree.series(directory)
	if not patches:
		raise Error(f'no patches in {directory}: run volatile-if convert '
			    'first, or pass --patches DIR')
	return patches


def _report_check(result: check.CheckResult) -> None:
	for name, v in result.checkpatch.items():
		print(f'checkpatch: {name}: {v.errors} errors, {v.warnings} '
		      f'warnings, {v.checks} checks')
	for f, warnings in result.new_sparse.items():
		for w in warnings:
			print(f'sparse: {f}: new: {w}')
	print(result.table())


def cmd_check(args) -> int:
	result = check.check(args.tree or DEFAULT_TREE, _patches(_series_dir(args)),
			     args.arch or arches.CHECK_ARCHES)
	_report_check(result)
	return 0 if result.ok else 1


def _report_boot(runs) -> bool:
	ok = True
	for name, r in runs.items():
		bad = r.failures()
		ok = ok and not bad
		print(f'boot {name}: KUnit {r.kunit.count("PASS")} passed; '
		      f'workloads: ' + ', '.join(
			      f'{w.name} {w.iterations} in {w.ms} ms' if w.ok else
			      f'{w.name} FAIL' for w in r.workload.workloads.values()))
		for k, v in sorted(bad.items()):
			print(f'  {k}: {v}')
	return ok


def cmd_boot(args) -> int:
	runs = boot.boot(args.tree or DEFAULT_TREE, _patches(_series_dir(args)),
			 args.arch or arches.QEMU_ARCHES)
	return 0 if _report_boot(runs) else 1


def cmd_codegen(args) -> int:
	tso = [a for a in args.arch or () if a not in sites.WEAK]
	if args.sites and tso:
		raise Error(f'--sites checks the weakly ordered architectures '
			    f'({", ".join(sites.WEAK)}); {", ".join(tso)} is TSO, '
			    'where volatile_if() is a compiler barrier: leave it '
			    'out')
	arch_names = args.arch or (sites.WEAK if args.sites else
				   arches.CODEGEN_ARCHES)
	compilers = args.cc or corpus.COMPILERS
	kbuild.require_compilers(arch_names, compilers)
	patches = _patches(_series_dir(args)) if args.sites else tree.series(_series_dir(args))
	worktree = tree.series_tree(tree.kernel_tree(args.tree or DEFAULT_TREE),
				    patches)
	result: Union[sites.SiteReport, corpus.Matrix]
	if args.sites:
		result = sites.run(worktree, patches, arch_names=arch_names,
				   compilers=compilers,
				   variants=args.variant or ('if',))
	else:
		result = corpus.run(arch_names, compilers,
				    args.variant or corpus.CHECKED,
				    worktree=worktree)
	if args.json:
		json.dump(result.json(), sys.stdout, indent=1)
		print()
	else:
		print(result.text())
	return 0


def cmd_survey(args) -> int:
	kernel = tree.kernel_tree(args.tree or DEFAULT_TREE)
	options = dict(arch_names=args.arch or sites.WEAK,
		       compilers=args.cc or survey.COMPILERS,
		       opts=args.opt or tuple(survey.OPTS))
	survey.require_tools(**options)
	# The series tree first: a patch that does not apply stops the run
	# before the scan's minutes.
	worktree = tree.series_tree(kernel, _patches(_series_dir(args)))
	found = scan.scan(kernel, jobs=args.jobs).sites
	result = survey.run(worktree, found,
			    tree.git(kernel, 'rev-parse', 'HEAD').strip(), **options)
	data = survey.brief(result.json())
	if args.json:
		json.dump(data, sys.stdout, indent=1)
		print()
	else:
		print('\n'.join(survey.tree_page(data)))
	return 0


def cmd_all(args) -> int:
	kernel = tree.kernel_tree(args.tree or DEFAULT_TREE)
	# check's and boot's programs too, before convert's minutes of work
	check.require_tools(kernel, arches.CHECK_ARCHES)
	boot.require_tools()
	converted = convert.convert(kernel, args.out, args.identity, args.jobs)
	patches = converted.series
	assert patches is not None	# convert() fills it in
	checked = check.check(kernel, patches)
	runs = boot.boot(kernel, patches)
	print('\n== volatile-if all ==')
	for idiom, n in converted.scan.json()['counts'].items():
		print(f'scan: {idiom}: {n}')
	print(f'convert: {len(converted.converted)} sites in {len(patches.patches)} '
	      f'patches, {len(converted.review)} left for review ({converted.patches[0].parent})')
	_report_check(checked)
	booted = _report_boot(runs)
	return 0 if checked.ok and booted else 1


def _patches_argument(p) -> None:
	p.add_argument('--patches', type=Path, default=None,
		       help='the series (default: generated-patches/'
		       '<version of the tree>/)')


def parser() -> argparse.ArgumentParser:
	p = argparse.ArgumentParser(
		prog='volatile-if',
		description='Find the control dependencies of a kernel tree and '
		'protect them with volatile_if(): scan, convert, check, boot, or '
		'all of it.')
	p.add_argument('-j', '--jobs', type=int, default=jobs(),
		       help='parallel jobs (default: the CPUs there are)')
	sub = p.add_subparsers(dest='command', required=True)

	s = sub.add_parser('scan', help='report the control-dependency sites')
	s.add_argument('--tree', help=f'kernel tree (default: {DEFAULT_TREE})')
	s.add_argument('--json', action='store_true', help='one JSON object')
	s.add_argument('--since', metavar='REV',
		       help='only files changed since this git revision')
	s.add_argument('paths', nargs='*', type=Path,
		       help='.c/.h files or directories instead of a tree')
	s.set_defaults(func=cmd_scan)

	c = sub.add_parser('convert', help='rewrite the sites, one commit per '
			   'subsystem, and write the patch series')
	c.add_argument('--tree', help=f'kernel tree (default: {DEFAULT_TREE})')
	c.add_argument('--out', type=Path, default=None,
		       help='where the series goes (default: '
		       'generated-patches/<version of the tree>/)')
	c.add_argument('--identity', default='', metavar='"NAME <MAIL>"',
		       help='From: and Signed-off-by: (default: git config '
		       'user.name and user.email of the tree)')
	c.add_argument('--since', metavar='REV', default='',
		       help='only sites in files changed since this revision')
	c.add_argument('--b4', action='store_true',
		       help='also leave the series as a branch that b4 prep '
		       'manages, checked out in the worktree')
	c.set_defaults(func=cmd_convert)

	r = sub.add_parser('review', help='decide the report-only sites one by '
			   'one: accept, dismiss with a reason, skip')
	review.add_arguments(r)
	r.set_defaults(func=review.cmd_review)

	g = sub.add_parser('codegen', help='is the branch in the machine code? '
			   'the corpus (tests/codegen) or, with --sites, the '
			   'converted sites')
	g.add_argument('--tree', help=f'kernel tree (default: {DEFAULT_TREE}); '
		       'built with base-patch and --patches on top')
	_patches_argument(g)
	g.add_argument('--arch', action='append', choices=arches.CODEGEN_ARCHES,
		       help='only this architecture (repeatable; the sites are '
		       'checked on the weakly ordered ones)')
	g.add_argument('--cc', action='append', metavar='CC',
		       help='gcc, clang or clang-N (repeatable; default: '
		       f'{", ".join(corpus.COMPILERS)})')
	g.add_argument('--variant', action='append', choices=list(corpus.VARIANTS),
		       help='volatile_cond() variants to compare (repeatable; '
		       'default: if and volatile_if)')
	g.add_argument('--sites', action='store_true',
		       help='the sites of the series and of the KUnit litmus tests, '
		       'in the kernel objects of arm64, arm, powerpc and riscv')
	g.add_argument('--json', action='store_true', help='one JSON object')
	g.set_defaults(func=cmd_codegen)

	v = sub.add_parser('survey', help='every site the rules report, plain '
			   'if () and volatile_if(), in the kernel objects of '
			   'each weak arch, compiler and -O level')
	v.add_argument('--tree', help=f'kernel tree (default: {DEFAULT_TREE}); '
		       'scanned, and built with base-patch and --patches on top')
	_patches_argument(v)
	v.add_argument('--arch', action='append', choices=sites.WEAK,
		       help='only this architecture (repeatable)')
	v.add_argument('--cc', action='append', metavar='CC',
		       help='gcc, clang or clang-N (repeatable; default: '
		       f'{", ".join(survey.COMPILERS)})')
	v.add_argument('--opt', action='append', choices=list(survey.OPTS),
		       help='optimisation level (repeatable; Os is '
		       'CONFIG_CC_OPTIMIZE_FOR_SIZE)')
	v.add_argument('--json', action='store_true', help='one JSON object')
	v.set_defaults(func=cmd_survey)

	for name, func, text in (
			('check', cmd_check, 'checkpatch, sparse and cross-builds of a series'),
			('boot', cmd_boot, 'boot the series under QEMU and run KUnit'),
			('all', cmd_all, 'scan, convert, check and boot')):
		a = sub.add_parser(name, help=text)
		a.add_argument('--tree', help=f'kernel tree (default: {DEFAULT_TREE})')
		a.set_defaults(func=func)
		if name == 'all':
			a.add_argument('--out', type=Path, default=None,
				       help='where the series goes')
			a.add_argument('--identity', default='', metavar='"NAME <MAIL>"',
				       help='From: and Signed-off-by: (default: '
				       'git config of the tree)')
			continue
		_patches_argument(a)
		a.add_argument('--arch', action='append', choices=list(
			arches.ARCHES if name == 'check' else arches.QEMU_ARCHES),
			help='only this architecture (repeatable)')
	return p


def main(argv=None) -> int:
	args = parser().parse_args(argv)
	try:
		return args.func(args)
	except Error as e:
		print(f'volatile-if: {e}', file=sys.stderr)
		if os.environ.get('VOLATILE_IF_DEBUG') and e.details:
			print(e.details, file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		print('volatile-if: interrupted; your tree and branch are as they '
		      'were', file=sys.stderr)
		return 130
