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

from lemmata.metrics.glossary import describe, dimension_label
from lemmata.space.board import BoardGroup, BoardRow, BoardView
from lemmata.space.safety import esc

MAX_MODELS = 15
MAX_FOREST_ROWS = 30
#: the widest legend label that Vega draws in full (its default label limit is 160px)
LEGEND_CHARS = 26


_CELL_KEYS = ("value", "score", "main")
_RATE_KEYS = ("rate", "mean", "value")
_MEASURE_KEYS = frozenset({"rate", "mean", "value", "score", "count", "total", "pending", "ci95", "wilson95"})


def breakdown_value(entry: Any, metric: str, keys: tuple[str, ...] = _CELL_KEYS) -> float | None:
    """The score in one breakdown cell, whichever shape a handler chose.

    >>> breakdown_value(0.5, "ToolAcc"), breakdown_value({"value": 0.25, "count": 3}, "x")
    (0.5, 0.25)
    >>> breakdown_value({"ToolAcc": {"value": 0.1}}, "ToolAcc"), breakdown_value({"n": 3}, "x")
    (0.1, None)
    >>> breakdown_value({"rate": 0.3}, "x"), breakdown_value({"rate": 0.3}, "x", ("rate",))
    (None, 0.3)
    >>> breakdown_value({"rate": 0.0, "pending": 39}, "x", ("rate",)) is None
    True
    """
    if isinstance(entry, bool):
        return None
    if isinstance(entry, (int, float)):
        return float(entry) if math.isfinite(entry) else None
    if isinstance(entry, Mapping):
        if isinstance(entry.get("pending"), int) and entry["pending"] > 0:
            return None  # a stratum with verdicts still pending has no score yet
        for key in (metric, *keys):
            if key in entry:
                return breakdown_value(entry[key], metric, keys)
    return None


def _tables(node: Any, metric: str, keys: tuple[str, ...], path: tuple[str, ...], out: dict, depth: int) -> None:
    if depth > 3:
        return
    items: list[tuple[Any, Any]]
    if isinstance(node, Mapping):
        items = list(node.items())
    elif isinstance(node, list):
        items = [(c.get("label", c.get("name")), c) for c in node if isinstance(c, Mapping)]
    else:
        return
    table = {str(label): v for label, cell in items
             if label is not None and (v := breakdown_value(cell, metric, keys)) is not None}
    if table and path:
        out[" / ".join(path)] = table
        return
    for label, child in items:
        if isinstance(child, Mapping) and _MEASURE_KEYS.intersection(child):
            continue  # a measurement (count, rate, …) of one stratum, not a table of strata
        if isinstance(child, (Mapping, list)) and label is not None:
            _tables(child, metric, keys, (*path, str(label)), out, depth + 1)


def breakdown_table(breakdowns: Mapping[str, Any], metric: str,
                    main_detail: Mapping[str, Any] | None = None) -> dict[str, dict[str, float]]:
    """``{dimension: {stratum: score of the main metric}}`` from a result's breakdowns and main-metric detail.

    Breakdowns may nest (``{"appendix": {"By domain": {label: {metric: v}}}}`` gives the dimension
    ``appendix / By domain``); a cell is a number or names its score by ``value``, the metric's name,
    ``score`` or ``main``. The main metric's own object may hold per-stratum rates (``per_domain``).

    >>> breakdown_table({"domain": {"algebra": 0.5, "analysis": {"value": 0.2}}, "junk": 3}, "m")
    {'domain': {'algebra': 0.5, 'analysis': 0.2}}
    >>> breakdown_table({"x": {"By domain": [{"label": "geo", "m": 0.1}]}}, "m")
    {'x / By domain': {'geo': 0.1}}
    >>> breakdown_table({"fail": {"a": {"rate": 1.0}}}, "m", {"rate": 0.2, "per_domain": {"geo": {"rate": 0.3}}})
    {'per_domain': {'geo': 0.3}}
    """
    out: dict[str, dict[str, float]] = {}
    _tables(breakdowns, metric, _CELL_KEYS, (), out, 0)
    for key, value in (main_detail or {}).items():
        if isinstance(value, (Mapping, list)):
            _tables(value, metric, _RATE_KEYS, (str(key),), out, 1)
    return out


def row_tables(row: BoardRow) -> dict[str, dict[str, float]]:
    """A row's strata tables, including ``per_<dimension>.<stratum>`` numbers among its metrics (MIRB's
    per-dataset scores)."""
    tables = breakdown_table(row.breakdowns, row.metric, row.main_detail)
    for key, value in row.metrics.items():
        dim, dot, label = key.partition(".")
        if dot and dim.startswith("per_") and isinstance(value, (int, float)) and not isinstance(value, bool):
            tables.setdefault(dim, {})[label] = float(value)
    return tables


def dimensions(group: BoardGroup | None) -> list[str]:
    """Breakdown dimensions present in a group, most common first."""
    if group is None:
        return []
    seen: dict[str, int] = {}
    for r in group.rows:
        for dim in row_tables(r):
            seen[dim] = seen.get(dim, 0) + 1
    return sorted(seen, key=lambda d: (-seen[d], d))


#: distinct colours for up to MAX_MODELS models (the plot's own legend is replaced by a wrapping HTML one)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173")


def model_colors(frame) -> dict[str, str]:
    """A colour per plotted model, in rank order (the scatter's ``color_map`` and the HTML legend share it)."""
    models = list(dict.fromkeys(frame["model"])) if len(frame) else []
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}


def legend_html(colors: Mapping[str, str]) -> str:
    """The models of the scatter plot as a wrapping legend (every entry visible, however many).

    >>> legend_html({"<b>": "#000"})
    '<div class="lm-legend" aria-label="models"><span><i style="background:#000"></i>&lt;b&gt;</span></div>'
    """
    if not colors:
        return ""
    items = "".join(f'<span><i style="background:{c}"></i>{esc(m)}</span>' for m, c in colors.items())
    return f'<div class="lm-legend" aria-label="models">{items}</div>'


def plot_group(view: BoardView) -> BoardGroup | None:
    """The group the plots show: the selected one, else the first listed group with a score under the filter.

    A pending submission's group (newest first, so listed first) has nothing to plot; the plots move on to the
    first group that does, and follow the Source filter and search because ``group.rows`` are what is listed.
    """
    if not view.groups:
        return None
    return next((g for g in view.groups if any(r.value is not None for r in g.rows)), view.groups[0])


def plot_title(metric: str, dimension: str | None) -> str:
    """An English title: ``nDCG@10 (MIRB average) per dataset``.

    >>> plot_title("ndcg@10 (MIRB average)", "per_dataset"), plot_title("ToolAcc", None)
    ('nDCG@10 (MIRB average) per dataset', 'ToolAcc')
    """
    label = describe(metric).label if metric else "score"
    return f"{label} per {dimension_label(dimension)}" if dimension else label


def legend_label(row: BoardRow, taken: set[str], width: int = LEGEND_CHARS) -> str:
    """A model name short enough to show whole in a legend, unique within the plot.

    >>> taken = set()
    >>> legend_label(_Named("a-very-long-model-name-that-goes-on-and-on"), taken), legend_label(_Named("x"), taken)
    ('a-very-long-model-name-th…', 'x')
    >>> legend_label(_Named("x"), taken)
    'x #2'
    """
    return _unique(_short(row.model_name, width), taken)


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[:width - 1] + "…"


def _unique(label: str, taken: set[str]) -> str:
    """``label``, or ``label #2``, ``#3``, … when it is taken already; the result is added to ``taken``."""
    base, n = label, 2
    while label in taken:
        label = f"{base} #{n}"
        n += 1
    taken.add(label)
    return label


class _Named:
    def __init__(self, name: str) -> None:
        self.model_name = name


def top_rows(group: BoardGroup, limit: int) -> list[BoardRow]:
    ranked = sorted(group.rows, key=lambda r: (r.rank is None, r.rank or 0, r.model_name.casefold()))
    return ranked[:limit]


def _label(row: BoardRow, taken: set[str]) -> str:
    label = _short(row.model_name, 40)
    return _unique(label + " (reported)" if row.kind == "reported" else label, taken)


def strata_frame(group: BoardGroup | None, dimension: str | None, limit: int = MAX_MODELS):
    """A pandas frame (model, stratum, score) for the top ``limit`` ranked rows of a group (legend-sized names)."""
    import pandas as pd

    records: list[dict[str, Any]] = []
    if group is not None and dimension:
        taken: set[str] = set()
        for r in top_rows(group, limit):
            if r.value is None:
                continue
            table = row_tables(r).get(dimension)
            if not table:
                continue
            label = legend_label(r, taken)
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


def forest_legend(shown: Sequence[BoardRow]) -> str:
    """The forest plot's key, naming only the marks drawn (no interval line promised where none is drawn).

    >>> from dataclasses import replace
    >>> from lemmata.space.board import row_from_index
    >>> r = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "reported", "benchmark": "b",
    ...     "track": "t", "group_key": "g", "model_name": "m", "main_value": 0.5, "pending": 0, "status": "complete",
    ...     "scored_at": "", "version": 1})
    >>> forest_legend([r])
    'Dots: score (amber: reported from the paper).'
    >>> forest_legend([r, replace(r, kind="scored", interval=(0.4, 0.6), interval_kind="wilson95")])
    'Dots: score; lines: interval (wilson95), where the entry has one (blue: scored here, amber: reported from the paper).'
    """
    kinds = sorted({r.interval_kind for r in shown if r.interval and r.interval_kind})
    text = "Dots: score"
    if any(r.interval for r in shown):
        text += "; lines: interval" + (f" ({esc(', '.join(kinds))})" if kinds else "")
        if not all(r.interval for r in shown):
            text += ", where the entry has one"
    colours = [c for c, present in (("blue: scored here", any(r.kind != "reported" for r in shown)),
                                    ("amber: reported from the paper", any(r.kind == "reported" for r in shown)))
               if present]
    text += f" ({', '.join(colours)})"
    if any(r.printed is not None and r.printed.disagrees for r in shown):
        text += "; red ring: the paper's printed aggregate, where its own cells do not support it"
    return text + "."


def forest_svg(rows: Sequence[BoardRow], metric: str, *, title: str = "", limit: int = MAX_FOREST_ROWS) -> str:
    """Score and interval of each row as an accessible inline SVG (``<figure>`` with a text caption)."""
    shown = [r for r in sorted(rows, key=lambda r: (r.rank is None, r.rank or 0, r.model_name.casefold()))
             if r.value is not None][:limit]
    if not shown:
        return '<p class="lm-empty">Nothing to plot: no listed entry of this group has a score yet.</p>'
    values = [v for r in shown for v in [r.rank_value, r.value, *(r.interval or ())] if v is not None]
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
    parts.append(f'<text x="{label_w + plot_w / 2:.0f}" y="{height - 4}" text-anchor="middle">{esc(plot_title(metric, None))}</text>')
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
        if r.printed is not None and r.printed.disagrees:  # the paper's printed aggregate, as a ring
            parts.append(f'<circle cx="{x(r.printed.printed):.1f}" cy="{y:.1f}" r="4" fill="none" '
                         f'stroke="#b91c1c" stroke-width="1.5"><title>{esc(r.model_name)}: printed '
                         f"{r.printed.printed:.4g}</title></circle>")
        parts.append(f'<circle cx="{x(r.rank_value):.1f}" cy="{y:.1f}" r="4" fill="{color}"><title>'
                     f"{esc(r.model_name)}: {r.rank_value:.4g}</title></circle>")
    parts.append("</svg>")
    caption = forest_legend(shown)
    if len(rows) > len(shown):
        caption += f" Top {len(shown)} of {len(rows)} shown."
    parts.append(f"<figcaption>{caption}</figcaption></figure>")
    return "".join(parts)


def cost_axis(rows: Sequence[BoardRow]) -> tuple[str, list[tuple[BoardRow, float]]]:
    """What the cost-versus-score plot puts on x: the price where every plotted run reports one, else the tokens
    (in + out); and each scored LLM run with its x. Runs without usage are left out (nothing to place them by).

    >>> from dataclasses import replace
    >>> from lemmata.space.board import row_from_index
    >>> r = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored", "benchmark": "b",
    ...     "track": "t", "group_key": "g", "model_name": "m", "main_value": 0.5, "pending": 0, "status": "complete",
    ...     "scored_at": "", "version": 1})
    >>> a = replace(r, usage={"prompt_tokens": 900, "completion_tokens": 100, "cost": 0.02})
    >>> b = replace(r, result_id="b", usage={"prompt_tokens": 50, "completion_tokens": 50, "cost": None})
    >>> axis, placed = cost_axis([a, b])
    >>> cost_axis([a, r])[0], axis, [(row.result_id, x) for row, x in placed]
    ('usage.cost', 'tokens', [('a', 1000), ('b', 100)])
    """
    from lemmata.space.board import usage_number

    runs = [r for r in rows if r.usage and r.rank_value is not None and math.isfinite(r.rank_value)]
    if runs and all(usage_number(r, "cost") is not None for r in runs):
        return "usage.cost", [(r, float(usage_number(r, "cost"))) for r in runs]  # type: ignore[arg-type]
    placed = [(r, (usage_number(r, "prompt_tokens") or 0) + (usage_number(r, "completion_tokens") or 0)) for r in runs]
    return "tokens", [(r, x) for r, x in placed if x > 0]


def cost_svg(rows: Sequence[BoardRow], metric: str, *, limit: int = MAX_FOREST_ROWS) -> str:
    """Score against what each LLM run cost (its price, else its tokens) as an inline SVG scatter; '' when no
    listed entry reports usage (a retrieval group, runs without a request log)."""
    from lemmata.metrics.glossary import describe

    axis, placed = cost_axis(rows)
    placed = placed[:limit]
    if not placed:
        return ""
    xs, ys = [x for _, x in placed], [r.rank_value for r, _ in placed]
    x_hi = max(xs) * 1.05 or 1.0
    y_lo, y_hi = (0.0, 1.0) if min(ys) >= 0 and max(ys) <= 1 else (min(ys), max(ys) if max(ys) > min(ys) else min(ys) + 1)
    x_ticks, y_ticks = _ticks(0.0, x_hi), _ticks(y_lo, y_hi)
    x_hi, y_lo, y_hi = max(x_hi, x_ticks[-1]), min(y_lo, y_ticks[0]), max(y_hi, y_ticks[-1])
    left, plot_w, plot_h, top, bottom = 60, 460, 260, 10, 40
    width, height = left + plot_w + 20, top + plot_h + bottom

    def px(v: float) -> float:
        return left + plot_w * v / x_hi

    def py(v: float) -> float:
        return top + plot_h * (1 - (v - y_lo) / (y_hi - y_lo))

    x_title = describe("usage.cost").label if axis == "usage.cost" else "Tokens (in + out)"
    parts = [f'<figure class="lm-forest"><svg role="img" viewBox="0 0 {width} {height}" width="100%" '
             f'style="max-width:{width}px" xmlns="http://www.w3.org/2000/svg">'
             f"<title>{esc(plot_title(metric, None))} against {esc(x_title.lower())}</title>"]
    parts += [f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top}" y2="{top + plot_h}" stroke="currentColor" '
              f'stroke-opacity="0.15"/><text x="{px(t):.1f}" y="{top + plot_h + 14}" text-anchor="middle">{t:g}</text>'
              for t in x_ticks]
    parts += [f'<line x1="{left}" x2="{left + plot_w}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="currentColor" '
              f'stroke-opacity="0.15"/><text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>'
              for t in y_ticks]
    parts.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 4}" text-anchor="middle">{esc(x_title)}</text>')
    for r, x in placed:
        color = "#b45309" if r.kind == "reported" else "#1d4ed8"
        parts.append(f'<circle cx="{px(x):.1f}" cy="{py(r.rank_value):.1f}" r="4" fill="{color}"><title>'
                     f"{esc(r.model_name)}: {r.rank_value:.4g} at {x:,.4g}</title></circle>")
    parts.append("</svg>")
    caption = (f"Each dot: an LLM run's score against its {'price' if axis == 'usage.cost' else 'tokens in + out'}, "
               "as its runner request log reports them (self-reported with the log; hover a dot for the model).")
    if axis == "tokens":
        caption += " Not every run reports a price, so tokens are plotted."
    return f"{''.join(parts)}<figcaption>{caption}</figcaption></figure>"
