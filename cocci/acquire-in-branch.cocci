// SPDX-License-Identifier: GPL-2.0-only
/// Find smp_acquire__after_ctrl_dep() inside a branch of an if whose
/// condition carries a marked load: the barrier relies on the control
/// dependency on that if, which should be a volatile_if().  Under nested
/// ifs, the site is the innermost one whose condition carries the load.
/// A switch on a marked load is reported: volatile_if() cannot express it.
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

aib_files = {}

def aib_text(path):
    if path not in aib_files:
        try:
            with open(path, errors="replace") as f:
                aib_files[path] = f.read().split("\n")
        except OSError:
            aib_files[path] = []
    return aib_files[path]

def aib_src(pos):
    """Source text at a position, on one line."""
    lines = aib_text(pos.file)
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

def aib_quote(pos):
    """A condition as the messages quote it: its first line, "..." for the rest."""
    lines = aib_text(pos.file)
    try:
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            return " ".join(lines[l0][c0:c1].split())
        return " ".join(lines[l0][c0:].split()) + " ..."
    except (IndexError, ValueError):
        return "..."

def aib_key(pos):
    return (pos.file, int(pos.line), int(pos.column))

def aib_ext(pos):
    return ((int(pos.line), int(pos.column)), (int(pos.line_end), int(pos.column_end)))

# Marked loads: their value is the loaded value (or computed from it
# without a branch).  Helpers: they branch on their load themselves, so a
# branch on their result is not the branch the ordering rests on.
aib_MARKED = re.compile(
    r"\b(READ_ONCE|smp_load_acquire|rcu_dereference\w*|rcu_access_pointer|"
    r"srcu_dereference\w*|refcount_read|kref_read|test_bit|test_and_\w+_bit\w*|"
    r"(arch_)?(atomic|atomic64|atomic_long|local|local64)_(read\w*|fetch_\w+|"
    r"\w+_return\w*|\w+_and_test|xchg\w*|cmpxchg\w*|try_cmpxchg\w*)|"
    r"(try_)?cmpxchg\w*|xchg\w*)\s*\(")
aib_HELPER = re.compile(
    r"\b(\w+_not_zero|\w+_unless\w*|\w+_if_positive|\w+_not_one|"
    r"refcount_(?!read\b)\w+|kref_(?!read\b)\w+)\s*\(")
aib_WAIT = re.compile(r"\b(smp_cond_load_\w+|atomic\w*_cond_read_\w+)\s*\(")
aib_MODES = {"marked": ("convert", "high"), "short": ("report", "medium"),
             "helper": ("report", "medium"), "none": ("report", "low")}

# Assignments to locals: file -> [(function, name, line, column, class)].
aib_asgs = {}

def aib_load(text):
    """The class of an expression: helper, marked or None."""
    m = aib_HELPER.search(text)
    if m:
        return ("helper", m.group(1))
    m = aib_MARKED.search(text)
    if m:
        return ("marked", m.group(1))
    return None

def aib_add_asg(pos, name, value):
    aib_asgs.setdefault(pos.file, []).append(
        (pos.current_element, name, int(pos.line), int(pos.column), aib_load(value)))

def aib_first_operand(text):
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

def aib_classify(pos, text=None):
    """(class, what) of the condition at pos: marked (the load, or a local
    last assigned from one, decides the branch, in the first operand of a
    && or ||), short (the load is in a later operand only), helper (the
    condition tests a helper that branches on its load itself), none (no
    marked load)."""
    if text is None:
        text = aib_src(pos)
    found = aib_load(text)
    if found is None:
        here = (int(pos.line), int(pos.column))
        for word in set(re.findall(r"[A-Za-z_]\w*", text)):
            last = None
            for fn, name, l, c, cls in aib_asgs.get(pos.file, ()):
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
    first = aib_first_operand(text) if found[0] == "marked" else None
    if first is not None and aib_classify(pos, first)[0] != "marked":
        return ("short", found[1])
    return found

def aib_why(cls, what):
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

aib_bars = {}      # file -> barrier positions
aib_ifs = {}       # file -> [(if position, condition position, branch extents)]
aib_sws = {}       # file -> [(switch position, extent)]
aib_its = {}       # file -> {start: (iterator name, extent)}
aib_leaving = set()
aib_prevs = {}     # barrier -> [(statement position, statement text)]
aib_sites = {}     # barrier -> its site (see aib_site)

def aib_word(s):
    return re.match(r"\s*(\w*)", s).group(1)

aib_branches = {}  # if -> positions of its branches

def aib_add_if(p, e, branches):
    aib_branches[aib_key(p)] = branches
    aib_ifs.setdefault(p.file, []).append((p, e, [aib_ext(s) for s in branches]))

def aib_add_switch(m):
    aib_sws.setdefault(m.file, []).append((m, aib_ext(m)))

class aib_Cond:
    """A condition cut out of a switch statement, for aib_classify."""
    def __init__(self, m):
        text = aib_src(m)
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

def aib_cond_text(c):
    return c.text if isinstance(c, aib_Cond) else aib_src(c)

def aib_cond_quote(c):
    return c.text if isinstance(c, aib_Cond) else aib_quote(c)

def aib_classify_at(c):
    if isinstance(c, aib_Cond):
        return aib_classify(c, c.text)
    return aib_classify(c)

def aib_if_at(file, start):
    for p, e, br in aib_ifs.get(file, ()):
        if aib_ext(p)[0] == start:
            return p, e, br
    return None

def aib_prev_kind(s, text):
    """What the statement before a barrier makes of it."""
    word = aib_word(text)
    start = aib_ext(s)[0]
    if word == "if":
        found = aib_if_at(s.file, start)
        if found and "volatile_cond" in aib_src(found[1]):
            return "converted", None
        if found and aib_key(found[0]) in aib_leaving:
            return "exit", found
        return None, None
    if word in ("for", "while", "do"):
        return "loop", None
    it = aib_its.get(s.file, {}).get(start)
    if it:
        return ("converted" if it[0] == "volatile_if" else "loop"), None
    if aib_WAIT.search(text) and word not in ("switch", "case", "default"):
        return "wait", None
    return None, None

def aib_site(b):
    """The branch the barrier at b relies on, as (kind, position of the if
    or switch, condition position, class, what): the nearest one that
    carries a marked load (the statement before it, then the ifs and
    switches around it, innermost first), else the nearest one.  kind:
    exit, branch, switch; loop, wait (a helper such as
    smp_cond_load_relaxed() branches), converted (a volatile_if); None for
    none at all."""
    key = aib_key(b)
    if key in aib_sites:
        return aib_sites[key]
    kinds = [aib_prev_kind(s, t) for s, t in aib_prevs.get(key, ())]
    cands = []
    for k in ("wait", "converted", "loop"):
        if any(kind == k for kind, _ in kinds):
            aib_sites[key] = (k, None, None, None, None)
            return aib_sites[key]
    for kind, found in kinds:
        if kind == "exit":
            cands.append(("exit", found[0], found[1]))
            break
    here = aib_ext(b)[0]
    around = []
    for p, e, br in aib_ifs.get(b.file, ()):
        if any(x[0] <= here <= x[1] for x in br):
            around.append((aib_ext(p)[0], "branch", p, e))
    for m, x in aib_sws.get(b.file, ()):
        if x[0] < here <= x[1]:
            around.append((x[0], "switch", m, aib_Cond(m)))
    for start, (name, x) in aib_its.get(b.file, {}).items():
        if name == "volatile_if" and x[0] < here <= x[1]:
            around.append((start, "converted", None, None))
    cands += [a[1:] for a in sorted(around, key=lambda a: a[0], reverse=True)]
    site = None
    for kind, p, e in cands:
        if kind == "converted" or "volatile_cond" in aib_cond_text(e):
            site = ("converted", None, None, None, None)
            break
        cls, what = aib_classify_at(e)
        if cls != "none":
            site = (kind, p, e, cls, what)
            break
    if site is None and cands:
        kind, p, e = cands[0]
        site = (kind, p, e, "none", "")
    aib_sites[key] = site
    return site

def aib_is_site(p, kind, convert=False):
    """Is the if or switch at p the site of a barrier, of this kind (and
    to convert)?"""
    for b in aib_bars.get(p.file, ()):
        site = aib_site(b)
        if site and site[0] == kind and aib_key(site[1]) == aib_key(p):
            if not convert or site[3] == "marked":
                return True
    return False

def aib_site_of(p):
    for b in aib_bars.get(p.file, ()):
        site = aib_site(b)
        if site and site[1] is not None and aib_key(site[1]) == aib_key(p):
            return site
    return None

def aib_msg(p):
    kind, _, e, cls, what = aib_site_of(p)
    action, conf = aib_MODES[cls]
    if kind == "switch":
        return ("[acquire-in-branch] report/medium: %s(): smp_acquire__after_ctrl_dep() "
                "in a case of switch (%s): the barrier relies on the control "
                "dependency on the switch, which volatile_if() cannot express: "
                "keep it, or rewrite it as ifs by hand" % (p.current_element,
                                                           aib_cond_quote(e)))
    text = ("[acquire-in-branch] %s/%s: %s(): smp_acquire__after_ctrl_dep() inside "
            "a branch of if (%s)" % (action, conf, p.current_element, aib_cond_quote(e)))
    if cls == "marked":
        return text + (": the barrier relies on the control dependency on this "
                       "condition")
    return text + ": " + aib_why(cls, what)


// Files that use the barrier (spatch selects files on this token).
@aib_tok@
@@

smp_acquire__after_ctrl_dep()

@aib_bar depends on aib_tok@
position b;
@@

smp_acquire__after_ctrl_dep@b();

@script:python@
b << aib_bar.b;
@@

aib_bars.setdefault(b[0].file, []).append(b[0])

// Assignments to locals, to follow a marked load through a local.
@aib_asg depends on aib_tok@
local idexpression v;
expression E;
position a;
@@

v@a = E

@script:python@
v << aib_asg.v;
E << aib_asg.E;
a << aib_asg.a;
@@

aib_add_asg(a[0], v, E)

@aib_decl depends on aib_tok@
type T;
identifier x;
expression E;
position a;
@@

T x@a = E;

@script:python@
x << aib_decl.x;
E << aib_decl.E;
a << aib_decl.a;
@@

aib_add_asg(a[0], x, E)

// Every if, switch and iterator, with the extents of their branches.
@aib_if2 depends on aib_tok disable neg_if, drop_else@
position p, e, s1, s2;
expression E;
statement S1, S2;
@@

if@p (E@e) S1@s1 else S2@s2

@script:python@
p << aib_if2.p;
e << aib_if2.e;
s1 << aib_if2.s1;
s2 << aib_if2.s2;
@@

aib_add_if(p[0], e[0], [s1[0], s2[0]])

@aib_if1 depends on aib_tok disable neg_if, drop_else@
position p, e, s1;
expression E;
statement S1;
@@

if@p (E@e) S1@s1

@script:python@
p << aib_if1.p;
e << aib_if1.e;
s1 << aib_if1.s1;
@@

aib_add_if(p[0], e[0], [s1[0]])

@aib_sw depends on aib_tok@
statement S : script:python () { aib_word(S) == "switch" };
position m;
@@

S@m

@script:python@
m << aib_sw.m;
@@

aib_add_switch(m[0])

@aib_it depends on aib_tok@
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
I << aib_it.I;
m << aib_it.m;
@@

aib_its.setdefault(m[0].file, {})[aib_ext(m[0])[0]] = (I, aib_ext(m[0]))

// The ifs whose branch leaves on every path.
@aib_leave depends on aib_tok disable neg_if, drop_else forall@
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
q << aib_leave.q;
@@

aib_leaving.add(aib_key(q[0]))

// The statement right before each barrier (exists: an #ifdef between
// them is a branch in spatch's control-flow graph).
@aib_prev depends on aib_tok exists@
statement S, S2;
position s, b;
@@

S@s
... when != S2
smp_acquire__after_ctrl_dep@b();

@script:python@
S << aib_prev.S;
s << aib_prev.s;
b << aib_prev.b;
@@

aib_prevs.setdefault(aib_key(b[0]), []).append((s[0], S))

// The ifs that are the site of a barrier: the first disjunct of each rule
// below skips converted ifs (if (volatile_cond(...)) once expanded).
@aib_site depends on aib_tok disable neg_if, drop_else@
position p : script:python () { aib_is_site(p[0], "branch") };
expression E;
statement S1, S2;
@@

(
if@p (E) S1 else S2
|
if@p (E) S1
)

@aib_switch depends on aib_tok@
statement S : script:python () { aib_word(S) == "switch" };
position p : script:python () { aib_is_site(p[0], "switch") };
@@

S@p

@aib_patch depends on patch && !context && !org && !report disable neg_if, drop_else@
position p : script:python () { aib_is_site(p[0], "branch", True) };
expression E;
statement S1, S2;
iterator name volatile_if;
@@

(
  if@p (
- E
+ volatile_cond(E)
  ) S1 else S2
|
- if@p
+ volatile_if
  (E) S1
)

@aib_ctx depends on context && !patch && !org && !report disable neg_if, drop_else@
position aib_site.p;
expression E;
statement S1, S2;
@@

(
* if@p (E)
  S1 else S2
|
* if@p (E)
  S1
)

@aib_ctx_switch depends on context && !patch && !org && !report@
position aib_switch.p;
statement S;
@@

* S@p

@script:python aib_org depends on org@
p << aib_site.p;
@@

coccilib.org.print_todo(p[0], aib_msg(p[0]))

@script:python aib_org_switch depends on org@
p << aib_switch.p;
@@

coccilib.org.print_todo(p[0], aib_msg(p[0]))

@script:python aib_report depends on report@
p << aib_site.p;
@@

coccilib.report.print_report(p[0], aib_msg(p[0]))

@script:python aib_report_switch depends on report@
p << aib_switch.p;
@@

coccilib.report.print_report(p[0], aib_msg(p[0]))
