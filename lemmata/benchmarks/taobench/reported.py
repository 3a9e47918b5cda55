"""The TaoBench paper's published numbers as *reported* leaderboard rows.

The paper's counts (solved exercises out of 150, per formulation) come from its
own evaluation harness and Lean setup, not from Lemmata's verifier artifact, so
each table is imported as ``kind="reported"`` results whose scoring artifact is
the paper's table: they are never ranked with scored rows nor with each other
across tables (pass@128, pass@8 and a tree-search budget are different
measures). The transcription file is pinned by sha256; every count is kept as
printed, and no interval is invented (the paper releases no per-exercise data).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from lemmata.benchmarks.taobench.meta import TAOBENCH_150
from lemmata.core.errors import InputError
from lemmata.core.models import Frozen
from lemmata.tracks.reported import PrintedTable, Transcription, import_results, pinned_transcription
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result
from lemmata.benchmarks.taobench.submission import BENCHMARK, TRACK

PAPER_ID = "2603.12744"
#: the transcription this module reads (shipped in ``transcriptions/``), pinned by sha256; the paper's table
#: numbers were not recorded with it
PAPER = Transcription(package=__package__, file="taobench_paper.json",
                      sha256="a2717cdbceab2761ecc1f3ec6f8d65fc300b2847aefebdd7fcd312b70ec9126a",
                      paper=TAOBENCH_150.paper_url,
                      tables=tuple(PrintedTable(name=n, paper_table=None) for n in (
                          "main_pass@128", "without_local_context_pass@128", "frontier_pass@8", "tree_search")))
#: the name rows record as their transcription (kept as first published, so the rows' ids do not change)
REPORTED_FILE = f"reported/{PAPER.file}"
REPORTED_SHA256 = PAPER.sha256
PAPER_DATE = "2026-03-13"
PAPER_TOTAL = 150


class PaperRow(Frozen):
    model: str = Field(min_length=1)
    tao: int | None = Field(default=None, ge=0, le=PAPER_TOTAL)
    mathlib: int | None = Field(default=None, ge=0, le=PAPER_TOTAL)


class PaperTable(Frozen):
    name: str
    metric: str
    note: str = ""
    rows: list[PaperRow]


class PaperFile(Frozen):
    benchmark: Literal["taobench"]
    paper: str
    split: Literal["taobench-150"]
    n: Literal[150]
    note: str
    tables: list[PaperTable]


def load_paper_file(path: str | Path | None = None) -> tuple[PaperFile, Path]:
    """The pinned transcription (default: the package's copy), sha256-checked."""
    path = pinned_transcription(PAPER, path, missing="the TaoBench paper's transcribed tables are missing")
    try:
        return PaperFile.model_validate_json(path.read_bytes()), path
    except ValueError as exc:
        raise InputError.one(str(path), f"not the expected layout of the paper's tables: {exc}") from None


def _rate(count: int | None) -> dict | None:
    return None if count is None else {"count": count, "total": PAPER_TOTAL, "rate": count / PAPER_TOTAL}


def reported_results(path: str | Path | None = None) -> list[Result]:
    """One reported result per table row, in the paper's order."""
    paper, _ = load_paper_file(path)
    results = []
    for table in paper.tables:
        frozen = FrozenTuple(dataset_release=TAOBENCH_150.release_id, split="pairs/test", retrieval_artifact=None,
                             scoring_artifact=f"taobench-paper-{PAPER_ID}:{table.name}", date=PAPER_DATE)
        for row in table.rows:
            main_f = "tao" if row.tao is not None else "mathlib"
            count = getattr(row, main_f)
            metrics = {"tao": _rate(row.tao), "mathlib": _rate(row.mathlib), "metric": table.metric}
            if row.tao is not None and row.mathlib is not None:
                metrics["gap"] = {"difference": (row.tao - row.mathlib) / PAPER_TOTAL,
                                  "relative_drop": (row.mathlib - row.tao) / row.mathlib if row.mathlib else None}
            notes = [f"Reported in the TaoBench paper (arXiv {PAPER_ID}), table {table.name!r}; not re-scored by "
                     "Lemmata. Counts are solved exercises out of 150; comparable only with rows of the same table."]
            if table.note:
                notes.append(table.note)
            if row.tao is None:
                notes.append("No Tao-formulation number printed for this row; the headline is the Mathlib twin.")
            results.append(make_result(
                kind="reported", benchmark=BENCHMARK, track=TRACK, frozen=frozen, submission_sha256=REPORTED_SHA256,
                model=ModelInfo(name=row.model), flags={"reported": True, "table": table.name},
                main=Score(metric=f"{table.metric} ({main_f})", value=count / PAPER_TOTAL if count is not None else None,
                           count=count, total=PAPER_TOTAL),
                metrics=metrics, notes=notes,
                provenance={"paper": TAOBENCH_150.paper_url, "transcription": REPORTED_FILE,
                            "transcription_sha256": REPORTED_SHA256, "table": table.name, "printed": row.model_dump()},
                scored_at=f"{PAPER_DATE}T00:00:00+00:00",
            ))
    return results


def import_reported(store, path: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the paper's rows to a leaderboard store (idempotent: same content, same ids)."""
    return import_results(store, reported_results(path))
