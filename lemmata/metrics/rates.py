"""One rate over a population, reported the way the Re²Math paper reports it.

A :class:`MetricResult` is the unit every binary metric in Lemmata is stored as:
``count / total`` with its Wilson interval, a paper-cluster bootstrap interval,
the paper- and domain-macro averages and a per-domain table, plus ``pending``:
items whose outcome awaits an oracle. Pending items count as failures in the
rate (a score is never inflated by work not done) and are reported separately
so a leaderboard can show "pending oracle".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import Field

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Frozen
from lemmata.metrics.intervals import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    WILSON_Z,
    check_resampling,
    cluster_codes,
    percentile_bounds,
    resampled_ratios,
    wilson_interval,
)

_MAX_LISTED = 20


class GroupRate(Frozen):
    """One row of a stratified table."""

    count: int = Field(ge=0)
    total: int = Field(ge=1)
    rate: float = Field(ge=0.0, le=1.0)
    pending: int = Field(default=0, ge=0)


class MetricResult(Frozen):
    """A rate with the paper's uncertainty fields (names as in ``paper_all_tables.json``)."""

    name: str
    count: int = Field(ge=0, description="positive items (the paper's 'success')")
    total: int = Field(ge=1, description="items in the metric's population")
    rate: float = Field(ge=0.0, le=1.0)
    pending: int = Field(default=0, ge=0, description="items awaiting an oracle; counted as negative in the rate")
    wilson95: tuple[float, float]
    paper_cluster_bootstrap95: tuple[float, float] | None = Field(
        default=None, description="percentile interval resampling citing papers; None without paper keys")
    paper_macro: float | None = Field(default=None, description="mean over papers of the per-paper rate")
    domain_macro: float | None = Field(default=None, description="mean over domains of the per-domain rate")
    per_domain: dict[str, GroupRate] = Field(default_factory=dict)

    def as_paper_dict(self) -> dict:
        """The record in the paper's own field names (``success``, ``wilson95``, ...)."""
        out: dict = {"success": self.count, "total": self.total, "rate": self.rate, "wilson95": list(self.wilson95)}
        if self.paper_cluster_bootstrap95 is not None:
            out["paper_cluster_bootstrap95"] = list(self.paper_cluster_bootstrap95)
        if self.paper_macro is not None:
            out["paper_macro"] = self.paper_macro
        if self.domain_macro is not None:
            out["domain_macro"] = self.domain_macro
        return out


def _as_flags(values: Sequence[bool] | np.ndarray, name: str, n_items: int | None = None) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a vector or an items x metrics matrix, got shape {arr.shape}")
    if n_items is not None and arr.shape[0] != n_items:
        raise ValueError(f"{name} has {arr.shape[0]} items, expected {n_items}")
    if arr.dtype != np.bool_:
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold booleans, got dtype {arr.dtype}")
        bad = np.argwhere((arr != 0) & (arr != 1))
        if bad.size:
            raise InputError([Problem(name, f"values must be 0/1 or booleans; item {int(bad[0, 0])} is {arr[tuple(bad[0])].item()!r}")])
        arr = arr.astype(np.bool_)
    return arr


def _macro(flags: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    sizes = np.bincount(codes, minlength=n_groups).astype(np.float64)
    sums = np.stack([np.bincount(codes, weights=flags[:, j], minlength=n_groups) for j in range(flags.shape[1])], axis=1)
    return (sums / sizes[:, None]).mean(axis=0)


def summarize_rates(
    names: Sequence[str],
    positive: Sequence[Sequence[bool]] | np.ndarray,
    *,
    pending: Sequence[Sequence[bool]] | np.ndarray | None = None,
    papers: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    z: float = WILSON_Z,
) -> list[MetricResult]:
    """Summaries of several rates over one population (columns of ``positive``), sharing bootstrap resamples.

    ``pending`` marks items whose outcome is not known yet; such an item must not be
    positive. Without ``papers`` there is no cluster interval and no paper macro;
    without ``domains`` no domain macro and no per-domain table.

    >>> r = summarize_rates(["A", "B"], [[1, 0], [1, 1], [0, 0], [1, 0]], papers=["p", "p", "q", "r"],
    ...                     domains=["x", "x", "y", "y"], n_resamples=200)
    >>> [(m.name, m.count, m.total, m.rate, m.paper_macro, m.domain_macro) for m in r]
    [('A', 3, 4, 0.75, 0.6666666666666666, 0.75), ('B', 1, 4, 0.25, 0.16666666666666666, 0.25)]
    >>> r[0].per_domain["y"]
    GroupRate(count=1, total=2, rate=0.5, pending=0)
    """
    flags = _as_flags(positive, "positive")
    n_items, n_metrics = flags.shape
    if n_items == 0:
        raise ValueError("no items: a rate over an empty population is undefined")
    names = list(names)
    if len(names) != n_metrics:
        raise ValueError(f"{len(names)} names for {n_metrics} metric columns")
    if pending is None:
        waiting = np.zeros_like(flags)
    else:
        waiting = _as_flags(pending, "pending", n_items)
        if waiting.shape != flags.shape:
            raise ValueError(f"pending has shape {waiting.shape}, positive has {flags.shape}")
        clash = np.argwhere(waiting & flags)
        if clash.size:
            i, j = (int(v) for v in clash[0])
            raise InputError([Problem("pending", f"item {i} is both positive and pending for {names[j]!r}")])
    check_resampling(n_resamples, 0.95, seed)
    counts = flags.sum(axis=0)
    pendings = waiting.sum(axis=0)

    cluster_ci: list[tuple[float, float] | None] = [None] * n_metrics
    paper_macro: list[float | None] = [None] * n_metrics
    if papers is not None:
        codes, n_clusters = cluster_codes(papers, n_items)
        values = flags.astype(np.float64)
        sums = np.stack([np.bincount(codes, weights=values[:, j], minlength=n_clusters) for j in range(n_metrics)], axis=1)
        sizes = np.bincount(codes, minlength=n_clusters).astype(np.float64)
        cluster_ci = list(percentile_bounds(resampled_ratios(sums, sizes, n_resamples, seed), 0.95))
        paper_macro = [float(v) for v in (sums / sizes[:, None]).mean(axis=0)]

    domain_macro: list[float | None] = [None] * n_metrics
    per_domain: list[dict[str, GroupRate]] = [{} for _ in range(n_metrics)]
    if domains is not None:
        labels, codes = np.unique(_domain_labels(domains, n_items), return_inverse=True)
        codes = codes.ravel()
        domain_macro = [float(v) for v in _macro(flags, codes, len(labels))]
        sizes = np.bincount(codes, minlength=len(labels))
        for j in range(n_metrics):
            hits = np.bincount(codes, weights=flags[:, j], minlength=len(labels))
            waits = np.bincount(codes, weights=waiting[:, j], minlength=len(labels))
            per_domain[j] = {
                str(label): GroupRate(count=int(hits[g]), total=int(sizes[g]), rate=float(hits[g] / sizes[g]),
                                      pending=int(waits[g]))
                for g, label in enumerate(labels)
            }

    return [
        MetricResult(
            name=names[j], count=int(counts[j]), total=n_items, rate=float(counts[j] / n_items),
            pending=int(pendings[j]), wilson95=wilson_interval(int(counts[j]), n_items, z),
            paper_cluster_bootstrap95=cluster_ci[j], paper_macro=paper_macro[j], domain_macro=domain_macro[j],
            per_domain=per_domain[j],
        )
        for j in range(n_metrics)
    ]


def _domain_labels(domains: Sequence[str], n_items: int) -> list[str]:
    labels = list(domains)
    if len(labels) != n_items:
        raise ValueError(f"domains must give one label per item: {n_items} items, {len(labels)} labels")
    blank = [i for i, d in enumerate(labels) if not isinstance(d, str) or not d.strip()]
    if blank:
        raise InputError([Problem("domains", f"missing domain label at item(s) {blank[:_MAX_LISTED]}")])
    return labels


def summarize_rate(
    name: str,
    positive: Sequence[bool] | np.ndarray,
    *,
    pending: Sequence[bool] | np.ndarray | None = None,
    papers: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    z: float = WILSON_Z,
) -> MetricResult:
    """Summary of one rate; see :func:`summarize_rates`.

    >>> m = summarize_rate("ToolAcc", [True, False, False], pending=[False, True, False])
    >>> m.count, m.total, m.pending, round(m.rate, 4), m.paper_cluster_bootstrap95
    (1, 3, 1, 0.3333, None)
    """
    flags = np.asarray(positive)
    if flags.ndim != 1:
        raise ValueError(f"positive must be a vector, got shape {flags.shape}")
    waiting = None if pending is None else np.asarray(pending)
    if waiting is not None and waiting.ndim != 1:
        raise ValueError(f"pending must be a vector, got shape {waiting.shape}")
    return summarize_rates([name], flags, pending=waiting, papers=papers, domains=domains,
                           n_resamples=n_resamples, seed=seed, z=z)[0]
