"""Agreement of a binary judge with people beyond chance: Cohen's kappa, with a percentile-bootstrap interval.

Accuracy alone flatters a judge on an unbalanced set (MA-Align's statements are 75% misaligned: a judge that
always says "misaligned" is 75% accurate there, which is how the MathAtlas authors' own judge numbers turned
out to be parse failures). Kappa measures agreement against what two raters with the same marginal rates would
reach by chance: ``κ = (p_o − p_e) / (1 − p_e)`` with ``p_o`` the observed agreement and
``p_e = p_a p_b + (1 − p_a)(1 − p_b)`` for the two raters' positive rates ``p_a``, ``p_b``. It is 0 for a
constant judge and undefined (None) when both raters are constant and equal (``p_e = 1``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, check_resampling, percentile_bounds

__all__ = ["cohen_kappa", "kappa_interval"]


def _kappas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kappa along the last axis of boolean arrays (NaN where undefined)."""
    po = (a == b).mean(-1)
    pa, pb = a.mean(-1), b.mean(-1)
    pe = pa * pb + (1 - pa) * (1 - pb)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pe < 1, (po - pe) / (1 - pe), np.nan)


def _pair(a: Sequence[bool], b: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    if len(a) != len(b) or not len(a):
        raise ValueError("the two raters' labels must be non-empty and aligned")
    return np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' binary labels on the same items; None when undefined.

    >>> cohen_kappa([True, True, False, False], [True, False, False, False])
    0.5
    >>> cohen_kappa([True, False, True, False], [True, False, True, False]), cohen_kappa([True, False], [False, False])
    (1.0, 0.0)
    >>> cohen_kappa([False, False], [False, False]) is None
    True
    """
    value = float(_kappas(*_pair(a, b)))
    return None if np.isnan(value) else value


def kappa_interval(a: Sequence[bool], b: Sequence[bool], *, n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, confidence: float = 0.95) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of kappa, items resampled in pairs (resamples where it is undefined are left
    out); None when no resample defines it.

    >>> low, high = kappa_interval([True] * 10 + [False] * 10, [True] * 9 + [False] * 11, n_resamples=500)
    >>> 0.6 < low < 0.95 <= high <= 1.0
    True
    """
    check_resampling(n_resamples, confidence, seed)
    x, y = _pair(a, b)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(n_resamples, len(x)))
    values = _kappas(x[idx], y[idx])
    values = values[~np.isnan(values)]
    return percentile_bounds(values[:, None], confidence)[0] if values.size else None
