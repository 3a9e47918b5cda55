"""The MathRAG matrix: each solver under each retrieval condition, with the retriever's own Recall@k beside it
and the gain over the same solver's zero-shot run with a paired interval.

Rows are built only from scored (never reported) MathNet-Solve results that share the release split and the
scoring artifact (same grader, same rubric), so every gain compares like with like; the paired interval
resamples problems jointly (:func:`lemmata.metrics.intervals.paired_bootstrap_interval`). A pair with pending
grades has no gain yet. Beside the gain, the problems the run helped, hurt and left unchanged against its
zero-shot twin, with the exact McNemar p-value on the discordant ones (:func:`lemmata.metrics.paired.paired_changes`):
a gain says how much, the counts say how it came about. Recall@k comes from the retriever's scored MathNet-Retrieve results, matched by the
retriever's declared identity (name and :meth:`ModelInfo.identity`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lemmata.formats.results import ModelInfo, Result
from lemmata.metrics.intervals import paired_bootstrap_interval
from lemmata.metrics.paired import paired_changes


def _latest(results: Iterable[Result]) -> list[Result]:
    results = list(results)
    superseded = {r.supersedes for r in results if r.supersedes}
    return [r for r in results if r.result_id not in superseded]


def _solver(r: Result) -> tuple[str, str]:
    return r.model.name, r.model.identity()


def _flags(r: Result) -> dict[str, bool | None]:
    return {i["item_id"]: i.get("correct") for i in r.items}


def _retriever(r: Result) -> ModelInfo | None:
    retrieval = r.provenance.get("retrieval")
    return ModelInfo.model_validate(retrieval["retriever"]) if retrieval else None


def mathrag_matrix(solve: Iterable[Result], retrieve: Iterable[Result] = (), *,
                   n_resamples: int = 1000) -> list[dict[str, Any]]:
    """One row per (solver, condition): accuracy, pending, gain over zero-shot with its paired 95% interval, the
    problems helped / hurt / unchanged with the exact McNemar p-value, and for retriever-RAG the retriever's MathNet-Retrieve Recall@1/5/10 by tier."""
    scored = [r for r in _latest(solve) if r.kind == "scored" and r.benchmark == "mathnet-solve"]
    recalls: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for r in _latest(retrieve):
        if r.kind == "scored" and r.benchmark == "mathnet-retrieve":
            recalls.setdefault((r.model.name, r.model.identity()), {})[r.track] = {
                k: v["mean"] for k, v in r.metrics.items() if k.startswith("recall@") and isinstance(v, dict)}
    zero = {(_solver(r), r.frozen.split, r.frozen.scoring_artifact): r for r in scored
            if r.frozen.retrieval_artifact == "mathrag:zero-shot"}
    rows = []
    for r in sorted(scored, key=lambda r: (r.model.name, r.frozen.split, r.frozen.retrieval_artifact or "")):
        base = zero.get((_solver(r), r.frozen.split, r.frozen.scoring_artifact))
        row: dict[str, Any] = {"solver": r.model.name, "split": r.frozen.split, "grader": r.frozen.scoring_artifact,
                               "condition": r.track, "retrieval_artifact": r.frozen.retrieval_artifact,
                               "accuracy": r.main.value, "pending": r.pending, "gain": None, "gain_interval": None}
        retriever = _retriever(r)
        if retriever is not None:
            row["retriever"] = retriever.name
            row["k"] = r.provenance["retrieval"]["k"]
            row["retrieve_recall"] = recalls.get((retriever.name, retriever.identity()), {})
        if base is not None and base is not r and not r.pending and not base.pending:
            a, b = _flags(r), _flags(base)
            ids = sorted(set(a) & set(b))
            if ids:
                x = [float(bool(a[i])) for i in ids]
                y = [float(bool(b[i])) for i in ids]
                row["gain"] = sum(x) / len(ids) - sum(y) / len(ids)
                row["gain_interval"] = list(paired_bootstrap_interval(x, y, n_resamples=n_resamples))
                row["paired_problems"] = len(ids)
                row["changes"] = paired_changes([bool(v) for v in x], [bool(v) for v in y]).model_dump()
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """The matrix as a markdown table (solver, condition, retriever, k, accuracy, gain [interval], Recall@5)."""
    out = ["| solver | condition | retriever | k | ProofGrade | gain over zero-shot [95%] | helped / hurt / unchanged "
           "(McNemar p) | Recall@5 (hard) |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        acc = "pending" if r["accuracy"] is None else f"{r['accuracy']:.3f}" + (f" ({r['pending']} pending)"
                                                                              if r["pending"] else "")
        gain = "—" if r["gain"] is None else f"{r['gain']:+.3f} [{r['gain_interval'][0]:+.3f}, {r['gain_interval'][1]:+.3f}]"
        recall = r.get("retrieve_recall", {}).get("hard", {}).get("recall@5")
        c = r.get("changes")
        changes = "—" if not c else f"{c['helped']} / {c['hurt']} / {c['unchanged']} (p = {c['p_value']:.3g})"
        out.append(f"| {r['solver']} | {r['condition']} | {r.get('retriever', '—')} | {r.get('k', '—')} | {acc} | "
                   f"{gain} | {changes} | {'—' if recall is None else f'{recall:.3f}'} |")
    return "\n".join(out) + "\n"
