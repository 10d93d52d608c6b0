# SPDX-License-Identifier: GPL-2.0
"""The command line: one subcommand per pipeline step, and `all`."""

import argparse
import json
import os
import sys
from pathlib import Path

from . import convert, scan, tree
from .common import DEFAULT_TREE, GENERATED_PATCHES, Error, jobs, run


def _scan_files(args) -> (Path, list):
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
	changed = run(['git', '-C', root, 'diff', '--name-only', args.since,
		       '--', '*.c', '*.h'],
		      what=f'git diff {args.since} (is it a revision of {root}?)')
	return root, sorted(f for f in changed.stdout.split() if (root / f).is_file())


def cmd_scan(args) -> int:
	root, files = _scan_files(args)
	result = scan.scan(root, files, jobs=args.jobs, quiet=args.json)
	if args.json:
		json.dump(result.json(), sys.stdout, indent=1)
		print()
		return 0
	for s in result.sites:
		print(s.text())
	for f, n in sorted(result.parse_errors.items()):
		print(f'{f}: spatch could not parse {n} part(s); sites there were '
		      'not looked for', file=sys.stderr)
	for f, why in sorted(result.failures.items()):
		print(f'{f}: spatch failed: {why}', file=sys.stderr)
	return 0


def cmd_convert(args) -> int:
	result = convert.convert(args.tree or DEFAULT_TREE, args.out,
				 args.identity, args.jobs)
	print(f'{len(result.converted)} sites converted in '
	      f'{len(result.patches) - 1} patches, {len(result.review)} left '
	      f'for review; branch {convert.BRANCH} in {result.worktree}')
	for p in result.patches:
		print(p)
	return 0


def parser() -> argparse.ArgumentParser:
	p = argparse.ArgumentParser(prog='volatile-if', description=__doc__)
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
	c.add_argument('--out', type=Path, default=GENERATED_PATCHES,
		       help='where the series goes (default: generated-patches/)')
	c.add_argument('--identity', default=os.environ.get(
		'VOLATILE_IF_IDENTITY', convert.DEFAULT_IDENTITY),
		help='"Name <email>" for authorship and Signed-off-by')
	c.set_defaults(func=cmd_convert)
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
