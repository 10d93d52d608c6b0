// SPDX-License-Identifier: GPL-2.0-only
/// Find smp_acquire__after_ctrl_dep() that no conditional branch orders:
/// reached on every path from the start of the function, not right after
/// an early exit, a loop, or a helper that branches on its load
/// (smp_cond_load_relaxed(), atomic_cond_read_acquire(), ...).  The barrier
/// then orders nothing unless every caller branches on the load before the
/// call; otherwise smp_rmb(), smp_load_acquire() or a missing early exit
/// was probably meant.
///
// Confidence: Medium
// Copyright: (C) 2026 The volatile-if authors.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Comments: report only (patch mode changes nothing); see cocci/README.md.
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

oa_files = {}

def oa_text(path):
    if path not in oa_files:
        try:
            with open(path, errors="replace") as f:
                oa_files[path] = f.read().split("\n")
        except OSError:
            oa_files[path] = []
    return oa_files[path]

def oa_src(pos):
    """Source text at a position, on one line."""
    lines = oa_text(pos.file)
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

def oa_quote(pos):
    """A condition as the messages quote it: its first line, "..." for the rest."""
    lines = oa_text(pos.file)
    try:
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            return " ".join(lines[l0][c0:c1].split())
        return " ".join(lines[l0][c0:].split()) + " ..."
    except (IndexError, ValueError):
        return "..."

def oa_key(pos):
    return (pos.file, int(pos.line), int(pos.column))

def oa_ext(pos):
    return ((int(pos.line), int(pos.column)), (int(pos.line_end), int(pos.column_end)))

# Marked loads: their value is the loaded value (or computed from it
# without a branch).  Helpers: they branch on their load themselves, so a
# branch on their result is not the branch the ordering rests on.
oa_MARKED = re.compile(
    r"\b(READ_ONCE|smp_load_acquire|rcu_dereference\w*|rcu_access_pointer|"
    r"srcu_dereference\w*|refcount_read|kref_read|test_bit|test_and_\w+_bit\w*|"
    r"(arch_)?(atomic|atomic64|atomic_long|local|local64)_(read\w*|fetch_\w+|"
    r"\w+_return\w*|\w+_and_test|xchg\w*|cmpxchg\w*|try_cmpxchg\w*)|"
    r"(try_)?cmpxchg\w*|xchg\w*)\s*\(")
oa_HELPER = re.compile(
    r"\b(\w+_not_zero|\w+_unless\w*|\w+_if_positive|\w+_not_one|"
    r"refcount_(?!read\b)\w+|kref_(?!read\b)\w+)\s*\(")
oa_WAIT = re.compile(r"\b(smp_cond_load_\w+|atomic\w*_cond_read_\w+)\s*\(")
oa_MODES = {"marked": ("convert", "high"), "short": ("report", "medium"),
             "helper": ("report", "medium"), "none": ("report", "low")}

# Assignments to locals: file -> [(function, name, line, column, class)].
oa_asgs = {}

def oa_load(text):
    """The class of an expression: helper, marked or None."""
    m = oa_HELPER.search(text)
    if m:
        return ("helper", m.group(1))
    m = oa_MARKED.search(text)
    if m:
        return ("marked", m.group(1))
    return None

def oa_add_asg(pos, name, value):
    oa_asgs.setdefault(pos.file, []).append(
        (pos.current_element, name, int(pos.line), int(pos.column), oa_load(value)))

def oa_first_operand(text):
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

def oa_classify(pos, text=None):
    """(class, what) of the condition at pos: marked (the load, or a local
    last assigned from one, decides the branch, in the first operand of a
    && or ||), short (the load is in a later operand only), helper (the
    condition tests a helper that branches on its load itself), none (no
    marked load)."""
    if text is None:
        text = oa_src(pos)
    found = oa_load(text)
    if found is None:
        here = (int(pos.line), int(pos.column))
        for word in set(re.findall(r"[A-Za-z_]\w*", text)):
            last = None
            for fn, name, l, c, cls in oa_asgs.get(pos.file, ()):
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
    first = oa_first_operand(text) if found[0] == "marked" else None
    if first is not None and oa_classify(pos, first)[0] != "marked":
        return ("short", found[1])
    return found

def oa_why(cls, what):
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

oa_bars = {}      # file -> barrier positions
oa_ifs = {}       # file -> [(if position, condition position, branch extents)]
oa_sws = {}       # file -> [(switch position, extent)]
oa_its = {}       # file -> {start: (iterator name, extent)}
oa_leaving = set()
oa_prevs = {}     # barrier -> [(statement position, statement text)]
oa_sites = {}     # barrier -> its site (see oa_site)

def oa_word(s):
    return re.match(r"\s*(\w*)", s).group(1)

oa_branches = {}  # if -> positions of its branches

def oa_add_if(p, e, branches):
    oa_branches[oa_key(p)] = branches
    oa_ifs.setdefault(p.file, []).append((p, e, [oa_ext(s) for s in branches]))

def oa_add_switch(m):
    oa_sws.setdefault(m.file, []).append((m, oa_ext(m)))

class oa_Cond:
    """A condition cut out of a switch statement, for oa_classify."""
    def __init__(self, m):
        text = oa_src(m)
        depth, end = 0, len(text)
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if ch == ")" and depth == 0:
                end = i
                break
        self.text = text[text.find("(") + 1:end].strip()
        self.file, self.line, self.column = m.file, m.line, m.column
        self.current_element = m.current_element

def oa_cond_text(c):
    return c.text if isinstance(c, oa_Cond) else oa_src(c)

def oa_cond_quote(c):
    return c.text if isinstance(c, oa_Cond) else oa_quote(c)

def oa_classify_at(c):
    if isinstance(c, oa_Cond):
        return oa_classify(c, c.text)
    return oa_classify(c)

def oa_if_at(file, start):
    for p, e, br in oa_ifs.get(file, ()):
        if oa_ext(p)[0] == start:
            return p, e, br
    return None

def oa_prev_kind(s, text):
    """What the statement before a barrier makes of it."""
    word = oa_word(text)
    start = oa_ext(s)[0]
    if word == "if":
        found = oa_if_at(s.file, start)
        if found and "volatile_cond" in oa_src(found[1]):
            return "converted", None
        if found and oa_key(found[0]) in oa_leaving:
            return "exit", found
        return None, None
    if word in ("for", "while", "do"):
        return "loop", None
    it = oa_its.get(s.file, {}).get(start)
    if it:
        return ("converted" if it[0] == "volatile_if" else "loop"), None
    if oa_WAIT.search(text) and word not in ("switch", "case", "default"):
        return "wait", None
    return None, None

def oa_site(b):
    """The branch the barrier at b relies on, as (kind, position of the if
    or switch, condition position, class, what): the nearest one that
    carries a marked load (the statement before it, then the ifs and
    switches around it, innermost first), else the nearest one.  kind:
    exit, branch, switch; loop, wait (a helper such as
    smp_cond_load_relaxed() branches), converted (a volatile_if); None for
    none at all."""
    key = oa_key(b)
    if key in oa_sites:
        return oa_sites[key]
    kinds = [oa_prev_kind(s, t) for s, t in oa_prevs.get(key, ())]
    cands = []
    for k in ("wait", "converted", "loop"):
        if any(kind == k for kind, _ in kinds):
            oa_sites[key] = (k, None, None, None, None)
            return oa_sites[key]
    for kind, found in kinds:
        if kind == "exit":
            cands.append(("exit", found[0], found[1]))
            break
    here = oa_ext(b)[0]
    around = []
    for p, e, br in oa_ifs.get(b.file, ()):
        if any(x[0] <= here <= x[1] for x in br):
            around.append((oa_ext(p)[0], "branch", p, e))
    for m, x in oa_sws.get(b.file, ()):
        if x[0] < here <= x[1]:
            around.append((x[0], "switch", m, oa_Cond(m)))
    for start, (name, x) in oa_its.get(b.file, {}).items():
        if name == "volatile_if" and x[0] < here <= x[1]:
            around.append((start, "converted", None, None))
    cands += [a[1:] for a in sorted(around, key=lambda a: a[0], reverse=True)]
    site = None
    for kind, p, e in cands:
        if kind == "converted" or "volatile_cond" in oa_cond_text(e):
            site = ("converted", None, None, None, None)
            break
        cls, what = oa_classify_at(e)
        if cls != "none":
            site = (kind, p, e, cls, what)
            break
    if site is None and cands:
        kind, p, e = cands[0]
        site = (kind, p, e, "none", "")
    oa_sites[key] = site
    return site

def oa_is_site(p, kind, convert=False):
    """Is the if or switch at p the site of a barrier, of this kind (and
    to convert)?"""
    for b in oa_bars.get(p.file, ()):
        site = oa_site(b)
        if site and site[0] == kind and oa_key(site[1]) == oa_key(p):
            if not convert or site[3] == "marked":
                return True
    return False

def oa_site_of(p):
    for b in oa_bars.get(p.file, ()):
        site = oa_site(b)
        if site and site[1] is not None and oa_key(site[1]) == oa_key(p):
            return site
    return None
def oa_is_do(s):
    return s.lstrip()[:2] == "do" and not (s.lstrip()[2:3].isalnum() or s.lstrip()[2:3] == "_")

def oa_plain(b):
    return ("[orphan-acquire] report/medium: %s(): smp_acquire__after_ctrl_dep() "
            "is reached on every path from the start of the function: no "
            "conditional branch here orders it, so every caller must branch "
            "on the load before the call, or it is a bug" % b.current_element)

oa_msgs = {}

def oa_key(p):
    return (p.file, p.line, p.column)

def oa_after_if(b, e):
    return ("[orphan-acquire] report/medium: %s(): smp_acquire__after_ctrl_dep() "
            "follows if (%s), whose body does not leave: no conditional branch "
            "orders the barrier, probably a bug" % (b.current_element,
                oa_src(e) if e.file == b.file else "volatile_cond(...)"))

// Files that use the barrier (spatch selects files on this token).
@oa_tok@
@@

smp_acquire__after_ctrl_dep()

@oa_bar depends on oa_tok@
position b;
@@

smp_acquire__after_ctrl_dep@b();

@script:python@
b << oa_bar.b;
@@

oa_bars.setdefault(b[0].file, []).append(b[0])

// Assignments to locals, to follow a marked load through a local.
@oa_asg depends on oa_tok@
local idexpression v;
expression E;
position a;
@@

v@a = E

@script:python@
v << oa_asg.v;
E << oa_asg.E;
a << oa_asg.a;
@@

oa_add_asg(a[0], v, E)

@oa_decl depends on oa_tok@
type T;
identifier x;
expression E;
position a;
@@

T x@a = E;

@script:python@
x << oa_decl.x;
E << oa_decl.E;
a << oa_decl.a;
@@

oa_add_asg(a[0], x, E)

// Every if, switch and iterator, with the extents of their branches.
@oa_if2 depends on oa_tok disable neg_if, drop_else@
position p, e, s1, s2;
expression E;
statement S1, S2;
@@

if@p (E@e) S1@s1 else S2@s2

@script:python@
p << oa_if2.p;
e << oa_if2.e;
s1 << oa_if2.s1;
s2 << oa_if2.s2;
@@

oa_add_if(p[0], e[0], [s1[0], s2[0]])

@oa_if1 depends on oa_tok disable neg_if, drop_else@
position p, e, s1;
expression E;
statement S1;
@@

if@p (E@e) S1@s1

@script:python@
p << oa_if1.p;
e << oa_if1.e;
s1 << oa_if1.s1;
@@

oa_add_if(p[0], e[0], [s1[0]])

@oa_sw depends on oa_tok@
statement S : script:python () { oa_word(S) == "switch" };
position m;
@@

S@m

@script:python@
m << oa_sw.m;
@@

oa_add_switch(m[0])

@oa_it depends on oa_tok@
iterator I;
statement S, S1;
position m;
@@

(
S@m
&
I(...) S1
)

@script:python@
I << oa_it.I;
m << oa_it.m;
@@

oa_its.setdefault(m[0].file, {})[oa_ext(m[0])[0]] = (I, oa_ext(m[0]))

// The ifs whose branch leaves on every path.
@oa_leave depends on oa_tok disable neg_if, drop_else forall@
position q;
expression E;
identifier l;
@@

(
if@q (E) return ...;
|
if@q (E) goto l;
|
if@q (E) break;
|
if@q (E) continue;
|
if@q (E) { ... return ...; }
|
if@q (E) { ... goto l; }
|
if@q (E) { ... break; }
|
if@q (E) { ... continue; }
)

@script:python@
q << oa_leave.q;
@@

oa_leaving.add(oa_key(q[0]))

// The statement right before each barrier (exists: an #ifdef between
// them is a branch in spatch's control-flow graph).
@oa_prev depends on oa_tok exists@
statement S, S2;
position s, b;
@@

S@s
... when != S2
smp_acquire__after_ctrl_dep@b();

@script:python@
S << oa_prev.S;
s << oa_prev.s;
b << oa_prev.b;
@@

oa_prevs.setdefault(oa_key(b[0]), []).append((s[0], S))

@oa_all depends on oa_tok forall@
identifier f;
position b;
@@

f(...) {
... when any
    when strict
smp_acquire__after_ctrl_dep@b();
... when any
}

// Barriers right after a loop: acquire-loop-exit.
@oa_loop depends on oa_tok@
position oa_all.b, lb;
statement S1;
expression E;
iterator I;
@@

(
for (...;...;...) S1
|
while (E) S1
|
I(...) S1
)
smp_acquire__after_ctrl_dep@b@lb();

@oa_doloop depends on oa_tok@
position oa_all.b, lb;
statement S : script:python () { oa_is_do(S) };
@@

S
smp_acquire__after_ctrl_dep@b@lb();

@oa_site0 depends on oa_tok@
position oa_all.b;
position c0 != {oa_loop.lb, oa_doloop.lb};
@@

smp_acquire__after_ctrl_dep@b@c0();

// Not after an early exit (a goto back to a retry label too), a loop, a
// helper that branches (smp_cond_load_relaxed(), ...) or a volatile_if.
@oa_site depends on oa_tok@
position oa_site0.c0;
position c : script:python () { oa_site(c[0]) is None };
@@

smp_acquire__after_ctrl_dep@c0@c();

// The statement before the barrier is an if that does not leave.
@oa_if depends on oa_tok disable neg_if, drop_else@
position oa_site.c;
position e, ic;
expression E;
statement S1, S2;
@@

(
if (E@e) S1 else S2
|
if (E@e) S1
)
smp_acquire__after_ctrl_dep@c@ic();

@oa_plain_site depends on oa_tok@
position oa_site.c;
position d != oa_if.ic;
@@

smp_acquire__after_ctrl_dep@c@d();

@oa_ctx depends on context && !org && !report@
position oa_site.c;
@@

* smp_acquire__after_ctrl_dep@c();

// The messages, in every mode (patch mode needs a rule that can run).
@script:python oa_collect_if@
c << oa_if.ic;
e << oa_if.e;
@@

oa_msgs[oa_key(c[0])] = oa_after_if(c[0], e[0])

@script:python oa_collect_plain@
d << oa_plain_site.d;
@@

oa_msgs[oa_key(d[0])] = oa_plain(d[0])

@script:python oa_org depends on org@
c << oa_if.ic;
@@

coccilib.org.print_todo(c[0], oa_msgs[oa_key(c[0])])

@script:python oa_org2 depends on org@
d << oa_plain_site.d;
@@

coccilib.org.print_todo(d[0], oa_msgs[oa_key(d[0])])

@script:python oa_report depends on report@
c << oa_if.ic;
@@

coccilib.report.print_report(c[0], oa_msgs[oa_key(c[0])])

@script:python oa_report2 depends on report@
d << oa_plain_site.d;
@@

coccilib.report.print_report(d[0], oa_msgs[oa_key(d[0])])
