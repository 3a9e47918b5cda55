"""The MathNet, MIRB and MathAtlas papers' printed numbers as *reported* leaderboard rows.

Each file in the mirror's ``reported/`` folder is a transcription of a paper's
table, pinned here by sha256. Every printed number is kept exactly as printed
(stored as a fraction, the printed percent kept in ``provenance``); the rows are
``kind="reported"`` under a scoring artifact naming the paper's table, so they
are never ranked with rows Lemmata scored. Where a printed aggregate disagrees
with what its own printed cells imply by more than rounding can explain, the
printed value stays and the row carries a visible flag with both numbers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.benchmarks.mathatlas import MATHATLAS
from lemmata.benchmarks.mathnet import MATHNET_RETRIEVE
from lemmata.benchmarks.mirb import DATASETS, MIRB
from lemmata.errors import InputError, LemmataError
from lemmata.hashing import sha256_file
from lemmata.results import FrozenTuple, ModelInfo, Result, Score, make_result

#: transcription file -> sha256 (a changed transcription is noticed, never silently used)
PINNED = {
    "mathnet_paper.json": "429f93b0b6e71cbfe2fdcdb65b18faf11fb222ea8ae6636f40d4be161e58c3fc",
    "mirb_paper.json": "586466469d583c8339d2727015f4e4d740688d37187eed3c5de6a466a982b5aa",
    "mathatlas_paper.json": "466bc748010b4533c094d3917e1b296d9aee398e48e8a8b4bc2a077f9dc25e64",
}
#: one unit in the last printed digit of a two-decimal percentage: the most rounding can move a mean
MIRB_TOLERANCE = 0.01


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def reported_file(name: str, source_dir: str | Path | None = None) -> Path:
    """The verified transcription ``name`` from ``source_dir`` or the mirror's ``reported/`` folder."""
    from lemmata.paths import mirror_root

    if source_dir is not None:
        path = Path(source_dir) / name
    else:
        root = mirror_root()
        if root is None:
            raise LemmataError(f"no local mirror of upstream files holds reported/{name}; set LEMMATA_MIRROR")
        path = root / "reported" / name
    if not path.is_file():
        raise InputError.one(str(path), "missing transcription of the paper's table")
    actual = sha256_file(path)
    if actual != PINNED[name]:
        raise InputError.one(str(path), f"sha256 mismatch: expected {PINNED[name]}, found {actual}")
    return path


def _percent(value: float) -> float:
    """A printed percentage as a fraction (the unit of every scored result).

    >>> _percent(57.7)
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


def _frozen(meta, split: str, artifact: str, date: str) -> FrozenTuple:
    return FrozenTuple(dataset_release=meta.release_id, split=split, retrieval_artifact=None,
                       scoring_artifact=artifact, date=date)


# -- MathNet --------------------------------------------------------------------------------------------------

class _Recalls(_Strict):
    recall_1: float = Field(alias="recall@1")
    recall_5: float = Field(alias="recall@5")


class _MathNetRow(_Strict):
    model: str
    algebra: _Recalls
    number_theory: _Recalls
    geometry: _Recalls
    discrete_mathematics: _Recalls
    all: _Recalls


class _MathNetFile(_Strict):
    benchmark: str
    task: str
    paper: str
    metric_unit: str
    similarity: str
    note: str
    rows: list[_MathNetRow]


def mathnet_reported(source_dir: str | Path | None = None) -> list[Result]:
    """The MathNet paper's Table 5 (Recall@1/@5 by domain), one row per embedding model."""
    name = "mathnet_paper.json"
    path = reported_file(name, source_dir)
    table = _MathNetFile.model_validate_json(path.read_bytes())
    frozen = _frozen(MATHNET_RETRIEVE, "paper/table5", "mathnet-paper-table5 (cosine over model embeddings)",
                     "2026-04-20")
    notes = ["Reported in the MathNet paper (arXiv 2604.18584, Table 5) and not re-scored by Lemmata.",
             "The paper's retrieval set by mathematical domain, not the easy/medium/hard tiers of this release; "
             "comparable only with other rows of the paper.", table.note]
    out = []
    for row in table.rows:
        domains = {d: getattr(row, d) for d in ("algebra", "number_theory", "geometry", "discrete_mathematics", "all")}
        out.append(make_result(
            kind="reported", benchmark=MATHNET_RETRIEVE.name, track="paper", frozen=frozen,
            submission_sha256=PINNED[name], model=ModelInfo(name=row.model), flags={"reported": True},
            main=Score(metric="recall@5", value=_percent(row.all.recall_5)),
            metrics={"recall@1": _percent(row.all.recall_1), "recall@5": _percent(row.all.recall_5)},
            breakdowns={"by_domain": {d: {"recall@1": _percent(v.recall_1), "recall@5": _percent(v.recall_5)}
                                      for d, v in domains.items()}},
            notes=notes,
            provenance={"paper": MATHNET_RETRIEVE.paper_url, "table": "Table 5", "source": name,
                        "printed_percent": json.loads(row.model_dump_json(by_alias=True))},
        ))
    return out


# -- MIRB -----------------------------------------------------------------------------------------------------

class _MirbRow(_Strict):
    model: str
    ndcg_at_10: dict[str, float] = Field(alias="ndcg@10")
    reported_average: float


class _MirbFile(_Strict):
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
    name = "mirb_paper.json"
    path = reported_file(name, source_dir)
    table = _MirbFile.model_validate_json(path.read_bytes())
    if tuple(table.datasets) != DATASETS:
        raise InputError.one(str(path), f"datasets {table.datasets} are not MIRB's twelve {list(DATASETS)}",
                             field="datasets")
    for i, row in enumerate(table.rows):
        if tuple(row.ndcg_at_10) != DATASETS:
            raise InputError.one(str(path), f"{row.model}: cells {list(row.ndcg_at_10)} are not the twelve datasets",
                                 field=f"rows[{i}].ndcg@10")
    frozen = _frozen(MIRB, "qrels/all-tasks", "mirb-paper-table9", "2025-05-21")
    out = []
    for row in table.rows:
        implied = sum(row.ndcg_at_10.values()) / len(row.ndcg_at_10)
        flag = disagreement(row.reported_average, implied, MIRB_TOLERANCE)
        notes = ["Reported in the MIRB paper (arXiv 2505.15585, Table 9) and not re-scored by Lemmata; "
                 "NaturalProofs is the paper's mean of its four subsets.", table.note]
        flags: dict[str, Any] = {"reported": True}
        if flag:
            flags["average_disagrees"] = flag
            notes.insert(0, f"Printed average {row.reported_average:.2f} differs from the mean of the twelve printed "
                            f"cells ({implied:.2f}); shown as printed, not corrected.")
        out.append(make_result(
            kind="reported", benchmark=MIRB.name, track="zero-shot", frozen=frozen,
            submission_sha256=PINNED[name], model=ModelInfo(name=row.model), flags=flags,
            main=Score(metric="ndcg@10 (MIRB average)", value=_percent(row.reported_average), total=len(DATASETS)),
            metrics={"average": _percent(row.reported_average),
                     "per_dataset": {d: _percent(v) for d, v in row.ndcg_at_10.items()},
                     "mean_of_printed_cells": round(implied / 100.0, 10)},
            notes=notes,
            provenance={"paper": MIRB.paper_url, "table": "Table 9", "source": name,
                        "printed_percent": {"ndcg@10": row.ndcg_at_10, "average": row.reported_average}},
        ))
    return out


# -- MathAtlas --------------------------------------------------------------------------------------------------

class _AtlasRow(_Strict):
    model: str
    kind: str
    compiles: float
    faithful_given_compiles: float
    correct: float


class _AtlasTable(_Strict):
    name: str
    rows: list[_AtlasRow]


class _AtlasFile(_Strict):
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
    name = "mathatlas_paper.json"
    path = reported_file(name, source_dir)
    data = _AtlasFile.model_validate_json(path.read_bytes())
    out = []
    for table in data.tables:
        frozen = _frozen(MATHATLAS, f"paper/{table.name}",
                         "mathatlas-paper (Lean 4 v4.24.0; faithfulness: CriticLean 32B)", "2026-05-13")
        for row in table.rows:
            implied = row.compiles * row.faithful_given_compiles / 100.0
            tolerance = 0.05 * (row.compiles + row.faithful_given_compiles) / 100.0 + 0.05
            flag = disagreement(row.correct, implied, round(tolerance, 4))
            flags: dict[str, Any] = {"reported": True, "system_kind": row.kind}
            notes = ["Reported in the MathAtlas paper (arXiv 2605.14061) and not re-scored by Lemmata.", data.note]
            if flag:
                flags["correct_disagrees"] = flag
                notes.insert(0, f"Printed correctness {row.correct:.1f} differs from compile rate × "
                                f"faithful-given-compiles ({implied:.2f}); shown as printed, not corrected.")
            out.append(make_result(
                kind="reported", benchmark=MATHATLAS.name, track="statements", frozen=frozen,
                submission_sha256=PINNED[name], model=ModelInfo(name=row.model), flags=flags,
                main=Score(metric="correct", value=_percent(row.correct)),
                metrics={"correct": _percent(row.correct), "compile_rate": _percent(row.compiles),
                         "faithful_given_compiles": _percent(row.faithful_given_compiles)},
                notes=notes,
                provenance={"paper": MATHATLAS.paper_url, "table": table.name, "source": name,
                            "definitions": data.definitions,
                            "printed_percent": row.model_dump(include={"compiles", "faithful_given_compiles",
                                                                       "correct"})},
            ))
    return out


def reported_results(source_dir: str | Path | None = None) -> list[Result]:
    """Every reported row of the three papers."""
    return [*mathnet_reported(source_dir), *mirb_reported(source_dir), *mathatlas_reported(source_dir)]


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the reported rows to a leaderboard store (idempotent: same content, same ids)."""
    return [store.add_result(r) for r in reported_results(source_dir)]
