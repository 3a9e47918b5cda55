"""Ranking rules beyond the frozen tuple: declared run conditions, and printed aggregates their parts contradict.

Declared conditions come from a submission header's ``flags`` (and a reported
row's): each is shown as a badge next to the model, and those that change what
the system was asked to do (consulting external tools or data, seeing Lean's
feedback, a different context window) also split the group, so a system that
saw more is never ranked against one that saw less. Conditions that only
disclose how a system was built (tuned on the pool, the attempt budget) are
badges, not splits: the task and the estimate are the same.

A paper's printed aggregate that its own printed cells do not support is
flagged at import (``flags["<name>_disagrees"] = {printed, implied, …}``). The
board ranks such tables by the recomputed value and shows the printed one
beside it: a typo in a paper must not decide a rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from lemmata.core.family import Condition
from lemmata.core.package_data import read_toml


#: the conditions every benchmark may declare, in badge order (a family adds its own: ``Family.conditions``), kept as
#: data in ``conditions.toml`` beside this module
GENERIC: tuple[Condition, ...] = tuple(
    Condition.model_validate(row) for row in read_toml("lemmata.space", "conditions.toml")["condition"])

#: valued conditions: (flag, badge format, tooltip, splits)
VALUED: tuple[tuple[str, str, str, bool], ...] = (
    ("window", "window {}", "local proof blocks shown to the system (m); a different window is a different task",
     True),
    ("n", "budget {}", "attempts drawn per exercise and formulation (pass@k is estimated from them)", False),
)


def conditions() -> tuple[Condition, ...]:
    """Every declared condition, in badge order: the generic ones, then each family's own (through the registry)."""
    from lemmata.families import conditions as declared

    return GENERIC + tuple(declared())


def badges(flags: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(badge, tooltip)`` for every declared condition that holds.

    >>> badges({"used_external_tools": True, "tuned_on_pool": False, "window": 3, "n": 128})
    [('external tools', 'consulted something beyond the declared artifact or model (web search, other corpora, other models, code execution)'), ('window 3', 'local proof blocks shown to the system (m); a different window is a different task'), ('budget 128', 'attempts drawn per exercise and formulation (pass@k is estimated from them)')]
    """
    out = [(c.badge, c.description) for c in conditions() if c.holds(flags)]
    for flag, fmt, tip, _ in VALUED:
        value = flags.get(flag)
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            out.append((fmt.format(value), tip))
    return out


def comparability_suffix(flags: Mapping[str, Any]) -> str:
    """The part of a row's group key its splitting conditions add ('' when none holds).

    >>> comparability_suffix({}), comparability_suffix({"used_lean_feedback": True, "tuned_on_pool": True})
    ('', 'with Lean feedback')
    >>> comparability_suffix({"window": 5, "used_external_tools": True})
    'with external tools, window 5'
    """
    if not flags:  # most rows declare no condition
        return ""
    held = [c.badge for c in conditions() if c.splits and c.holds(flags)]
    valued = [fmt.format(flags[flag]) for flag, fmt, _, splits in VALUED
              if splits and isinstance(flags.get(flag), (int, str)) and not isinstance(flags.get(flag), bool)]
    return ", ".join((["with " + " and ".join(held)] if held else []) + valued)


def view_group_key(group_key: str, flags: Mapping[str, Any]) -> str:
    """The frozen tuple's group key, plus the conditions that make rows incomparable.

    >>> view_group_key("r | s | - | a", {"used_external_tools": True})
    'r | s | - | a | with external tools'
    """
    suffix = comparability_suffix(flags)
    return f"{group_key} | {suffix}" if suffix else group_key


class PrintedAggregate(BaseModel):
    """A printed aggregate and the value its printed parts support, in the row's unit."""

    model_config = ConfigDict(frozen=True)

    flag: str
    printed: float
    recomputed: float
    disagrees: bool


def printed_aggregate(value: float | None, flags: Mapping[str, Any],
                      metrics: Mapping[str, Any]) -> PrintedAggregate | None:
    """The recomputed aggregate of a row whose headline is a printed aggregate, or None.

    A ``*_disagrees`` flag carries both numbers in the paper's unit; the row's
    value is the printed one in the board's unit, so their ratio converts. A row
    without a flag but with ``mean_of_printed_cells`` (MIRB) is recomputed too,
    so a whole table ranks by one rule.

    >>> p = printed_aggregate(0.552, {"average_disagrees": {"printed": 55.2, "implied": 50.1042}}, {})
    >>> round(p.recomputed, 6), p.disagrees
    (0.501042, True)
    >>> printed_aggregate(0.32, {}, {"mean_of_printed_cells": 0.3201}).disagrees
    False
    >>> printed_aggregate(0.5, {}, {}) is None
    True
    """
    if value is None or not math.isfinite(value):
        return None
    for key, flag in flags.items():
        if key.endswith("_disagrees") and isinstance(flag, Mapping):
            printed, implied = flag.get("printed"), flag.get("implied")
            if _num(printed) and _num(implied) and printed != 0:
                return PrintedAggregate(flag=key, printed=value, recomputed=implied * value / printed, disagrees=True)
    cells = metrics.get("mean_of_printed_cells")
    if _num(cells):
        return PrintedAggregate(flag="", printed=value, recomputed=float(cells), disagrees=False)
    return None


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
