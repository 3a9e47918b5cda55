"""Beside every board column a judge decides: that judge's agreement with people, or "uncalibrated".

Which columns a judge decides is declared by each family (:class:`~lemmata.core.family.JudgedColumns`, read
through :func:`lemmata.families.judged_columns`), and so is where a result records its judge; the row summary
keeps the judge's id and the rubrics it judged under (:mod:`lemmata.space.rows`). A judge's calibration is the
``CALIBRATION.json`` in its artifact folder under ``<artifacts>/judges/`` (:mod:`lemmata.oracles.calibration`),
matched by judge id and rubrics: a judge calibrated under other rubrics only is "uncalibrated for this rubric". A
number a judge decides reads differently from one Lean or a matcher decides: a visitor sees, on the group itself,
how often that judge agreed with people, or that nobody measured it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lemmata.oracles.calibration import CALIBRATION_FILE, Calibrations, calibration_for, find_calibrations

__all__ = ["JudgeLine", "JudgeNote", "judge_note", "judged_for", "load_calibrations"]

#: the mark after a judge-decided column's header (the group's caption says what it means)
MARK = "⚖"


@dataclass(frozen=True)
class JudgeLine:
    """One judge of a group: what the caption prints and its tooltip."""

    judge: str | None
    text: str
    tip: str
    calibrated: bool


@dataclass(frozen=True)
class JudgeNote:
    """A group's judge-decided columns and a line for each judge that decided them."""

    columns: tuple[str, ...]
    decides: str
    lines: tuple[JudgeLine, ...]

    def covers(self, column: str) -> bool:
        return column in self.columns

    @property
    def tip(self) -> str:
        """What a judge-decided column's header tooltip adds."""
        return f"{MARK} Decided by a judge ({self.decides}): " + "; ".join(line.text for line in self.lines) + "."


def judged_for(benchmark: str | None) -> Any:
    """The family's declaration of ``benchmark``'s judge-decided columns, or None."""
    from lemmata.families import judged_columns

    return judged_columns().get(benchmark) if benchmark else None


def load_calibrations(root: Path | None = None) -> tuple[Calibrations, tuple[str, ...]]:
    """Every judge's calibration under ``root`` (default ``<artifacts>/judges``), read again only when a
    ``CALIBRATION.json`` is added, removed or rewritten; and a line for each that could not be read."""
    from lemmata.core.paths import artifacts_dir

    root = root if root is not None else artifacts_dir() / "judges"
    stamps = []
    for path in sorted(root.glob(f"*/{CALIBRATION_FILE}")) if root.is_dir() else ():
        try:
            stamps.append((str(path.parent), path.stat().st_mtime_ns))
        except OSError:  # removed since listed
            continue
    return _read(tuple(stamps))


@lru_cache(maxsize=8)
def _read(stamps: tuple[tuple[str, int], ...]) -> tuple[Calibrations, tuple[str, ...]]:
    found, problems = find_calibrations(Path(folder) for folder, _ in stamps)
    return found, tuple(problems)


def judge_note(judged: Any, columns: Iterable[str], rows: Sequence[Any],
               calibrations: tuple[Calibrations, Sequence[str]] | None = None) -> JudgeNote | None:
    """The note of a group whose ``columns`` include judge-decided ones (``judged``: the family's declaration), for
    the judges of its ``rows``; None when none of its columns is judge-decided.

    >>> from lemmata.core.family import JudgedColumns
    >>> from types import SimpleNamespace as Row
    >>> judged = JudgedColumns(benchmark="b", columns=("correct",), judge="provenance.judge.id", decides="faithfulness")
    >>> note = judge_note(judged, ("correct", "compile_rate"), [Row(judge="chat:m", kind="scored")], ({}, ()))
    >>> note.columns, [line.text for line in note.lines]
    (('correct',), ['chat:m: uncalibrated'])
    >>> judge_note(judged, ("compile_rate",), [], ({}, ())) is None
    True
    """
    covered = tuple(dict.fromkeys(c for c in columns if c and judged.covers(c)))
    if not covered:
        return None
    found, problems = calibrations if calibrations is not None else load_calibrations()
    unread = f" ({len(problems)} calibration file(s) could not be read: {problems[0]})" if problems else ""
    lines = []
    for judge, rubrics in sorted({(r.judge, tuple(getattr(r, "judge_rubrics", ()))) for r in rows
                                  if getattr(r, "judge", None)}):
        cal, others = calibration_for(found, judge, rubrics)
        under = ", ".join(rubrics) or "unrecorded rubrics"
        if cal is not None:
            lines.append(JudgeLine(judge, f"{judge}: {cal.summary()}", cal.detail(), True))
        elif others:
            measured = "; ".join(f"on {c.measured_on or c.release} under "
                                 + (", ".join(c.rubric_ids) or "unrecorded rubrics") for c in others)
            lines.append(JudgeLine(judge, f"{judge}: uncalibrated for this rubric",
                                   f"Judge {judge} decided these columns under {under}; it was calibrated only "
                                   f"{measured}: how often it agrees with people under this rubric is "
                                   f"unmeasured{unread}.", False))
        else:
            lines.append(JudgeLine(judge, f"{judge}: uncalibrated",
                                   f"No calibration is recorded for judge {judge}: how often it agrees with people "
                                   f"is unmeasured{unread}.", False))
    if any(getattr(r, "judge", None) is None and r.kind == "reported" for r in rows):
        lines.append(JudgeLine(None, "the paper's own judge (reported rows): uncalibrated",
                               "Reported rows were judged by the paper's judge, whose agreement with people this "
                               "board has not measured.", False))
    if any(getattr(r, "judge", None) is None and r.kind != "reported" and not getattr(r, "integrity", None)
           for r in rows):
        lines.append(JudgeLine(None, "no judge yet: its verdicts are pending",
                               "Scored without a judge: the judge-decided verdicts await one (`lemmata judge`).",
                               False))
    return JudgeNote(columns=covered, decides=judged.decides, lines=tuple(lines))
