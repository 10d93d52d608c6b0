# SPDX-License-Identifier: GPL-2.0
"""Compile a C file exactly as kbuild compiled an object of a prepared
build directory: the command kbuild recorded in the object's .cmd file,
with another source, output, include directory in front, defines or -g.
That is the kernel's headers, configuration and flags, without kbuild."""

import shlex
from pathlib import Path
from typing import List, Optional, Sequence

from .. import kbuild
from ..common import Error, ccache_env, run

# An object every build has (obj-y in lib/Makefile), without volatile_if, so
# that its flags are there even where a volatile_if site does not compile.
REFERENCE = 'lib/bcd.o'


def recorded(b: kbuild.KernelBuild, target: str = REFERENCE) -> List[str]:
	"""The compile command of @target in @b, building it if need be.
	The post-processing that follows it (objtool) is left out."""
	obj = Path(target)
	cmdfile = b.out / obj.parent / f'.{obj.name}.cmd'
	if not cmdfile.is_file():
		b.build(target)
	line = cmdfile.read_text().splitlines()[0]
	if ':=' not in line:
		raise Error(f'{cmdfile}: no command in its first line')
	lex = shlex.shlex(line.split(':=', 1)[1], posix=True,
			  punctuation_chars=';&|')
	lex.whitespace_split = True
	argv = []
	for token in lex:
		if token in (';', '&&', '||', '|'):
			break
		argv.append(token)
	if '-c' not in argv or '-o' not in argv or not argv[-1].endswith('.c'):
		raise Error(f'{cmdfile}: not a command compiling a .c file')
	return argv


def retarget(argv: Sequence[str], source: Path, output: Path, *,
	     include: Optional[Path] = None, defines: Sequence[str] = (),
	     flags: Sequence[str] = (), debug: bool = False) -> List[str]:
	"""@argv compiling @source into @output; @include searched before
	the kernel's headers; -D@defines; @flags added; -g for line
	information."""
	out = []
	skip = False
	for arg in argv[:-1]:       # the last one is the source
		if skip:
			out.append(str(output))
			skip = False
		elif arg == '-o':
			out.append(arg)
			skip = True
		elif arg.startswith('-Wp,-MMD'):
			continue        # kbuild's dependency file: not ours to write
		elif arg == '-c':
			out += [f'-D{d}' for d in defines] + list(flags)
			out += ['-g'] if debug else []
			out.append(arg)
		else:
			out.append(arg)
			if arg == '-nostdinc' and include:
				out.append(f'-I{include}')
	return out + [str(source)]


def compile_c(b: kbuild.KernelBuild, argv: Sequence[str], source: Path,
	      output: Path, **options) -> Path:
	"""Compile @source like @argv (from recorded()) into @output; the
	compiler's output goes to @output.log, and on failure into the Error's
	details, whole."""
	output.parent.mkdir(parents=True, exist_ok=True)
	log = output.with_name(output.name + '.log')
	try:
		run(retarget(argv, source, output, **options), cwd=b.out,
		    env=ccache_env(), what=f'[{b.label}] compiling {source.name}',
		    log=log)
	except Error as e:
		# all of it: clang's error line comes before its macro notes
		raise Error(str(e), log.read_text(errors='replace')) from None
	return output
