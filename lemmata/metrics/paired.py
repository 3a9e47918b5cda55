"""Per-item changes between two paired runs (a treatment and its baseline on the same items) and the exact McNemar
test on them: how many items the treatment helped (baseline wrong, treatment right), hurt (the reverse) or left
unchanged, and whether helped and hurt differ more than chance would make them.

MathNet's MathRAG compares each retrieval-augmented run with its zero-shot twin problem by problem; a gain in
accuracy alone hides whether retrieval fixed ten problems and broke eight, or fixed two. Only the discordant items
carry information about the difference, so the test conditions on them: under the null hypothesis each discordant
item is helped or hurt with probability 1/2, and the two-sided p-value is the exact binomial tail (McNemar's exact
test; no normal approximation, so it stays valid for the handful of discordant items a small split gives).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from pydantic import Field

from lemmata.core.models import Frozen

__all__ = ["PairedChanges", "exact_mcnemar", "paired_changes"]


class PairedChanges(Frozen):
    """Helped / hurt / unchanged counts of a treatment against its baseline, with the exact McNemar p-value."""

    helped: int = Field(ge=0, description="items wrong in the baseline and right in the treatment")
    hurt: int = Field(ge=0, description="items right in the baseline and wrong in the treatment")
    unchanged: int = Field(ge=0, description="items with the same outcome in both runs (right or wrong)")
    p_value: float = Field(ge=0.0, le=1.0, description="two-sided exact McNemar p-value over helped and hurt")


def exact_mcnemar(helped: int, hurt: int) -> float:
    """The two-sided exact McNemar p-value: ``min(1, 2 P[X <= min(helped, hurt)])`` for X ~ Binomial(helped + hurt,
    1/2). No discordant item gives 1 (nothing to test).

    >>> exact_mcnemar(0, 0), exact_mcnemar(5, 5), exact_mcnemar(3, 0)
    (1.0, 1.0, 0.25)
    >>> exact_mcnemar(10, 0) == 2 / 1024, round(exact_mcnemar(12, 3), 4)
    (True, 0.0352)
    >>> exact_mcnemar(-1, 2)
    Traceback (most recent call last):
    ...
    ValueError: helped and hurt are counts (>= 0), got -1 and 2
    """
    if helped < 0 or hurt < 0:
        raise ValueError(f"helped and hurt are counts (>= 0), got {helped} and {hurt}")
    n = helped + hurt
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(helped, hurt) + 1))  # exact integers: no underflow for large n
    return min(1.0, 2 * tail / 2**n)


def paired_changes(treatment: Sequence[bool], baseline: Sequence[bool]) -> PairedChanges:
    """Helped, hurt and unchanged items of ``treatment`` against ``baseline`` (the same items, in the same order).

    >>> c = paired_changes([True, True, False, True, False], [False, True, False, False, True])
    >>> (c.helped, c.hurt, c.unchanged, c.p_value)
    (2, 1, 2, 1.0)
    >>> paired_changes([True], [True, False])
    Traceback (most recent call last):
    ...
    ValueError: paired runs need the same items: 1 outcomes against 2
    """
    if len(treatment) != len(baseline):
        raise ValueError(f"paired runs need the same items: {len(treatment)} outcomes against {len(baseline)}")
    helped = sum(1 for t, b in zip(treatment, baseline) if t and not b)
    hurt = sum(1 for t, b in zip(treatment, baseline) if b and not t)
    return PairedChanges(helped=helped, hurt=hurt, unchanged=len(treatment) - helped - hurt,
                         p_value=exact_mcnemar(helped, hurt))
