"""What a board row shows of a result: its main score, headline numbers, model, frozen tuple and a few notes.

The store keeps this summary in its index so that listing reads no result
file (:class:`~lemmata.store.RowSummary`), but deciding what it holds is the
board's job, so it lives here. Bump :data:`ROW_SUMMARY`'s version when
:func:`summary_of` changes: every row's summary is then recomputed from its
file the next time the space opens the store.
"""

from __future__ import annotations

import json
from typing import Any

from lemmata.core.hashing import sha256_json
from lemmata.families import headline_choices, judged_columns
from lemmata.metrics.bounds import result_bounds
from lemmata.metrics.ranks import item_scores
from lemmata.store import RowSummary

__all__ = ["ROW_SUMMARY", "summary_of"]

_SUMMARY_LIMIT = 64 * 1024


def _headline(value: dict[str, Any]) -> Any:
    """The number a metric object stands for (``rate`` of a rate, ``mean`` of a mean, or ``value``).

    A metric with pending items has no number yet (None): showing its partial
    rate would read as a score.
    """
    if isinstance(value.get("pending"), int) and value["pending"] > 0 and ("rate" in value or "mean" in value):
        return None
    for key in ("rate", "mean", "value"):
        if key in value and (value[key] is None or isinstance(value[key], (int, float))):
            return value[key]
    return _NO_HEADLINE


_NO_HEADLINE = object()


def _scalars(obj: Any) -> dict[str, Any]:
    """Numeric columns of a metrics dict: metric objects by their headline number, other dicts one level deep.

    >>> _scalars({"a": 1, "acc": {"name": "acc", "rate": 0.5, "count": 3}, "r@1": {"mean": 0.2, "ci95": [0, 1]},
    ...           "per": {"x": 0.1, "y": [1]}, "e": "text", "f": None, "g": {"rate": 0.0, "pending": 4}})
    {'a': 1, 'acc': 0.5, 'r@1': 0.2, 'per.x': 0.1, 'f': None, 'g': None}
    """
    out: dict[str, Any] = {}
    if not isinstance(obj, dict):
        return out
    for key, value in obj.items():
        if isinstance(value, dict):
            headline = _headline(value)
            if headline is not _NO_HEADLINE:
                out[str(key)] = headline
                continue
            for sub, inner in value.items():
                if inner is None or (isinstance(inner, (int, float)) and not isinstance(inner, bool)):
                    out[f"{key}.{sub}"] = inner
        elif value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            out[str(key)] = value
    return out


def summary_of(doc: dict[str, Any]) -> dict[str, Any]:
    """What a leaderboard row shows of a result, from its JSON document (what a result file holds).

    Works on the document so a stored file can be compared with its index row
    without validating it first; ``items`` are only counted.
    """
    main = doc["main"]
    metrics = doc.get("metrics") or {}
    detail = metrics.get(main.get("metric")) if isinstance(metrics, dict) else None
    summary: dict[str, Any] = {
        "main": main,
        "metrics": _scalars(metrics),
        "model": doc["model"],
        "frozen": doc["frozen"],
        "flags": doc.get("flags", {}),
        "notes": list(doc.get("notes") or [])[:5],
        "n_items": len(doc.get("items") or []),
        "breakdowns": doc.get("breakdowns", {}),
        "main_detail": detail if isinstance(detail, dict) else {},
    }
    scores = item_scores(doc.get("items") or [], str(main.get("metric") or ""), main.get("value"))
    if scores is not None:  # what a rank range resamples (lemmata.metrics.ranks); rows pair by their item set
        ids = sorted(scores)
        summary["item_scores"] = {"items": sha256_json(ids)[:16], "values": [round(scores[i], 6) for i in ids]}
    bounds = result_bounds(doc)  # confirmed so far and the most that could still count (lemmata.metrics.bounds)
    if bounds is not None:
        summary["bounds"] = bounds.model_dump()
    judged = judged_columns().get(str(doc.get("benchmark")))
    judge = judged.judge_of(doc) if judged is not None else None
    if judge is not None:  # the judge of the columns its family declares judge-decided (lemmata.space.judges)
        summary["judge"] = judge[:200]
        summary["judge_rubrics"] = [r[:200] for r in judged.rubrics_of(doc)[:20]]  # what its calibration must cover
    if isinstance(doc.get("usage"), dict):  # an LLM run's tokens and price (only results stored with it carry one)
        summary["usage"] = doc["usage"]
    offers = headline_choices()
    if doc.get("benchmark") in offers:  # other headlines a visitor may rank the group by (e.g. pass@k, k ≤ n)
        summary["headlines"] = offers[doc["benchmark"]](doc)
    for optional in ("breakdowns", "flags", "main_detail", "item_scores", "headlines"):
        if optional in summary and len(json.dumps(summary[optional], default=str)) > _SUMMARY_LIMIT:
            summary[optional] = {}
    return summary


#: what the space's store keeps of each result for its board rows
#: 7: the judge of the judge-decided columns; 8: the other headlines a family offers (pass@k, k ≤ n); 9: the
#: rubrics that judge decided them under (a calibration is shown only when measured under them)
ROW_SUMMARY = RowSummary(version=9, of=summary_of)
