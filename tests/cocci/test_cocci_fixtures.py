# SPDX-License-Identifier: GPL-2.0-only
"""Run the semantic patches of cocci/ on the fixtures of this folder.

A fixture is <idiom>--<case>.c (or .h, for header code): the part before
"--" names the semantic patch it is for, cocci/<idiom>.cocci.  Beside it:

  <idiom>--<case>.report  the exact report-mode lines expected of all the
                          semantic patches joined (every rule, every class),
                          sorted; file names are relative to this folder,
                          because spatch runs here on a copy of the fixtures.
                          Another rule's lines are there too: a trap of one
                          idiom is often another's case.
  <idiom>--<case>.res     the expected file after patch mode (convert
                          classes); a fixture with nothing to convert has a
                          .res equal to itself

Each semantic patch runs once per mode over a copy of all fixtures (spatch
--dir), so the whole module takes a few seconds per mode.  Context and org
modes are smoke-checked: no error, and something marked for each fixture
that has report lines.  Finally all the semantic patches are joined into
one by the driver's own scan.semantic_patch(), and the result must report
exactly the lines of the files run one by one, and never two barrier idioms
in one function.  The headers are checked against the kernel's style and
their Confidence: against the levels the messages give.

Set COCCI_FIXTURES_REGEN=1 to rewrite the .report and .res files from the
current output (then review the diff).
"""

import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from volatile_if.scan import semantic_patch

pytestmark = pytest.mark.unit

HERE = pathlib.Path(__file__).resolve().parent
COCCI_DIR = HERE.parent.parent / "cocci"
MACRO_FILE = COCCI_DIR / "volatile_if.h"
CONVERT = {"acquire-in-branch", "acquire-early-exit", "acquire-loop-exit"}
BARRIER = CONVERT | {"orphan-acquire"}
REGEN = os.environ.get("COCCI_FIXTURES_REGEN") == "1"


def spatch_path():
	path = shutil.which("spatch")
	if path is None:
		pytest.fail("spatch not found: install Coccinelle (Debian package "
					"'coccinelle', e.g. apt-get install coccinelle)")
	return path


def idioms():
	return sorted(p.stem for p in COCCI_DIR.glob("*.cocci"))


def fixtures():
	return sorted(p for p in HERE.iterdir()
				  if p.suffix in (".c", ".h") and "--" in p.name)


def idiom_of(fixture):
	return fixture.name.split("--")[0]


def run_spatch(cocci, mode, workdir, extra=()):
	"""spatch on every fixture in workdir; returns (returncode, out, err)."""
	cmd = [spatch_path(), "--sp-file", str(cocci), "-D", mode,
		   "--very-quiet", "--macro-file", str(MACRO_FILE),
		   "--include-headers", "--no-includes", "--dir", "."]
	if mode in ("report", "org"):
		cmd.append("--no-show-diff")
	cmd.extend(extra)
	proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True,
						  timeout=300)
	return proc.returncode, proc.stdout, proc.stderr


def expected_reports(fixture, idiom=None):
	"""The lines of @fixture's .report, or those of @idiom only."""
	lines = [l for l in fixture.with_suffix(".report").read_text().splitlines()
			 if l]
	return [l for l in lines if idiom is None or "[%s]" % idiom in l]


def report_lines(out):
	"""Report lines by fixture name, with "./" dropped from file names."""
	by_file = {}
	for line in out.splitlines():
		if not line.strip():
			continue
		if line.startswith("./"):
			line = line[2:]
		by_file.setdefault(line.split(":", 1)[0], []).append(line)
	return {name: sorted(lines) for name, lines in by_file.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
	"""Every semantic patch, in every mode, over copies of the fixtures."""
	spatch_path()
	base = tmp_path_factory.mktemp("cocci")
	jobs = {}
	with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
		for idiom in idioms() + ["all"]:
			for mode in ("report", "patch", "context", "org"):
				if idiom == "all" and mode != "report":
					continue
				work = base / ("%s-%s" % (idiom, mode))
				work.mkdir()
				for fixture in fixtures():
					shutil.copy(fixture, work / fixture.name)
				if idiom == "all":
					cocci = base / "all.cocci"
					cocci.write_text(semantic_patch(
						sorted(COCCI_DIR.glob("*.cocci"))))
				else:
					cocci = COCCI_DIR / (idiom + ".cocci")
				extra = ("--out-place",) if mode == "patch" else ()
				jobs[idiom, mode] = (work, pool.submit(run_spatch, cocci, mode,
													   work, extra))
		results = {}
		for key, (work, future) in jobs.items():
			rc, out, err = future.result()
			results[key] = (work, rc, out, err)
	return results


def test_every_idiom_has_fixtures():
	names = {idiom_of(f) for f in fixtures()}
	assert set(idioms()) <= names, "idioms without fixtures: %s" % (
		sorted(set(idioms()) - names))
	assert names <= set(idioms()), "fixtures for unknown idioms: %s" % (
		sorted(names - set(idioms())))


@pytest.mark.parametrize("fixture", fixtures(), ids=lambda f: f.name)
def test_report(runs, fixture):
	work, rc, out, err = runs["all", "report"]
	assert rc == 0, err
	got = report_lines(out).get(fixture.name, [])
	expected_file = fixture.with_suffix(".report")
	if REGEN:
		expected_file.write_text("".join(l + "\n" for l in got))
	assert expected_file.exists(), "missing %s" % expected_file.name
	assert got == sorted(expected_reports(fixture))


@pytest.mark.parametrize("fixture",
						 [f for f in fixtures() if idiom_of(f) in CONVERT],
						 ids=lambda f: f.name)
def test_patch(runs, fixture):
	work, rc, out, err = runs[idiom_of(fixture), "patch"]
	assert rc == 0, err
	result = work / (fixture.name + ".cocci_res")
	got = result.read_text() if result.exists() else fixture.read_text()
	expected_file = fixture.with_suffix(".res")
	if REGEN:
		expected_file.write_text(got)
	assert expected_file.exists(), "missing %s" % expected_file.name
	assert got == expected_file.read_text()


@pytest.mark.parametrize("idiom", sorted(set(idioms()) - CONVERT))
def test_report_only_patch_mode_changes_nothing(runs, idiom):
	work, rc, out, err = runs[idiom, "patch"]
	assert rc == 0, err
	assert not list(work.glob("*.cocci_res")), out


@pytest.mark.parametrize("mode", ["context", "org"])
@pytest.mark.parametrize("idiom", idioms())
def test_context_and_org_smoke(runs, idiom, mode):
	work, rc, out, err = runs[idiom, mode]
	assert rc == 0, err
	assert "Traceback" not in err and "error" not in err.lower(), err
	for fixture in fixtures():
		if idiom_of(fixture) != idiom:
			continue
		marked = [l for l in out.splitlines()
				  if (l.startswith("+++ ") or "[[view:" in l)
				  and fixture.name in l]
		if not expected_reports(fixture, idiom):
			assert not marked, "%s mode marks %s, which has no report" % (
				mode, fixture.name)
			continue
		if mode == "org":
			assert "[[view:%s::" % fixture.name in out.replace("./", ""), \
				"org mode marks nothing in %s" % fixture.name
		else:
			marked = [l for l in out.splitlines()
					  if l.startswith("+++ ") and fixture.name in l]
			assert marked, "context mode marks nothing in %s" % fixture.name


def test_concatenation_reports_the_same(runs):
	singles = []
	for idiom in idioms():
		work, rc, out, err = runs[idiom, "report"]
		assert rc == 0, err
		singles.extend(l[2:] if l.startswith("./") else l
					   for l in out.splitlines() if l.strip())
	work, rc, out, err = runs["all", "report"]
	assert rc == 0, err
	together = [l[2:] if l.startswith("./") else l
				for l in out.splitlines() if l.strip()]
	assert sorted(together) == sorted(singles)


def test_one_report_per_barrier(runs):
	"""The joined rules never give one function reports of two barrier
	idioms (an orphan-acquire beside the early exit of a goto loop, an
	early exit beside the if around it): the fixtures have one barrier per
	function, so that would be two reports for one barrier."""
	work, rc, out, err = runs["all", "report"]
	assert rc == 0, err
	idioms_of = {}
	for name, lines in report_lines(out).items():
		for line in lines:
			m = re.search(r"\[([a-z-]+)\] \w+/\w+: (\w+)\(\)", line)
			if m and m.group(1) in BARRIER:
				idioms_of.setdefault((name, m.group(2)), set()).add(
					m.group(1))
	assert idioms_of
	assert {k: v for k, v in idioms_of.items() if len(v) > 1} == {}


def test_fixtures_have_one_barrier_per_function():
	"""What test_one_report_per_barrier relies on (a barrier after a
	volatile_if, already converted, gets no report at all)."""
	for fixture in fixtures():
		text = re.sub(r"/\*.*?\*/", "", fixture.read_text(), flags=re.S)
		for body in re.split(r"\n}\n", text):
			if "volatile_if" not in body:
				assert body.count("smp_acquire__after_ctrl_dep()") \
					<= 1, (fixture.name, body[:200])


def test_rule_names_are_unique():
	names = {}
	for path in sorted(COCCI_DIR.glob("*.cocci")):
		for line in path.read_text().splitlines():
			if not line.startswith("@") or line.startswith("@@"):
				continue
			head = line.strip("@").split()
			if not head:
				continue
			if head[0].startswith("script:") or head[0].startswith(
					"initialize:") or head[0].startswith("finalize:"):
				name = head[1] if len(head) > 1 and head[1] != "depends" \
					else None
			else:
				name = head[0]
			if name:
				assert name not in names, "rule %s in %s and %s" % (
					name, names[name], path.name)
				names[name] = path.name


def header(path):
	"""The header of a rule file: its lines up to the first blank one."""
	lines = path.read_text().splitlines()
	return lines[:lines.index("")] if "" in lines else lines


def header_field(path, name):
	"""A "// Name: ..." header field, continuation lines ("//   ...")
	joined."""
	out, inside = [], False
	for line in header(path):
		if line.startswith("// %s:" % name):
			out.append(line.split(":", 1)[1].strip())
			inside = True
		elif inside and line.startswith("//   "):
			out.append(line[2:].strip())
		else:
			inside = False
	return " ".join(out) if out else None


def test_headers_are_kernel_style():
	for path in sorted(COCCI_DIR.glob("*.cocci")):
		text = path.read_text()
		lines = header(path)
		assert lines[0] == "// SPDX-License-Identifier: GPL-2.0-only"
		assert lines[1].startswith("///")
		# The kernel's own headers are 10-16 lines; the notes are in
		# cocci/README.md.
		assert len(lines) <= 16, (path.name, len(lines))
		assert all(l.startswith("//") for l in lines), path.name
		for field in ("Confidence", "Copyright", "URL", "Options"):
			assert header_field(path, field), (path.name, field)
		assert "--include-headers" in header_field(path, "Options")
		for mode in ("patch", "context", "org", "report"):
			assert "virtual %s\n" % mode in text, (path.name, mode)


@pytest.mark.parametrize("idiom", idioms())
def test_confidence_header_agrees_with_the_messages(idiom):
	"""The levels the header names are the levels the messages give, over
	all fixtures of the idiom (which must show each of them)."""
	named = set(re.findall(r"\b(high|medium|moderate|low)\b",
			       header_field(COCCI_DIR / (idiom + ".cocci"),
					    "Confidence").lower()))
	given = set()
	for fixture in fixtures():
		given |= set(re.findall(r"\[%s\] (?:convert|report)/(\w+): " % idiom,
				        "\n".join(expected_reports(fixture))))
	assert named == given, (named, given)
