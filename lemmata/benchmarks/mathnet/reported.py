"""The MathNet paper's printed Recall@1/@5 by domain (Table 5) as *reported* leaderboard rows.

Every printed number is kept exactly as printed (stored as a fraction, the printed percent kept in
``provenance``); the rows are ``kind="reported"`` under a scoring artifact naming the paper's table, so
they are never ranked with rows Lemmata scored.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from lemmata.core.models import Frozen
from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE
from lemmata.formats.results import ModelInfo, Result, Score
from lemmata.tracks.reported import (
    PrintedTable, Transcription, frozen_tuple, import_results, percent, pinned_transcription, reported_result,
)

#: the transcription this module reads (shipped in ``transcriptions/``), pinned by sha256
PAPER = Transcription(package=__package__, file="mathnet_paper.json",
                      sha256="429f93b0b6e71cbfe2fdcdb65b18faf11fb222ea8ae6636f40d4be161e58c3fc",
                      paper=MATHNET_RETRIEVE.paper_url, tables=(PrintedTable(name="rows", paper_table="Table 5"),))
TRANSCRIPTION, SHA256 = PAPER.file, PAPER.sha256


def reported_file(source_dir: str | Path | None = None) -> Path:
    """The verified transcription from ``source_dir`` or the package's copy."""
    return pinned_transcription(PAPER, source_dir)


class _Recalls(Frozen):
    recall_1: float = Field(alias="recall@1")
    recall_5: float = Field(alias="recall@5")


class _MathNetRow(Frozen):
    model: str
    algebra: _Recalls
    number_theory: _Recalls
    geometry: _Recalls
    discrete_mathematics: _Recalls
    all: _Recalls


class _MathNetFile(Frozen):
    benchmark: str
    task: str
    paper: str
    metric_unit: str
    similarity: str
    note: str
    rows: list[_MathNetRow]


def mathnet_reported(source_dir: str | Path | None = None) -> list[Result]:
    """The MathNet paper's Table 5 (Recall@1/@5 by domain), one row per embedding model."""
    name = TRANSCRIPTION
    path = reported_file(source_dir)
    table = _MathNetFile.model_validate_json(path.read_bytes())
    frozen = frozen_tuple(MATHNET_RETRIEVE, "paper/table5", "mathnet-paper-table5 (cosine over model embeddings)",
                     "2026-04-20")
    notes = ["Reported in the MathNet paper (arXiv 2604.18584, Table 5) and not re-scored by Lemmata.",
             "The paper's retrieval set by mathematical domain, not the easy/medium/hard tiers of this release; "
             "comparable only with other rows of the paper.", table.note]
    out = []
    for row in table.rows:
        domains = {d: getattr(row, d) for d in ("algebra", "number_theory", "geometry", "discrete_mathematics", "all")}
        out.append(reported_result(
            MATHNET_RETRIEVE, ModelInfo(name=row.model), track="paper", frozen=frozen, sha256=SHA256,
            main=Score(metric="recall@5", value=percent(row.all.recall_5)),
            metrics={"recall@1": percent(row.all.recall_1), "recall@5": percent(row.all.recall_5)},
            breakdowns={"by_domain": {d: {"recall@1": percent(v.recall_1), "recall@5": percent(v.recall_5)}
                                      for d, v in domains.items()}},
            notes=notes,
            provenance={"table": "Table 5", "source": name,
                        "printed_percent": json.loads(row.model_dump_json(by_alias=True))},
        ))
    return out


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the reported rows of both MathNet tasks to a leaderboard store (idempotent: same content, same ids)."""
    from lemmata.benchmarks.mathnet.solve_reported import mathnet_solve_reported

    return import_results(store, [*mathnet_reported(source_dir), *mathnet_solve_reported(source_dir)])
