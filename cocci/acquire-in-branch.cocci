// SPDX-License-Identifier: GPL-2.0-only
/// Find smp_acquire__after_ctrl_dep() in the then or the else branch of an
/// if: the if forms the control dependency the barrier relies on, so it
/// should be a volatile_if(), which compilers cannot turn into straight-line
/// code.  The barrier stays where it is: it still provides the ACQUIRE.
///
// Idiom: acquire-in-branch (convert).  The branch may be a block or a single
// statement; the barrier must be on every path through the branch (a
// barrier under a second, inner if belongs to that inner if).
//
// Already converted sites are left alone.  spatch cannot parse a function
// that contains volatile_if (...) S1 else S2 unless volatile_if is known as
// a macro, so the #spatch line below passes a macro file that defines only
// volatile_if.  #spatch lines are read by spatch itself and their paths are
// relative to where it runs, the top of the kernel tree for make coccicheck:
// the volatile_if base patch ships these rules with volatile_if.h in
// scripts/coccinelle/locks/.  Elsewhere pass --macro-file
// <this dir>/volatile_if.h (the command line wins; with make coccicheck, in
// SPFLAGS).  A missing macro file is only a warning: that is fine on a
// tree with no volatile_if yet.  The kernel's own definition
// (include/asm-generic/barrier.h) is not used as the macro file: once spatch
// expands macros in a file it also expands smp_acquire__after_ctrl_dep()
// from there, and the sites after the converted function are lost (seen on
// net/netfilter/nf_conntrack_core.c).  A converted if reads as
// if (volatile_cond(E)), which the rules skip; with no else, the
// "iterator name volatile_if" declaration below makes spatch read it as an
// iterator, which is not an if either.
//
// Patch mode turns "if" into "volatile_if" and keeps the condition text and
// its line breaks.  Coccinelle cannot produce "volatile_if (E) S1 else S2"
// (no SmPL construct has that shape, so the + code does not parse): for an
// if with an else branch, patch mode writes the equivalent expansion
// "if (volatile_cond(E)) S1 else S2" instead (the condition is re-printed).
// Report mode gives the position of the "if" keyword for a textual rewrite.
//
// Confidence: High
// Comments: Report: [acquire-in-branch] convert/high: f(): ...
// Keywords: smp_acquire__after_ctrl_dep
// Options: --no-includes --include-headers

#spatch --macro-file scripts/coccinelle/locks/volatile_if.h

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

aib_lines = {}

def aib_src(pos):
    """Source text at a position, on one line (for the messages only)."""
    try:
        if pos.file not in aib_lines:
            with open(pos.file, errors="replace") as f:
                aib_lines[pos.file] = f.read().split("\n")
        lines = aib_lines[pos.file]
        l0, l1 = int(pos.line) - 1, int(pos.line_end) - 1
        c0, c1 = int(pos.column), int(pos.column_end)
        if l0 == l1:
            text = lines[l0][c0:c1]
        else:
            text = " ".join([lines[l0][c0:]] + lines[l0 + 1:l1] + [lines[l1][:c1]])
        return " ".join(text.split())
    except (OSError, IndexError, ValueError):
        return "..."

def aib_msg(p, e):
    return ("[acquire-in-branch] convert/high: %s(): smp_acquire__after_ctrl_dep() "
            "inside a branch of if (%s): the barrier relies on the control "
            "dependency on this condition" % (p.current_element, aib_src(e)))

@aib_match disable neg_if, drop_else forall@
position p, b, e;
expression E;
statement S1, S2;
@@

(
if (volatile_cond(...)) S1 else S2
|
if (volatile_cond(...)) S1
|
if@p (E@e) { ... smp_acquire__after_ctrl_dep@b(); ... } else S2
|
if@p (E@e) S1 else { ... smp_acquire__after_ctrl_dep@b(); ... }
|
if@p (E@e) { ... smp_acquire__after_ctrl_dep@b(); ... }
)

@aib_patch depends on patch && !context && !org && !report disable neg_if, drop_else@
position aib_match.p;
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
position aib_match.p;
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

@aib_ctx2 depends on context && !patch && !org && !report@
position aib_match.b;
@@

* smp_acquire__after_ctrl_dep@b();

@script:python aib_org depends on org@
p << aib_match.p;
e << aib_match.e;
@@

coccilib.org.print_todo(p[0], aib_msg(p[0], e[0]))

@script:python aib_report depends on report@
p << aib_match.p;
e << aib_match.e;
@@

coccilib.report.print_report(p[0], aib_msg(p[0], e[0]))
