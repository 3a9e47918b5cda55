"""The MathAtlas paper's printed statement-autoformalization results as *reported* leaderboard rows.

Every printed number is kept exactly as printed; where printed correctness disagrees with what its own
printed parts imply by more than rounding can explain, the row carries a visible flag with both numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lemmata.core.models import Frozen
from lemmata.benchmarks.mathatlas.meta import MATHATLAS
from lemmata.formats.results import ModelInfo, Result, Score
from lemmata.tracks.reported import (
    PrintedTable, Transcription, flag_disagreement, frozen_tuple, import_results, percent, pinned_transcription,
    reported_result,
)

#: the transcription this module reads (shipped in ``transcriptions/``), pinned by sha256; the paper's table
#: numbers were not recorded with it
PAPER = Transcription(package=__package__, file="mathatlas_paper.json",
                      sha256="466bc748010b4533c094d3917e1b296d9aee398e48e8a8b4bc2a077f9dc25e64",
                      paper=MATHATLAS.paper_url,
                      tables=(PrintedTable(name="statements_full", paper_table=None),
                              PrintedTable(name="statements_open_split", paper_table=None)))
TRANSCRIPTION, SHA256 = PAPER.file, PAPER.sha256


def reported_file(source_dir: str | Path | None = None) -> Path:
    """The verified transcription from ``source_dir`` or the package's copy."""
    return pinned_transcription(PAPER, source_dir)


class _AtlasRow(Frozen):
    model: str
    kind: str
    compiles: float
    faithful_given_compiles: float
    correct: float


class _AtlasTable(Frozen):
    name: str
    rows: list[_AtlasRow]


class _AtlasFile(Frozen):
    benchmark: str
    paper: str
    metric_unit: str
    definitions: dict[str, str]
    note: str
    tables: list[_AtlasTable]


def mathatlas_reported(source_dir: str | Path | None = None) -> list[Result]:
    """The MathAtlas paper's statement tables (full benchmark and open split), one row per system and table.

    Correct should equal compile rate × faithful-given-compiles up to rounding (one decimal each); a printed value
    further off is kept as printed and flagged (``flags["correct_disagrees"]``) with both numbers.
    """
    name = TRANSCRIPTION
    path = reported_file(source_dir)
    data = _AtlasFile.model_validate_json(path.read_bytes())
    out = []
    for table in data.tables:
        frozen = frozen_tuple(MATHATLAS, f"paper/{table.name}",
                         "mathatlas-paper (Lean 4 v4.24.0; faithfulness: CriticLean 32B)", "2026-05-13")
        for row in table.rows:
            implied = row.compiles * row.faithful_given_compiles / 100.0
            tolerance = 0.05 * (row.compiles + row.faithful_given_compiles) / 100.0 + 0.05
            flags: dict[str, Any] = {"system_kind": row.kind}
            notes = ["Reported in the MathAtlas paper (arXiv 2605.14061) and not re-scored by Lemmata.", data.note]
            flag_disagreement(flags, notes, "correct_disagrees", row.correct, implied, round(tolerance, 4),
                              f"Printed correctness {row.correct:.1f} differs from compile rate × "
                              f"faithful-given-compiles ({implied:.2f})")
            out.append(reported_result(
                MATHATLAS, ModelInfo(name=row.model), track="statements", frozen=frozen, sha256=SHA256, flags=flags,
                main=Score(metric="correct", value=percent(row.correct)),
                metrics={"correct": percent(row.correct), "compile_rate": percent(row.compiles),
                         "faithful_given_compiles": percent(row.faithful_given_compiles)},
                notes=notes,
                provenance={"table": table.name, "source": name, "definitions": data.definitions,
                            "printed_percent": row.model_dump(include={"compiles", "faithful_given_compiles",
                                                                       "correct"})},
            ))
    return out


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the reported rows to a leaderboard store (idempotent: same content, same ids)."""
    return import_results(store, mathatlas_reported(source_dir))
