// SPDX-License-Identifier: GPL-2.0-only
/// Find an if whose branch leaves (return, goto, break, continue; a goto
/// back to a retry label too) and which is followed by
/// smp_acquire__after_ctrl_dep(): the barrier relies on the control
/// dependency of this early exit, so the if should be a volatile_if() when
/// its condition carries the marked load.
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

aee_files = {}

def aee_text(path):
    if path not in aee_files:
        try:
            with open(path, errors="replace") as f:
                aee_files[path] = f.read().split("\n")
        except OSError:
            aee_files[path] = []
    return aee_files[path]

def aee_src(pos):
    """Source text at a position, on one line."""
    lines = aee_text(pos.file)
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

def aee_quote(pos):
    """A condition as the messages quote it: its first line, "..." for the rest."""
    lines = aee_text(pos.file)
    try:
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            return " ".join(lines[l0][c0:c1].split())
        return " ".join(lines[l0][c0:].split()) + " ..."
    except (IndexError, ValueError):
        return "..."

def aee_key(pos):
    return (pos.file, int(pos.line), int(pos.column))

def aee_ext(pos):
    return ((int(pos.line), int(pos.column)), (int(pos.line_end), int(pos.column_end)))

# Marked loads: their value is the loaded value (or computed from it
# without a branch).  Helpers: they branch on their load themselves, so a
# branch on their result is not the branch the ordering rests on.
aee_MARKED = re.compile(
    r"\b(READ_ONCE|smp_load_acquire|rcu_dereference\w*|rcu_access_pointer|"
    r"srcu_dereference\w*|refcount_read|kref_read|test_bit|test_and_\w+_bit\w*|"
    r"(arch_)?(atomic|atomic64|atomic_long|local|local64)_(read\w*|fetch_\w+|"
    r"\w+_return\w*|\w+_and_test|xchg\w*|cmpxchg\w*|try_cmpxchg\w*)|"
    r"(try_)?cmpxchg\w*|xchg\w*)\s*\(")
aee_HELPER = re.compile(
    r"\b(\w+_not_zero|\w+_unless\w*|\w+_if_positive|\w+_not_one|"
    r"refcount_(?!read\b)\w+|kref_(?!read\b)\w+)\s*\(")
aee_WAIT = re.compile(r"\b(smp_cond_load_\w+|atomic\w*_cond_read_\w+)\s*\(")
aee_MODES = {"marked": ("convert", "high"), "short": ("report", "medium"),
             "helper": ("report", "medium"), "none": ("report", "low")}

# Assignments to locals: file -> [(function, name, line, column, class)].
aee_asgs = {}

def aee_load(text):
    """The class of an expression: helper, marked or None."""
    m = aee_HELPER.search(text)
    if m:
        return ("helper", m.group(1))
    m = aee_MARKED.search(text)
    if m:
        return ("marked", m.group(1))
    return None

def aee_add_asg(pos, name, value):
    aee_asgs.setdefault(pos.file, []).append(
        (pos.current_element, name, int(pos.line), int(pos.column), aee_load(value)))

def aee_first_operand(text):
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

def aee_classify(pos, text=None):
    """(class, what) of the condition at pos: marked (the load, or a local
    last assigned from one, decides the branch, in the first operand of a
    && or ||), short (the load is in a later operand only), helper (the
    condition tests a helper that branches on its load itself), none (no
    marked load)."""
    if text is None:
        text = aee_src(pos)
    found = aee_load(text)
    if found is None:
        here = (int(pos.line), int(pos.column))
        for word in set(re.findall(r"[A-Za-z_]\w*", text)):
            last = None
            for fn, name, l, c, cls in aee_asgs.get(pos.file, ()):
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
    first = aee_first_operand(text) if found[0] == "marked" else None
    if first is not None and aee_classify(pos, first)[0] != "marked":
        return ("short", found[1])
    return found

def aee_why(cls, what):
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

aee_bars = {}      # file -> barrier positions
aee_ifs = {}       # file -> [(if position, condition position, branch extents)]
aee_sws = {}       # file -> [(switch position, extent)]
aee_its = {}       # file -> {start: (iterator name, extent)}
aee_leaving = set()
aee_prevs = {}     # barrier -> [(statement position, statement text)]
aee_sites = {}     # barrier -> its site (see aee_site)

def aee_word(s):
    return re.match(r"\s*(\w*)", s).group(1)

aee_branches = {}  # if -> positions of its branches

def aee_add_if(p, e, branches):
    aee_branches[aee_key(p)] = branches
    aee_ifs.setdefault(p.file, []).append((p, e, [aee_ext(s) for s in branches]))

def aee_add_switch(m):
    aee_sws.setdefault(m.file, []).append((m, aee_ext(m)))

class aee_Cond:
    """A condition cut out of a switch statement, for aee_classify."""
    def __init__(self, m):
        text = aee_src(m)
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

def aee_cond_text(c):
    return c.text if isinstance(c, aee_Cond) else aee_src(c)

def aee_cond_quote(c):
    return c.text if isinstance(c, aee_Cond) else aee_quote(c)

def aee_classify_at(c):
    if isinstance(c, aee_Cond):
        return aee_classify(c, c.text)
    return aee_classify(c)

def aee_if_at(file, start):
    for p, e, br in aee_ifs.get(file, ()):
        if aee_ext(p)[0] == start:
            return p, e, br
    return None

def aee_prev_kind(s, text):
    """What the statement before a barrier makes of it."""
    word = aee_word(text)
    start = aee_ext(s)[0]
    if word == "if":
        found = aee_if_at(s.file, start)
        if found and "volatile_cond" in aee_src(found[1]):
            return "converted", None
        if found and aee_key(found[0]) in aee_leaving:
            return "exit", found
        return None, None
    if word in ("for", "while", "do"):
        return "loop", None
    it = aee_its.get(s.file, {}).get(start)
    if it:
        return ("converted" if it[0] == "volatile_if" else "loop"), None
    if aee_WAIT.search(text) and word not in ("switch", "case", "default"):
        return "wait", None
    return None, None

def aee_site(b):
    """The branch the barrier at b relies on, as (kind, position of the if
    or switch, condition position, class, what): the nearest one that
    carries a marked load (the statement before it, then the ifs and
    switches around it, innermost first), else the nearest one.  kind:
    exit, branch, switch; loop, wait (a helper such as
    smp_cond_load_relaxed() branches), converted (a volatile_if); None for
    none at all."""
    key = aee_key(b)
    if key in aee_sites:
        return aee_sites[key]
    kinds = [aee_prev_kind(s, t) for s, t in aee_prevs.get(key, ())]
    cands = []
    for k in ("wait", "converted", "loop"):
        if any(kind == k for kind, _ in kinds):
            aee_sites[key] = (k, None, None, None, None)
            return aee_sites[key]
    for kind, found in kinds:
        if kind == "exit":
            cands.append(("exit", found[0], found[1]))
            break
    here = aee_ext(b)[0]
    around = []
    for p, e, br in aee_ifs.get(b.file, ()):
        if any(x[0] <= here <= x[1] for x in br):
            around.append((aee_ext(p)[0], "branch", p, e))
    for m, x in aee_sws.get(b.file, ()):
        if x[0] < here <= x[1]:
            around.append((x[0], "switch", m, aee_Cond(m)))
    for start, (name, x) in aee_its.get(b.file, {}).items():
        if name == "volatile_if" and x[0] < here <= x[1]:
            around.append((start, "converted", None, None))
    cands += [a[1:] for a in sorted(around, key=lambda a: a[0], reverse=True)]
    site = None
    for kind, p, e in cands:
        if kind == "converted" or "volatile_cond" in aee_cond_text(e):
            site = ("converted", None, None, None, None)
            break
        cls, what = aee_classify_at(e)
        if cls != "none":
            site = (kind, p, e, cls, what)
            break
    if site is None and cands:
        kind, p, e = cands[0]
        site = (kind, p, e, "none", "")
    aee_sites[key] = site
    return site

def aee_is_site(p, kind, convert=False):
    """Is the if or switch at p the site of a barrier, of this kind (and
    to convert)?"""
    for b in aee_bars.get(p.file, ()):
        site = aee_site(b)
        if site and site[0] == kind and aee_key(site[1]) == aee_key(p):
            if not convert or site[3] == "marked":
                return True
    return False

def aee_site_of(p):
    for b in aee_bars.get(p.file, ()):
        site = aee_site(b)
        if site and site[1] is not None and aee_key(site[1]) == aee_key(p):
            return site
    return None

def aee_jump(p):
    """The branch of the if at p, short: "return 0" or "{ ... goto l; }"."""
    try:
        s = aee_branches[aee_key(p)][0]
        text = aee_src(s)
    except (KeyError, IndexError):
        return "..."
    if text.startswith("{"):
        body = text[1:-1].strip().rstrip(";").strip()
        last = body.split(";")[-1].strip().split("}")[-1].strip()
        return "{ ... %s; }" % last
    return text.rstrip(";").strip()

def aee_msg(p):
    kind, _, e, cls, what = aee_site_of(p)
    action, conf = aee_MODES[cls]
    text = ("[acquire-early-exit] %s/%s: %s(): if (%s) %s, then "
            "smp_acquire__after_ctrl_dep()" % (action, conf, p.current_element,
                                               aee_cond_quote(e), aee_jump(p)))
    if cls == "marked":
        return text + (": the barrier relies on the control dependency of "
                       "this early exit")
    return text + ": " + aee_why(cls, what)


// Files that use the barrier (spatch selects files on this token).
@aee_tok@
@@

smp_acquire__after_ctrl_dep()

@aee_bar depends on aee_tok@
position b;
@@

smp_acquire__after_ctrl_dep@b();

@script:python@
b << aee_bar.b;
@@

aee_bars.setdefault(b[0].file, []).append(b[0])

// Assignments to locals, to follow a marked load through a local.
@aee_asg depends on aee_tok@
local idexpression v;
expression E;
position a;
@@

v@a = E

@script:python@
v << aee_asg.v;
E << aee_asg.E;
a << aee_asg.a;
@@

aee_add_asg(a[0], v, E)

@aee_decl depends on aee_tok@
type T;
identifier x;
expression E;
position a;
@@

T x@a = E;

@script:python@
x << aee_decl.x;
E << aee_decl.E;
a << aee_decl.a;
@@

aee_add_asg(a[0], x, E)

// Every if, switch and iterator, with the extents of their branches.
@aee_if2 depends on aee_tok disable neg_if, drop_else@
position p, e, s1, s2;
expression E;
statement S1, S2;
@@

if@p (E@e) S1@s1 else S2@s2

@script:python@
p << aee_if2.p;
e << aee_if2.e;
s1 << aee_if2.s1;
s2 << aee_if2.s2;
@@

aee_add_if(p[0], e[0], [s1[0], s2[0]])

@aee_if1 depends on aee_tok disable neg_if, drop_else@
position p, e, s1;
expression E;
statement S1;
@@

if@p (E@e) S1@s1

@script:python@
p << aee_if1.p;
e << aee_if1.e;
s1 << aee_if1.s1;
@@

aee_add_if(p[0], e[0], [s1[0]])

@aee_sw depends on aee_tok@
statement S : script:python () { aee_word(S) == "switch" };
position m;
@@

S@m

@script:python@
m << aee_sw.m;
@@

aee_add_switch(m[0])

@aee_it depends on aee_tok@
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
I << aee_it.I;
m << aee_it.m;
@@

aee_its.setdefault(m[0].file, {})[aee_ext(m[0])[0]] = (I, aee_ext(m[0]))

// The ifs whose branch leaves on every path.
@aee_leave depends on aee_tok disable neg_if, drop_else forall@
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
q << aee_leave.q;
@@

aee_leaving.add(aee_key(q[0]))

// The statement right before each barrier (exists: an #ifdef between
// them is a branch in spatch's control-flow graph).
@aee_prev depends on aee_tok exists@
statement S, S2;
position s, b;
@@

S@s
... when != S2
smp_acquire__after_ctrl_dep@b();

@script:python@
S << aee_prev.S;
s << aee_prev.s;
b << aee_prev.b;
@@

aee_prevs.setdefault(aee_key(b[0]), []).append((s[0], S))

// The ifs that are the site of a barrier.
@aee_site depends on aee_tok disable neg_if, drop_else@
position p : script:python () { aee_is_site(p[0], "exit") };
expression E;
statement S;
@@

if@p (E) S

@aee_patch depends on patch && !context && !org && !report disable neg_if, drop_else@
position p : script:python () { aee_is_site(p[0], "exit", True) };
expression E;
statement S;
iterator name volatile_if;
@@

- if@p
+ volatile_if
  (E) S

@aee_ctx depends on context && !patch && !org && !report disable neg_if, drop_else@
position aee_site.p;
expression E;
statement S;
@@

* if@p (E)
  S

@aee_ctx2 depends on context && !patch && !org && !report exists@
position aee_site.p;
expression E;
statement S, S2;
@@

if@p (E) S
... when != S2
* smp_acquire__after_ctrl_dep();

@script:python aee_org depends on org@
p << aee_site.p;
@@

coccilib.org.print_todo(p[0], aee_msg(p[0]))

@script:python aee_report depends on report@
p << aee_site.p;
@@

coccilib.report.print_report(p[0], aee_msg(p[0]))
