// SPDX-License-Identifier: GPL-2.0-only
/// Find loops followed by smp_acquire__after_ctrl_dep().  A loop left by
/// "if (E) break;" relies on the control dependency of that if, which
/// should be a volatile_if() when E carries the marked load.  A spin loop
/// that exits through its own condition, "while (E) cpu_relax();", is
/// reported: volatile_if() cannot wrap a loop condition.
///
// Confidence: High for the ifs it converts; Medium or Low for the sites it
//   only reports, as each message says.
// Copyright: (C) 2026 The volatile-if authors.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Comments: see cocci/README.md.
// Keywords: smp_acquire__after_ctrl_dep
// Options: --no-includes --include-headers

#spatch --macro-file scripts/coccinelle/locks/volatile_if.h

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

import re

ale_files = {}

def ale_text(path):
    if path not in ale_files:
        try:
            with open(path, errors="replace") as f:
                ale_files[path] = f.read().split("\n")
        except OSError:
            ale_files[path] = []
    return ale_files[path]

def ale_src(pos):
    """Source text at a position, on one line."""
    lines = ale_text(pos.file)
    try:
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (IndexError, ValueError):
        return "..."

def ale_quote(pos):
    """A condition as the messages quote it: its first line, "..." for the rest."""
    lines = ale_text(pos.file)
    try:
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            return " ".join(lines[l0][c0:c1].split())
        return " ".join(lines[l0][c0:].split()) + " ..."
    except (IndexError, ValueError):
        return "..."

def ale_key(pos):
    return (pos.file, int(pos.line), int(pos.column))

def ale_ext(pos):
    return ((int(pos.line), int(pos.column)), (int(pos.line_end), int(pos.column_end)))

# Marked loads: their value is the loaded value (or computed from it
# without a branch).  Helpers: they branch on their load themselves, so a
# branch on their result is not the branch the ordering rests on.
ale_MARKED = re.compile(
    r"\b(READ_ONCE|smp_load_acquire|rcu_dereference\w*|rcu_access_pointer|"
    r"srcu_dereference\w*|refcount_read|kref_read|test_bit|test_and_\w+_bit\w*|"
    r"(arch_)?(atomic|atomic64|atomic_long|local|local64)_(read\w*|fetch_\w+|"
    r"\w+_return\w*|\w+_and_test|xchg\w*|cmpxchg\w*|try_cmpxchg\w*)|"
    r"(try_)?cmpxchg\w*|xchg\w*)\s*\(")
ale_HELPER = re.compile(
    r"\b(\w+_not_zero|\w+_unless\w*|\w+_if_positive|\w+_not_one|"
    r"refcount_(?!read\b)\w+|kref_(?!read\b)\w+)\s*\(")
ale_WAIT = re.compile(r"\b(smp_cond_load_\w+|atomic\w*_cond_read_\w+)\s*\(")
ale_MODES = {"marked": ("convert", "high"), "short": ("report", "medium"),
             "helper": ("report", "medium"), "none": ("report", "low")}

# Assignments to locals: file -> [(function, name, line, column, class)].
ale_asgs = {}

def ale_load(text):
    """The class of an expression: helper, marked or None."""
    m = ale_HELPER.search(text)
    if m:
        return ("helper", m.group(1))
    m = ale_MARKED.search(text)
    if m:
        return ("marked", m.group(1))
    return None

def ale_add_asg(pos, name, value):
    ale_asgs.setdefault(pos.file, []).append(
        (pos.current_element, name, int(pos.line), int(pos.column), ale_load(value)))

def ale_first_operand(text):
    """The first operand of a && or || outside any brackets (likely() and
    ! aside), or None."""
    t = text.strip()
    while True:
        m = re.match(r"^(!\s*|(un)?likely\s*\(|\()", t)
        if not m:
            break
        if m.group(1).startswith("!"):
            t = t[m.end():].strip()
            continue
        depth, close = 0, -1
        for i, ch in enumerate(t):
            depth += ch == "("
            depth -= ch == ")"
            if ch == ")" and depth == 0:
                close = i
                break
        if close != len(t) - 1:
            break
        t = t[m.end():close].strip()
    depth = 0
    for i, ch in enumerate(t):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and t[i:i + 2] in ("&&", "||"):
            return t[:i]
    return None

def ale_classify(pos, text=None):
    """(class, what) of the condition at pos: marked (the load, or a local
    last assigned from one, decides the branch, in the first operand of a
    && or ||), short (the load is in a later operand only), helper (the
    condition tests a helper that branches on its load itself), none (no
    marked load)."""
    if text is None:
        text = ale_src(pos)
    found = ale_load(text)
    if found is None:
        here = (int(pos.line), int(pos.column))
        for word in set(re.findall(r"[A-Za-z_]\w*", text)):
            last = None
            for fn, name, l, c, cls in ale_asgs.get(pos.file, ()):
                if fn == pos.current_element and name == word and (l, c) < here:
                    if last is None or (l, c) > last[0]:
                        last = ((l, c), cls)
            if last and last[1]:
                found = (last[1][0], word)
                if found[0] == "helper":
                    found = ("helper", last[1][1])
                break
    if found is None:
        return ("none", "")
    first = ale_first_operand(text) if found[0] == "marked" else None
    if first is not None and ale_classify(pos, first)[0] != "marked":
        return ("short", found[1])
    return found

def ale_why(cls, what):
    """What a report-only site's message adds."""
    if cls == "short":
        return ("the load is in a later operand of a && or || only: "
                "where an earlier operand decides, the load is not made "
                "and nothing orders the leg; convert by hand if those "
                "paths need no order")
    if cls == "helper":
        return ("the condition tests %s(), which branches on its load itself: "
                "the ordering rests on that branch, inside the helper, not on "
                "this one" % what)
    return ("the condition carries no marked load (READ_ONCE(), "
            "atomic_read(), ...), directly or through a local: the branch "
            "the barrier relies on may be in a function it calls")

ale_nests = {}
ale_loops = {}

def ale_stmt_is(s, words):
    return s.lstrip().split("(")[0].split("{")[0].strip() in words

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

ale_conv = set()

class ale_Spot:
    """Where a loop's condition is tested: its text, and the end of the
    loop (a local assigned in the loop counts)."""
    def __init__(self, l, text):
        self.text = text
        self.file, self.line, self.column = l.file, l.line_end, l.column_end
        self.current_element = l.current_element

def ale_convert(p, e):
    cls, what = ale_classify(e)
    action, conf = ale_MODES[cls]
    text = ("[acquire-loop-exit] %s/%s: %s(): if (%s) break; leaves the loop "
            "followed by smp_acquire__after_ctrl_dep()" % (
                action, conf, p.current_element, ale_quote(e)))
    if cls == "marked":
        return text + (": the barrier relies on the control dependency of "
                       "this exit")
    return text + ": " + ale_why(cls, what)

def ale_spin(l, cond):
    cls, what = ale_classify(ale_Spot(l, cond), cond)
    text = ("[acquire-loop-exit] report/%s: %s(): %s loop exits through its "
            "condition (%s), then smp_acquire__after_ctrl_dep()" % (
                ale_MODES[cls][1] if cls != "marked" else "medium",
                l.current_element, re.match(r"\w*", ale_src(l)).group(0),
                cond if len(cond) <= 60 else cond[:57] + "..."))
    if cls in ("marked", "short"):
        return text + (": volatile_if() cannot wrap a loop condition, "
                       "restructure to for (;;) { volatile_if (!(...)) break; "
                       "... } by hand")
    return text + ": " + ale_why(cls, what)

// Files that use the barrier (spatch selects files on this token).
@ale_tok@
@@

smp_acquire__after_ctrl_dep()

// Assignments to locals, to follow a marked load through a local.
@ale_asg depends on ale_tok@
local idexpression v;
expression E;
position a;
@@

v@a = E

@script:python@
v << ale_asg.v;
E << ale_asg.E;
a << ale_asg.a;
@@

ale_add_asg(a[0], v, E)

@ale_decl depends on ale_tok@
type T;
identifier x;
expression E;
position a;
@@

T x@a = E;

@script:python@
x << ale_decl.x;
E << ale_decl.E;
a << ale_decl.a;
@@

ale_add_asg(a[0], x, E)

// Loops followed by the barrier.
@ale_loop depends on ale_tok@
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

@ale_doloop depends on ale_tok@
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
@ale_site depends on ale_tok@
position ale_brk.p;
position q : script:python () { ale_leaves_any(q[0]) };
position f;
expression E;
statement S;
@@

if@p@q (E@f) S

@script:python@
q << ale_site.q;
f << ale_site.f;
@@

if ale_classify(f[0])[0] == "marked":
    ale_conv.add(ale_key(q[0]))

@ale_patch depends on patch && !context && !org && !report@
position q : script:python () { ale_key(q[0]) in ale_conv };
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
