"""Aggregation of settled verdicts into a Re²Math result: per-item records, metrics, notes and provenance.

ToolAcc and the other metrics come from
:func:`lemmata.metrics.tool_acc.tool_acc_report` (Wilson and paper-cluster
bootstrap intervals, macros, per-domain, pending counts); a metric with a
pending item is marked not final, and the main score stays empty until none
is pending. Nothing here depends on when the result is computed except the
evaluation date taken from ``received_at``.

The headline's id and label come from the frozen tuple's kind
(:func:`lemmata.benchmarks.re2math.semantics.headline`): on an offline
retrieval artifact the result reports **OfflineToolAcc** (source identity ∧
Suff) with CiteRecall@20, SourceAcc, SuffRate and AbstentionRate beside it,
never the paper's ToolAcc. A result on 1.0.0 or 2.0.0 says in its flags
(``superseded_by``) and notes that they are superseded, as it always did; a
world superseded later (2.1.0) leaves its results as they were: whether a
version is superseded is read from
:data:`~lemmata.benchmarks.re2math.scholar.worlds.WORLDS` when a result is
shown (``stamped`` says which versions' results store it). Under the
known-content grounding (kind ``"grounded"``) the headline is
**GroundedOfflineToolAcc**, with KnownContentGroundRate, KnownContentUngradable
and GroundedOfflineToolAccUpper (every ungradable grounding counted as held)
beside it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lemmata import __version__
from lemmata.core.errors import InputError
from lemmata.formats.results import FrozenTuple, Result, Score, make_result
from lemmata.oracles.canaries import marks as canary_marks
from lemmata.oracles.fence import marks
from lemmata.oracles.judge import Judge, JudgeArtifact
from lemmata.tracks.base import Validated
from lemmata.benchmarks.re2math.assessment import Assessment
from lemmata.benchmarks.re2math.judging import (
    NO_JUDGE,
    SOURCE_TEXT_LIMIT,
    addressing_flags,
    conj,
    known_reading,
    needs_suff,
    rubrics,
    scoring_artifact_id,
    verdict,
)
from lemmata.benchmarks.re2math.replay import CANDIDATES_N
from lemmata.benchmarks.re2math.resources import Context
from lemmata.benchmarks.re2math.scholar.worlds import WORLDS
from lemmata.benchmarks.re2math.semantics import (
    GROUNDED_METRIC,
    OFFLINE_METRIC,
    FrozenKind,
    cite_recall_key,
    headline,
    is_offline,
)
from lemmata.benchmarks.re2math.submission import BENCHMARK, Header, budget_of

SCORER_VERSION = "re2math-scorer/1"
CITE_RECALL_N = 20


def received_date(received_at: str) -> str:
    """The evaluation date (YYYY-MM-DD) of an ISO date or timestamp.

    >>> received_date("2026-11-21T19:40:17+00:00"), received_date("2026-11-21")
    ('2026-11-21', '2026-11-21')
    """
    text = received_at.strip()
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise InputError.one("received_at", f"not an ISO date or timestamp: {received_at!r}") from None


def suff_verdict(a: Assessment, ground: str) -> tuple[str, str, str]:
    """The Suff verdict of a record given its Ground verdict (not asked where Ground is negative)."""
    if a.rec.statement is None or a.rec.selected_source is None:
        return "abstain", "no statement", "rule"
    if a.suff_q is not None:
        return verdict(a.suff_q, None)
    if not needs_suff(ground):
        return "not_evaluable", "not asked: Ground is negative, so ToolAcc is settled", "rule"
    return verdict(a.suff_q, None)


def finish(a: Assessment) -> tuple[dict[str, Any], dict[str, Any]]:
    """(item for the result, InstanceVerdicts fields for the metrics)."""
    ground = ground_verdict(a, a.ground_q, a.ground_rule)
    suff = suff_verdict(a, ground[0])
    anchor = verdict(a.anchor_q, a.anchor_rule) if (a.anchor_q or a.anchor_rule) else None
    query = verdict(a.query_q, a.query_rule) if (a.query_q or a.query_rule) else None
    oracle = None
    if a.oracle_evaluable:
        og = ground_verdict(a, a.oracle_ground_q, a.oracle_rule)
        if a.rec.oracle_statement is None:
            osf = ("abstain", "no statement", "rule")
        elif a.oracle_suff_q is not None:
            osf = verdict(a.oracle_suff_q, None)
        elif not needs_suff(og[0]):
            osf = ("not_evaluable", "not asked: oracle Ground is negative", "rule")
        else:
            osf = verdict(a.oracle_suff_q, None)
        oracle = {"ground": as_verdict(og), "suff": as_verdict(osf), "tool_acc": conj(og[0], osf[0])}
    row, rec = a.row, a.rec
    flags = {**a.flags, **addressing_flags(a.ground_q, a.suff_q, a.anchor_q, a.query_q, a.oracle_ground_q,
                                           a.oracle_suff_q)}
    tool = conj(ground[0], suff[0])
    pending = "pending" in (ground[0], suff[0]) or any(v is not None and v[0] == "pending" for v in (anchor, query)) or (
        oracle is not None and "pending" in (oracle["ground"]["verdict"], oracle["suff"]["verdict"]))
    item = {
        "instance_id": row["instance_id"], "paper_key": row["paper_key"], "domain": row["domain"],
        "tool_family": row["strata"]["tool_family"],
        "queries": len(rec.queries), "candidates": len(rec.candidate_ids()), "cite_rank": a.cite_rank,
        "selected_source": rec.selected_source, "source_match": a.source_match,
        "source_match_rule": a.source_match_rule, "citing_paper": a.citing_paper is not None,
        "ground": as_verdict(ground), "suff": as_verdict(suff), "anchor_match": as_verdict(anchor) if anchor else None,
        **({"query_match": as_verdict(query)} if query else {}),
        "tool_acc": tool, "oracle": oracle, "pending": pending,
        **({"flags": flags} if flags else {}),
    }
    verdicts = {
        "instance_id": row["instance_id"], "paper_key": row["paper_key"], "domain": row["domain"],
        "ground": ground[0], "suff": suff[0], "anchor_match": anchor[0] if anchor else None,
        "query_match": query[0] if query else None,
        "cite_rank": a.cite_rank, "selected_source": a.source_match, "oracle_evaluable": a.oracle_evaluable,
        "oracle_ground": oracle["ground"]["verdict"] if oracle else None,
        "oracle_suff": oracle["suff"]["verdict"] if oracle else None,
    }
    return item, verdicts


def ground_verdict(a: Assessment, q: Any, rule: tuple[str, str] | None) -> tuple[str, str, str]:
    """A Ground verdict as the metrics read it: under the known-content grounding the judge's "uncertain" is
    ungradable (:func:`~lemmata.benchmarks.re2math.judging.known_reading`); elsewhere as recorded."""
    found = verdict(q, rule)
    return known_reading(found) if a.kind == "grounded" else found


def as_verdict(triple: tuple[str, str, str]) -> dict[str, str]:
    """A (verdict, reason, by) triple as stored in a result item.

    >>> as_verdict(("yes", "states it", "judge"))
    {'verdict': 'yes', 'reason': 'states it', 'by': 'judge'}
    """
    return {"verdict": triple[0], "reason": triple[1], "by": triple[2]}


#: the paper's names a result on an offline frozen tuple reports under its own names (None: not reported)
OFFLINE_NAMES: dict[str, str | None] = {
    "ToolAcc": OFFLINE_METRIC, "GroundRate": None, "Oracle ToolAcc": f"Oracle {OFFLINE_METRIC}",
    "AltSourceToolAcc": None, "AltSourceSuccessRate": None,
}
#: the same for the known-content grounding: Ground is judged there, so its rate is reported under its own name
GROUNDED_NAMES: dict[str, str | None] = {
    "ToolAcc": GROUNDED_METRIC, "GroundRate": "KnownContentGroundRate", "Oracle ToolAcc": f"Oracle {GROUNDED_METRIC}",
    "AltSourceToolAcc": None, "AltSourceSuccessRate": None,
}


def aggregate(validated: Validated, ctx: Context, assessments: Sequence[Assessment], *, received_at: str,
              judge: Judge | None, judge_artifact: JudgeArtifact | None, kind: FrozenKind = "live") -> Result:
    """The immutable result of judged assessments (every verdict settled or pending).

    ``kind`` is the frozen tuple's kind: it alone decides the headline's id and label.
    """
    from lemmata.metrics.tool_acc import known_content_rates, offline_rates, tool_acc_report

    header: Header = validated.header
    head = headline(kind)
    finished = [finish(a) for a in assessments]
    items = [i for i, _ in finished]
    report = tool_acc_report([v for _, v in finished], cite_recall_n=CITE_RECALL_N)
    named = dict(report.metrics())
    if is_offline(kind):
        names = GROUNDED_NAMES if kind == "grounded" else OFFLINE_NAMES
        named = {names.get(k, k): v for k, v in named.items() if names.get(k, k) is not None}
        cite = cite_recall_key(kind, ctx.artifact.artifact_id, CITE_RECALL_N)
        named = {(cite if k == f"CiteRecall@{CITE_RECALL_N}" else k): v for k, v in named.items()}
        named.update(offline_rates([v for _, v in finished], n_resamples=report.n_resamples, seed=report.seed))
    if kind == "grounded":
        named.update(known_content_rates([v for _, v in finished], n_resamples=report.n_resamples, seed=report.seed))
    metrics: dict[str, Any] = {}
    for name, m in named.items():
        if not header.oracle_run and name in ("OracleCoverage", "Oracle ToolAcc", f"Oracle {head.metric}"):
            continue
        metrics[name] = {**m.model_dump(mode="json"), "final": m.pending == 0}
    if header.oracle_run and report.delta_to_oracle is not None:
        metrics["DeltaToOracle"] = report.delta_to_oracle
    oracle_source = header.condition == "oracle-source"
    # the oracle-source condition's headline is Oracle ToolAcc (over instances whose cited source could be given)
    tool = report.oracle_tool_acc if oracle_source else report.tool_acc
    main_metric = f"Oracle {head.metric}" if oracle_source else head.metric
    n_pending = sum(1 for i in items if i["pending"])
    complete = tool is not None and tool.pending == 0
    notes = [header.notes.strip()] if header.notes.strip() else []
    if n_pending:
        notes.append(f"{n_pending} of {len(items)} items await the judge "
                     + ("(no judge configured)." if judge is None else "(the judge did not answer)."))
    if tool is None:
        notes.append(f"{main_metric} is not computable: no instance's cited source is attributed in this artifact.")
    elif not complete:
        notes.append(f"{main_metric} is not final: {tool.pending} item(s) pending; {tool.count} confirmed so far.")
    if oracle_source:
        notes.append(f"Oracle-source condition: the system was handed each cited source's opened text and only "
                     f"extracted a statement; the headline is {main_metric}, ranked apart from retrieval runs.")
    if header.scope == "local_only":
        notes.append("Local-only scope: the system planned from the local proof blocks alone (no setup, no target "
                     "theorem); ranked apart.")
    if header.cite_keys == "masked":
        notes.append("Cite keys masked: the instance's own citation key was shown as \\cite{?} in every input "
                     "field; ranked apart from unmasked runs.")
    if kind == "offline":
        notes.append(f"Offline frozen tuple: the headline is {head.label} — grounded means {head.grounded_by}; "
                     "Suff is judged from the gap and the statement alone (no source text, no anchor hint). "
                     "It is not the paper's ToolAcc.")
    if kind == "grounded":
        notes.append(grounded_note(head.label, head.grounded_by, metrics))
    version = WORLDS.find(ctx.artifact.artifact_id)
    successor = WORLDS.stamped_successor(ctx.artifact.artifact_id)  # later supersessions: the board reads them
    if successor:
        notes.append(f"Superseded: {ctx.artifact.artifact_id} {version.why}; new submissions use {successor}. "
                     "Ranked apart.")
    if header.track == "assisted":
        notes.append("AnchorAcc is not scored on the assisted track (the anchor hint is part of the input).")
    if not header.oracle_run:
        notes.append(f"No oracle-source run in this submission: OracleCoverage and Oracle {head.metric} are not "
                     "reported.")
    addressed = marks(items, "items", 'their statement or anchor was settled "no" by the rubric\'s rule')
    notes += addressed.notes
    metrics.update(addressed.metrics)
    canary = canary_marks(judge_artifact)
    notes += canary.notes
    art = ctx.artifact
    return make_result(
        kind="scored", benchmark=BENCHMARK, track=validated.track,
        frozen=FrozenTuple(dataset_release=header.release, split=header.split, retrieval_artifact=art.artifact_id,
                           scoring_artifact=scoring_artifact_id(judge_artifact, head.rubrics),
                           date=received_date(received_at)),
        submission_sha256=validated.sha256, model=header.model,
        flags={**header.flags.model_dump(), "window": header.window, "input_track": header.track,
               "oracle_run": header.oracle_run, "frozen_kind": kind, "headline": head.label,
               "budget": budget_of(header).model_dump(),
               # declared conditions that split the board's groups, present only when they differ from the paper's
               **({"condition": header.condition} if oracle_source else {}),
               **({"scope": header.scope} if header.scope != "global_local" else {}),
               **({"cite_keys": header.cite_keys} if header.cite_keys == "masked" else {}),
               **({"superseded_by": successor} if successor else {}), **addressed.flags, **canary.flags},
        main=Score(metric=main_metric, value=tool.rate if complete else None,
                   interval=tool.wilson95 if complete else None, interval_kind="wilson95" if complete else None,
                   count=tool.count if tool else 0, total=tool.total if tool else 0),
        metrics=metrics,
        breakdowns={"failure_decomposition": report.failure_decomposition.model_dump(mode="json"),
                    "by_tool_family": by_stratum(items, "tool_family")},
        items=items, pending=n_pending, status="complete" if n_pending == 0 else "pending_oracle", notes=notes,
        provenance={
            "scorer": SCORER_VERSION, "lemmata": __version__,
            "release_manifest_sha256": ctx.release_manifest_sha256,
            "retrieval_artifact": {"id": art.artifact_id, "version": art.info.version,
                                   "manifest_sha256": manifest_sha(art.root)},
            "scoring_artifact": (judge_artifact.describe() if judge_artifact is not None else
                                 {"artifact_id": scoring_artifact_id(None), "judge": {"id": NO_JUDGE},
                                  "rubrics": {n: {"id": r.id, "sha256": r.sha256}
                                              for n, r in rubrics(head.rubrics).items()}}),
            "candidates_per_query": CANDIDATES_N, "source_text_limit": SOURCE_TEXT_LIMIT,
            "bootstrap": {"resamples": report.n_resamples, "seed": report.seed, "cluster": "paper_key"},
            **({"judge_canaries": canary.record} if canary.record else {}),
        },
    )


def grounded_note(label: str, grounded_by: str, metrics: Mapping[str, Any]) -> str:
    """The note of a known-content result: what grounded means, and the range the ungradable groundings leave."""
    low, high, unknown = (metrics.get(k) or {} for k in (GROUNDED_METRIC, f"{GROUNDED_METRIC}Upper",
                                                          "KnownContentUngradable"))
    span = (f" {unknown.get('count', 0)} grounding(s) were ungradable (the known content could not decide): "
            f"counted as not grounded, {GROUNDED_METRIC} lies in [{low.get('count', 0)}, {high.get('count', 0)}] of "
            f"{low.get('total', 0)} had every one held." if unknown.get("count") else "")
    return (f"Offline frozen tuple, known-content grounding: the headline is {label} — grounded means {grounded_by}; "
            "Suff is judged from the gap and the statement alone. It is neither the paper's ToolAcc nor "
            f"OfflineToolAcc, and ranks apart from both.{span}")


def manifest_sha(root: Path) -> str:
    from lemmata.core.hashing import sha256_file
    from lemmata.release.manifest import MANIFEST

    return sha256_file(Path(root) / MANIFEST)


def by_stratum(items: Sequence[Mapping[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """ToolAcc and Ground counts per stratum (pending shown, never counted as success)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        g = out.setdefault(item[key], {"gaps": 0, "tool_acc": 0, "ground": 0, "pending": 0})
        g["gaps"] += 1
        g["tool_acc"] += item["tool_acc"] == "yes"
        g["ground"] += item["ground"]["verdict"] == "yes"
        g["pending"] += item["tool_acc"] == "pending"
    return dict(sorted(out.items()))
