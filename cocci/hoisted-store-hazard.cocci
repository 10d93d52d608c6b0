// SPDX-License-Identifier: GPL-2.0-only
/// Find an if on a marked load (READ_ONCE(), atomic_read(), ...) whose then
/// and else branches perform the identical store: a compiler may hoist the
/// store above the if, and the store is then no longer ordered after the
/// load by the control dependency (see the "identical stores" example in
/// tools/memory-model/Documentation/control-dependencies.txt).  volatile_if()
/// forbids that, or the store can be moved out by hand and ordered with
/// smp_store_release().
///
// Idiom: hoisted-store-hazard (report).  The load is in the condition, or in
// a local variable assigned from the load and not reassigned before the if.
// Stores: WRITE_ONCE(), atomic*_set(), and plain assignments to memory that
// is not a local variable.  The two stores must be the same expression
// storing the same value.  Already converted sites (volatile_if) are
// skipped: see acquire-in-branch.cocci for how they are parsed.
//
// Confidence: Moderate
// Keywords: READ_ONCE, atomic_read, atomic_long_read, atomic64_read,
//   local_read, local64_read, refcount_read, kref_read, rcu_dereference,
//   rcu_access_pointer
// Options: --no-includes --include-headers

#spatch --macro-file scripts/coccinelle/locks/volatile_if.h

// Report only: patch mode changes nothing.  It is declared so that
// make coccicheck MODE=patch accepts the file instead of failing.
virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

hsh_lines = {}

def hsh_src(pos):
    """Source text at a position, on one line (for the messages only)."""
    try:
        if pos.file not in hsh_lines:
            with open(pos.file, errors="replace") as f:
                hsh_lines[pos.file] = f.read().split("\n")
        lines = hsh_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (OSError, IndexError, ValueError):
        return "..."

hsh_stores = {}

def hsh_key(p):
    return (p.file, p.line, p.column)

def hsh_store(s):
    """The store statement at a position, up to its semicolon."""
    hsh_src(s)
    try:
        text = hsh_lines[s.file][int(s.line) - 1][int(s.column):]
        return " ".join(text.split(";")[0].split())
    except (KeyError, IndexError, ValueError):
        return "..."

def hsh_msg(p, e):
    return ("[hoisted-store-hazard] report/medium: %s(): both branches of if (%s) "
            "perform the store %s: a compiler may hoist it above the branch, out "
            "of the control dependency on the load" % (
                p.current_element, hsh_src(e), hsh_stores.get(hsh_key(p), "...")))

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
@hsh_if disable neg_if, drop_else exists@
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
@@

hsh_stores.setdefault(hsh_key(p[0]), hsh_store(s[0]))

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
