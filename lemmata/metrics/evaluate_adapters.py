"""Flat ``evaluate``-style columns in, metric reports out: the logic behind ``metrics/<name>/``.

Hugging Face ``evaluate`` modules receive aligned ``predictions`` / ``references``
columns (flat records or lists) plus keyword arguments. These adapters join the
columns by id, refuse mismatches by name and call the metric functions, so the
module scripts hold nothing but their feature declarations and documentation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.metrics.correctness import correctness_report, pass_at_k_summary
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from lemmata.metrics.retrieval import evaluate_run, run_from_rankings
from lemmata.metrics.tool_acc import DEFAULT_CITE_RECALL_N, tool_acc_report

_MAX_LISTED = 20


def _by_id(rows: Sequence[Mapping[str, Any]], key: str, side: str) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    problems = []
    for i, row in enumerate(rows):
        ident = row.get(key) if isinstance(row, Mapping) else None
        if not isinstance(ident, str) or not ident:
            problems.append(Problem(f"{side}[{i}]", f"missing {key}", field=key))
        elif ident in out:
            problems.append(Problem(f"{side}[{i}]", f"duplicate {key} {ident!r}", field=key))
        else:
            out[ident] = row
    if problems:
        raise InputError(problems[:_MAX_LISTED])
    return out


def _joined(predictions, references, key: str) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    preds, refs = _by_id(list(predictions), key, "predictions"), _by_id(list(references), key, "references")
    if preds.keys() != refs.keys():
        problems = []
        if missing := sorted(set(refs) - set(preds)):
            problems.append(Problem("predictions", f"no prediction for {key}(s) {missing[:_MAX_LISTED]}"))
        if extra := sorted(set(preds) - set(refs)):
            problems.append(Problem("references", f"no reference for {key}(s) {extra[:_MAX_LISTED]}"))
        raise InputError(problems)
    return [(ident, preds[ident], refs[ident]) for ident in refs]


def _absent(value: Any) -> Any:
    """``evaluate`` refuses None in a string column's first row, so the modules spell "absent" as ''."""
    return None if value == "" else value


def _cite_rank(value: Any, ident: str) -> int | str | None:
    if value is None or value == "" or value == "pending":
        return _absent(value)
    if isinstance(value, str) and value.isdigit() and int(value) >= 1:
        return int(value)
    raise InputError([Problem("predictions", f"cite_rank {value!r} is not a positive integer string, 'pending' or null",
                              field=f"{ident}.cite_rank")])


def tool_acc_from_columns(
    predictions: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    *,
    cite_recall_n: int = DEFAULT_CITE_RECALL_N,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Re²Math metrics from ``predictions`` (the system's verdicts) joined to ``references`` (instance facts) by id."""
    rows = []
    for ident, pred, ref in _joined(predictions, references, "instance_id"):
        rows.append({
            "instance_id": ident, "paper_key": ref.get("paper_key"), "domain": ref.get("domain"),
            "oracle_evaluable": ref.get("oracle_evaluable"),
            "ground": pred.get("ground"), "suff": pred.get("suff"), "anchor_match": _absent(pred.get("anchor_match")),
            "cite_rank": _cite_rank(pred.get("cite_rank"), ident), "selected_source": pred.get("selected_source"),
            "oracle_ground": _absent(pred.get("oracle_ground")), "oracle_suff": _absent(pred.get("oracle_suff")),
        })
    report = tool_acc_report(rows, cite_recall_n=cite_recall_n, n_resamples=n_resamples, seed=seed)
    out: dict[str, Any] = {name: m.rate for name, m in report.metrics().items()}
    out["DeltaToOracle"] = report.delta_to_oracle
    out["pending"] = report.pending
    out["report"] = report.model_dump(mode="json")
    return out


def _as_list(value: Any, name: str) -> list:
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise ValueError(f"{name} must be a list")
    return list(value)


def retrieval_from_columns(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    k: int | Sequence[int] = 10,
    measures: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
    prediction_scores: Sequence[Sequence[float]] | None = None,
    reference_grades: Sequence[Sequence[int]] | None = None,
    relevance_level: int = 1,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Retrieval measures from ranked lists (or scored candidates) and relevant-document lists, aligned by position."""
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError(f"{len(preds)} predictions for {len(refs)} references")
    if not refs:
        raise ValueError("no queries to evaluate")
    if query_ids is None:
        width = len(str(len(refs) - 1))
        ids = [f"q{i:0{width}d}" for i in range(len(refs))]
    else:
        ids = [str(q) for q in _as_list(query_ids, "query_ids")]
        if len(ids) != len(refs):
            raise ValueError(f"{len(ids)} query_ids for {len(refs)} queries")
        dupes = sorted(q for q, n in Counter(ids).items() if n > 1)
        if dupes:
            raise InputError([Problem("query_ids", f"duplicate query id(s) {dupes[:_MAX_LISTED]}")])
    if prediction_scores is None:
        run = run_from_rankings(dict(zip(ids, preds)))
    else:
        scores = _as_list(prediction_scores, "prediction_scores")
        if len(scores) != len(preds):
            raise ValueError(f"{len(scores)} prediction_scores rows for {len(preds)} predictions")
        run = {}
        for q, docs, vals in zip(ids, preds, scores):
            if len(docs) != len(vals):
                raise InputError([Problem("prediction_scores", f"{len(vals)} scores for {len(docs)} documents", field=q)])
            run_from_rankings({q: docs})  # refuses repeated documents by name
            run[q] = dict(zip(docs, vals))
    grades = None if reference_grades is None else _as_list(reference_grades, "reference_grades")
    if grades is not None and len(grades) != len(refs):
        raise ValueError(f"{len(grades)} reference_grades rows for {len(refs)} references")
    qrels: dict[str, dict[str, int]] = {}
    for i, (q, docs) in enumerate(zip(ids, refs)):
        row = [1] * len(docs) if grades is None else list(grades[i])
        if len(row) != len(docs):
            raise InputError([Problem("reference_grades", f"{len(row)} grades for {len(docs)} documents", field=q)])
        judged = dict(zip(docs, row))
        if len(judged) != len(docs):
            raise InputError([Problem("references", "a relevant document is listed twice", field=q)])
        qrels[q] = judged
    ks = [k] if isinstance(k, int) else list(k)
    names = list(measures) if measures is not None else [f"recall@{kk}" for kk in ks]
    ev = evaluate_run(run, qrels, names, relevance_level=relevance_level, n_resamples=n_resamples, seed=seed)
    out: dict[str, Any] = dict(ev.means())
    out["ci95"] = {name: (list(m.ci95) if m.ci95 else None) for name, m in ev.measures.items()}
    out["n_queries"] = len(ev.query_ids)
    return out


def correctness_from_columns(
    predictions: Sequence[Mapping[str, Any]], references: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Correctness from verdict ``predictions`` joined to ``references`` (item id and optional group)."""
    rows = [{"item_id": ident, "compiles": pred.get("compiles"), "faithful": pred.get("faithful"),
             "group": _absent(ref.get("group"))} for ident, pred, ref in _joined(predictions, references, "item_id")]
    report = correctness_report(rows)
    return {
        "correctness": report.correctness.rate,
        "compile_rate": report.compile_rate.rate,
        "faithful_given_compiles": report.faithful_given_compiles.rate if report.faithful_given_compiles else None,
        "pending": report.correctness.pending,
        "report": report.model_dump(mode="json"),
    }


def pass_at_k_from_columns(
    predictions: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    *,
    k: int | Sequence[int] = 1,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Mean pass@k for each k from attempt counts joined to ``references`` (item id and optional group)."""
    rows = [{"item_id": ident, "n": pred.get("n"), "c": pred.get("c"), "pending": pred.get("pending") or 0,
             "group": _absent(ref.get("group"))} for ident, pred, ref in _joined(predictions, references, "item_id")]
    ks = [k] if isinstance(k, int) else list(k)
    if not ks:
        raise ValueError("no k given")
    out: dict[str, Any] = {}
    ci: dict[str, Any] = {}
    groups: dict[str, Any] = {}
    for kk in ks:
        s = pass_at_k_summary(rows, kk, n_resamples=n_resamples, seed=seed)
        out[f"pass@{kk}"] = s.mean
        ci[f"pass@{kk}"] = list(s.ci95) if s.ci95 else None
        groups[f"pass@{kk}"] = {g: m.mean for g, m in s.per_group.items()}
        out["pending_items"] = s.pending_items
    out["ci95"] = ci
    out["per_group"] = groups
    return out
