// SPDX-License-Identifier: GPL-2.0-only
/// Find smp_acquire__after_ctrl_dep() that no conditional branch orders:
/// the barrier only gives ACQUIRE semantics to the loads that a preceding
/// branch depends on, so a barrier reached on every path from the start of
/// the function (straight-line code, or after an if whose body does not
/// leave) is probably a bug: smp_rmb()/smp_load_acquire() or a missing
/// early exit was meant.
///
// Idiom: orphan-acquire (report).  A barrier is an orphan when every path
// from the entry of the function reaches it (Coccinelle's forall semantics
// for "..."): an if that returns, jumps or breaks before it, or a branch or
// loop body around it, gives a path that avoids it.  A barrier right after a
// loop (for, while, do-while, iterator) is acquire-loop-exit, not an orphan.
// do-while loops cannot be written in SmPL ("not supported"): they are found
// as statements whose text starts with "do" (a python constraint).
//
// See acquire-in-branch.cocci for how volatile_if is parsed (#spatch
// --macro-file below, or pass --macro-file <this dir>/volatile_if.h when not
// at the top of a tree).
//
// Confidence: Moderate
// Keywords: smp_acquire__after_ctrl_dep
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

oa_lines = {}

def oa_src(pos):
    """Source text at a position, on one line (for the messages only)."""
    try:
        if pos.file not in oa_lines:
            with open(pos.file, errors="replace") as f:
                oa_lines[pos.file] = f.read().split("\n")
        lines = oa_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (OSError, IndexError, ValueError):
        return "..."

def oa_is_do(s):
    return s.lstrip()[:2] == "do" and not (s.lstrip()[2:3].isalnum() or s.lstrip()[2:3] == "_")

def oa_plain(b):
    return ("[orphan-acquire] report/medium: %s(): smp_acquire__after_ctrl_dep() "
            "is reached on every path from the start of the function: no "
            "conditional branch orders it, probably a bug" % b.current_element)

oa_msgs = {}

def oa_key(p):
    return (p.file, p.line, p.column)

def oa_after_if(b, e):
    return ("[orphan-acquire] report/medium: %s(): smp_acquire__after_ctrl_dep() "
            "follows if (%s), whose body does not leave: no conditional branch "
            "orders the barrier, probably a bug" % (b.current_element,
                oa_src(e) if e.file == b.file else "volatile_cond(...)"))

@oa_all forall@
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
@oa_loop@
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

@oa_doloop@
position oa_all.b, lb;
statement S : script:python () { oa_is_do(S) };
@@

S
smp_acquire__after_ctrl_dep@b@lb();

@oa_site@
position oa_all.b;
position c != {oa_loop.lb, oa_doloop.lb};
@@

smp_acquire__after_ctrl_dep@b@c();

// The statement before the barrier is an if that does not leave.
@oa_if disable neg_if, drop_else@
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

@oa_plain_site@
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
