"""The verifier's ``#print axioms`` probe, and why nothing a submission defines can answer it.

The kernel accepts whatever axioms a declaration rests on, so after Lean has checked an
attempt the verdict also asks Lean which axioms the exercise finally depends on, and
refuses any beyond the standard ones and the official file's own. The answer is only
worth something if the attempt cannot forge, silence or redirect it. The argument:

1. **Where the probe runs.** A Kimina server reports messages and ``sorries`` per
   snippet and has no field for the axioms a declaration uses; a second snippet runs in
   a REPL environment that holds only the imports (the server reuses environments at the
   header level), not the attempt's declarations. So the probe has to be a command in
   the same snippet, after the attempt: :func:`with_axiom_probe` appends
   ``#print axioms <exercise>`` on a line of its own.
2. **Nothing of the attempt's own runs after the exercise.** The integrity checks
   (:mod:`lemmata.benchmarks.taobench.lean.integrity`, run before anything is sent to Lean) accept only the
   official file's trailing commands after the exercise, unchanged; and before it only the
   official context plus helper declarations of allowed kinds, modifiers and attributes.
   So the file the probe is appended to declares no ``macro``, ``syntax``, ``elab``,
   ``notation``, command elaborator (``@[command_elab]``), ``set_option``,
   ``#guard_msgs``, ``#exit`` or anything else that could re-interpret the probe's syntax,
   drop or rewrite its message, or end the file before it. An attempt that does not lex
   (an unterminated comment or string that would swallow the probe) is refused too.
3. **The answer must be the probe's own.** :func:`probe_answer` accepts exactly one
   ``info`` message on the probe's line, of the form ``'<name>' depends on axioms: [...]``
   (or ``does not depend on any axioms``), whose name is the exercise's full name: a
   probe that resolved to another constant (a helper whose name ends like the
   exercise's), a second answer on that line, or no answer leaves the attempt without a
   verdict of "compiles".
"""

from __future__ import annotations

import re

from lemmata.oracles.lean import CheckResult
from lemmata.lean.structure import unescape

AXIOM_PROBE = "#print axioms"
_ANSWER = re.compile(r"^\s*'(?P<name>.+?)' (?:depends on axioms:\s*\[(?P<axioms>.*)\]|(?P<none>does not depend on "
                     r"any axioms))\s*$", flags=re.S)


def with_axiom_probe(attempt: str, decl_name: str) -> tuple[str, int]:
    """The code sent to Lean: the attempt plus ``#print axioms <exercise>`` on a line of its own; returns it and
    the probe's 1-based line.

    >>> with_axiom_probe("theorem t : True := trivial", "t")
    ('theorem t : True := trivial\\n#print axioms t\\n', 2)
    """
    body = attempt if attempt.endswith("\n") else attempt + "\n"
    line = body.count("\n") + 1
    return f"{body}{AXIOM_PROBE} {decl_name}\n", line


def parse_axiom_answer(text: str) -> tuple[str, list[str]] | None:
    """``(constant, axioms)`` from a ``#print axioms`` message, or None when the text is not one.

    >>> parse_axiom_answer("'A.t' depends on axioms: [propext, Classical.choice, Quot.sound]")
    ('A.t', ['propext', 'Classical.choice', 'Quot.sound'])
    >>> parse_axiom_answer("'A.«t x»' does not depend on any axioms"), parse_axiom_answer("unknown constant 'A.t'")
    (('A.t x', []), None)
    """
    m = _ANSWER.match(text)
    if not m:
        return None
    axioms = [] if m.group("none") else [a.strip() for a in m.group("axioms").split(",") if a.strip()]
    return unescape(m.group("name")), axioms


def probe_answer(check: CheckResult, probe_line: int, decl_name: str | None) -> tuple[list[str] | None, str | None]:
    """The axioms Lean named in answer to the probe on ``probe_line``, or ``(None, why not)``.

    ``decl_name`` is the exercise's full name; None accepts an answer about any constant (for callers
    that probe something else).
    """
    answers = []
    for m in check.messages:
        if m.severity == "info" and m.pos is not None and m.pos.line == probe_line:
            parsed = parse_axiom_answer(m.data)
            if parsed is not None:
                answers.append(parsed)
    if not answers:
        return None, "Lean did not answer the axiom probe"
    if len(answers) > 1:
        return None, f"the axiom probe was answered {len(answers)} times"
    name, axioms = answers[0]
    if decl_name is not None and name != unescape(decl_name):
        return None, f"the axiom probe answered for `{name}`, not for the exercise `{decl_name}`"
    return axioms, None
