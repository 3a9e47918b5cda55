"""MathAtlas (formalization verdicts) and MA-Align (judge predictions) track handlers.

MathAtlas: a submission formalizes the entities of one track — ``statements``
(theorems) or ``definitions`` — and carries, per entity, the Lean checker's and
the faithfulness judge's verdicts (``yes``, ``no``, ``uncertain``, ``abstain``,
``not_evaluable``, ``pending``). The header names the Lean version and the judge,
which together form the scoring artifact, so rows checked differently are never
ranked together. Correct = compiles ∧ faithful over every entity of the track
(an entity without a record counts as abstained); a ``pending`` verdict is never
counted as correct and marks the result ``pending_oracle``. A formal statement may contain only
what :mod:`lemmata.benchmarks.mathatlas.formal_statement` allows (imports, ``open``, namespaces, the
declarations of the track, no options, attributes, axioms, ``#``-commands or macros).

MA-Align: a judge predicts, for every pair, whether the formalization is
faithful (``true``/``false``; ``null`` abstains). Accuracy is the headline with
a Wilson interval; precision, recall and F1 of the *faithful* class carry
percentile-bootstrap intervals over pairs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, Field, StrictBool, StrictStr

from lemmata.benchmarks.mathatlas.formal_statement import statement_problems
from lemmata.benchmarks.mathatlas.meta import MA_ALIGN, MATHATLAS
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Exact
from lemmata.catalog import load_release, read_columns
from lemmata.tracks.headers import HeaderCheck, check_header, records_skipped
from lemmata.tracks.ranking import received_date
from lemmata.metrics.correctness import correctness_report
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, wilson_interval
from lemmata.metrics.tool_acc import Verdict
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result
from lemmata.tracks.base import OracleConfig, TrackHandler, Validated
from lemmata.formats.envelope import Envelope, no_records, validate_model
from lemmata.formats.schema import SchemaFile, dumps, line_schema

#: which entity type each MathAtlas track formalizes
TRACK_TYPES = {"statements": "theorem", "definitions": "definition"}
MAX_STATEMENT_CHARS = 50_000
#: problems reported per formal statement (the first ones, in line order)
MAX_LEAN_PROBLEMS = 5
_ID = r"^\S(.*\S)?$"


class AtlasHeader(Exact):
    format: Literal["lemmata-submission/1"]
    benchmark: Literal["mathatlas"]
    release: str = Field(pattern=r"^mathatlas-\d+\.\d+\.\d+$")
    track: Literal["statements", "definitions"]
    model: ModelInfo
    lean_version: str = Field(min_length=1, max_length=100, pattern=_ID,
                              description="Lean toolchain the statements were checked with, e.g. 'v4.24.0'")
    judge: str = Field(min_length=1, max_length=200, pattern=_ID,
                       description="id (and version) of the faithfulness judge, e.g. 'CriticLean-32B'")
    notes: str = Field(default="", max_length=4000)


class AtlasRecord(Exact):
    entity_id: str = Field(min_length=1, max_length=300)
    formal_statement: str | None = Field(max_length=MAX_STATEMENT_CHARS, description="Lean 4 source; null abstains")
    compiles: Verdict
    faithful: Verdict


class AlignHeader(Exact):
    format: Literal["lemmata-submission/1"]
    benchmark: Literal["ma-align"]
    release: str = Field(pattern=r"^ma-align-\d+\.\d+\.\d+$")
    track: Literal["judge"]
    model: ModelInfo
    notes: str = Field(default="", max_length=4000)


class AlignRecord(Exact):
    pair_id: StrictStr = Field(min_length=1, max_length=300)
    faithful: StrictBool | None = Field(description="predicted label; null abstains (counted as wrong)")


def _records(envelope: Envelope, model: type[BaseModel], key: str, known: Mapping[str, Any] | None,
             problems: list[Problem], why_not: Mapping[str, str] | None = None) -> dict[str, tuple[int, Any]]:
    """Validate records, one per known id; unknown and repeated ids name their line.

    ``why_not`` explains ids that exist but do not belong here (an entity of another track);
    ``known`` None (the header names no usable release) checks shape and repeats only.
    """
    out: dict[str, tuple[int, Any]] = {}
    for line, obj in envelope.records:
        rec = validate_model(model, obj, envelope.filename, line, problems)
        if rec is None:
            continue
        ident = getattr(rec, key)
        if known is not None and ident not in known:
            reason = (why_not or {}).get(ident) or f"unknown {key} {ident!r}"
            problems.append(Problem(envelope.filename, reason, line, key))
        elif ident in out:
            problems.append(Problem(envelope.filename, f"duplicate {key} {ident!r} (first on line {out[ident][0]})",
                                    line, key))
        else:
            out[ident] = (line, rec)
    problems += no_records(envelope)
    return out


# -- MathAtlas ------------------------------------------------------------------------------------------------

def _entities(release_id: str) -> dict[str, tuple[str, int]]:
    release = load_release(MATHATLAS, release_id)
    cols = read_columns(release, "entities", "test", ["entity_id", "entity_type", "depth"])
    return {e: (t, d) for e, t, d in zip(cols["entity_id"], cols["entity_type"], cols["depth"])}


def track_entities(release_id: str, track: str) -> dict[str, int]:
    """``entity_id -> depth`` of the entities a track formalizes, in release order."""
    wanted = TRACK_TYPES[track]
    return {e: d for e, (t, d) in _entities(release_id).items() if t == wanted}


class _FamilyHandler(TrackHandler):
    """What both handlers share: the one release each serves, its schema file and the header check against it."""

    meta: ClassVar[BenchmarkMeta]
    header_model: ClassVar[type[BaseModel]]
    record_model: ClassVar[type[BaseModel]]
    #: the exported schema's file name and the title its description starts with
    schema_file: ClassVar[str]
    schema_title: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.benchmark, cls.tracks = cls.meta.name, cls.meta.tracks

    @classmethod
    def schema_files(cls) -> list[SchemaFile]:
        header, record, title = cls.header_model, cls.record_model, cls.schema_title
        return [SchemaFile(cls.benchmark, cls.schema_file, dumps(line_schema(
            header, record, filename=cls.schema_file, title=f"{title}, format lemmata-submission/1 (one JSONL line)",
            description=f"{title} files are UTF-8 JSONL: line 1 is the header ({header.__name__}), every further "
                        f"line a record ({record.__name__}). See submissions/mathatlas/README.md.")))]

    def _checked_header(self, envelope: Envelope) -> tuple[list[Problem], HeaderCheck]:
        """The envelope's problems and the header check, the header's release being the one served."""
        problems: list[Problem] = list(envelope.problems)
        return problems, check_header(envelope, self.header_model, problems,
                                      served_release=lambda h: self.meta.release_id)


class MathAtlasHandler(_FamilyHandler):
    meta = MATHATLAS
    header_model, record_model = AtlasHeader, AtlasRecord
    schema_file, schema_title = "mathatlas-submission.schema.json", "MathAtlas submission"

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        name = envelope.filename
        problems, check = self._checked_header(envelope)
        header, context = check.header, check.context
        entities: dict[str, int] | None = None
        others: dict[str, str] | None = None
        if context is not None:
            entities = track_entities(context.release, context.track)
            if not entities:
                raise InputError.one(name, f"the release has no {TRACK_TYPES[context.track]} entities to formalize",
                                     envelope.header_line, "header.track")
            others = {e: f"entity {e!r} is a {t}; the {context.track} track formalizes {TRACK_TYPES[context.track]} "
                         "entities" for e, (t, _) in _entities(context.release).items() if e not in entities}
        records = _records(envelope, AtlasRecord, "entity_id", entities, problems, others)
        if context is None:
            if envelope.records:
                problems.append(records_skipped(name, AtlasHeader, "the records' entity ids and formal statements"))
            raise InputError(problems)
        for line, rec in records.values():
            if rec.formal_statement is None and rec.compiles not in ("abstain", "not_evaluable"):
                problems.append(Problem(name, "no formal_statement: compiles must be 'abstain' or 'not_evaluable'",
                                        line, "compiles"))
            if rec.formal_statement is not None and not rec.formal_statement.strip():
                problems.append(Problem(name, "formal_statement is blank; use null to abstain", line,
                                        "formal_statement"))
            elif rec.formal_statement is not None:
                for lean_line, reason in statement_problems(rec.formal_statement, context.track)[:MAX_LEAN_PROBLEMS]:
                    problems.append(Problem(name, f"formal_statement line {lean_line}: {reason}", line,
                                            "formal_statement"))
        if problems:
            raise InputError(problems)
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=[rec for _, rec in records.values()], sha256=sha256, filename=name,
                         summary=f"{sum(r.formal_statement is not None for _, r in records.values())} of "
                                 f"{len(entities)} {TRACK_TYPES[header.track]} entities formalized "
                                 f"({len(records)} records)",
                         needs_oracle=any("pending" in (r.compiles, r.faithful) for _, r in records.values()))

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header: AtlasHeader = submission.header
        entities = track_entities(header.release, header.track)
        given = {r.entity_id: r for r in submission.records}
        verdicts = [
            {"item_id": e, "compiles": given[e].compiles if e in given else "abstain",
             "faithful": given[e].faithful if e in given else "abstain", "group": f"depth {depth}"}
            for e, depth in entities.items()
        ]
        report = correctness_report(verdicts)
        correct = report.correctness
        metrics: dict[str, Any] = {
            "correct": correct.model_dump(mode="json"),
            "compile_rate": report.compile_rate.model_dump(mode="json"),
            "faithful_given_compiles": (report.faithful_given_compiles.model_dump(mode="json")
                                        if report.faithful_given_compiles else None),
            "submitted": len(given), "entities": len(entities),
        }
        pending = correct.pending
        notes = [f"Verdicts as submitted (Lean {header.lean_version}; judge {header.judge}); Lemmata did not re-run "
                 "the checker or the judge.",
                 "Correct = compiles ∧ faithful over every entity of the track; entities without a record count as "
                 "abstained."]
        if pending:
            notes.append(f"{pending} entities await a verdict and are not counted as correct.")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=FrozenTuple(dataset_release=header.release, split="entities/test", retrieval_artifact=None,
                               scoring_artifact=f"submitted-verdicts lean={header.lean_version} judge={header.judge}",
                               date=received_date(received_at)),
            submission_sha256=submission.sha256, model=header.model, flags={"verdicts": "submitted"},
            main=Score(metric="correct", value=correct.rate, interval=correct.wilson95, interval_kind="wilson95",
                       count=correct.count, total=correct.total),
            metrics=metrics,
            breakdowns={"by_depth": {g: row.model_dump() for g, row in correct.per_domain.items()}},
            items=[{**v, "correct": v["compiles"] == "yes" and v["faithful"] == "yes", "submitted": v["item_id"] in given}
                   for v in verdicts],
            pending=pending, status="pending_oracle" if pending else "complete", notes=notes,
            provenance={"header_notes": header.notes, "filename": submission.filename},
        )


# -- MA-Align ---------------------------------------------------------------------------------------------------

def _percentile(estimates: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Order-statistic percentile bounds, the convention of :mod:`lemmata.metrics.intervals`."""
    a = 1.0 - confidence
    ordered = np.sort(estimates)
    b = len(ordered)
    return float(ordered[math.floor(a / 2 * (b - 1))]), float(ordered[math.floor((1 - a / 2) * (b - 1))])


def judge_report(gold: Sequence[bool], predicted: Sequence[bool | None], *, n_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Accuracy, precision, recall and F1 of the *faithful* class of a judge against gold labels.

    An abstention (None) is a wrong answer and never a predicted positive. Accuracy
    carries a Wilson 95% interval; precision, recall and F1 a percentile bootstrap over
    pairs (seeded; a resample where a ratio is undefined is left out of that ratio).
    A ratio whose denominator is 0 is None.

    >>> r = judge_report([True, True, False, False, True], [True, False, False, True, None], n_resamples=0)
    >>> r["accuracy"]["value"], r["precision"]["value"], r["recall"]["value"], round(r["f1"]["value"], 4)
    (0.4, 0.5, 0.3333333333333333, 0.4)
    >>> r["confusion"]
    {'tp': 1, 'fp': 1, 'fn': 2, 'tn': 1, 'abstained': 1}
    """
    if len(gold) != len(predicted) or not gold:
        raise ValueError("gold and predicted must be non-empty and aligned")
    g = np.array(gold, dtype=bool)
    p = np.array([x is True for x in predicted], dtype=bool)
    answered = np.array([x is not None for x in predicted], dtype=bool)
    right = answered & (p == g)
    tp, fp = int((p & g).sum()), int((p & ~g).sum())
    fn, tn = int((~p & g).sum()), int((~p & ~g & answered).sum())
    n = len(g)

    def ratio(num: float, den: float) -> float | None:
        return num / den if den else None

    out: dict[str, Any] = {
        "n": n,
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "abstained": int((~answered).sum())},
        "accuracy": {"value": int(right.sum()) / n, "count": int(right.sum()), "total": n,
                     "interval": list(wilson_interval(int(right.sum()), n)), "interval_kind": "wilson95"},
    }
    values = {"precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn), "f1": ratio(2 * tp, 2 * tp + fp + fn)}
    boot: dict[str, list[float]] = {k: [] for k in values}
    if n_resamples:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(n_resamples, n))
        tps, fps, fns = (p & g)[idx].sum(1), (p & ~g)[idx].sum(1), (~p & g)[idx].sum(1)
        for name, num, den in (("precision", tps, tps + fps), ("recall", tps, tps + fns),
                               ("f1", 2 * tps, 2 * tps + fps + fns)):
            ok = den > 0
            boot[name] = list(num[ok] / den[ok])
    for name, value in values.items():
        est = np.array(boot[name])
        out[name] = {"value": value,
                     "interval": list(_percentile(est)) if value is not None and est.size else None,
                     "interval_kind": "pair_bootstrap95" if n_resamples else None}
    return out


def align_labels(release_id: str) -> dict[str, bool]:
    release = load_release(MA_ALIGN, release_id)
    cols = read_columns(release, "pairs", "test", ["pair_id", "faithful"])
    return dict(zip(cols["pair_id"], cols["faithful"]))


class MaAlignHandler(_FamilyHandler):
    meta = MA_ALIGN
    header_model, record_model = AlignHeader, AlignRecord
    schema_file, schema_title = "ma-align-submission.schema.json", "MA-Align submission"

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        problems, check = self._checked_header(envelope)
        header = check.header
        labels = align_labels(check.context.release) if check.context is not None else None
        records = _records(envelope, AlignRecord, "pair_id", labels, problems)
        if labels is None and envelope.records:
            problems.append(records_skipped(envelope.filename, AlignHeader, "the records' pair ids"))
        if problems:
            raise InputError(problems)
        assert header is not None and labels is not None  # no problem: the header was valid and served
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=[rec for _, rec in records.values()], sha256=sha256, filename=envelope.filename,
                         summary=f"{len(records)} of {len(labels)} pairs judged")

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header: AlignHeader = submission.header
        labels = align_labels(header.release)
        given = {r.pair_id: r.faithful for r in submission.records}
        ids = list(labels)
        report = judge_report([labels[i] for i in ids], [given.get(i) for i in ids])
        acc = report["accuracy"]
        missing = sum(1 for i in ids if i not in given)
        notes = ["Accuracy against the gold faithfulness labels; precision, recall and F1 are of the faithful class."]
        if missing:
            notes.append(f"{missing} pairs had no prediction and count as wrong.")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=FrozenTuple(dataset_release=header.release, split="pairs/test", retrieval_artifact=None,
                               scoring_artifact="lemmata-judge-accuracy/1", date=received_date(received_at)),
            submission_sha256=submission.sha256, model=header.model,
            main=Score(metric="accuracy", value=acc["value"], interval=tuple(acc["interval"]),
                       interval_kind="wilson95", count=acc["count"], total=acc["total"]),
            metrics={**report, "missing": missing},
            items=[{"item_id": i, "gold": labels[i], "predicted": given.get(i),
                    "right": given.get(i) is not None and given.get(i) == labels[i]} for i in ids],
            notes=notes, provenance={"header_notes": header.notes, "filename": submission.filename},
        )
