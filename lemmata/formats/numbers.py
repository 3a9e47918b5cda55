"""One number format for the board, the audit viewer and the exports' ``shown`` column.

A column's numbers share one format (3 decimals for rates, 1 for larger numbers,
none for integers), and a score's interval is printed in its score's format, so
the same result reads ``0.070 [0.042, 0.114]`` wherever it appears.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def number_format(values: Iterable[float | None]) -> str:
    """One format for a whole column: 3 decimals for rates in [-1, 1], otherwise 1 (integers stay integers).

    >>> number_format([0.41, 0.5, None]), number_format([41.5, 3.0]), number_format([3, 12]), number_format([0, 0])
    ('{:.3f}', '{:.1f}', '{:.0f}', '{:.0f}')
    """
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if nums and (all(isinstance(v, int) for v in nums)
                 or (all(float(v).is_integer() for v in nums) and any(abs(v) > 1 for v in nums))):
        return "{:.0f}"
    if all(abs(v) <= 1 for v in nums):
        return "{:.3f}"
    return "{:.1f}"


def score_text(value: float | None, interval: Sequence[float] | None = None, pattern: str | None = None) -> str:
    """A score and its interval as plain text, in the board's format (the audit and the exports use it too).

    >>> score_text(0.0701, (0.04215, 0.1141)), score_text(None), score_text(41.52, None)
    ('0.070 [0.042, 0.114]', 'pending', '41.5')
    """
    if value is None:
        return "pending"
    pattern = pattern or number_format([value, *(interval or ())])
    text = pattern.format(value)
    if interval:
        text += f" [{pattern.format(interval[0])}, {pattern.format(interval[1])}]"
    return text
