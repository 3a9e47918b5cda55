"""The MIRB paper's printed nDCG@10 per dataset as *reported* leaderboard rows.

Every printed number is kept exactly as printed. Where a printed average disagrees with the mean of its
own printed cells by more than rounding can explain, the printed value stays and the row carries a
visible flag with both numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from lemmata.benchmarks.mirb.meta import DATASETS, MIRB
from lemmata.core.errors import InputError
from lemmata.core.models import Frozen
from lemmata.formats.results import ModelInfo, Result, Score
from lemmata.tracks.reported import (
    PrintedTable, Transcription, flag_disagreement, frozen_tuple, import_results, percent, pinned_transcription,
    reported_result,
)

#: the transcription this module reads (shipped in ``transcriptions/``), pinned by sha256
PAPER = Transcription(package=__package__, file="mirb_paper.json",
                      sha256="586466469d583c8339d2727015f4e4d740688d37187eed3c5de6a466a982b5aa",
                      paper=MIRB.paper_url, tables=(PrintedTable(name="rows", paper_table="Table 9"),))
TRANSCRIPTION, SHA256 = PAPER.file, PAPER.sha256
#: one unit in the last printed digit of a two-decimal percentage: the most rounding can move a mean
MIRB_TOLERANCE = 0.01


def reported_file(source_dir: str | Path | None = None) -> Path:
    """The verified transcription from ``source_dir`` or the package's copy."""
    return pinned_transcription(PAPER, source_dir)


class _MirbRow(Frozen):
    model: str
    ndcg_at_10: dict[str, float] = Field(alias="ndcg@10")
    reported_average: float


class _MirbFile(Frozen):
    benchmark: str
    paper: str
    metric: str
    metric_unit: str
    note: str
    datasets: list[str]
    rows: list[_MirbRow]


def mirb_reported(source_dir: str | Path | None = None) -> list[Result]:
    """The MIRB paper's Table 9 (nDCG@10 on twelve datasets and the printed average), one row per model.

    A printed average further than :data:`MIRB_TOLERANCE` from the mean of its twelve printed cells is kept as
    printed and flagged (``flags["average_disagrees"]``) with both numbers.
    """
    name = TRANSCRIPTION
    path = reported_file(source_dir)
    table = _MirbFile.model_validate_json(path.read_bytes())
    if tuple(table.datasets) != DATASETS:
        raise InputError.one(str(path), f"datasets {table.datasets} are not MIRB's twelve {list(DATASETS)}",
                             field="datasets")
    for i, row in enumerate(table.rows):
        if tuple(row.ndcg_at_10) != DATASETS:
            raise InputError.one(str(path), f"{row.model}: cells {list(row.ndcg_at_10)} are not the twelve datasets",
                                 field=f"rows[{i}].ndcg@10")
    frozen = frozen_tuple(MIRB, "qrels/all-tasks", "mirb-paper-table9", "2025-05-21")
    out = []
    for row in table.rows:
        implied = sum(row.ndcg_at_10.values()) / len(row.ndcg_at_10)
        notes = ["Reported in the MIRB paper (arXiv 2505.15585, Table 9) and not re-scored by Lemmata; "
                 "NaturalProofs is the paper's mean of its four subsets.", table.note]
        flags: dict[str, Any] = {}
        flag_disagreement(flags, notes, "average_disagrees", row.reported_average, implied, MIRB_TOLERANCE,
                          f"Printed average {row.reported_average:.2f} differs from the mean of the twelve printed "
                          f"cells ({implied:.2f})")
        out.append(reported_result(
            MIRB, ModelInfo(name=row.model), track="zero-shot", frozen=frozen, sha256=SHA256, flags=flags,
            main=Score(metric="ndcg@10 (MIRB average)", value=percent(row.reported_average), total=len(DATASETS)),
            metrics={"average": percent(row.reported_average),
                     "per_dataset": {d: percent(v) for d, v in row.ndcg_at_10.items()},
                     "mean_of_printed_cells": round(implied / 100.0, 10)},
            notes=notes,
            provenance={"table": "Table 9", "source": name,
                        "printed_percent": {"ndcg@10": row.ndcg_at_10, "average": row.reported_average}},
        ))
    return out


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the reported rows to a leaderboard store (idempotent: same content, same ids)."""
    return import_results(store, mirb_reported(source_dir))
