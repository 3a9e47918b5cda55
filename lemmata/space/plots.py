"""Pictures of one frozen-tuple group: per-stratum scores per model, and scores with their intervals.

Per-stratum scores feed Gradio's native ``ScatterPlot`` (a dot per model and
stratum). Gradio ships no interval plot, so the score-with-interval chart is a
small server-rendered SVG (a forest plot) whose labels are escaped like every
other untrusted text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lemmata.space.board import BoardGroup, BoardRow
from lemmata.space.safety import esc

MAX_MODELS = 12
MAX_FOREST_ROWS = 30


def breakdown_value(entry: Any, metric: str) -> float | None:
    """The score in one breakdown cell, whichever shape a handler chose.

    >>> breakdown_value(0.5, "ToolAcc"), breakdown_value({"value": 0.25, "count": 3}, "x")
    (0.5, 0.25)
    >>> breakdown_value({"ToolAcc": {"value": 0.1}}, "ToolAcc"), breakdown_value({"n": 3}, "x")
    (0.1, None)
    """
    if isinstance(entry, bool):
        return None
    if isinstance(entry, (int, float)):
        return float(entry) if math.isfinite(entry) else None
    if isinstance(entry, Mapping):
        for key in ("value", metric, "score", "main"):
            if key in entry:
                return breakdown_value(entry[key], metric)
    return None


def breakdown_table(breakdowns: Mapping[str, Any], metric: str) -> dict[str, dict[str, float]]:
    """``{dimension: {label: score}}`` from a result's breakdowns (dicts of cells or lists of labelled cells).

    >>> breakdown_table({"domain": {"algebra": 0.5, "analysis": {"value": 0.2}}, "junk": 3}, "m")
    {'domain': {'algebra': 0.5, 'analysis': 0.2}}
    >>> breakdown_table({"domain": [{"label": "geo", "value": 0.1}]}, "m")
    {'domain': {'geo': 0.1}}
    """
    out: dict[str, dict[str, float]] = {}
    for dim, cells in breakdowns.items():
        table: dict[str, float] = {}
        if isinstance(cells, Mapping):
            items = cells.items()
        elif isinstance(cells, list):
            items = [(c.get("label", c.get("name")), c) for c in cells if isinstance(c, Mapping)]
        else:
            continue
        for label, cell in items:
            value = breakdown_value(cell, metric)
            if label is not None and value is not None:
                table[str(label)] = value
        if table:
            out[str(dim)] = table
    return out


def dimensions(group: BoardGroup | None) -> list[str]:
    """Breakdown dimensions present in a group, most common first."""
    if group is None:
        return []
    seen: dict[str, int] = {}
    for r in group.rows:
        for dim in breakdown_table(r.breakdowns, r.metric):
            seen[dim] = seen.get(dim, 0) + 1
    return sorted(seen, key=lambda d: (-seen[d], d))


def top_rows(group: BoardGroup, limit: int) -> list[BoardRow]:
    ranked = sorted(group.rows, key=lambda r: (r.rank is None, r.rank or 0, r.model_name.casefold()))
    return ranked[:limit]


def _label(row: BoardRow, taken: set[str]) -> str:
    label = row.model_name if len(row.model_name) <= 40 else row.model_name[:39] + "…"
    if row.kind == "reported":
        label += " (reported)"
    base, n = label, 2
    while label in taken:
        label = f"{base} #{n}"
        n += 1
    taken.add(label)
    return label


def strata_frame(group: BoardGroup | None, dimension: str | None, limit: int = MAX_MODELS):
    """A pandas frame (model, stratum, score) for the top ``limit`` ranked rows of a group."""
    import pandas as pd

    records: list[dict[str, Any]] = []
    if group is not None and dimension:
        taken: set[str] = set()
        for r in top_rows(group, limit):
            table = breakdown_table(r.breakdowns, r.metric).get(dimension)
            if not table:
                continue
            label = _label(r, taken)
            for stratum, score in sorted(table.items()):
                records.append({"model": label, "stratum": stratum, "score": score})
    return pd.DataFrame.from_records(records, columns=["model", "stratum", "score"])


def _ticks(lo: float, hi: float) -> list[float]:
    """About five round ticks covering [lo, hi].

    >>> _ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    span = hi - lo
    raw = span / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    out, v = [], start
    while v <= hi + step * 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def forest_svg(rows: Sequence[BoardRow], metric: str, *, title: str = "", limit: int = MAX_FOREST_ROWS) -> str:
    """Score and interval of each row as an accessible inline SVG (``<figure>`` with a text caption)."""
    shown = [r for r in sorted(rows, key=lambda r: (r.rank is None, r.rank or 0, r.model_name.casefold()))
             if r.value is not None][:limit]
    if not shown:
        return '<p class="lm-empty">No scored entries in this group yet.</p>'
    values = [v for r in shown for v in [r.value, *(r.interval or ())] if v is not None]
    lo, hi = min(values), max(values)
    if lo >= 0 and hi <= 1:
        lo, hi = 0.0, 1.0
    elif hi <= lo:
        hi = lo + 1
    ticks = _ticks(lo, hi)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    label_w, plot_w, row_h, top, bottom = 300, 460, 22, 10, 34
    width, height = label_w + plot_w + 20, top + row_h * len(shown) + bottom

    def x(v: float) -> float:
        return label_w + plot_w * (v - lo) / (hi - lo)

    parts = [f'<figure class="lm-forest"><svg role="img" viewBox="0 0 {width} {height}" width="100%" '
             f'style="max-width:{width}px" xmlns="http://www.w3.org/2000/svg">'
             f"<title>{esc(title or metric)}</title>"]
    for t in ticks:
        parts.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top}" y2="{height - bottom}" '
                     f'stroke="currentColor" stroke-opacity="0.15"/>'
                     f'<text x="{x(t):.1f}" y="{height - bottom + 14}" text-anchor="middle">{t:g}</text>')
    parts.append(f'<text x="{label_w + plot_w / 2:.0f}" y="{height - 4}" text-anchor="middle">{esc(metric)}</text>')
    taken: set[str] = set()
    for i, r in enumerate(shown):
        y = top + row_h * i + row_h / 2
        color = "#b45309" if r.kind == "reported" else "#1d4ed8"
        rank = f"{r.rank}. " if r.rank is not None else ""
        parts.append(f'<text x="{label_w - 8}" y="{y + 4:.1f}" text-anchor="end">{esc(rank + _label(r, taken))}'
                     f"</text>")
        if r.interval:
            a, b = r.interval
            parts.append(f'<line x1="{x(a):.1f}" x2="{x(b):.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{color}" '
                         f'stroke-width="2"><title>{esc(r.interval_kind or "interval")}: [{a:.4g}, {b:.4g}]'
                         f"</title></line>")
        parts.append(f'<circle cx="{x(r.value):.1f}" cy="{y:.1f}" r="4" fill="{color}"><title>'
                     f"{esc(r.model_name)}: {r.value:.4g}</title></circle>")
    parts.append("</svg>")
    caption = "Dots: score; lines: interval" + (f" ({esc(shown[0].interval_kind)})" if shown[0].interval_kind else "")
    caption += "; blue: scored here, amber: reported from the paper."
    if len(rows) > len(shown):
        caption += f" Top {len(shown)} of {len(rows)} shown."
    parts.append(f"<figcaption>{caption}</figcaption></figure>")
    return "".join(parts)
