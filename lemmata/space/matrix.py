"""Across benchmarks: one row per declared model identity, one column per benchmark and track, main scores only.

A cell holds the model's main score in the column's *reference group* — the
frozen-tuple group of that benchmark and track with the most entries — so a
column compares like with like. Where the model has entries only in another
group of that column (another release, split or scoring artifact), the cell
shows that score marked "other tuple" and links to its own group: it is not
comparable with the column's other cells. Rows are never averaged: columns
differ in task, metric and frozen tuple, and a mean over them would mix numbers
that measure different things (the page says so).

Rows are keyed by :meth:`~lemmata.formats.results.ModelInfo.identity` (name,
revision, prompts, index, sampling…): two entries share a row only when they
declare the same system. The declared metadata (type, parameters, open weights,
licence, embedding dimension) become columns and filters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lemmata.metrics.glossary import describe
from lemmata.space.board import BoardRow, newest_per_system, rank_rows
from lemmata.formats.numbers import number_format
from lemmata.space.safety import esc

#: parameter-count ceilings offered as a filter (label, max parameters or None for any)
SIZE_CHOICES = (("any size", ""), ("≤ 100M", "1e8"), ("≤ 1B", "1e9"), ("≤ 10B", "1e10"), ("≤ 100B", "1e11"))
KIND_CHOICES = ("retriever", "llm", "agent", "prover", "baseline", "other", "undeclared")
NO_AVERAGE = ("No row is averaged across benchmarks: columns differ in task, metric and frozen tuple (release, "
              "split, retrieval artifact, scoring artifact), and a mean over them would mix numbers that measure "
              "different things. A cell compares with its column only when it is in the column's group; a cell "
              "marked “other tuple” comes from another group of that benchmark and is not comparable with the rest "
              "of its column.")


@dataclass(frozen=True)
class Column:
    benchmark: str
    track: str
    group: str  # the reference group's view key
    metric: str
    higher_is_better: bool = True

    @property
    def label(self) -> str:
        return f"{self.benchmark} / {self.track}"


@dataclass(frozen=True)
class Cell:
    value: float | None
    group: str
    comparable: bool  # in the column's reference group
    rank: int | None = None
    of: int = 0
    pending: bool = False
    kind: str = "scored"
    #: a pending score's range: confirmed so far … the most it could still reach (None: not known)
    bounds: tuple[float, float] | None = None


@dataclass
class ModelRow:
    identity: str
    name: str
    model: dict[str, Any]
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)


def build_matrix(rows: Sequence[BoardRow], order: Sequence[str] = ()) -> tuple[list[Column], list[ModelRow]]:
    """Columns (benchmark/track with their reference group, benchmarks in ``order`` first) and one row per model
    identity."""
    from lemmata.space.board import higher_is_better  # one rule for the direction of a score

    usable, _ = newest_per_system([r for r in rows if not r.integrity])  # a board group's rows, as the board lists
    groups: dict[tuple[str, str], dict[str, list[BoardRow]]] = {}
    for r in usable:
        groups.setdefault((r.benchmark, r.track), {}).setdefault(r.view_key, []).append(r)
    columns: list[Column] = []
    #: ranked members per (benchmark, track, group): two tracks of one benchmark may share a frozen tuple (Re²Math's
    #: raw and assisted renderings), and their rows are never ranked together
    ranked: dict[tuple[str, str, str], list[BoardRow]] = {}
    rank_of = {b: i for i, b in enumerate(order)}
    for (bench, track), by_group in sorted(groups.items(), key=lambda kv: (rank_of.get(kv[0][0], len(rank_of)), kv[0])):
        higher = higher_is_better(bench)
        for key, members in by_group.items():
            ranked[(bench, track, key)] = rank_rows(members, higher)
        ref = max(by_group, key=lambda k: (len(by_group[k]), max(r.date for r in by_group[k]), k))
        columns.append(Column(bench, track, ref, next((r.metric for r in by_group[ref] if r.metric), ""), higher))
    models: dict[str, ModelRow] = {}
    for col in columns:
        by_group = groups[(col.benchmark, col.track)]
        for key in sorted(by_group, key=lambda k: (k != col.group, k)):  # the reference group first
            for r in ranked[(col.benchmark, col.track, key)]:
                ident = r.identity
                m = models.setdefault(ident, ModelRow(ident, r.model_name, dict(r.model)))
                cell_key = (col.benchmark, col.track)
                if cell_key in m.cells and (m.cells[cell_key].comparable or key != col.group):
                    continue  # one cell per column: its reference-group score, else the newest other one
                m.cells[cell_key] = Cell(value=r.rank_value, group=key, comparable=key == col.group, rank=r.rank,
                                         of=len(ranked[(col.benchmark, col.track, key)]), pending=r.value is None,
                                         kind=r.kind, bounds=(r.bounds.low, r.bounds.high) if r.bounds else None)
    return columns, sorted(models.values(), key=lambda m: (-len(m.cells), m.name.casefold(), m.identity))


def keep(model: dict[str, Any], kinds: Sequence[str], open_only: bool, max_params: float | None,
         source: str = "all", cells: dict | None = None) -> bool:
    """Does a model row pass the filters? Undeclared metadata passes a size filter only when none is set.

    >>> keep({"kind": "llm", "parameters": 7e9}, ["llm"], False, 1e10), keep({"name": "x"}, ["llm"], False, None)
    (True, False)
    >>> keep({"name": "x"}, ["undeclared"], False, None), keep({"open_weights": False}, [], True, None)
    (True, False)
    """
    kind = model.get("kind") or "undeclared"
    if kinds and kind not in kinds:
        return False
    if open_only and model.get("open_weights") is not True:
        return False
    if max_params is not None and not (isinstance(model.get("parameters"), (int, float))
                                       and model["parameters"] <= max_params):
        return False
    if source in ("scored", "reported") and cells is not None and not any(c.kind == source for c in cells.values()):
        return False
    return True


def param_count(n: Any) -> str:
    """
    >>> param_count(22_000_000), param_count(7_240_000_000), param_count(0), param_count(None)
    ('22M', '7.2B', '0', '–')
    """
    if not isinstance(n, (int, float)):
        return "–"
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.2g}{unit}" if n / div < 10 else f"{n / div:.0f}{unit}"
    return f"{n:g}"


def render_matrix(columns: Sequence[Column], models: Sequence[ModelRow], *, kinds: Sequence[str] = (),
                  open_only: bool = False, max_params: float | None = None, source: str = "all") -> str:
    """The matrix as escaped HTML; every cell links (``data-open``) to its frozen-tuple group on the board."""
    shown = [m for m in models if keep(m.model, kinds, open_only, max_params, source, m.cells)]
    if not columns:
        return '<p class="lm-empty">No entries yet.</p>'
    fmt = {(c.benchmark, c.track): number_format([cell.value for m in models
                                                  if (cell := m.cells.get((c.benchmark, c.track))) is not None])
           for c in columns}
    head = ["<th>Model</th>", '<th title="declared type">Type</th>', '<th title="declared parameter count">Params</th>',
            '<th title="embedding dimension (retrievers)">Dim</th>', '<th title="weights publicly downloadable">Open</th>',
            '<th title="the model\'s licence">Licence</th>']
    for c in columns:  # the metric by its glossary label, as the board heads it (never the stored key)
        term = describe(c.metric)
        head.append(f'<th title="{esc(term.label)}: {esc(term.definition)} In group {esc(c.group)} '
                    f'({"higher" if c.higher_is_better else "lower"} is better; key: {esc(c.metric)})">'
                    f'<a href="#board" data-open="{esc(c.benchmark)}" data-track="{esc(c.track)}" '
                    f'data-group="{esc(c.group)}">{esc(c.label)}</a><br><span class="lm-metric">{esc(term.label)}'
                    "</span></th>")
    body = []
    for m in shown:
        info = m.model
        ow = info.get("open_weights")
        cells = [f'<td class="lm-model">{esc(m.name)}</td>', f"<td>{esc(info.get('kind') or '–')}</td>",
                 f"<td>{param_count(info.get('parameters'))}</td>", f"<td>{esc(info.get('dimension') or '–')}</td>",
                 f"<td>{'yes' if ow is True else 'no' if ow is False else '–'}</td>",
                 f"<td>{esc(info.get('licence') or '–')}</td>"]
        for c in columns:
            cell = m.cells.get((c.benchmark, c.track))
            if cell is None:
                cells.append('<td class="lm-none">·</td>')
                continue
            if cell.value is not None:
                text = fmt[(c.benchmark, c.track)].format(cell.value)
            elif cell.bounds is not None:  # what is confirmed so far … the most it could still reach
                low, high = cell.bounds
                text = f"pending: {number_format([low, high]).format(low)}–{number_format([low, high]).format(high)}"
            else:
                text = "pending"
            rank = f" <span class=\"lm-rank\">#{cell.rank}/{cell.of}</span>" if cell.rank is not None else ""
            mark = "" if cell.comparable else ' <span class="lm-badge lm-other" title="scored in another frozen-tuple ' \
                                             'group of this benchmark: not comparable with this column">other tuple</span>'
            kind = " (reported)" if cell.kind == "reported" else ""
            cells.append(f'<td><a href="#board" data-open="{esc(c.benchmark)}" data-track="{esc(c.track)}" '
                         f'data-group="{esc(cell.group)}" title="{esc(cell.group)}{kind}">{text}</a>{rank}{mark}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    summary = (f'<p class="lm-summary">{len(shown)} of {len(models)} model identities; {len(columns)} '
               "benchmark/track columns. Each column's scores come from its reference group (the group with the most "
               "entries); open a column or a cell to see that group on the board.</p>"
               f'<p class="lm-notice">{esc(NO_AVERAGE)}</p>')
    return (f'<div class="lm-matrix">{summary}<div class="lm-scroll"><table class="lm-table"><thead><tr>'
            f"{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table></div></div>")


MATRIX_CSS = """
.lm-matrix .lm-scroll { overflow-x: auto; }
.lm-matrix table { border-collapse: collapse; font-size: 0.88rem; }
.lm-matrix th, .lm-matrix td { padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--border-color-primary);
  text-align: right; white-space: nowrap; }
.lm-matrix th:first-child, .lm-matrix td.lm-model { text-align: left; position: sticky; left: 0;
  background: var(--background-fill-primary); }
.lm-matrix .lm-metric, .lm-matrix .lm-rank { color: var(--body-text-color-subdued); font-weight: normal; font-size: 0.8rem; }
.lm-other { background: #fef3c7; color: #92400e; border-color: #fcd34d; }
"""
