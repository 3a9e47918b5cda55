"""Printed lines about results: one per stored baseline (every measure with its interval, the result id), and the
headline line `lemmata run` and `lemmata score` print (with the range a pending score can still end in)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lemmata.formats.results import Result

#: measure -> printed label, in print order
LABELS = {"recall@1": "R@1", "recall@5": "R@5", "recall@10": "R@10", "ndcg@10": "nDCG@10", "mrr@100": "MRR@100",
          "CiteRecall@20": "CiteRecall@20", "OfflineCiteRecall@20": "Offline CiteRecall@20", "SourceAcc": "SourceAcc",
          "ToolAcc": "ToolAcc"}


def _fmt(entry: Any) -> str:
    """``0.455 [0.385, 0.525]`` from a stored measure (retrieval summary or Re²Math rate), or ``pending``.

    >>> _fmt({"mean": 0.455, "ci95": [0.385, 0.525]})
    '0.455 [0.385, 0.525]'
    >>> _fmt({"rate": 0.55, "paper_cluster_bootstrap95": [0.472, 0.621], "pending": 0, "final": True})
    '0.550 [0.472, 0.621]'
    >>> _fmt({"rate": 0.0, "pending": 101, "final": False})
    'pending (101 items)'
    """
    if "rate" in entry:
        if not entry.get("final", True) or entry.get("pending"):
            return f"pending ({entry.get('pending', 0)} items)"
        mean, interval = entry["rate"], entry.get("paper_cluster_bootstrap95") or entry.get("wilson95")
    else:
        mean, interval = entry.get("mean"), entry.get("ci95")
    if mean is None:
        return "pending"
    return f"{mean:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def result_line(result: Result, path: str | Path | None = None) -> str:
    """``<benchmark>/<track> <release> · <model>: R@1 … · result <id>``."""
    parts = [f"{label} {_fmt(result.metrics[name])}" for name, label in LABELS.items()
             if isinstance(result.metrics.get(name), dict)]
    if not parts:
        parts = [f"{result.main.metric} {result.main.value}"]
    frozen = result.frozen
    head = f"{result.benchmark}/{result.track} {frozen.dataset_release} {frozen.split} · {result.model.name}"
    tail = f" · {result.status}" + (f" ({result.pending} pending)" if result.pending else "")
    return f"{head}: " + " · ".join(parts) + tail + f" · result {result.result_id[:12]}"


def headline(result: Result) -> str:
    """``<metric> <value> (<count>/<total> confirmed), <n> item(s) pending; status <status>``; a pending headline
    names the range it can still end in (:func:`lemmata.metrics.bounds.result_bounds`).

    >>> from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
    >>> r = make_result(kind="scored", benchmark="b", track="t", submission_sha256="0" * 64, model=ModelInfo(name="m"),
    ...     frozen=FrozenTuple(dataset_release="b-1.0.0", split="s", retrieval_artifact=None, scoring_artifact="x",
    ...                        date="2026-11-01"), pending=3, status="pending_oracle",
    ...     main=Score(metric="pass@1", value=None, count=2, total=10, bounds=(0.2, 0.45)))
    >>> headline(r)
    'pass@1 pending: 0.200–0.450 (2/10 confirmed), 3 item(s) pending; status pending_oracle'
    """
    from lemmata.formats.numbers import number_format
    from lemmata.metrics.bounds import result_bounds

    main = result.main
    value = "pending" if main.value is None else f"{main.value:.4f}"
    bounds = result_bounds(result) if main.value is None else None
    if bounds is not None:
        pattern = number_format([bounds.low, bounds.high])
        value += f": {pattern.format(bounds.low)}–{pattern.format(bounds.high)}"
    return (f"{main.metric} {value} ({main.count}/{main.total} confirmed), {result.pending} item(s) pending; "
            f"status {result.status}")
