"""Bounds on a score whose verdicts are still pending: what is confirmed so far, and the most that could still count.

A result with pending items has no score yet ("pending" is never success). But
its per-item records already say more than "N pending": an item whose verdict
is settled either way no longer moves, and an item that is pending only for a
part that cannot change the outcome (Re²Math asks Suff only when Ground held;
an item whose Ground is negative is settled as "no" even while its anchor check
waits) cannot count any more. So the final count lies in
``[confirmed, confirmed + open]`` and the rate in
``[confirmed / total, (confirmed + open) / total]``.

One pure function over a result (:func:`result_bounds`), used by the board, its
exports, the audit, the matrix and the CLI alike: the range the scorer declared
for its headline (``main.bounds``: a rate that is not a count over items, such
as TaoBench's pass@k over n samples), else the range read off the stored
per-item records (:func:`pending_bounds`). Items are read by their outcome field, in this order:
``tool_acc`` (Re²Math, the conjunction Ground ∧ Suff), ``correct`` (compiles ∧
faithful), ``passed``, ``hit``, ``status``; a record without any of them has no
outcome, and a result with such records gets no bounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["yes", "no", "pending"]

_OUTCOME_KEYS = ("tool_acc", "correct", "passed", "hit", "status")
_YES = frozenset({"yes", "true", "correct", "passed", "pass", "hit", "success"})
_PENDING = frozenset({"pending", "waiting", "queued"})


class PendingBounds(BaseModel):
    """Confirmed successes, items that could still count, and the population (rates are over ``total``)."""

    model_config = ConfigDict(frozen=True)

    confirmed: int = Field(ge=0, description="items already counted as successes")
    open: int = Field(ge=0, description="pending items whose verdict could still make them count")
    settled_pending: int = Field(default=0, ge=0,
                                 description="items marked pending whose outcome is already settled as not counting")
    total: int = Field(ge=1, description="items in the metric's population")
    rates: tuple[float, float] | None = Field(default=None, description="the scorer's declared range of the "
                                              "headline rate, when it is not confirmed/total (pass@k over n samples)")

    @property
    def low(self) -> float:
        """The rate if no open item counts (what is confirmed so far)."""
        return self.rates[0] if self.rates else self.confirmed / self.total

    @property
    def high(self) -> float:
        """The rate if every open item counts (the most it could still be)."""
        return self.rates[1] if self.rates else (self.confirmed + self.open) / self.total

    def as_dict(self) -> dict[str, Any]:
        """The bounds as exported (CSV/JSON rows, the API): counts and both rates."""
        return {"confirmed": self.confirmed, "could_still_count": self.open, "total": self.total,
                "confirmed_rate": self.low, "max_rate": self.high}


def item_outcome(item: Mapping[str, Any]) -> Outcome | None:
    """One per-item record's outcome for the headline count, or None when the record names none.

    >>> item_outcome({"tool_acc": "no", "pending": True}), item_outcome({"tool_acc": "pending"})
    ('no', 'pending')
    >>> item_outcome({"correct": {"verdict": "yes"}}), item_outcome({"passed": False}), item_outcome({"x": 1})
    ('yes', 'no', None)
    >>> item_outcome({"status": "wrong", "pending": True}), item_outcome({"pending": True})
    ('no', 'pending')
    """
    for key in _OUTCOME_KEYS:
        if key not in item:
            continue
        value = item[key]
        if isinstance(value, Mapping):
            value = value.get("verdict")
        if value is None:
            continue
        if isinstance(value, bool):
            return "yes" if value else "no"
        text = str(value).strip().casefold()
        if text in _PENDING:
            return "pending"
        return "yes" if text in _YES else "no"
    if item.get("pending") is True:
        return "pending"
    return None


def pending_bounds(items: Iterable[Mapping[str, Any]], total: int | None = None) -> PendingBounds | None:
    """Bounds on the headline count from per-item records; None when any record has no readable outcome (then
    nothing is claimed) or there are no records.

    ``total`` is the metric's population when it differs from the number of records (items the submission
    skipped count as failures).

    >>> b = pending_bounds([{"tool_acc": "yes"}, {"tool_acc": "no", "pending": True}, {"tool_acc": "pending"},
    ...                     {"tool_acc": "no"}])
    >>> (b.confirmed, b.open, b.settled_pending, b.total, b.low, b.high)
    (1, 1, 1, 4, 0.25, 0.5)
    >>> pending_bounds([{"tool_acc": "yes"}, {"x": 1}]) is None, pending_bounds([]) is None
    (True, True)
    >>> pending_bounds([{"passed": True}], total=10).high
    0.1
    """
    confirmed = open_ = settled = n = 0
    for item in items:
        n += 1
        outcome = item_outcome(item)
        if outcome is None:
            return None
        if outcome == "yes":
            confirmed += 1
        elif outcome == "pending":
            open_ += 1
        elif item.get("pending") is True:
            settled += 1
    if n == 0:
        return None
    return PendingBounds(confirmed=confirmed, open=open_, settled_pending=settled, total=max(total or n, n, 1))


def result_bounds(result: Mapping[str, Any] | Any) -> PendingBounds | None:
    """The bounds of a pending result (a stored document or a :class:`~lemmata.formats.results.Result`); None when
    nothing is pending or nothing can be claimed.

    >>> doc = {"pending": 2, "main": {"count": 3, "total": 10, "bounds": [0.25, 0.4]}, "items": [{"x": 1}]}
    >>> b = result_bounds(doc)
    >>> (b.low, b.high, b.confirmed, b.open, b.total)
    (0.25, 0.4, 3, 2, 10)
    >>> result_bounds({"pending": 1, "main": {"total": 2}, "items": [{"passed": True}, {"passed": "pending"}]}).high
    1.0
    >>> result_bounds({"pending": 0, "main": {}, "items": []}) is None
    True
    """
    doc = result if isinstance(result, Mapping) else result.model_dump(mode="json")
    pending = doc.get("pending") or 0
    if not pending:
        return None
    main = doc.get("main") or {}
    declared = main.get("bounds")
    if declared is not None and len(declared) == 2:
        total = main.get("total") or 1
        return PendingBounds(confirmed=min(main.get("count") or 0, total), open=min(pending, total), total=total,
                             rates=(float(declared[0]), float(declared[1])))
    return pending_bounds(doc.get("items") or [], total=main.get("total"))
