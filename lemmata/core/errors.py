"""The exception root, and errors that point at the offending file, line and field.

Every exception Lemmata raises on purpose derives from :class:`Error`, so a caller
can catch Lemmata's failures without catching a programming error. Two kinds matter:

- :class:`InputError` — bad input: one :class:`Problem` per defect (file, line,
  field, reason), so a user fixes a file in one round trip;
- :class:`LemmataError` — a failure that is not the user's input (no network, a
  missing oracle, a damaged artifact): one clear sentence, no traceback in the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class Error(Exception):
    """Root of every exception Lemmata raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One defect in one input: where it is and why it is wrong."""

    file: str
    reason: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.field:
            where += f", field {self.field!r}"
        return f"{where}: {self.reason}"

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "field": self.field, "reason": self.reason}


#: the field of a Problem that says a check was not run and why: a note next to the problems, not one of them
CHECKS = "checks"
#: problems the text of an :class:`InputError` lists at most; the rest are counted. Readers of hostile input cap
#: their own lists far lower (uploads: 200); this bound holds for every reader, so no input makes a report unbounded
SHOWN_PROBLEMS = 1_000


@dataclass
class InputError(Error, ValueError):
    """Raised when an input file is unusable; carries every problem found.

    Problems whose field is :data:`CHECKS` move to ``skipped``: they say which
    checks could not run because of the problems (records cannot be checked
    against a release the header does not validly name), so they are shown but
    not counted.
    """

    problems: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        notes = [p for p in self.problems if p.field == CHECKS]
        if notes:
            self.problems = [p for p in self.problems if p.field != CHECKS]
            self.skipped = [*self.skipped, *notes]
        # the exception's argument is the one-line count, not the full list: a hostile file can hold millions of
        # problems, and str(self) (what the CLI prints) is only ever built from a capped list
        super().__init__(self._head())

    def _head(self) -> str:
        n = len(self.problems)
        return "invalid input" if not n else (f"{n} problem(s) found" if n > 1 else "1 problem found")

    def __str__(self) -> str:
        """The count, then every problem up to :data:`SHOWN_PROBLEMS` and how many more there are.

        >>> text = str(InputError([Problem("f", "bad", i) for i in range(1, SHOWN_PROBLEMS + 3)]))
        >>> text.splitlines()[0], text.splitlines()[-1], len(text.splitlines())
        ('1002 problem(s) found:', '  - … and 2 more problems, not listed', 1002)
        """
        if not self.problems:
            return "invalid input"
        lines = [f"  - {p}" for p in self.problems[:SHOWN_PROBLEMS]]
        more = len(self.problems) - SHOWN_PROBLEMS
        if more > 0:
            lines.append(f"  - … and {more:,} more problem{'s' if more != 1 else ''}, not listed")
        return self._head() + ":\n" + "\n".join(lines)

    @classmethod
    def one(cls, file: str, reason: str, line: int | None = None, field: str | None = None) -> "InputError":
        return cls([Problem(file=file, reason=reason, line=line, field=field)])


class LemmataError(Error, RuntimeError):
    """A failure that is not the user's input: one clear sentence, no traceback in the CLI."""
