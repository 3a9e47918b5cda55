"""One printed line per stored baseline result: what was run, every measure with its interval, the result id."""

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
