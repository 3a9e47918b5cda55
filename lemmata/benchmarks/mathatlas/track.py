"""MathAtlas (formalizations checked by the oracles) and MA-Align (judge predictions) track handlers.

MathAtlas: a submission formalizes the entities of one track — ``statements``
(theorems, examples and exercises: the paper's statement population), ``definitions``, or
``ma-hard`` (every entity of MA-Hard, the upstream split ``hard``, ranked in its own board group) —
one Lean 4 text per entity, under a declared context condition (``zero-shot`` or ``dependencies``: the
formalizer was shown the statements the entity's links point to), which splits board groups. Every verdict
comes from Lemmata's oracles (:mod:`lemmata.benchmarks.mathatlas.verdicts`): the Lean server compiles each text
under the forced header, and the judge rates the faithfulness of the compiling ones; a compile or faithfulness
verdict a submitter states (``compiles``, ``faithful``, ``lean_version``, ``judge``) is kept as information
and never counted. The Lean and judge artifacts form the scoring artifact, so rows checked differently are
never ranked together. Correct = compiles ∧ faithful over every entity of the track (an entity without a
record counts as abstained); an item awaiting an oracle is ``pending``, never counted as correct, and marks
the result ``pending_oracle`` with its bounds. Correctness is broken down by entity
type and by range of Lemmata's SCC depth (never the paper's depth; see
:mod:`lemmata.benchmarks.mathatlas.graph`). A formal statement may contain only what
:mod:`lemmata.benchmarks.mathatlas.formal_statement` allows (imports, ``open``, namespaces, the
declarations its entity's kind needs — a definition's rules for a definition, a statement's for
the rest — and no options, attributes, axioms, ``#``-commands or macros).

MA-Align: a judge predicts, for every pair, whether the formalization is
faithful (``true`` for aligned, ``false`` for misaligned; ``null`` abstains). It is scored
against two named label sets (:data:`~lemmata.benchmarks.mathatlas.meta.LABEL_SETS`): the
published labels (the headline) and the authors' relabel. Accuracy carries a Wilson interval;
precision, recall and F1 of the *aligned* class carry percentile-bootstrap intervals over pairs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, Field, StrictBool, StrictStr

from lemmata.benchmarks.mathatlas.formal_statement import statement_problems
from lemmata.benchmarks.mathatlas.graph import depth_group
from lemmata.benchmarks.mathatlas.meta import ATLAS_SPLITS, LABEL_SETS, MA_ALIGN, MATHATLAS, TRACK_TYPES
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Exact
from lemmata.catalog import load_release, read_columns
from lemmata.tracks.headers import HeaderCheck, check_header, records_skipped
from lemmata.tracks.ranking import received_date
from lemmata.metrics.correctness import correctness_report
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, wilson_interval
from lemmata.metrics.tool_acc import ItemVerdict as Verdict
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result, omit_when_none
from lemmata.formats.runner_log import RunnerInfo
from lemmata.tracks.base import OracleConfig, TrackHandler, Validated
from lemmata.formats.envelope import Envelope, no_records, validate_model
from lemmata.formats.schema import SchemaFile, dumps, line_schema
from lemmata.oracles.canaries import marks as canary_marks
from lemmata.oracles.kimina_double import DOUBLE_LEAN_VERSION

#: the frozen tuple's retrieval artifact of each context condition (what the formalizer was shown)
CONTEXT_ARTIFACTS: dict[str, str | None] = {"zero-shot": None, "dependencies": "mathatlas-dependency-context/1"}
#: what each MathAtlas track formalizes, in words
TRACK_NOUNS = {"statements": "theorem, example and exercise", "definitions": "definition", "ma-hard": "MA-Hard"}
#: the board group (frozen split) of each track's results
TRACK_SPLITS = {"statements": "entities/test+hard", "definitions": "entities/test+hard", "ma-hard": "entities/hard"}
MAX_STATEMENT_CHARS = 50_000
#: problems reported per formal statement (the first ones, in line order)
MAX_LEAN_PROBLEMS = 5
_ID = r"^\S(.*\S)?$"


class AtlasHeader(Exact):
    format: Literal["lemmata-submission/1"]
    benchmark: Literal["mathatlas"]
    release: str = Field(pattern=r"^mathatlas-\d+\.\d+\.\d+$")
    track: Literal["statements", "definitions", "ma-hard"]
    model: ModelInfo
    context: Literal["zero-shot", "dependencies"] = Field(
        default="zero-shot", description="what the formalizer was shown besides the entity: nothing, or the "
                                         "statements its dependencies point to (a condition that splits groups)")
    lean_version: str | None = Field(default=None, min_length=1, max_length=100, pattern=_ID,
                                     description="informational: the Lean toolchain the submitter checked with; "
                                                 "verdicts come from Lemmata's Lean oracle")
    judge: str | None = Field(default=None, min_length=1, max_length=200, pattern=_ID,
                              description="informational: the submitter's faithfulness judge; verdicts come from "
                                          "Lemmata's judge")
    runner: RunnerInfo | None = Field(default=None, description="set by `lemmata run mathatlas` only: the run's "
                                      "request log hashes to runner.log_sha256; upload the log beside the file and the "
                                      "scorer checks every formal statement against it and the release")
    notes: str = Field(default="", max_length=4000)

    _omit_unset = omit_when_none("runner")  # headers written before the field dump as they did


class AtlasRecord(Exact):
    entity_id: str = Field(min_length=1, max_length=300)
    formal_statement: str | None = Field(max_length=MAX_STATEMENT_CHARS, description="Lean 4 source; null abstains")
    compiles: Verdict | None = Field(default=None, description="informational: the submitter's compile verdict, "
                                                               "never counted")
    faithful: Verdict | None = Field(default=None, description="informational: the submitter's faithfulness "
                                                               "verdict, never counted")


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

class Entity(NamedTuple):
    type: str
    depth: int
    ma_hard: bool


def _rows(benchmark: str, release_id: str, table: str, splits: tuple[str, ...], columns: list[str]) -> Iterator[tuple]:
    """The ``columns`` of a release table row by row, over ``splits`` in order (one reader for every loader)."""
    release = load_release(benchmark, release_id)
    for split in splits:
        cols = read_columns(release, table, split, columns)
        yield from zip(*(cols[c] for c in columns))


def _entities(release_id: str) -> dict[str, Entity]:
    """Every distinct entity of the release (split ``test``, then ``hard``), in release order."""
    out: dict[str, Entity] = {}
    for e, t, d, h in _rows(MATHATLAS, release_id, "entities", ATLAS_SPLITS,
                            ["entity_id", "entity_type", "scc_depth", "ma_hard"]):
        out.setdefault(e, Entity(t, d, h))
    return out


def entity_texts(release_id: str, wanted: set[str]) -> dict[str, str]:
    """The natural-language text of the ``wanted`` entities (what the judge compares a formalization with)."""
    rows = _rows(MATHATLAS, release_id, "entities", ATLAS_SPLITS, ["entity_id", "statement"])
    return {e: t for e, t in rows if e in wanted}


def in_track(entity: Entity, track: str) -> bool:
    return entity.type in TRACK_TYPES[track] and (track != "ma-hard" or entity.ma_hard)


def track_entities(release_id: str, track: str) -> dict[str, Entity]:
    """The entities a track formalizes, in release order."""
    return {e: ent for e, ent in _entities(release_id).items() if in_track(ent, track)}


def _why_not(entity_id: str, entity: Entity, track: str) -> str:
    if track == "ma-hard" and not entity.ma_hard:
        return f"entity {entity_id!r} is not in MA-Hard (upstream split 'hard'); the ma-hard track formalizes MA-Hard"
    return (f"entity {entity_id!r} is a {entity.type}; the {track} track formalizes {TRACK_NOUNS[track]} "
            "entities")


def statement_rules(entity: Entity) -> str:
    """Which :func:`statement_problems` rules a formalization of ``entity`` follows."""
    return "definitions" if entity.type == "definition" else "statements"


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
        entities: dict[str, Entity] | None = None
        others: dict[str, str] | None = None
        if context is not None:
            entities = track_entities(context.release, context.track)
            if not entities:
                raise InputError.one(name, f"the release has no {TRACK_NOUNS[context.track]} entities to formalize",
                                     envelope.header_line, "header.track")
            others = {e: _why_not(e, ent, context.track) for e, ent in _entities(context.release).items()
                      if e not in entities}
        records = _records(envelope, AtlasRecord, "entity_id", entities, problems, others)
        if context is None:
            if envelope.records:
                problems.append(records_skipped(name, AtlasHeader, "the records' entity ids and formal statements"))
            raise InputError(problems)
        for line, rec in records.values():
            if rec.formal_statement is not None and not rec.formal_statement.strip():
                problems.append(Problem(name, "formal_statement is blank; use null to abstain", line,
                                        "formal_statement"))
            elif rec.formal_statement is not None:
                rules = statement_rules(entities[rec.entity_id])
                for lean_line, reason in statement_problems(rec.formal_statement, rules)[:MAX_LEAN_PROBLEMS]:
                    problems.append(Problem(name, f"formal_statement line {lean_line}: {reason}", line,
                                            "formal_statement"))
        if problems:
            raise InputError(problems)
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=[rec for _, rec in records.values()], sha256=sha256, filename=name,
                         summary=f"{sum(r.formal_statement is not None for _, r in records.values())} of "
                                 f"{len(entities)} {TRACK_NOUNS[header.track]} entities formalized "
                                 f"({len(records)} records)",
                         needs_oracle=any(r.formal_statement is not None for _, r in records.values()),
                         lines=tuple(line for line, _ in records.values()))

    def check_runner_log(self, submission: Validated, log: bytes, filename: str) -> Any:
        """Every request of the run recomputed from the release (:func:`~lemmata.benchmarks.mathatlas.formalize_run.
        formalize_jobs`: the entity's prompt under the header's context) and every record's ``formal_statement``
        re-read from its logged answer (:func:`~lemmata.benchmarks.mathatlas.formalize_run.formal_of`)."""
        from lemmata.benchmarks.mathatlas.formalize_requests import (formal_of, formalize_jobs, prompt_version,
                                                                     release_rows)
        from lemmata.tracks.runner_log import Declared, check_log, check_records

        header: AtlasHeader = submission.header
        rows, refs = release_rows(header.release)
        ids = [rec.entity_id for rec in submission.records]
        declared = Declared(benchmark=self.benchmark, release=header.release, model=header.model,
                            sampling=header.model.sampling or {}, runner=header.runner, prompt=prompt_version(),
                            prompt_from="`lemmata run mathatlas` sends")

        def jobs(log_header: Any, sampling: Any) -> dict[str, str | None]:
            made, _ = formalize_jobs(rows, refs, ids, context=header.context, sampling=sampling)
            return {f"{job.id}#0": job.messages_sha256() for job in made}

        check = check_log(log, filename, submission.filename, declared, prompts={prompt_version()}, jobs=jobs)

        def expected(rec: AtlasRecord) -> list[tuple[str, Any, Any, int]]:
            log_line, answer = check.answers[f"{rec.entity_id}#0"]
            made = formal_of(answer, rows[rec.entity_id]["entity_type"])[0]
            return [("formal_statement", rec.formal_statement, made, log_line)]

        check_records(check, submission.filename, zip(submission.lines, submission.records), lambda rec: rec.entity_id,
                      expected)
        return check

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        from lemmata.benchmarks.mathatlas.verdicts import obtain

        header: AtlasHeader = submission.header
        entities = track_entities(header.release, header.track)
        given = {r.entity_id: r for r in submission.records}
        formal = {e: r.formal_statement for e, r in given.items()}
        found = obtain(header.release, entities, formal, entity_texts(header.release, set(formal)), oracles,
                       quiet=getattr(self, "quiet", True))
        verdicts = [{"item_id": e, "compiles": v.compiles, "faithful": v.faithful} for e, v in found.items.items()]
        by_type = correctness_report([{**v, "group": entities[v["item_id"]].type} for v in verdicts])
        by_depth = correctness_report([{**v, "group": depth_group(entities[v["item_id"]].depth)} for v in verdicts])
        correct = by_type.correctness
        pending = correct.pending
        bounds = [correct.count / correct.total, (correct.count + pending) / correct.total]
        metrics: dict[str, Any] = {
            "correct": correct.model_dump(mode="json"), "correct_bounds": bounds,
            "compile_rate": by_type.compile_rate.model_dump(mode="json"),
            "faithful_given_compiles": (by_type.faithful_given_compiles.model_dump(mode="json")
                                        if by_type.faithful_given_compiles else None),
            "submitted": len(given), "entities": len(entities),
            "compile_pending": sum(v.compiles == "pending" for v in found.items.values()),
            "judge_pending": sum(v.compiles == "yes" and v.faithful == "pending" for v in found.items.values()),
        }
        lean_id = found.lean.identity if found.lean is not None else None
        lean_text = (f"Lean {lean_id.lean_version}, Mathlib {lean_id.mathlib_version}, {lean_id.timeout_s} s per item"
                     if lean_id is not None else "no Lean server configured")
        judge_text = found.judge.judge_id if found.judge is not None else "no judge configured"
        notes = [f"Verdicts from Lemmata's oracles only: compilation by the Lean server under the forced header "
                 f"`import Mathlib` / `import Aesop` ({lean_text}); faithfulness of compiling items by the judge "
                 f"({judge_text}; an unreadable reply counts as misaligned). Verdicts a submission states are "
                 "informational and never counted.",
                 f"Correct = compiles ∧ faithful over every {TRACK_NOUNS[header.track]} entity of the track; "
                 "entities without a record count as abstained.",
                 "Depth ranges use Lemmata's SCC depth over the public release's links (see the release card), "
                 "not the paper's depth."]
        if pending:
            notes.append(f"{pending} entities await a verdict ({metrics['compile_pending']} the Lean server, "
                         f"{metrics['judge_pending']} the judge) and are not counted as correct: correct lies "
                         f"between {bounds[0]:.4f} and {bounds[1]:.4f}; run `lemmata judge` with the oracles "
                         "configured.")
        canary = canary_marks(found.judge)
        notes += canary.notes
        flags: dict[str, Any] = {"verdicts": "oracle", "context": header.context, **canary.flags}
        if lean_id is not None and lean_id.lean_version == DOUBLE_LEAN_VERSION:
            flags["lean"] = "protocol-double"
            notes.append("Compile verdicts come from the Lean protocol double (lexical checks only): test data.")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=FrozenTuple(dataset_release=header.release, split=TRACK_SPLITS[header.track],
                               retrieval_artifact=CONTEXT_ARTIFACTS[header.context],
                               scoring_artifact=found.scoring_artifact, date=received_date(received_at)),
            submission_sha256=submission.sha256, model=header.model, flags=flags,
            main=Score(metric="correct", value=correct.rate, interval=correct.wilson95, interval_kind="wilson95",
                       count=correct.count, total=correct.total),
            metrics=metrics,
            breakdowns={"by_type": {g: row.model_dump() for g, row in correct.per_domain.items()},
                        "by_depth": {g: row.model_dump() for g, row in by_depth.correctness.per_domain.items()}},
            items=[_item(v, entities[v["item_id"]], found.items[v["item_id"]], given.get(v["item_id"]))
                   for v in verdicts],
            pending=pending, status="pending_oracle" if pending else "complete", notes=notes,
            provenance={"header_notes": header.notes, "filename": submission.filename,
                        "stated": {"lean_version": header.lean_version, "judge": header.judge},
                        "judge": found.judge.manifest.judge if found.judge is not None else None,
                        "lean": lean_id.model_dump() if lean_id is not None else None,
                        **({"judge_canaries": canary.record} if canary.record else {})},
        )


def _item(v: dict[str, Any], entity: Entity, found: Any, rec: AtlasRecord | None) -> dict[str, Any]:
    """One entity's row: the oracle verdicts with their reasons, and what the submission stated (informational)."""
    judgement = found.judgement or {}
    out = {**v, "type": entity.type, "scc_depth": entity.depth, "correct": v["compiles"] == v["faithful"] == "yes",
           "submitted": rec is not None,
           "compile_reason": (found.compile or {}).get("reason"), "sorries": (found.compile or {}).get("sorries"),
           "judge_result": judgement.get("result"),
           "judge_reasoning": str(judgement.get("reasoning") or judgement.get("reason") or "")[:500] or None}
    if rec is not None and (rec.compiles is not None or rec.faithful is not None):
        out["stated"] = {"compiles": rec.compiles, "faithful": rec.faithful}
    return out


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


class Gold(NamedTuple):
    """A pair's labels in each label set (True: aligned) and its kind (definition or statement)."""

    published: bool
    relabel: bool
    kind: str


def align_labels(release_id: str) -> dict[str, Gold]:
    return {i: Gold(a == "aligned", b == "aligned", k)
            for i, a, b, k in _rows(MA_ALIGN, release_id, "pairs", ("test",), ["pair_id", "label", "relabel", "kind"])}


def _accuracy(report: dict[str, Any]) -> str:
    acc = report["accuracy"]
    return f"{acc['value']:.4f} ({acc['count']}/{acc['total']})"


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
        predicted = [given.get(i) for i in ids]
        reports = {name: judge_report([getattr(labels[i], name) for i in ids], predicted) for name in LABEL_SETS}
        report = reports["published"]
        acc = report["accuracy"]
        missing = sum(1 for i in ids if i not in given)
        right = {name: [p is not None and p == getattr(labels[i], name) for i, p in zip(ids, predicted)]
                 for name in LABEL_SETS}
        by_kind = {kind: {name: {"count": sum(r for i, r in zip(ids, right[name]) if labels[i].kind == kind),
                                 "total": sum(labels[i].kind == kind for i in ids)} for name in LABEL_SETS}
                   for kind in sorted({g.kind for g in labels.values()})}
        notes = ["Two label sets, each named: accuracy against the published labels (" + LABEL_SETS["published"]
                 + f") is the headline; against the relabel set ({LABEL_SETS['relabel']}) it is "
                 + _accuracy(reports["relabel"]) + ".",
                 "Precision, recall and F1 are of the aligned (faithful) class, per label set."]
        if missing:
            notes.append(f"{missing} pairs had no prediction and count as wrong.")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=FrozenTuple(dataset_release=header.release, split="pairs/test", retrieval_artifact=None,
                               scoring_artifact="lemmata-judge-accuracy/2", date=received_date(received_at)),
            submission_sha256=submission.sha256, model=header.model,
            main=Score(metric="accuracy", value=acc["value"], interval=tuple(acc["interval"]),
                       interval_kind="wilson95", count=acc["count"], total=acc["total"]),
            metrics={**report, "missing": missing,
                     "label_sets": {name: {"source": LABEL_SETS[name], **reports[name]} for name in LABEL_SETS}},
            breakdowns={"by_kind": by_kind},
            items=[{"item_id": i, "kind": labels[i].kind, "gold": labels[i].published, "relabel": labels[i].relabel,
                    "predicted": given.get(i), "right": right["published"][n], "right_relabel": right["relabel"][n]}
                   for n, i in enumerate(ids)],
            notes=notes, provenance={"header_notes": header.notes, "filename": submission.filename},
        )
