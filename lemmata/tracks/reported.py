"""What every family's *reported* rows share: pinned transcriptions, printed-number helpers, the import.

A paper's published numbers become ``kind="reported"`` results tied to the
paper's own artifacts, never ranked with rows scored here. Each family's
``reported`` module (declared in its :class:`~lemmata.core.family.Family`)
reads its transcription through :func:`pinned_transcription`, so a changed
transcription is noticed, never silently used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, LemmataError
from lemmata.core.hashing import sha256_file
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, make_result

__all__ = [
    "disagreement", "flag_disagreement", "frozen_tuple", "import_results", "percent", "pinned_transcription",
    "reported_result",
]


def pinned_transcription(name: str, sha256: str, source: str | Path | None = None, *,
                         missing: str = "missing transcription of the paper's table") -> Path:
    """The transcription ``name`` (a file, a folder holding it, or the mirror's ``reported/`` folder), sha256-checked."""
    from lemmata.core.paths import mirror_root

    if source is None:
        root = mirror_root()
        if root is None:
            raise LemmataError(f"no local mirror of upstream files holds reported/{name}; set LEMMATA_MIRROR")
        path = root / "reported" / name
    else:
        path = Path(source)
        if path.is_dir():
            path = path / name
    if not path.is_file():
        raise InputError.one(str(path), missing)
    actual = sha256_file(path)
    if actual != sha256:
        raise InputError.one(str(path), f"sha256 mismatch: expected {sha256}, found {actual}")
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
