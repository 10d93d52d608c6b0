// SPDX-License-Identifier: GPL-2.0-only
/// Find an if on a marked load whose then and else branches perform the
/// identical store: a compiler may hoist the store above the if, out of the
/// control dependency (control-dependencies.txt, "identical stores").
///
// Confidence: Medium; Low for stores to locals or through a pointer
//   parameter, or where the condition does not test the loaded value.
// Copyright: (C) 2026 The volatile-if authors.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Comments: report only (patch mode changes nothing); see cocci/README.md.
// Keywords: READ_ONCE, atomic_read, atomic_long_read, atomic64_read,
//   local_read, local64_read, refcount_read, kref_read, rcu_dereference,
//   rcu_access_pointer
// Options: --no-includes --include-headers

#spatch --macro-file scripts/coccinelle/locks/volatile_if.h

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

import re

hsh_files = {}

def hsh_text(path):
    if path not in hsh_files:
        try:
            with open(path, errors="replace") as f:
                hsh_files[path] = f.read().split("\n")
        except OSError:
            hsh_files[path] = []
    return hsh_files[path]

def hsh_src(pos):
    """Source text at a position, on one line."""
    lines = hsh_text(pos.file)
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

def hsh_quote(pos):
    """A condition as the messages quote it: its first line, "..." for the rest."""
    lines = hsh_text(pos.file)
    try:
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            return " ".join(lines[l0][c0:c1].split())
        return " ".join(lines[l0][c0:].split()) + " ..."
    except (IndexError, ValueError):
        return "..."

def hsh_key(pos):
    return (pos.file, int(pos.line), int(pos.column))

def hsh_ext(pos):
    return ((int(pos.line), int(pos.column)), (int(pos.line_end), int(pos.column_end)))

# Marked loads: their value is the loaded value (or computed from it
# without a branch).  Helpers: they branch on their load themselves, so a
# branch on their result is not the branch the ordering rests on.
hsh_MARKED = re.compile(
    r"\b(READ_ONCE|smp_load_acquire|rcu_dereference\w*|rcu_access_pointer|"
    r"srcu_dereference\w*|refcount_read|kref_read|test_bit|test_and_\w+_bit\w*|"
    r"(arch_)?(atomic|atomic64|atomic_long|local|local64)_(read\w*|fetch_\w+|"
    r"\w+_return\w*|\w+_and_test|xchg\w*|cmpxchg\w*|try_cmpxchg\w*)|"
    r"(try_)?cmpxchg\w*|xchg\w*)\s*\(")
hsh_HELPER = re.compile(
    r"\b(\w+_not_zero|\w+_unless\w*|\w+_if_positive|\w+_not_one|"
    r"refcount_(?!read\b)\w+|kref_(?!read\b)\w+)\s*\(")
hsh_WAIT = re.compile(r"\b(smp_cond_load_\w+|atomic\w*_cond_read_\w+)\s*\(")
hsh_MODES = {"marked": ("convert", "high"), "short": ("report", "medium"),
             "helper": ("report", "medium"), "none": ("report", "low")}

# Assignments to locals: file -> [(function, name, line, column, class)].
hsh_asgs = {}

def hsh_load(text):
    """The class of an expression: helper, marked or None."""
    m = hsh_HELPER.search(text)
    if m:
        return ("helper", m.group(1))
    m = hsh_MARKED.search(text)
    if m:
        return ("marked", m.group(1))
    return None

def hsh_add_asg(pos, name, value):
    hsh_asgs.setdefault(pos.file, []).append(
        (pos.current_element, name, int(pos.line), int(pos.column), hsh_load(value)))

def hsh_first_operand(text):
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

def hsh_classify(pos, text=None):
    """(class, what) of the condition at pos: marked (the load, or a local
    last assigned from one, decides the branch, in the first operand of a
    && or ||), short (the load is in a later operand only), helper (the
    condition tests a helper that branches on its load itself), none (no
    marked load)."""
    if text is None:
        text = hsh_src(pos)
    found = hsh_load(text)
    if found is None:
        here = (int(pos.line), int(pos.column))
        for word in set(re.findall(r"[A-Za-z_]\w*", text)):
            last = None
            for fn, name, l, c, cls in hsh_asgs.get(pos.file, ()):
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
    first = hsh_first_operand(text) if found[0] == "marked" else None
    if first is not None and hsh_classify(pos, first)[0] != "marked":
        return ("short", found[1])
    return found

def hsh_why(cls, what):
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

hsh_stores = {}    # if -> (store text, store target, its function)
hsh_vars = {}      # (file, function) -> {name: (type, parameter?)}

def hsh_add_var(pos, name, typ, param):
    hsh_vars.setdefault((pos.file, pos.current_element), {})[name] = (typ, param)

def hsh_store(s):
    """The store statement at a position: its first line, "..." for more."""
    try:
        text = hsh_text(s.file)[int(s.line) - 1][int(s.column):]
    except (IndexError, ValueError):
        return "..."
    if ";" in text:
        return " ".join(text.split(";")[0].split())
    return " ".join(text.split()) + " ..."

def hsh_target(p, x):
    """Why the store target x is not shared memory, or None."""
    t = re.sub(r"^[\s&*(]*(\(\s*[\w\s]+\*+\s*\))?[\s(]*", "", x)
    m = re.match(r"([A-Za-z_]\w*)\s*(->|\.|\[)?", t)
    if not m:
        return None
    name, acc = m.group(1), m.group(2)
    deref = acc in ("->", "[") or x.lstrip().startswith("*")
    var = hsh_vars.get((p.file, p.current_element), {}).get(name)
    if var is None:
        return None
    typ, param = var
    pointer = "*" in typ or "[" in typ
    if param and pointer and deref:
        return ("a store to the caller's structure through the parameter "
                "%s" % name)
    if not deref or (acc == "[" and not pointer):
        return "a store to %s %s" % ("the parameter" if param else "the local", name)
    return None

def hsh_tests_load(e):
    """Does the condition test a marked load: one in its text, or a local
    that is the condition (compared or negated), not one operand of &&
    or || nor an argument?"""
    text = hsh_src(e)
    if hsh_MARKED.search(text):
        return True
    if hsh_first_operand(text) is not None:
        return False
    t = re.sub(r"\b(un)?likely\s*\(", "(", text)
    return re.search(r"\b[A-Za-z_]\w*\s*\([^()]*\b[A-Za-z_]", t) is None

def hsh_msg(p, e):
    store, target = hsh_stores.get(hsh_key(p), ("...", ""))
    why = hsh_target(p, target)
    if why is None and not hsh_tests_load(e):
        why = "the condition does not test the loaded value itself"
    return ("[hoisted-store-hazard] report/%s: %s(): both branches of if (%s) "
            "perform the store %s: a compiler may hoist it above the branch, out "
            "of the control dependency on the load%s" % (
                "low" if why else "medium", p.current_element, hsh_quote(e),
                store, "; low: " + why if why else ""))

// The stores, in a branch of an if whose condition has such a load.
// Only files with marked loads (spatch selects files on these tokens).
@hsh_tok@
@@

(
READ_ONCE(...)
|
atomic_read(...)
|
atomic_long_read(...)
|
atomic64_read(...)
|
local_read(...)
|
local64_read(...)
|
refcount_read(...)
|
kref_read(...)
|
rcu_dereference(...)
|
rcu_dereference_raw(...)
|
rcu_access_pointer(...)
)

// Ifs with an else whose condition has a marked load, or a local variable
// that holds one (not reassigned in between).
@hsh_cand depends on hsh_tok disable neg_if, drop_else exists@
identifier LD = {READ_ONCE, atomic_read, atomic_long_read, atomic64_read,
                 local_read, local64_read, refcount_read, kref_read,
                 rcu_dereference, rcu_dereference_raw, rcu_access_pointer};
position p, e;
local idexpression v;
expression C, E;
statement S1, S2;
@@

(
if (volatile_cond(...)) S1 else S2
|
if@p (\(C@e \& <+... LD(...) ...+>\)) S1 else S2
|
v = LD(...);
... when != v = E
if@p (\(C@e \& <+... v ...+>\)) S1 else S2
)

// Stores to local variables do not count.
@hsh_local depends on hsh_cand@
local idexpression L;
expression V;
position lp;
@@

L@lp = V

// ... whose two branches perform the same store.  The positions are copied
// (q, f) for the reporting rules.
@hsh_if depends on hsh_tok disable neg_if, drop_else exists@
identifier ST = {WRITE_ONCE, atomic_set, atomic_long_set, atomic64_set,
                 local_set, local64_set};
expression C, X, V;
position hsh_cand.p, hsh_cand.e, q, f;
position s1 != hsh_local.lp, s2 != hsh_local.lp;
@@

(
if@p@q (C@e@f) {
  ... when any
  ST@s1(X, V);
  ... when any
} else {
  ... when any
  ST@s2(X, V);
  ... when any
}
|
if@p@q (C@e@f) {
  ... when any
  X@s1 = V;
  ... when any
} else {
  ... when any
  X@s2 = V;
  ... when any
}
)

@script:python hsh_collect@
p << hsh_if.q;
s << hsh_if.s1;
x << hsh_if.X;
@@

hsh_stores.setdefault(hsh_key(p[0]), (hsh_store(s[0]), x))

// The parameters and locals of the functions with such an if.
@hsh_param depends on hsh_if@
identifier fn, x;
type T;
position xp;
@@

fn(..., T x@xp, ...) { ... }

@script:python@
x << hsh_param.x;
T << hsh_param.T;
xp << hsh_param.xp;
@@

hsh_add_var(xp[0], x, T, True)

@hsh_decl depends on hsh_if@
identifier x;
type T;
position xp;
@@

(
T x@xp;
|
T x@xp = ...;
)

@script:python@
x << hsh_decl.x;
T << hsh_decl.T;
xp << hsh_decl.xp;
@@

hsh_add_var(xp[0], x, T, False)

@hsh_ctx depends on context && !org && !report@
position hsh_if.q;
expression C;
statement S1, S2;
@@

* if@q (C)
  S1 else S2

@script:python hsh_org depends on org@
p << hsh_if.q;
e << hsh_if.f;
@@

coccilib.org.print_todo(p[0], hsh_msg(p[0], e[0]))

@script:python hsh_report depends on report@
p << hsh_if.q;
e << hsh_if.f;
@@

coccilib.report.print_report(p[0], hsh_msg(p[0], e[0]))
