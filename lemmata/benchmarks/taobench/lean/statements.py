"""The exercise inside an official file: which declaration it is, its statement, its context.

Upstream names every pair by a chapter-qualified ``FQN`` (``Chapter5.Real.LIM_of_ge``),
but a file may declare it outside that namespace (``Real.LIM_of_ge`` after
``end Chapter5``) and the Mathlib twins wrap everything in ``namespace New_Namespace``
or ``TaoBench`` and sometimes rename the theorem (``mem_powerset`` →
``mem_powerset_iff``). :func:`locate` resolves the FQN to exactly one declaration:
the exact full name; else the unique declaration sharing the longest dotted
suffix with the FQN; else the file's only declaration. Anything else is an error
naming the file, so the release never guesses.
"""

from __future__ import annotations

from dataclasses import dataclass

from lemmata.core.errors import Error
from lemmata.lean.lexer import Token
from lemmata.lean.structure import Command, LeanFile, parse


class LocateError(Error, ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Exercise:
    """The target declaration of an official file and what surrounds it."""

    file: LeanFile
    index: int
    """position of the target among ``file.commands``"""
    how: str
    """``exact`` | ``suffix`` | ``only`` — how the FQN was resolved"""

    @property
    def command(self) -> Command:
        return self.file.commands[self.index]

    @property
    def decl_name(self) -> str:
        return self.command.decl.full_name  # type: ignore[union-attr]

    @property
    def prefix(self) -> tuple[Command, ...]:
        return self.file.commands[: self.index]

    @property
    def suffix(self) -> tuple[Command, ...]:
        return self.file.commands[self.index + 1:]

    @property
    def statement_tokens(self) -> tuple[Token, ...]:
        return self.command.decl.header  # type: ignore[union-attr]

    @property
    def statement(self) -> str:
        """The statement as written upstream (declaration keyword to the body, comments kept)."""
        toks = self.statement_tokens
        return self.file.source[toks[0].start: toks[-1].end]

    @property
    def statement_line(self) -> int:
        return self.statement_tokens[0].line

    def body_span(self) -> tuple[int, int]:
        """Character offsets of the official body (``:= by sorry`` ...) that a proof replaces."""
        cmd = self.command
        body = cmd.decl.body  # type: ignore[union-attr]
        if body:
            return body[0].start, body[-1].end
        end = self.statement_tokens[-1].end
        return end, end

    def complete(self, proof: str, helpers: str = "") -> str:
        """The official file with the target's body replaced by ``proof`` (``:= by ...`` text), and ``helpers``
        (declarations of the attempt's own, ending in a blank line) placed just before the exercise.

        This is what an honest attempt looks like: every official line kept,
        the exercise's own body swapped for the proof, helpers where the
        integrity rules allow them (after the official context, before the exercise).
        """
        start, end = self.body_span()
        at = with_doc_start(self.file, self.command)
        source = self.file.source
        return source[:at] + helpers + source[at:start] + proof + source[end:]


def with_doc_start(lean: LeanFile, cmd: Command) -> int:
    """Where ``cmd`` starts with its doc comment (``/-- … -/`` followed only by whitespace), or its first token."""
    docs = [c for c in lean.comments if c.kind == "doc" and c.end <= cmd.start]
    if docs and not lean.source[docs[-1].end:cmd.start].strip():
        return docs[-1].start
    return cmd.start


def _common_suffix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def locate(source: str | LeanFile, fqn: str) -> Exercise:
    """Resolve ``fqn`` to the one declaration of an official file that is the exercise."""
    lean = parse(source) if isinstance(source, str) else source
    decls = [(i, c) for i, c in enumerate(lean.commands) if c.decl is not None and c.decl.full_name]
    exact = [(i, c) for i, c in decls if c.decl.full_name == fqn]
    if len(exact) == 1:
        return Exercise(lean, exact[0][0], "exact")
    if len(exact) > 1:
        raise LocateError(f"{fqn} is declared {len(exact)} times", exact[1][1].line)
    parts = fqn.split(".")
    scored = sorted(((_common_suffix(c.decl.full_name.split("."), parts), i) for i, c in decls), reverse=True)
    if scored and scored[0][0] > 0 and (len(scored) == 1 or scored[0][0] > scored[1][0]):
        return Exercise(lean, scored[0][1], "suffix")
    if len(decls) == 1:
        return Exercise(lean, decls[0][0], "only")
    if scored and scored[0][0] > 0:
        tied = [lean.commands[i].decl.full_name for s, i in scored if s == scored[0][0]]
        raise LocateError(f"{fqn} matches several declarations equally well: {', '.join(tied)}")
    raise LocateError(f"no declaration matches {fqn} (declared: "
                      f"{', '.join(c.decl.full_name for _, c in decls) or 'none'})")
