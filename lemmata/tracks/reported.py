"""What every family's *reported* rows share: pinned transcriptions, printed-number helpers, the import.

A paper's published numbers become ``kind="reported"`` results tied to the
paper's own artifacts, never ranked with rows scored here. Each family's
``reported`` module (declared in its :class:`~lemmata.core.family.Family`)
declares its transcription as a :class:`Transcription` — the file, its sha256
and where its numbers were printed (paper, table, page) — and reads it through
:func:`pinned_transcription`, so a changed transcription is noticed, never
silently used. The transcriptions ship inside the package (the family's
``transcriptions/`` folder), so an installed copy shows every paper's rows
without any local mirror of upstream files.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import Field

from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_file
from lemmata.core.models import Frozen
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, make_result

__all__ = [
    "PrintedTable", "Transcription", "disagreement", "flag_disagreement", "frozen_tuple", "import_results", "percent",
    "pinned_transcription", "reported_result",
]

#: the folder of a family package that holds its papers' transcriptions (package data)
TRANSCRIPTIONS = "transcriptions"


class PrintedTable(Frozen):
    """One printed table a transcription holds: its name in the file, and where the paper prints it."""

    name: str = Field(description="the table's name in the transcription file (or the file's only table)")
    paper_table: str | None = Field(description="the paper's own label, e.g. 'Table 9'; None: the transcription "
                                                "does not record it")
    page: int | None = Field(default=None, ge=1,
                             description="page of the paper's PDF; None: not recorded with the transcription and "
                                         "not checkable offline")


class Transcription(Frozen):
    """A paper's tables transcribed into one JSON file shipped in a family package, pinned by sha256.

    The sha256 is the rows' ``submission_sha256``: a transcription changed by one digit is refused, never shown.
    """

    package: str = Field(description="the family package whose transcriptions/ folder holds the file")
    file: str = Field(pattern=r"^[a-z0-9_]+\.json$")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    paper: str = Field(description="the paper's address (arXiv abstract page)")
    tables: tuple[PrintedTable, ...] = Field(min_length=1)

    def packaged(self) -> Path:
        """The shipped copy (inside the installed package, wherever it lives)."""
        from importlib import resources

        return Path(str(resources.files(self.package) / TRANSCRIPTIONS / self.file))


def pinned_transcription(transcription: Transcription, source: str | Path | None = None, *,
                         missing: str = "missing transcription of the paper's table") -> Path:
    """The transcription (from ``source``, a file or a folder holding it, else the package's copy), sha256-checked."""
    if source is None:
        path = transcription.packaged()
    else:
        path = Path(source)
        if path.is_dir():
            path = path / transcription.file
    if not path.is_file():
        raise InputError.one(str(path), missing)
    actual = sha256_file(path)
    if actual != transcription.sha256:
        raise InputError.one(str(path), f"sha256 mismatch: expected {transcription.sha256}, found {actual}")
    return path


def percent(value: float) -> float:
    """A printed percentage as a fraction (the unit of every scored result).

    >>> percent(57.7)
    0.577
    """
    return round(value / 100.0, 10)


def disagreement(printed: float, implied: float, tolerance: float) -> dict[str, Any] | None:
    """The flag for a printed aggregate that its printed parts do not support, or None within ``tolerance``.

    >>> disagreement(55.2, 50.1042, 0.01)["difference"]
    5.0958
    >>> disagreement(32.23, 32.2258, 0.01) is None
    True
    """
    diff = printed - implied
    if math.isclose(abs(diff), tolerance) or abs(diff) <= tolerance:
        return None
    return {"printed": printed, "implied": round(implied, 4), "difference": round(diff, 4), "tolerance": tolerance}


def flag_disagreement(flags: dict[str, Any], notes: list[str], key: str, printed: float, implied: float,
                      tolerance: float, what: str) -> None:
    """Flag a printed aggregate its printed parts do not support: ``flags[key]`` gets the :func:`disagreement`
    and the first note says ``what`` differs; within ``tolerance`` nothing is added.

    >>> flags, notes = {}, ["printed"]
    >>> flag_disagreement(flags, notes, "mean_disagrees", 55.2, 50.1042, 0.01, "Printed mean 55.2 differs")
    >>> list(flags), notes[0]
    (['mean_disagrees'], 'Printed mean 55.2 differs; shown as printed, not corrected.')
    """
    flag = disagreement(printed, implied, tolerance)
    if flag:
        flags[key] = flag
        notes.insert(0, f"{what}; shown as printed, not corrected.")


def frozen_tuple(meta, split: str, artifact: str, date: str) -> FrozenTuple:
    """The frozen tuple of a paper's table: the release, the paper's split and table, no retrieval artifact."""
    return FrozenTuple(dataset_release=meta.release_id, split=split, retrieval_artifact=None,
                       scoring_artifact=artifact, date=date)


def reported_result(meta, model: ModelInfo, *, track: str, frozen: FrozenTuple, sha256: str,
                    flags: dict[str, Any] | None = None, provenance: dict[str, Any], **fields: Any) -> Result:
    """One printed row as a ``kind="reported"`` result of ``meta``'s benchmark, bound to its transcription's sha256.

    Its flags start with ``reported`` and its provenance with the paper; the caller's entries follow in their
    order, which the stored bytes keep.
    """
    return make_result(kind="reported", benchmark=meta.name, track=track, frozen=frozen, submission_sha256=sha256,
                       model=model, flags={"reported": True, **(flags or {})},
                       provenance={"paper": meta.paper_url, **provenance}, **fields)


def import_results(store, results: Iterable[Result]) -> list[tuple[Result, bool]]:
    """Add reported rows to a leaderboard store (idempotent: same content, same ids)."""
    return [store.add_result(r) for r in results]
