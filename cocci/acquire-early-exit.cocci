// SPDX-License-Identifier: GPL-2.0-only
/// Find an if whose branch leaves (return, goto, break or continue) and
/// which is followed by smp_acquire__after_ctrl_dep(): the early exit is
/// the control dependency the barrier relies on, so the if should be a
/// volatile_if().  The barrier stays where it is: it still provides the
/// ACQUIRE.
///
// Idiom: acquire-early-exit (convert).  The branch is a single jump
// statement or a block that ends in one.  Comments, blank lines and
// preprocessor lines (#ifdef CONFIG_...) between the if and the barrier do
// not matter: they are not statements.  A statement between them does: then
// the site is not reported here (the barrier is still ordered, by the path
// that leaves, but the shape is not this idiom).
//
// Already converted sites are left alone; see acquire-in-branch.cocci for
// how volatile_if is parsed (#spatch --macro-file below, or pass
// --macro-file <this dir>/volatile_if.h when not at the top of a tree
// under the project's build/).
//
// Patch mode turns "if" into "volatile_if", keeping the condition text and
// its line breaks.
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

aee_lines = {}

def aee_src(pos):
    """Source text at a position, on one line (for the messages only)."""
    try:
        if pos.file not in aee_lines:
            with open(pos.file, errors="replace") as f:
                aee_lines[pos.file] = f.read().split("\n")
        lines = aee_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (OSError, IndexError, ValueError):
        return "..."

def aee_jump(pos):
    """The jump statement at a position, up to its semicolon."""
    try:
        text = aee_lines[pos.file][int(pos.line) - 1][int(pos.column):]
        return " ".join(text.split(";")[0].split())
    except (KeyError, IndexError, ValueError):
        return "..."

def aee_msg(p, e, j):
    return ("[acquire-early-exit] convert/high: %s(): if (%s) %s, then "
            "smp_acquire__after_ctrl_dep(): the barrier relies on the control "
            "dependency of this early exit" % (p.current_element, aee_src(e),
                                               aee_jump(j)))

// Only files that use the barrier (spatch selects files on this token).
@aee_tok@
@@

smp_acquire__after_ctrl_dep()

// Ifs followed by the barrier with no statement between, on some path
// (exists: an #ifdef between them is a branch in spatch's control-flow
// graph).  Found first: it is cheap, and it keeps the next rule to a few ifs.
@aee_seq depends on aee_tok exists@
position p, b;
expression E;
statement S, S2;
@@

if@p (E) S
... when != S2
smp_acquire__after_ctrl_dep@b();

// Of those, the ifs whose branch leaves on every path (forall: an if whose
// body leaves on some paths only is not an early exit), and not converted.
// The positions are copied (q, f, k) for the rules below.
@aee_match disable neg_if, drop_else forall@
position aee_seq.p, q, f, k;
expression E;
statement S;
identifier l;
@@

(
if@p (volatile_cond(...)) S
|
if@p@q (E@f) return@k ...;
|
if@p@q (E@f) goto@k l;
|
if@p@q (E@f) break@k;
|
if@p@q (E@f) continue@k;
|
if@p@q (E@f) { ... return@k ...; }
|
if@p@q (E@f) { ... goto@k l; }
|
if@p@q (E@f) { ... break@k; }
|
if@p@q (E@f) { ... continue@k; }
)

@aee_patch depends on patch && !context && !org && !report@
position aee_match.q;
expression E;
statement S;
iterator name volatile_if;
@@

- if@q
+ volatile_if
  (E) S

@aee_ctx depends on context && !patch && !org && !report@
position aee_match.q;
expression E;
statement S;
@@

* if@q (E)
  S

@aee_ctx2 depends on context && !patch && !org && !report exists@
position aee_match.q;
expression E;
statement S, S2;
@@

if@q (E) S
... when != S2
* smp_acquire__after_ctrl_dep();

@script:python aee_org depends on org@
p << aee_match.q;
e << aee_match.f;
j << aee_match.k;
@@

coccilib.org.print_todo(p[0], aee_msg(p[0], e[0], j[0]))

@script:python aee_report depends on report@
p << aee_match.q;
e << aee_match.f;
j << aee_match.k;
@@

coccilib.report.print_report(p[0], aee_msg(p[0], e[0], j[0]))
