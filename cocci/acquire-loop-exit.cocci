// SPDX-License-Identifier: GPL-2.0-only
/// Find loops followed by smp_acquire__after_ctrl_dep().  A loop left by
/// "if (E) break;" relies on the control dependency of that if: it should
/// be a volatile_if() (convert).  A spin loop that exits through its own
/// condition, "while (E) cpu_relax();", relies on the loop's conditional
/// branch, which volatile_if() cannot wrap: it is reported, converting it
/// needs restructuring (for (;;) { volatile_if (!(E)) ...; break; }).
///
// Idiom: acquire-loop-exit.  for, while, do-while and iterator loops
// (list_for_each_entry()...) count.  An "if (E) break;" counts only if it
// leaves the loop that the barrier follows: one inside an inner loop or a
// switch leaves that instead.  Loops whose condition is a constant (for (;;),
// while (1), do ... while (0)) are not reported as spin loops.
//
// Coccinelle limitations met here: SmPL cannot match do ... while loops (any
// rule that mentions one fails with "not supported"), and a switch pattern
// cannot leave its case list open.  So do-while loops and switches are found
// as plain statements whose text starts with "do" or "switch" (a python
// constraint), and which break leaves which construct is decided in python
// from the positions (extents) of the loops and switches.
//
// Already converted sites are left alone; see acquire-in-branch.cocci for
// how volatile_if is parsed (#spatch --macro-file below, or pass
// --macro-file <this dir>/volatile_if.h when not at the top of a tree
// under the project's build/).
//
// Patch mode turns the "if" of "if (E) break;" into "volatile_if", keeping
// the condition text; spin loops are left as they are.
//
// Confidence: High
// Keywords: smp_acquire__after_ctrl_dep
// Options: --no-includes --include-headers

#spatch --macro-file scripts/coccinelle/locks/volatile_if.h

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

ale_lines = {}

def ale_src(pos):
    """Source text at a position, on one line (for the messages only)."""
    try:
        if pos.file not in ale_lines:
            with open(pos.file, errors="replace") as f:
                ale_lines[pos.file] = f.read().split("\n")
        lines = ale_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (OSError, IndexError, ValueError):
        return "..."

import re

ale_nests = {}
ale_loops = {}

def ale_stmt_is(s, words):
    return s.lstrip().split("(")[0].split("{")[0].strip() in words

def ale_ext(pos):
    return ((int(pos.line), int(pos.column)), (int(pos.line_end), int(pos.column_end)))

def ale_inside(inner, outer):
    return outer[0] <= inner[0] and inner[1] <= outer[1]

def ale_leaves(loop, brk):
    """Does the break at brk leave the loop at loop (not an inner one)?"""
    l, b = ale_ext(loop), ale_ext(brk)
    if not ale_inside(b, l):
        return False
    for m in ale_nests.get(loop.file, ()):
        if m != l and ale_inside(m, l) and ale_inside(b, m):
            return False
    return True

def ale_leaves_any(brk):
    """Does the break at brk leave one of the loops the barrier follows?"""
    return any(ale_leaves(l, brk) for l in ale_loops.get(brk.file, ()))

def ale_loop_cond(loop):
    """The condition of a loop, or None when it is constant."""
    text = ale_src(loop)
    word = re.match(r"\w*", text).group(0)
    if word == "do":
        text = text[text.rstrip().rfind("while"):]
        cond = text[text.find("(") + 1:text.rfind(")")]
    elif word == "while":
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if ch == ")" and depth == 0:
                break
        cond = text[text.find("(") + 1:i]
    elif word == "for":
        parts = text[text.find("(") + 1:].split(";")
        cond = parts[1] if len(parts) > 2 else ""
    else:
        return None
    cond = cond.strip()
    if cond in ("", "0", "1", "true", "false"):
        return None
    return cond

def ale_convert(p, e):
    return ("[acquire-loop-exit] convert/high: %s(): if (%s) break; leaves the "
            "loop followed by smp_acquire__after_ctrl_dep(): the barrier relies "
            "on the control dependency of this exit" % (p.current_element, ale_src(e)))

def ale_spin(l, cond):
    return ("[acquire-loop-exit] report/medium: %s(): %s loop exits through "
            "its condition (%s), then smp_acquire__after_ctrl_dep(): volatile_if() "
            "cannot wrap a loop condition, restructure to for (;;) { volatile_if "
            "(!(...)) break; ... } by hand" % (l.current_element,
                                               re.match(r"\w*", ale_src(l)).group(0),
                                               cond))

// Loops followed by the barrier.
@ale_loop@
position l, b;
statement S, S1;
expression E;
iterator I;
@@

(
S@l
&
(
for (...;...;...) S1
|
while (E) S1
|
I(...) S1
)
)
smp_acquire__after_ctrl_dep@b();

@ale_doloop@
position l, b;
statement S : script:python () { ale_stmt_is(S, ("do",)) };
@@

S@l
smp_acquire__after_ctrl_dep@b();

@script:python ale_loop_collect@
l << ale_loop.l;
@@

ale_loops.setdefault(l[0].file, []).append(l[0])

@script:python ale_doloop_collect@
l << ale_doloop.l;
@@

ale_loops.setdefault(l[0].file, []).append(l[0])

// Every if that leaves by break (on every path of its branch).
@ale_brk depends on ale_loop || ale_doloop disable neg_if, drop_else forall@
position p, e;
expression E;
statement S;
@@

(
if (volatile_cond(...)) S
|
if@p (E@e) break;
|
if@p (E@e) { ... break; }
)

// Everything a break can leave, to find the innermost one around each break.
@ale_nest depends on ale_brk@
position m;
statement S, S1;
expression E;
iterator I;
@@

(
S@m
&
(
for (...;...;...) S1
|
while (E) S1
|
I(...) S1
)
)

@ale_nest2 depends on ale_brk@
position m;
statement S : script:python () { ale_stmt_is(S, ("do", "switch")) };
@@

S@m

@script:python ale_nest_collect@
m << ale_nest.m;
@@

ale_nests.setdefault(m[0].file, set()).add(ale_ext(m[0]))

@script:python ale_nest_collect2@
m << ale_nest2.m;
@@

ale_nests.setdefault(m[0].file, set()).add(ale_ext(m[0]))

// Keep the breaks that leave a loop followed by the barrier: the extents
// of the loops, switches and breaks are compared in python.
@ale_site@
position ale_brk.p;
position q : script:python () { ale_leaves_any(q[0]) };
position f;
expression E;
statement S;
@@

if@p@q (E@f) S

@ale_patch depends on patch && !context && !org && !report@
position ale_site.q;
expression E;
statement S;
iterator name volatile_if;
@@

- if@q
+ volatile_if
  (E) S

@ale_ctx depends on context && !patch && !org && !report@
position ale_site.q;
expression E;
statement S;
@@

* if@q (E)
  S

@ale_ctx2 depends on context && !patch && !org && !report@
position b = {ale_loop.b, ale_doloop.b};
@@

* smp_acquire__after_ctrl_dep@b();

@script:python ale_org depends on org@
q << ale_site.q;
f << ale_site.f;
@@

coccilib.org.print_todo(q[0], ale_convert(q[0], f[0]))

@script:python ale_org_spin depends on org@
l << ale_loop.l;
@@

c = ale_loop_cond(l[0])
if c is not None:
    coccilib.org.print_todo(l[0], ale_spin(l[0], c))

@script:python ale_org_spin2 depends on org@
l << ale_doloop.l;
@@

c = ale_loop_cond(l[0])
if c is not None:
    coccilib.org.print_todo(l[0], ale_spin(l[0], c))

@script:python ale_report depends on report@
q << ale_site.q;
f << ale_site.f;
@@

coccilib.report.print_report(q[0], ale_convert(q[0], f[0]))

@script:python ale_report_spin depends on report@
l << ale_loop.l;
@@

c = ale_loop_cond(l[0])
if c is not None:
    coccilib.report.print_report(l[0], ale_spin(l[0], c))

@script:python ale_report_spin2 depends on report@
l << ale_doloop.l;
@@

c = ale_loop_cond(l[0])
if c is not None:
    coccilib.report.print_report(l[0], ale_spin(l[0], c))
