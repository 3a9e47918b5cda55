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
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "WILSON_Z",
    "BucketCount",
    "FailureDecomposition",
    "GroupRate",
    "InstanceVerdicts",
    "MetricResult",
    "SourceMatch",
    "ToolAccReport",
    "Verdict",
    "bootstrap_interval",
    "bootstrap_intervals",
    "cluster_bootstrap_interval",
    "cluster_bootstrap_intervals",
    "failure_decomposition",
    "paired_bootstrap_interval",
    "summarize_rate",
    "summarize_rates",
    "tool_acc_report",
    "wilson_interval",
]
