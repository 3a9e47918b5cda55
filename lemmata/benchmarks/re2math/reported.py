"""The Re²Math paper's seven models as *reported* leaderboard rows.

The paper searched live Google Scholar (through SerpAPI, top 20) and used its
own LLM judge; neither is Lemmata's frozen retrieval artifact nor Lemmata's
judge. Its numbers are therefore facts about a different frozen tuple: they are
imported as ``kind="reported"`` results under their own retrieval- and
scoring-artifact ids, so they are never ranked with re-scored rows, and every
count and interval is kept exactly as printed in ``paper_all_tables.json``
(sha256-verified against the registry before use).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.core.errors import InputError, Problem
from lemmata.metrics.rates import MetricResult
from lemmata.tracks.reported import import_results
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result

PAPER_TABLES = "paper_all_tables.json"
PAPER_RETRIEVAL_ARTIFACT = "re2math-paper-google-scholar-2026-04"
PAPER_SCORING_ARTIFACT = "re2math-paper-judge-2026-04"
PAPER_SPLIT = "eval200/test"
PAPER_TRACK = "raw"
PAPER_WINDOW = 5
#: the paper's metric names -> the names Lemmata's scored results use
METRIC_NAMES = {"AnchorAcc(x_raw)": "AnchorAcc"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PrintedRate(_Strict):
    """One rate as printed in the paper's tables."""

    success: int = Field(ge=0)
    total: int = Field(ge=1)
    rate: float = Field(ge=0, le=1)
    wilson95: tuple[float, float]
    paper_cluster_bootstrap95: tuple[float, float] | None = None
    paper_macro: float | None = None
    domain_macro: float | None = None


class PrintedCount(_Strict):
    success: int = Field(ge=0)
    total: int = Field(ge=1)
    rate: float = Field(ge=0, le=1)


class PaperRow(_Strict):
    model: str
    alias: str
    suite_name: str
    status: str
    progress: str
    main_table_1: dict[str, PrintedRate]
    main_table_2: dict[str, PrintedRate | float]
    appendix_stratified: dict[str, dict[str, dict[str, Any]]]
    planning_ablation: dict[str, PrintedCount]
    query_ablation: dict[str, PrintedCount]


class PaperTables(_Strict):
    meta: dict[str, Any]
    rows: list[PaperRow]


def _metric(name: str, printed: PrintedRate) -> dict[str, Any]:
    """The printed record in the shape of a scored metric (same numbers, Lemmata's field names)."""
    return MetricResult(
        name=name, count=printed.success, total=printed.total, rate=printed.rate, pending=0,
        wilson95=printed.wilson95, paper_cluster_bootstrap95=printed.paper_cluster_bootstrap95,
        paper_macro=printed.paper_macro, domain_macro=printed.domain_macro,
    ).model_dump(mode="json", exclude={"per_domain"})


def _metrics(row: PaperRow) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for table in (row.main_table_1, row.main_table_2):
        for key, value in table.items():
            name = METRIC_NAMES.get(key, key)
            out[name] = _metric(name, value) if isinstance(value, PrintedRate) else value
    return out


def _check(row: PaperRow, where: str) -> list[Problem]:
    """The two tables print ToolAcc twice; they must agree, or the file is not what it claims."""
    a, b = row.main_table_1.get("ToolAcc"), row.main_table_2.get("ToolAcc")
    if a is None or a != b:
        return [Problem(where, f"{row.model}: ToolAcc differs between main_table_1 and main_table_2", field="ToolAcc")]
    return []


def load_paper_tables(source_dir: str | Path | None = None) -> tuple[PaperTables, Path]:
    """The verified tables file (mirror or pinned download) and its path."""
    from lemmata.release.sources import resolve_sources

    path = resolve_sources(RE2MATH, [PAPER_TABLES], source_dir)[PAPER_TABLES]
    try:
        tables = PaperTables.model_validate_json(path.read_bytes())
    except ValueError as exc:
        raise InputError.one(str(path), f"not the expected paper tables layout: {exc}") from None
    return tables, path


def reported_results(source_dir: str | Path | None = None) -> list[Result]:
    """One reported result per model of the paper, in the paper's order."""
    tables, path = load_paper_tables(source_dir)
    src = RE2MATH.source(PAPER_TABLES)
    problems = [p for row in tables.rows for p in _check(row, str(path))]
    if problems:
        raise InputError(problems)
    generated = str(tables.meta.get("generated_at", ""))
    date = dt.datetime.strptime(generated, "%Y-%m-%d %H:%M:%S").date().isoformat()
    frozen = FrozenTuple(dataset_release=RE2MATH.release_id, split=PAPER_SPLIT,
                         retrieval_artifact=PAPER_RETRIEVAL_ARTIFACT, scoring_artifact=PAPER_SCORING_ARTIFACT,
                         date=date)
    notes_common = [
        "Reported in the Re²Math paper (arXiv 2605.09012) and not re-scored by Lemmata.",
        "Retrieval: live Google Scholar through SerpAPI, top 20 (not a Lemmata frozen artifact); judge: the "
        "paper's own LLM judge. Comparable only with other rows of this frozen tuple.",
        f"Raw track, window m = {PAPER_WINDOW}; AnchorAcc is the paper's AnchorAcc(x_raw).",
        *[str(n) for n in tables.meta.get("notes", [])],
    ]
    results = []
    for row in tables.rows:
        metrics = _metrics(row)
        tool = row.main_table_1["ToolAcc"]
        results.append(make_result(
            kind="reported", benchmark=RE2MATH.name, track=PAPER_TRACK, frozen=frozen,
            submission_sha256=src.sha256, model=ModelInfo(name=row.model),
            flags={"reported": True, "window": PAPER_WINDOW, "scope": "global_local"},
            main=Score(metric="ToolAcc", value=tool.rate, interval=tool.wilson95, interval_kind="wilson95",
                       count=tool.success, total=tool.total),
            metrics=metrics,
            breakdowns={"appendix_stratified": row.appendix_stratified,
                        "planning_ablation": {k: v.model_dump() for k, v in row.planning_ablation.items()},
                        "query_ablation": {k: v.model_dump() for k, v in row.query_ablation.items()}},
            notes=notes_common,
            provenance={"source": {"name": src.name, "url": src.url, "sha256": src.sha256,
                                   "upstream_commit": src.commit},
                        "paper": RE2MATH.paper_url, "alias": row.alias, "suite_name": row.suite_name,
                        "paper_status": row.status, "generated_at": generated,
                        "printed": json.loads(row.model_dump_json(include={"main_table_1", "main_table_2"}))},
        ))
    return results


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the reported rows to a leaderboard store (idempotent: same content, same ids)."""
    return import_results(store, reported_results(source_dir))
