"""The Re²Math paper's seven models as *reported* leaderboard rows.

The paper ran its own retrieval and its own judge; neither is Lemmata's frozen
retrieval artifact nor Lemmata's judge, and the released tables do not name the
search backend, so the rows say no more than that. Its numbers are therefore
facts about a different frozen tuple: they are imported as ``kind="reported"``
results under their own retrieval- and scoring-artifact ids, so they are never
ranked with re-scored rows, and every count and interval is kept exactly as
printed in ``paper_all_tables.json`` (sha256-verified against the registry
before use) — with one exception, OracleCoverage.

``paper_all_tables.json`` prints OracleCoverage as 74/200 for every model: its
own notes say the coverage there is "normalized to the unified oracle-evaluable
subset" (the union over models), while each model's Oracle ToolAcc keeps that
model's own denominator (71 for GPT-5.2 and Claude Opus 4.5, 67 for Gemini 3.1
Pro). A metric called OracleCoverage must be the share of gaps on which *that*
model's oracle run was evaluable, i.e. the denominator of its Oracle ToolAcc,
so the per-model count is imported from ``paper_main_tables.json``
(``OracleCoverage_count``), checked against the Oracle ToolAcc denominator and
against ``oracle_materialization_summary.json`` (200 minus the model's
``unavailable`` count), and the normalised printed record is kept in
provenance (``oracle_coverage.printed_normalised``).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Frozen
from lemmata.metrics.rates import MetricResult
from lemmata.tracks.reported import import_results
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result

PAPER_TABLES = "paper_all_tables.json"
PAPER_MAIN_TABLES = "paper_main_tables.json"
ORACLE_SUMMARY = "oracle_materialization_summary.json"
PAPER_RETRIEVAL_ARTIFACT = "re2math-paper-google-scholar-2026-04"
PAPER_SCORING_ARTIFACT = "re2math-paper-judge-2026-04"
PAPER_SPLIT = "eval200/test"
PAPER_TRACK = "raw"
PAPER_WINDOW = 5
#: the paper's metric names -> the names Lemmata's scored results use
METRIC_NAMES = {"AnchorAcc(x_raw)": "AnchorAcc"}


class PrintedRate(Frozen):
    """One rate as printed in the paper's tables."""

    success: int = Field(ge=0)
    total: int = Field(ge=1)
    rate: float = Field(ge=0, le=1)
    wilson95: tuple[float, float]
    paper_cluster_bootstrap95: tuple[float, float] | None = None
    paper_macro: float | None = None
    domain_macro: float | None = None


class PrintedCount(Frozen):
    success: int = Field(ge=0)
    total: int = Field(ge=1)
    rate: float = Field(ge=0, le=1)


class PaperRow(Frozen):
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


class PaperTables(Frozen):
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


class OwnCoverage(Frozen):
    """One model's own OracleCoverage: gaps on which its oracle run was evaluable."""

    model: str
    alias: str
    count: int = Field(ge=0)
    total: int = Field(ge=1)
    rate: float = Field(ge=0, le=1)
    source: str


class _MainRow(BaseModel):
    """The fields of a ``paper_main_tables.json`` row that OracleCoverage is read from (others ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    model: str
    alias: str
    evaluated_rows: int = Field(ge=1)
    oracle_evaluable_rows: int = Field(ge=0)
    coverage: float = Field(alias="OracleCoverage", ge=0, le=1)
    coverage_count: str = Field(alias="OracleCoverage_count", pattern=r"^\d+/\d+$")


class _MainTables(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    rows: list[_MainRow]


class _OracleSummary(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    dataset_cases: int = Field(ge=1)
    per_model_status_counts: dict[str, dict[str, int]]


def oracle_coverage(source_dir: str | Path | None = None) -> dict[str, OwnCoverage]:
    """Each model's own OracleCoverage from ``paper_main_tables.json``, checked against the materialisation summary.

    Both files are sha256-verified; a count that disagrees with the row's own
    ``oracle_evaluable_rows`` or rate, or with ``dataset_cases`` minus the
    model's ``unavailable`` count, is refused (the files would not be what
    they claim to be).
    """
    from lemmata.release.sources import resolve_sources

    paths = resolve_sources(RE2MATH, [PAPER_MAIN_TABLES, ORACLE_SUMMARY], source_dir)
    main_path, summary_path = paths[PAPER_MAIN_TABLES], paths[ORACLE_SUMMARY]
    try:
        main = _MainTables.model_validate_json(main_path.read_bytes())
    except ValueError as exc:
        raise InputError.one(str(main_path), f"not the expected main tables layout: {exc}") from None
    try:
        summary = _OracleSummary.model_validate_json(summary_path.read_bytes())
    except ValueError as exc:
        raise InputError.one(str(summary_path), f"not the expected oracle summary layout: {exc}") from None
    out: dict[str, OwnCoverage] = {}
    problems: list[Problem] = []
    for i, row in enumerate(main.rows):
        count, total = (int(v) for v in row.coverage_count.split("/"))
        where = f"rows.{i}.OracleCoverage_count"
        if count != row.oracle_evaluable_rows or total != row.evaluated_rows or abs(count / total - row.coverage) > 1e-9:
            problems.append(Problem(str(main_path), f"{row.model}: OracleCoverage_count {row.coverage_count} disagrees "
                                    f"with oracle_evaluable_rows / evaluated_rows / OracleCoverage", field=where))
            continue
        status = summary.per_model_status_counts.get(row.alias)
        if status is None or summary.dataset_cases - status.get("unavailable", 0) != count \
                or summary.dataset_cases != total:
            problems.append(Problem(str(summary_path), f"{row.model} ({row.alias}): the materialisation summary does "
                                    f"not give {count}/{total} oracle-evaluable gaps",
                                    field=f"per_model_status_counts.{row.alias}"))
            continue
        out[row.model] = OwnCoverage(model=row.model, alias=row.alias, count=count, total=total, rate=count / total,
                                     source=PAPER_MAIN_TABLES)
    if problems:
        raise InputError(problems)
    return out


def _check_coverage(row: PaperRow, own: OwnCoverage, where: str) -> list[Problem]:
    """A model's own coverage is the denominator of its Oracle ToolAcc, or the two files disagree."""
    oracle = row.main_table_2.get("Oracle ToolAcc")
    if not isinstance(oracle, PrintedRate) or oracle.total != own.count or own.alias != row.alias:
        return [Problem(where, f"{row.model}: Oracle ToolAcc's denominator is not its OracleCoverage count "
                               f"{own.count} from {PAPER_MAIN_TABLES}", field="Oracle ToolAcc")]
    return []


def _coverage_metric(own: OwnCoverage) -> dict[str, Any]:
    """The per-model count as a metric; its Wilson interval is computed here (no per-model interval is printed)."""
    from lemmata.metrics.intervals import wilson_interval

    return MetricResult(name="OracleCoverage", count=own.count, total=own.total, rate=own.rate, pending=0,
                        wilson95=wilson_interval(own.count, own.total)).model_dump(mode="json", exclude={"per_domain"})


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
    coverage = oracle_coverage(source_dir)
    notes_common = [
        "Reported in the Re²Math paper (arXiv 2605.09012) and not re-scored by Lemmata.",
        "Retrieval and judge: the paper's own (not a Lemmata frozen retrieval artifact, not Lemmata's judge; the "
        "released tables do not name the search backend). Comparable only with other rows of this frozen tuple.",
        f"Raw track, window m = {PAPER_WINDOW}; AnchorAcc is the paper's AnchorAcc(x_raw).",
        "OracleCoverage is this model's own oracle-evaluable count (paper_main_tables.json, the denominator of its "
        "Oracle ToolAcc); paper_all_tables.json prints it normalised to the union over models (kept in provenance).",
        *[f"{PAPER_TABLES} notes: {n}" for n in tables.meta.get("notes", [])],
    ]
    results = []
    for row in tables.rows:
        if row.model not in coverage:
            raise InputError.one(str(path), f"{row.model}: no per-model OracleCoverage in {PAPER_MAIN_TABLES}",
                                 field="OracleCoverage")
        own = coverage[row.model]
        problems = _check_coverage(row, own, str(path))
        if problems:
            raise InputError(problems)
        metrics = _metrics(row)
        printed_coverage = metrics.get("OracleCoverage")
        metrics["OracleCoverage"] = _coverage_metric(own)
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
                        "printed": json.loads(row.model_dump_json(include={"main_table_1", "main_table_2"})),
                        "oracle_coverage": {
                            "imported": {"count": own.count, "total": own.total, "rate": own.rate,
                                         "from": own.source, "cross_checked_with": [ORACLE_SUMMARY,
                                                                                    "main_table_2.Oracle ToolAcc"]},
                            "printed_normalised": printed_coverage, "printed_in": PAPER_TABLES}},
        ))
    return results


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    """Add the reported rows to a leaderboard store (idempotent: same content, same ids)."""
    return import_results(store, reported_results(source_dir))
