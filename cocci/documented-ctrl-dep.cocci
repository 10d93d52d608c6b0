// SPDX-License-Identifier: GPL-2.0-only
/// Find conditionals that a nearby comment says form a control dependency,
/// with no barrier: the ordering then rests on the compiler keeping the
/// branch, which volatile_if() would guarantee.  For review: the comment may
/// describe another line, or say that no dependency exists.
///
// Confidence: Low
// Copyright: (C) 2026 The volatile-if authors.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Comments: report only (patch mode changes nothing); see cocci/README.md.
// Keywords: control dependen, ctrl dep
// Options: --no-includes --include-headers

#spatch --macro-file scripts/coccinelle/locks/volatile_if.h

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

dcd_lines = {}

def dcd_src(pos):
    """Source text at a position, on one line (for the messages only)."""
    try:
        if pos.file not in dcd_lines:
            with open(pos.file, errors="replace") as f:
                dcd_lines[pos.file] = f.read().split("\n")
        lines = dcd_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (OSError, IndexError, ValueError):
        return "..."

def dcd_quote(pos):
    """A condition as the messages quote it: its first line, "..." for the rest."""
    dcd_src(pos)
    try:
        lines = dcd_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            return " ".join(lines[l0][c0:c1].split())
        return " ".join(lines[l0][c0:].split()) + " ..."
    except (KeyError, IndexError, ValueError):
        return "..."

import re

dcd_re = re.compile(r"control[\s-]*dependen|ctrl[\s_-]*dep", re.I)
dcd_done = set()
dcd_outer = set()
dcd_barred = set()

def dcd_says(text):
    text = text.replace("smp_acquire__after_ctrl_dep", "")
    return dcd_re.search(text) is not None

dcd_files = {}

def dcd_file_says(path):
    if path not in dcd_files:
        try:
            with open(path, errors="replace") as f:
                dcd_files[path] = dcd_says(f.read())
        except OSError:
            dcd_files[path] = True
    return dcd_files[path]

def dcd_forward(text):
    """Says control dependency, and not about the code above the comment."""
    text = text.replace("smp_acquire__after_ctrl_dep", "")
    m = dcd_re.search(text)
    return m is not None and re.search(r"\babove\b", text[:m.start()]) is None

def dcd_cb(c):
    return any(dcd_forward(x.before) for x in c)

def dcd_ca(c):
    return any(dcd_says(x.after) for x in c)

def dcd_emit(out, p, e, where):
    key = (p.file, p.line, p.column)
    if key in dcd_done or key in dcd_outer or key in dcd_barred:
        return
    dcd_done.add(key)
    out(p, "[documented-ctrl-dep] report/low: %s(): a comment %s says if (%s) "
           "forms a control dependency, and no barrier backs it: consider "
           "volatile_if" % (p.current_element, where, dcd_quote(e)))

// Only files with marked loads or atomics are worth parsing (the calls are
// spelled out, not an identifier set, so that spatch selects files on
// them),
@dcd_tok@
position p;
@@

(
READ_ONCE@p(...)
|
atomic_read@p(...)
|
atomic_long_read@p(...)
|
atomic64_read@p(...)
|
atomic_read_acquire@p(...)
|
local_read@p(...)
|
refcount_read@p(...)
|
refcount_inc_not_zero@p(...)
|
rcu_dereference@p(...)
|
test_bit@p(...)
|
test_and_set_bit@p(...)
|
test_and_clear_bit@p(...)
|
smp_load_acquire@p(...)
|
smp_cond_load_relaxed@p(...)
|
cmpxchg@p(...)
|
xchg@p(...)
)

// and only those that say "control dependency" somewhere worth matching.
@script:python dcd_file@
p << dcd_tok.p;
@@

if not dcd_file_says(p[0].file):
    cocci.include_match(False)

// The comment is right before the if.
@dcd_before depends on dcd_file disable neg_if, drop_else@
position p;
position e;
comments c : script:python () { dcd_cb(c) };
expression E;
statement S1, S2;
@@

(
if@p@c (E@e) S1 else S2
|
if@p@c (E@e) S1
)

// The comment is at the top of a branch.
@dcd_top depends on dcd_file disable neg_if, drop_else@
position p;
position e;
comments c : script:python () { dcd_cb(c) };
expression E;
statement S, S2;
@@

(
if@p (E@e) { S@c ... } else S2
|
if@p (E@e) { S@c ... }
)

// The comment is right after the whole if statement.
@dcd_after depends on dcd_file disable neg_if, drop_else@
position p;
position e;
comments c : script:python () { dcd_ca(c) };
expression E;
statement S, S1, S2;
@@

(
S@c
&
(
if@p (E@e) S1 else S2
|
if@p (E@e) S1
)
)

// Leaving ifs inside a commented if that does not leave itself.
@dcd_inner depends on dcd_file disable neg_if, drop_else forall@
position p = {dcd_before.p, dcd_top.p, dcd_after.p};
position q;
position e, op;
expression E, E2;
identifier l;
@@

if@p@op (E) { <+...
(
if@q (E2@e) return ...;
|
if@q (E2@e) goto l;
|
if@q (E2@e) break;
|
if@q (E2@e) continue;
|
if@q (E2@e) { ... return ...; }
|
if@q (E2@e) { ... goto l; }
)
...+> }

// Of those, the ifs that have a barrier, or are converted: other idioms.
// (Checked on the commented ifs only: on every if it is slow.)
@dcd_bar depends on dcd_file@
identifier BAR = {smp_acquire__after_ctrl_dep, smp_rmb, rmb, smp_mb, mb,
                  dma_rmb};
position bp = {dcd_before.p, dcd_top.p, dcd_after.p, dcd_inner.q};
expression E;
statement S1, S2;
@@

(
if@bp (volatile_cond(...)) S1 else S2
|
if@bp (volatile_cond(...)) S1
|
if@bp (E) S1 else S2
BAR();
|
if@bp (E) S1
BAR();
|
if@bp (<+... BAR() ...+>) S1
|
if@bp (E) { <+... BAR(); ...+> } else S2
|
if@bp (E) S1 else { <+... BAR(); ...+> }
|
if@bp (E) { <+... BAR(); ...+> }
)

@script:python dcd_bar_collect@
bp << dcd_bar.bp;
@@

dcd_barred.add((bp[0].file, bp[0].line, bp[0].column))

@dcd_ctx depends on dcd_file && context && !org && !report@
position p = {dcd_before.p, dcd_top.p, dcd_after.p, dcd_inner.q};
expression E;
statement S;
@@

* if@p (E)
  S

@script:python dcd_org_inner depends on org@
p << dcd_inner.q;
e << dcd_inner.e;
o << dcd_inner.op;
@@

if (p[0].file, p[0].line, p[0].column) not in dcd_barred:
    dcd_outer.add((o[0].file, o[0].line, o[0].column))
dcd_emit(coccilib.org.print_todo, p[0], e[0], "around an enclosing if")

@script:python dcd_org_before depends on org@
p << dcd_before.p;
e << dcd_before.e;
@@

dcd_emit(coccilib.org.print_todo, p[0], e[0], "before it")

@script:python dcd_org_top depends on org@
p << dcd_top.p;
e << dcd_top.e;
@@

dcd_emit(coccilib.org.print_todo, p[0], e[0], "in its branch")

@script:python dcd_org_after depends on org@
p << dcd_after.p;
e << dcd_after.e;
@@

dcd_emit(coccilib.org.print_todo, p[0], e[0], "after it")

@script:python dcd_report_inner depends on report@
p << dcd_inner.q;
e << dcd_inner.e;
o << dcd_inner.op;
@@

if (p[0].file, p[0].line, p[0].column) not in dcd_barred:
    dcd_outer.add((o[0].file, o[0].line, o[0].column))
dcd_emit(coccilib.report.print_report, p[0], e[0], "around an enclosing if")

@script:python dcd_report_before depends on report@
p << dcd_before.p;
e << dcd_before.e;
@@

dcd_emit(coccilib.report.print_report, p[0], e[0], "before it")

@script:python dcd_report_top depends on report@
p << dcd_top.p;
e << dcd_top.e;
@@

dcd_emit(coccilib.report.print_report, p[0], e[0], "in its branch")

@script:python dcd_report_after depends on report@
p << dcd_after.p;
e << dcd_after.e;
@@

dcd_emit(coccilib.report.print_report, p[0], e[0], "after it")
