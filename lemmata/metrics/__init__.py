"""Exact, documented metric functions shared by every Lemmata benchmark.

Pure functions over plain inputs (no I/O); the ``metrics/`` folder's
``evaluate`` modules and the scoring pipeline are thin wrappers over these.
Bad input raises a ``ValueError`` (usually :class:`lemmata.errors.InputError`)
that names the offending item; nothing is silently dropped.
"""

from lemmata.metrics.intervals import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    WILSON_Z,
    bootstrap_interval,
    bootstrap_intervals,
    cluster_bootstrap_interval,
    cluster_bootstrap_intervals,
    paired_bootstrap_interval,
    wilson_interval,
)
from lemmata.metrics.rates import GroupRate, MetricResult, summarize_rate, summarize_rates
from lemmata.metrics.retrieval import (
    DEFAULT_MEASURES,
    MeasureResult,
    RetrievalEvaluation,
    evaluate_run,
    map_at_k,
    mrr_at_k,
    ndcg_at_k,
    parse_measure,
    precision_at_k,
    rank_candidates,
    rank_consistent_run,
    recall_at_k,
    run_from_rankings,
)
from lemmata.metrics.tool_acc import (
    BucketCount,
    FailureDecomposition,
    InstanceVerdicts,
    SourceMatch,
    ToolAccReport,
    Verdict,
    failure_decomposition,
    tool_acc_report,
)

__all__ = [
    "DEFAULT_MEASURES",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "WILSON_Z",
    "BucketCount",
    "FailureDecomposition",
    "GroupRate",
    "InstanceVerdicts",
    "MeasureResult",
    "MetricResult",
    "RetrievalEvaluation",
    "SourceMatch",
    "ToolAccReport",
    "Verdict",
    "bootstrap_interval",
    "bootstrap_intervals",
    "cluster_bootstrap_interval",
    "cluster_bootstrap_intervals",
    "evaluate_run",
    "failure_decomposition",
    "map_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "paired_bootstrap_interval",
    "parse_measure",
    "precision_at_k",
    "rank_candidates",
    "rank_consistent_run",
    "recall_at_k",
    "run_from_rankings",
    "summarize_rate",
    "summarize_rates",
    "tool_acc_report",
    "wilson_interval",
]
