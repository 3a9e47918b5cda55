"""Formalization scoring: correctness = compiles ∧ faithful, pass@k, and paired comparisons.

Verdicts use six of Re²Math's seven values (:data:`lemmata.metrics.tool_acc.ITEM_VERDICTS`; ``ungradable``,
the known-content grounding's verdict, is not a formalization verdict):
only ``yes`` is positive and ``pending`` (the Lean checker or the faithfulness judge
has not answered) counts as negative *and* is reported separately. A statement is
*correct* when it compiles and is faithful; ``compiles = no ∧ faithful = pending``
is settled as incorrect, ``compiles = yes ∧ faithful = pending`` is pending.

``pass@k`` is the unbiased estimator of Chen et al. (2021) for an item with ``n``
attempts of which ``c`` are correct: ``1 - C(n-c, k) / C(n, k)``, computed in the
numerically stable product form ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``.

A paired comparison (e.g. a TaoBench exercise stated in Tao's framework and its
Mathlib twin) compares two per-item outcome vectors over the same items: the
difference of means with a paired bootstrap interval, and for binary outcomes the
contingency table both / only A / only B / neither.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, NonNegativeInt, PositiveInt, ValidationError, model_validator

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Frozen
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_interval, paired_bootstrap_interval
from lemmata.metrics.rates import MetricResult, summarize_rates
from lemmata.metrics.tool_acc import ITEM_VERDICTS as VERDICTS
from lemmata.metrics.tool_acc import ItemVerdict as Verdict
from lemmata.metrics.tool_acc import conjunction

_MAX_LISTED = 20


class FormalizationVerdict(Frozen):
    """Checker and judge verdicts on one formalized statement."""

    item_id: str = Field(min_length=1)
    compiles: Verdict = Field(description="the Lean statement elaborates")
    faithful: Verdict = Field(description="the statement means what the informal one says")
    group: str | None = Field(default=None, min_length=1, description="stratum, e.g. chapter or domain")


class CorrectnessReport(Frozen):
    """Correctness, compile rate and faithfulness among compiling statements; strata keyed by ``group``."""

    n_items: int = Field(ge=1)
    correctness: MetricResult
    compile_rate: MetricResult
    faithful_given_compiles: MetricResult | None = Field(description="None when nothing compiles")


class AttemptCounts(Frozen):
    """Attempts on one item: ``n`` made, ``c`` verified correct, ``pending`` awaiting the checker."""

    item_id: str = Field(min_length=1)
    n: PositiveInt
    c: NonNegativeInt
    pending: NonNegativeInt = Field(default=0, description="attempts not yet checked; counted as incorrect")
    group: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _counts(self) -> "AttemptCounts":
        if self.c + self.pending > self.n:
            raise ValueError(f"c ({self.c}) + pending ({self.pending}) exceeds n ({self.n})")
        return self


class GroupMean(Frozen):
    n_items: int = Field(ge=1)
    mean: float


class PassAtKResult(Frozen):
    k: int = Field(ge=1)
    n_items: int = Field(ge=1)
    mean: float = Field(ge=0.0, le=1.0, description="mean over items of the unbiased pass@k")
    ci95: tuple[float, float] | None = Field(description="percentile bootstrap over items; None when not requested")
    pending_items: int = Field(ge=0, description="items with attempts awaiting the checker")
    per_group: dict[str, GroupMean] = Field(default_factory=dict)
    per_item: dict[str, float]


class Contingency(Frozen):
    both: int = Field(ge=0)
    only_a: int = Field(ge=0)
    only_b: int = Field(ge=0)
    neither: int = Field(ge=0)


class PairedComparison(Frozen):
    n_items: int = Field(ge=1)
    mean_a: float
    mean_b: float
    difference: float = Field(description="mean_a - mean_b")
    paired_bootstrap95: tuple[float, float] | None
    contingency: Contingency | None = Field(description="for binary outcomes only")
    pending_a: int = Field(ge=0)
    pending_b: int = Field(ge=0)


def _validated(items: Iterable[Any], model: type[BaseModel], what: str) -> list[Any]:
    records, problems, seen = [], [], {}
    for i, item in enumerate(items):
        if not isinstance(item, model):
            try:
                item = model.model_validate(item)
            except ValidationError as exc:
                ident = item.get("item_id") if isinstance(item, Mapping) else None
                for err in exc.errors():
                    problems.append(Problem(f"{what}[{i}]" + (f" ({ident})" if ident else ""), err["msg"],
                                            field=".".join(str(p) for p in err["loc"]) or None))
                continue
        if item.item_id in seen:
            problems.append(Problem(f"{what}[{i}]", f"duplicate item_id {item.item_id!r} (first at {what}[{seen[item.item_id]}])",
                                    field="item_id"))
        else:
            seen[item.item_id] = i
        records.append(item)
    if problems:
        raise InputError(problems[:_MAX_LISTED])
    if not records:
        raise ValueError(f"no {what}: nothing to score")
    groups = [r.group for r in records]
    if any(g is None for g in groups) and any(g is not None for g in groups):
        missing = [r.item_id for r in records if r.group is None]
        raise InputError([Problem(what, f"group given for some items but not for {missing[:_MAX_LISTED]}", field="group")])
    return records


def correctness_report(verdicts: Iterable[FormalizationVerdict | Mapping[str, Any]]) -> CorrectnessReport:
    """Correctness (compiles ∧ faithful), compile rate and faithful-given-compiles, with strata by ``group``.

    >>> r = correctness_report([
    ...     {"item_id": "1", "compiles": "yes", "faithful": "yes", "group": "ch2"},
    ...     {"item_id": "2", "compiles": "yes", "faithful": "no", "group": "ch2"},
    ...     {"item_id": "3", "compiles": "no", "faithful": "not_evaluable", "group": "ch3"},
    ...     {"item_id": "4", "compiles": "yes", "faithful": "pending", "group": "ch3"}])
    >>> r.correctness.count, r.correctness.pending, r.compile_rate.count, r.faithful_given_compiles.total
    (1, 1, 3, 3)
    >>> {g: (row.count, row.total) for g, row in r.correctness.per_domain.items()}
    {'ch2': (1, 2), 'ch3': (0, 2)}
    """
    records = _validated(verdicts, FormalizationVerdict, "verdicts")
    groups = [r.group for r in records] if records[0].group is not None else None
    both = [conjunction(r.compiles, r.faithful) for r in records]
    compiles = np.array([r.compiles == "yes" for r in records])
    correct, compile_rate = summarize_rates(
        ["Correctness", "CompileRate"],
        np.stack([[p for p, _ in both], compiles], axis=1),
        pending=np.stack([[w for _, w in both], [r.compiles == "pending" for r in records]], axis=1),
        domains=groups,
    )
    faithful = None
    if compiles.any():
        idx = np.flatnonzero(compiles)
        faithful = summarize_rates(
            ["FaithfulGivenCompiles"], np.array([records[i].faithful == "yes" for i in idx]),
            pending=np.array([records[i].faithful == "pending" for i in idx]),
            domains=None if groups is None else [groups[i] for i in idx])[0]
    return CorrectnessReport(n_items=len(records), correctness=correct, compile_rate=compile_rate,
                             faithful_given_compiles=faithful)


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one item with ``n`` attempts, ``c`` correct (Chen et al., 2021).

    >>> pass_at_k(10, 0, 1), pass_at_k(10, 10, 5), pass_at_k(10, 9, 2)
    (0.0, 1.0, 1.0)
    >>> round(pass_at_k(10, 3, 1), 12), round(pass_at_k(10, 3, 2), 12)
    (0.3, 0.533333333333)
    >>> pass_at_k(4, 1, 5)
    Traceback (most recent call last):
    ...
    ValueError: k (5) exceeds the number of attempts n (4): pass@k is not estimable
    """
    n, c, k = _count(n, "n"), _count(c, "c"), _count(k, "k")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"c must lie in [0, n={n}], got {c}")
    if k > n:
        raise ValueError(f"k ({k}) exceeds the number of attempts n ({n}): pass@k is not estimable")
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1, dtype=np.float64)))


def pass_at_k_curve(n: int, correct: Sequence[int]) -> list[float]:
    """Mean unbiased pass@k over items of ``n`` attempts each (``correct``: each item's passed count), for every
    k = 1 … n: the whole curve a headline k is read from (an empty item list gives zeros).

    >>> [round(v, 6) for v in pass_at_k_curve(4, [0, 1, 4])]
    [0.416667, 0.5, 0.583333, 0.666667]
    >>> pass_at_k_curve(2, [])
    [0.0, 0.0]
    """
    if not correct:
        return [0.0] * n
    return [float(np.mean([pass_at_k(n, c, k) for c in correct])) for k in range(1, n + 1)]


def pass_at_k_summary(
    items: Iterable[AttemptCounts | Mapping[str, Any]],
    k: int,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PassAtKResult:
    """Mean pass@k over items, with a bootstrap-over-items interval and per-group means.

    An item with fewer than ``k`` attempts is refused by name (its pass@k is not estimable).
    ``n_resamples=0`` skips the interval.

    >>> s = pass_at_k_summary([{"item_id": "a", "n": 4, "c": 1}, {"item_id": "b", "n": 4, "c": 0, "pending": 2}], 2,
    ...                       n_resamples=0)
    >>> s.mean, s.per_item, s.pending_items
    (0.25, {'a': 0.5, 'b': 0.0}, 1)
    >>> pass_at_k_summary([{"item_id": "a", "n": 1, "c": 1}], 2)
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 1 problem found:
      - items, field 'a': k (2) exceeds the number of attempts n (1): pass@k is not estimable
    """
    k = _count(k, "k")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise ValueError(f"n_resamples must be a non-negative integer, got {n_resamples!r}")
    records = _validated(items, AttemptCounts, "items")
    short = [Problem("items", f"k ({k}) exceeds the number of attempts n ({r.n}): pass@k is not estimable", field=r.item_id)
             for r in records if r.n < k]
    if short:
        raise InputError(short[:_MAX_LISTED])
    per_item = {r.item_id: pass_at_k(r.n, r.c, k) for r in records}
    values = np.array([per_item[r.item_id] for r in records])
    per_group: dict[str, GroupMean] = {}
    if records[0].group is not None:
        for g in sorted({r.group for r in records}):
            vals = [per_item[r.item_id] for r in records if r.group == g]
            per_group[g] = GroupMean(n_items=len(vals), mean=float(np.mean(vals)))
    return PassAtKResult(
        k=k, n_items=len(records), mean=float(values.mean()),
        ci95=bootstrap_interval(values, n_resamples=n_resamples, seed=seed) if n_resamples else None,
        pending_items=sum(r.pending > 0 for r in records), per_group=per_group, per_item=per_item,
    )


def _outcome(value: Any, side: str, item: str) -> tuple[float, bool]:
    if isinstance(value, str):
        if value not in VERDICTS:
            raise InputError([Problem(side, f"{value!r} is not a verdict ({', '.join(VERDICTS)})", field=item)])
        return (1.0 if value == "yes" else 0.0), value == "pending"
    if isinstance(value, (bool, np.bool_)):
        return float(value), False
    if isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value):
        return float(value), False
    raise InputError([Problem(side, f"outcome {value!r} is not a finite number, boolean or verdict", field=item)])


def paired_comparison(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedComparison:
    """Compare two formulations of the same items: ``mean(a) - mean(b)`` with a paired bootstrap interval.

    Outcomes are booleans, numbers (e.g. per-item pass@k) or verdicts (``yes`` positive,
    ``pending`` negative and counted). The contingency table is given when every
    outcome is 0 or 1. ``n_resamples=0`` skips the interval.

    >>> c = paired_comparison({"x": True, "y": True, "z": False, "w": "pending"},
    ...                       {"x": True, "y": False, "z": False, "w": "yes"}, n_resamples=0)
    >>> c.difference, c.contingency, c.pending_a
    (0.0, Contingency(both=1, only_a=1, only_b=1, neither=1), 1)
    >>> paired_comparison({"x": 1}, {"y": 1})
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 2 problem(s) found:
      - b: items missing here but present in a: ['x']
      - a: items missing here but present in b: ['y']
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise ValueError(f"n_resamples must be a non-negative integer, got {n_resamples!r}")
    if not a and not b:
        raise ValueError("no items to compare")
    if a.keys() != b.keys():
        problems = []
        only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        if only_a:
            problems.append(Problem("b", f"items missing here but present in a: {only_a[:_MAX_LISTED]}"))
        if only_b:
            problems.append(Problem("a", f"items missing here but present in b: {only_b[:_MAX_LISTED]}"))
        raise InputError(problems)
    ids = sorted(a)
    pa = [_outcome(a[i], "a", i) for i in ids]
    pb = [_outcome(b[i], "b", i) for i in ids]
    va, vb = np.array([v for v, _ in pa]), np.array([v for v, _ in pb])
    binary = bool(np.isin(va, (0.0, 1.0)).all() and np.isin(vb, (0.0, 1.0)).all())
    table = None
    if binary:
        ya, yb = va == 1.0, vb == 1.0
        table = Contingency(both=int((ya & yb).sum()), only_a=int((ya & ~yb).sum()),
                            only_b=int((~ya & yb).sum()), neither=int((~ya & ~yb).sum()))
    return PairedComparison(
        n_items=len(ids), mean_a=float(va.mean()), mean_b=float(vb.mean()), difference=float(va.mean() - vb.mean()),
        paired_bootstrap95=paired_bootstrap_interval(va, vb, n_resamples=n_resamples, seed=seed) if n_resamples else None,
        contingency=table, pending_a=sum(w for _, w in pa), pending_b=sum(w for _, w in pb),
    )

