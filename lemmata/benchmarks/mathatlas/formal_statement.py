"""What a submitted MathAtlas formal statement may contain, checked on its parsed Lean commands.

A MathAtlas record carries the Lean text of a formalization and the submitter's verdicts on
it; anyone re-checking it (a leaderboard maintainer, a reviewer) will compile that text.
So the text must be a formalization and nothing else: a statement whose meaning a reader
(or a faithfulness judge) sees in full, with nothing that changes how Lean elaborates,
reports or evaluates it. As in :mod:`lemmata.benchmarks.taobench.lean.integrity`, the rule is an
allow-list over the parsed command structure (:mod:`lemmata.lean.structure`), not a
list of refused words:

- context commands: ``import`` of ``Mathlib``, ``Batteries`` or ``Aesop`` modules; ``open``
  (also as ``open ... in``); ``universe``; ``variable``; ``namespace``/``section``/``end``
  and ``noncomputable section`` — they only say which names and binders the statement uses;
- declarations: on the ``statements`` track exactly one ``theorem``/``lemma``/``example`` (the
  statement; its proof may be ``sorry``), optionally after ``def``/``abbrev``/``structure``/
  ``inductive`` declarations it needs; on the ``definitions`` track one or more of those
  kinds plus ``class``, ``instance``, ``theorem`` and ``lemma``; modifiers ``private``,
  ``protected`` and ``noncomputable`` only, and no attributes;
- everything else is refused: ``set_option`` (as a command or an ``in`` prefix), any
  ``#``-command, ``attribute``, ``axiom``/``opaque``, ``macro``/``syntax``/``notation``/
  ``elab``/``initialize`` and the other metaprogramming commands, ``unsafe``/``partial``,
  and inside declarations the proof forms :mod:`lemmata.lean.allowed` refuses
  (``native_decide``, ``decide`` configurations, ``by_elab``, ``run_tac``, quotations,
  interpolated strings...), ``sorry`` excepted.

Each problem names the statement's own 1-based line, so a record's error reads
``formal_statement line 3: ...``.
"""

from __future__ import annotations

from lemmata.lean import allowed
from lemmata.lean.lexer import LexError
from lemmata.lean.structure import Command, parse

#: commands that only say which names and binders a statement uses
CONTEXT_HEADS = frozenset({"import", "open", "universe", "variable", "namespace", "section", "end"})
#: module roots a statement may import
IMPORT_ROOTS = ("Mathlib", "Batteries", "Aesop")
STATEMENT_KEYWORDS = frozenset({"theorem", "lemma", "example"})
SUPPORT_KEYWORDS = frozenset({"def", "abbrev", "structure", "inductive"})
TRACK_KEYWORDS = {
    "statements": STATEMENT_KEYWORDS | SUPPORT_KEYWORDS,
    "definitions": SUPPORT_KEYWORDS | {"class", "instance", "theorem", "lemma"},
}
MODIFIERS = frozenset({"private", "protected", "noncomputable"})


def _context_problem(cmd: Command) -> str | None:
    toks = [t for t in cmd.tokens if t not in cmd.scoped_prefix]
    first = toks[0].text
    if first == "noncomputable" and len(toks) >= 2 and toks[1].text == "section":
        return None
    if first == "import":
        module = toks[1].text if len(toks) > 1 else ""
        if len(toks) != 2 or not (module in IMPORT_ROOTS or module.startswith(tuple(r + "." for r in IMPORT_ROOTS))):
            return (f"`import {module}`: a statement may import only {', '.join(IMPORT_ROOTS)} modules"
                    if module else "`import` names no module")
        return None
    if first in CONTEXT_HEADS:
        return None
    return (f"`{cmd.head}` is not allowed in a formal statement: only imports, `open`, `universe`, `variable`, "
            "namespaces and sections, and declarations")


def _scan(cmd: Command) -> list[tuple[int, str]]:
    """Refused proof and term forms inside a command (``sorry`` is allowed: a statement needs no proof)."""
    own = cmd.tokens[len(cmd.scoped_prefix):]
    return [(line, f"{message.removesuffix(' and is not permitted')}: not allowed in a formal statement")
            for _, line, message in allowed.scan_own_text(own, {}, allow_sorry=True)]


def statement_problems(source: str, track: str) -> list[tuple[int, str]]:
    """``(line, reason)`` for every part of ``source`` a formal statement on ``track`` may not contain.

    >>> statement_problems("import Mathlib\\nopen Real\\ntheorem t (x : ℝ) : x ^ 2 ≥ 0 := by sorry", "statements")
    []
    >>> statement_problems("theorem t : True := trivial\\n#print axioms t", "statements")
    [(2, '`#print` commands are not allowed in a formal statement')]
    >>> statement_problems("set_option maxHeartbeats 0 in\\ntheorem t : True := by decide", "statements")
    [(1, '`set_option ... in` is not allowed in a formal statement')]
    """
    try:
        lean = parse(source)
    except LexError as exc:
        return [(exc.line, f"not readable as Lean: {exc.message}")]
    problems: list[tuple[int, str]] = []
    allowed_kinds = TRACK_KEYWORDS[track]
    statements: list[Command] = []
    declarations = 0
    for cmd in lean.commands:
        for i, tok in enumerate(cmd.scoped_prefix):
            if tok.kind == "ident" and (i == 0 or cmd.scoped_prefix[i - 1].text == "in") and tok.text != "open":
                problems.append((tok.line, f"`{tok.text} ... in` is not allowed in a formal statement"))
        head = cmd.tokens[len(cmd.scoped_prefix)].text if len(cmd.tokens) > len(cmd.scoped_prefix) else cmd.head
        if head.startswith("#") or cmd.head.startswith("#"):
            name = head if head.startswith("#") else cmd.head
            problems.append((cmd.line, f"`{name}` commands are not allowed in a formal statement"))
            continue
        if cmd.decl is None:
            why = _context_problem(cmd)
            if why:
                problems.append((cmd.line, why))
            else:
                problems += _scan(cmd)
            continue
        decl = cmd.decl
        declarations += 1
        if decl.keyword not in allowed_kinds:
            problems.append((cmd.line, f"`{decl.keyword}` declarations are not allowed on the {track} track (allowed: "
                             f"{', '.join(sorted(allowed_kinds))})"))
        if track == "statements" and decl.keyword in STATEMENT_KEYWORDS:
            statements.append(cmd)
        for attr in decl.attributes:
            problems.append((cmd.line, f"attribute `@[{attr}]` is not allowed in a formal statement"))
        for mod in decl.modifiers:
            if mod not in MODIFIERS:
                problems.append((cmd.line, f"modifier `{mod}` is not allowed in a formal statement"))
        problems += _scan(cmd)
    if track == "statements" and len(statements) != 1:
        where = statements[1].line if len(statements) > 1 else (lean.commands[0].line if lean.commands else 1)
        problems.append((where, f"a formal statement holds exactly one theorem, lemma or example; found "
                         f"{len(statements)}"))
    elif declarations == 0:
        problems.append((1, "a formal definition holds at least one declaration; found none"))
    return sorted(set(problems))
