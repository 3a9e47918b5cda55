"""The leaderboard as HTML: one table per frozen-tuple group, every untrusted value escaped.

Rendering happens on the server into one string, so a thousand rows cost one
``innerHTML`` in the browser. Header cells carry ``data-sort`` and entry links
``data-audit``; the page script turns clicks on them into events (see
:data:`BOARD_JS`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lemmata.metrics.glossary import describe
from lemmata.space.board import USAGE_COLUMNS, BoardGroup, BoardRow, BoardView, parse_sort, usage_number
from lemmata.space.conditions import badges
from lemmata.space.hub_table import HUB_CSS, render_hub_group
from lemmata.space.judges import MARK, JudgeNote
from lemmata.formats.numbers import number_format, score_text  # noqa: F401  (one format for board, audit, exports)
from lemmata.space.safety import esc, link

#: rows listed per group unless the visitor asks for all (search and sort always cover every row)
ROW_LIMIT = 100

FROZEN_LABELS = (
    ("dataset_release", "release"),
    ("split", "split"),
    ("retrieval_artifact", "retrieval artifact"),
    ("scoring_artifact", "scoring artifact"),
)

#: delegated click handling for the board component (gr.HTML ``js_on_load``)
BOARD_JS = """
element.addEventListener('click', (ev) => {
  const sortCell = ev.target.closest('[data-sort]');
  if (sortCell && element.contains(sortCell)) {
    ev.preventDefault();
    trigger('click', {sort: sortCell.getAttribute('data-sort')});
    return;
  }
  const rows = ev.target.closest('[data-rows]');
  if (rows && element.contains(rows)) {
    ev.preventDefault();
    trigger('click', {rows: rows.getAttribute('data-rows')});
    return;
  }
  const entry = ev.target.closest('[data-audit]');
  if (entry && element.contains(entry)) {
    ev.preventDefault();
    trigger('click', {audit: entry.getAttribute('data-audit')});
  }
});
element.addEventListener('keydown', (ev) => {
  if (ev.key !== 'Enter' && ev.key !== ' ') return;
  const cell = ev.target.closest('[data-sort],[data-audit]');
  if (cell) { ev.preventDefault(); cell.click(); }
});
"""


def fmt(value: object, pattern: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return pattern.format(value) if math.isfinite(value) else esc(str(value))
    return esc(value) if value is not None else '<span class="lm-none">–</span>'


def kind_badge(kind: str) -> str:
    """The source badge (its meaning is the column header's tooltip, to keep rows small)."""
    if kind == "reported":
        return '<span class="lm-badge lm-reported">reported</span>'
    return '<span class="lm-badge lm-scored">scored here</span>'


def superseded_badge(flags: Mapping[str, Any], artifact: str | None = None) -> str:
    """A badge for a result on a superseded retrieval artifact. Supersession is a fact of the artifact's history
    (``Family.artifacts``), read here when the row is shown, so superseding a version rewrites no result; results
    scored while the scorer still stored the successor (``superseded_by`` in their flags: Re²Math 1.0.0, 2.0.0)
    show it from there too (a submitter's header cannot set it: its flags are a closed model).

    >>> superseded_badge({"superseded_by": "x-2.0.0"})
    '<span class="lm-badge lm-superseded" title="superseded by x-2.0.0">superseded</span>'
    >>> superseded_badge({}, "re2math-scholar-offline-2.1.0").startswith(
    ...     '<span class="lm-badge lm-superseded" title="superseded by re2math-scholar-offline-2.2.0: it holds one')
    True
    >>> superseded_badge({}), superseded_badge({}, "re2math-scholar-offline-2.2.0")
    ('', '')
    """
    from lemmata.families import superseded_version

    version = superseded_version(artifact)
    successor = version.superseded_by if version is not None else flags.get("superseded_by")
    if not successor:
        return ""
    tip = f"superseded by {successor}" + (f": it {version.why}" if version is not None else "")
    return f'<span class="lm-badge lm-superseded" title="{esc(tip)}">superseded</span>'


def addressed_badge(flags: Mapping[str, Any]) -> str:
    """A badge for a result some of whose items addressed the grader (the scorer sets ``addresses_grader``: how
    many; each was settled by the rubric's rule, see :mod:`lemmata.oracles.fence`).

    >>> addressed_badge({"addresses_grader": 3}).startswith('<span class="lm-badge lm-flag" title="3 item(s) address')
    True
    >>> addressed_badge({})
    ''
    """
    count = flags.get("addresses_grader")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        return ""
    tip = (f"{count} item(s) address the grader or judge (instructions, a claimed grade, imitated rubric markers); "
           "each was settled by the rubric's rule (the lowest grade, or no)")
    return f'<span class="lm-badge lm-flag" title="{esc(tip)}">addresses the grader &#9873;</span>'


def pending_badge(pending: int, status: str, bounds=None) -> str:
    """The Pending cell: how many items wait, and how many of them could still count.

    >>> from lemmata.metrics.bounds import PendingBounds
    >>> pending_badge(200, "pending_oracle", PendingBounds(confirmed=5, open=2, settled_pending=198, total=200))
    '<span class="lm-badge lm-pending" title="200 item(s) await a verdict; 2 of them could still count, the others are settled as not counting">200 pending · 2 could count</span>'
    """
    if pending > 0:
        if bounds is not None:
            return (f'<span class="lm-badge lm-pending" title="{pending} item(s) await a verdict; {bounds.open} of them '
                    f'could still count, the others are settled as not counting">{pending} pending · {bounds.open} '
                    "could count</span>")
        return f'<span class="lm-badge lm-pending">{pending} pending</span>'

    if status == "pending_oracle":
        return '<span class="lm-badge lm-pending">pending</span>'
    return ""


def pending_value(row: BoardRow, pattern: str = "{:.3f}") -> str:
    """A pending score's cell: the range it can still end in (confirmed so far … most it could reach).

    >>> from dataclasses import replace
    >>> from lemmata.metrics.bounds import PendingBounds
    >>> from lemmata.space.board import row_from_index
    >>> r = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored", "benchmark": "b",
    ...     "track": "t", "group_key": "g", "model_name": "m", "main_value": None, "pending": 3,
    ...     "status": "pending_oracle", "scored_at": "", "version": 1})
    >>> pending_value(r)
    '<span class="lm-none">pending</span>'
    >>> pending_value(replace(r, bounds=PendingBounds(confirmed=1, open=2, total=20)))
    '<span class="lm-none" title="1 confirmed so far; at most 3 of 20 if every open item counts">pending: 0.050–0.150</span>'
    """
    b = row.bounds
    if b is None or not row.pending:
        return '<span class="lm-none">pending</span>'
    return (f'<span class="lm-none" title="{b.confirmed} confirmed so far; at most {b.confirmed + b.open} of {b.total} '
            f'if every open item counts">pending: {pattern.format(b.low)}–{pattern.format(b.high)}</span>')


def condition_badges(row: BoardRow) -> str:
    """The row's declared conditions (external tools, Lean feedback, budget, …) as badges with their meaning."""
    return "".join(f' <span class="lm-badge lm-cond" title="{esc(tip)}">{esc(text)}</span>'
                   for text, tip in badges(row.flags))


def printed_note(row: BoardRow, pattern: str) -> str:
    """The paper's printed aggregate beside the recomputed one the row is ranked by, when they disagree."""
    printed = row.printed
    if printed is None or not printed.disagrees:
        return ""
    tip = (f"the paper prints {pattern.format(printed.printed)}; the mean of its own printed cells is "
           f"{pattern.format(printed.recomputed)}, beyond rounding. Ranked by the recomputed value.")
    return (f' <span class="lm-badge lm-flag" title="{esc(tip)}">printed {pattern.format(printed.printed)} '
            f"&#9873;</span>")


def column_label(key: str, main_metric: str = "") -> tuple[str, str]:
    """A column's header text and tooltip from the glossary (the stored key closes the tooltip).

    >>> column_label("gap.relative_drop")[0], column_label("per_dataset.stacks_qa", "ndcg@10")[0]
    ('Relative drop', 'stacks qa')
    >>> column_label("unjudged_rankings")[1].endswith("(key: unjudged_rankings)")
    True
    """
    term = describe(key, main_metric)
    tip = term.definition
    if term.higher_is_better is False:
        tip += " Lower is better."
    return term.label, f"{tip} (key: {key})"


def _th(label: str, column: str, active: tuple[str, bool], title: str = "", numeric: bool = False,
        cls: str = "", breaks: bool = False) -> str:
    col, desc = active
    arrow = ""
    aria = "none"
    nxt = f"{column}:asc"
    if col == column:
        arrow = " &#9660;" if desc else " &#9650;"
        aria = "descending" if desc else "ascending"
        nxt = f"{column}:{'asc' if desc else 'desc'}"
    elif column.startswith(("m.", "u.")) or column in ("n", "pending", "date"):
        nxt = f"{column}:desc"
    classes = " ".join(c for c in ("lm-num" if numeric else "", cls) if c)
    cls = f' class="{classes}"' if classes else ""
    tip = f' title="{esc(title)}"' if title else ""
    text = esc(label)
    if breaks:  # long metric names may wrap after separators, never inside a word
        text = re.sub(r"([_.@/])", r"\1<wbr>", text)
    return (f'<th{cls} aria-sort="{aria}"{tip}><button type="button" class="lm-sort" data-sort="{esc(nxt)}">'
            f'{text}{arrow}</button></th>')


def _interval_bar(row: BoardRow, lo_axis: float, hi_axis: float) -> str:
    if row.value is None or hi_axis <= lo_axis:
        return ""

    def pos(v: float) -> float:
        return max(0.0, min(100.0, 100.0 * (v - lo_axis) / (hi_axis - lo_axis)))

    parts = ['<i class="lm-bar">']
    if row.interval:
        a, b = pos(row.interval[0]), pos(row.interval[1])
        parts.append(f'<i class="lm-bar-ci" style="left:{a:.1f}%;width:{max(b - a, 0.5):.1f}%"></i>')
    parts.append(f'<i class="lm-bar-pt" style="left:{pos(row.value):.1f}%"></i></i>')
    return "".join(parts)


def _axis(rows: Sequence[BoardRow]) -> tuple[float, float]:
    vals = [v for r in rows for v in ([r.value] + list(r.interval or ())) if v is not None and math.isfinite(v)]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    if lo >= 0 and hi <= 1:
        return 0.0, 1.0
    return min(lo, 0.0), hi if hi > lo else lo + 1


def group_caption(group: BoardGroup) -> str:
    cells = []
    for key, label in FROZEN_LABELS:
        value = group.frozen.get(key)
        cells.append(f'<span class="lm-tuple-item"><span class="lm-tuple-k">{esc(label)}</span> '
                     f'<code>{esc(value if value is not None else "none")}</code></span>')
    if group.conditions:
        cells.append(f'<span class="lm-tuple-item"><span class="lm-tuple-k">declared conditions</span> '
                     f'<code>{esc(group.conditions)}</code></span>')
    if group.judges is not None:
        cells.append(judge_caption(group.judges))
    counts = group.counts
    stats = [f"{len(group.rows)} of {group.total_rows} shown" if len(group.rows) != group.total_rows
             else f"{group.total_rows} entr{'y' if group.total_rows == 1 else 'ies'}"]
    stats.append(f"{counts['scored']} scored here, {counts['reported']} reported")
    if group.pending_total:
        stats.append(f"{group.pending_total} item verdict(s) pending")
    if not group.ranges_ready:
        stats.append("rank ranges: computing…")
    return (f'<caption><span class="lm-tuple-title">Frozen tuple</span> {"".join(cells)}'
            f'<span class="lm-group-stats">{esc(" · ".join(stats))}</span></caption>')


def judge_caption(note: JudgeNote) -> str:
    """The caption line naming a group's judge-decided columns and each judge's calibration (or "uncalibrated").

    >>> from lemmata.space.judges import JudgeLine
    >>> html = judge_caption(JudgeNote(("correct",), "faithfulness", (JudgeLine("j", "j: uncalibrated", "t", False),)))
    >>> 'title="t">j: uncalibrated</span>' in html, "lm-uncalibrated" in html
    (True, True)
    """
    judges = " · ".join(f'<span class="lm-judge{"" if line.calibrated else " lm-uncalibrated"}" '
                        f'title="{esc(line.tip)}">{esc(line.text)}</span>' for line in note.lines)
    return (f'<span class="lm-tuple-item lm-judges"><span class="lm-tuple-k">{MARK} judge-decided '
            f"({esc(', '.join(note.columns))}; {esc(note.decides)})</span> {judges}</span>")


def _judged(group: BoardGroup, column: str, label: str, tip: str) -> tuple[str, str]:
    """A column's header text and tooltip, marked and extended when a judge decides it."""
    if group.judges is None or not group.judges.covers(column):
        return label, tip
    return f"{label} {MARK}", f"{tip} {group.judges.tip}"


#: headline metrics of ranking tracks (their rows get the model metadata columns)
RANKING_METRICS = re.compile(r"^(ndcg|recall|mrr|map|precision|hit)(@\d+)?$")


def is_ranking_metric(metric: str) -> bool:
    """
    >>> is_ranking_metric("ndcg@10"), is_ranking_metric("mrr@100"), is_ranking_metric("tool_acc")
    (True, True, False)
    """
    return bool(RANKING_METRICS.match(metric or ""))


def params_text(n: Any) -> str:
    """A declared parameter count, short.

    >>> params_text(22_000_000), params_text(7_240_000_000), params_text(None), params_text(True)
    ('22M', '7.2B', '–', '–')
    """
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n):
        return "–"
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.2g}{unit}" if n / div < 10 else f"{n / div:.0f}{unit}"
    return f"{n:g}"


def usage_heads(keys: Sequence[str], active: tuple[str, bool]) -> list[str]:
    """Header cells of the usage columns (glossary ``usage.*``: what the run's request log reports), sortable as
    ``u.KEY`` like every numeric column."""
    heads = []
    for k in keys:
        label, tip = column_label(f"usage.{k}")
        heads.append(_th(label, f"u.{k}", active, tip, numeric=True))
    return heads


def usage_text(value: float | None, key: str) -> str:
    """A usage cell: tokens with thousands separators, a price to four decimals, – where not reported.

    >>> usage_text(1234567, "prompt_tokens"), usage_text(0.01234, "cost"), usage_text(None, "cost")
    ('1,234,567', '0.0123', '<span class="lm-none">–</span>')
    """
    if value is None:
        return '<span class="lm-none">–</span>'
    return f"{value:.4f}" if key == "cost" else f"{value:,.0f}"


def rank_range_note(row: BoardRow) -> str:
    """The 95% rank range under the rank, and ≈ when it overlaps another entry's (empty without a range).

    >>> from dataclasses import replace
    >>> from lemmata.space.board import row_from_index
    >>> row = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored", "benchmark": "b",
    ...     "track": "t", "group_key": "g", "model_name": "m", "main_value": 0.5, "pending": 0,
    ...     "status": "complete", "scored_at": "", "version": 1})
    >>> note = rank_range_note(replace(row, rank_range=(1, 3), ties=2))
    >>> note.endswith(">1–3 ≈</span>"), "1–3 (paired bootstrap over items); overlaps 2 other entries: statistically" in note
    (True, True)
    >>> rank_range_note(replace(row, rank_range=(1, 1))), rank_range_note(row)
    ('<span class="lm-rank-range" title="95% rank range 1–1 (paired bootstrap over items)">1–1</span>', '')
    """
    if row.rank_range is None:
        return ""
    lo, hi = row.rank_range
    title = f"95% rank range {lo}–{hi} (paired bootstrap over items)"
    if row.ties:
        title += f"; overlaps {row.ties} other entr{'y' if row.ties == 1 else 'ies'}: statistically tied"
    return f'<span class="lm-rank-range" title="{esc(title)}">{lo}–{hi}{" ≈" if row.ties else ""}</span>'


def render_group(group: BoardGroup, sort: str, show_all: bool = False) -> str:
    active = parse_sort(sort)
    rows = group.rows if show_all else group.rows[:ROW_LIMIT]
    metric = group.metric or "score"
    main_fmt = number_format([r.value for r in rows] + [v for r in rows for v in (r.interval or ())])
    diag_fmt = {d: number_format(r.metrics.get(d) for r in rows) for d in group.diagnostics}
    lo_axis, hi_axis = _axis(rows)
    interval_kinds = ", ".join(sorted({r.interval_kind for r in rows if r.interval and r.interval_kind}))
    better = "higher is better" if group.higher_is_better else "lower is better"
    main_label, main_tip = _judged(group, metric, *column_label(metric))
    recomputed = any(r.printed is not None for r in rows)
    head = [
        _th("#", "rank", active, "official rank within this group (ties share a rank); below it, the 95% rank "
            "range under a paired bootstrap over items — ≈ marks an entry whose range overlaps another's "
            "(statistically tied)", numeric=True),
        _th("Model", "model", active, cls="t"),
        _th("Source", "kind", active, "reported: transcribed from the paper, not re-scored here; "
                                      "scored here: computed by this space from the uploaded predictions", cls="t"),
        _th(main_label + (", recomputed" if recomputed else ""), "rank", active, f"{main_tip} {better.capitalize()}"
            + (f"; brackets: {interval_kinds}" if interval_kinds else "")
            + ("; ranked by the mean of the paper's printed cells, the printed aggregate is flagged beside it "
               "where the two disagree" if recomputed else "")
            + "; bar: score and interval on a common axis", numeric=True),
        _th("n", "n", active, "items counted / items in the split", numeric=True),
        _th("Pending", "pending", active, "items whose verdict awaits an oracle; they count as not yet scored",
            numeric=True),
        # before the diagnostics, so a wide group (TaoBench's) never pushes it out of view
        _th("Date", "date", active, "evaluation date of the frozen tuple", cls="t"),
    ]
    ranking = is_ranking_metric(metric)
    if ranking:  # the declared model metadata, as MTEB's board shows it (unset: –)
        head += [_th("Params", "params", active, "declared parameter count", numeric=True),
                 _th("Dim", "dim", active, "declared embedding dimension", numeric=True),
                 '<th class="t" title="declared: weights publicly downloadable">Open</th>']
    reporting = [r for r in group.rows if r.usage]  # most groups have none: no row is looked at three times
    usage = [k for k in USAGE_COLUMNS if any(usage_number(r, k) is not None for r in reporting)]
    head += usage_heads(usage, active)  # an LLM run's tokens and price, where its request log reports them
    labels = {d: _judged(group, d, *column_label(d, metric)) for d in group.diagnostics}
    head += [_th(labels[d][0], f"m.{d}", active, labels[d][1], numeric=True, cls="lm-diag", breaks=True)
             for d in group.diagnostics]
    head += ['<th class="t lm-entry" title="open the per-item audit of this entry">Entry</th>']
    body = []
    for r in rows:
        ci = ""
        if r.interval:
            ci = f'<span class="lm-ci">[{main_fmt.format(r.interval[0])}, {main_fmt.format(r.interval[1])}]</span>'
        value = fmt(r.rank_value, main_fmt) if r.value is not None else pending_value(r, main_fmt)
        if r.integrity:
            value = f'<span class="lm-none" title="{esc(r.integrity)}">integrity error</span>'
        n = f"{r.count}/{r.total}" if r.count is not None and r.total is not None else (r.total or "")
        revision = f'<span class="lm-rev">{esc(r.model_revision)}</span>' if r.model_revision else ""
        if r.look_alike:
            alike = ", ".join(ascii(n) for n in r.look_alike)
            revision += (f'<span class="lm-alike" title="looks like {esc(alike)} on this board: a different name '
                         f'that reads the same">⚠ looks like another entry</span>')
        cells = [
            f"<td>{r.rank if r.rank is not None else '–'}{rank_range_note(r)}</td>",
            f'<td class="lm-model">{link(r.model_name, r.model_url)}{condition_badges(r)}{revision}</td>',
            f'<td class="t">{kind_badge(r.kind)}{superseded_badge(r.flags, r.frozen.get("retrieval_artifact"))}'
            f"{addressed_badge(r.flags)}</td>",
            f'<td><b>{value}</b>{printed_note(r, main_fmt)} {ci}{_interval_bar(r, lo_axis, hi_axis)}</td>',
            f"<td>{esc(n)}</td>",
            f"<td>{pending_badge(r.pending, r.status, r.bounds)}</td>",
            f'<td class="t">{esc(r.date)}</td>',
        ]
        if ranking:
            ow = r.model.get("open_weights")
            dim = r.model.get("dimension")
            cells += [f"<td>{params_text(r.model.get('parameters'))}</td>",
                      f"<td>{esc(dim) if isinstance(dim, int) and not isinstance(dim, bool) else '–'}</td>",
                      f'<td class="t">{"yes" if ow is True else "no" if ow is False else "–"}</td>']
        cells += [f"<td>{usage_text(usage_number(r, k), k)}</td>" for k in usage]
        cells += [f"<td>{fmt(r.metrics.get(d), diag_fmt[d])}</td>" for d in group.diagnostics]
        cells += [f'<td class="t lm-entry"><a href="#audit" data-audit="{esc(r.result_id)}"><code>{esc(r.short_id)}</code>'
                  f"</a></td>"]
        cls = ' class="lm-row-reported"' if r.kind == "reported" else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    if not rows:
        body.append(f'<tr><td colspan="{len(head)}" class="lm-empty">No entry in this group matches the search '
                    f"or filter.</td></tr>")
    if len(group.rows) > ROW_LIMIT:
        if show_all:
            more = (f'All {len(group.rows)} rows are listed. <button type="button" class="lm-more" '
                    f'data-rows="top">Show the first {ROW_LIMIT}</button>')
        else:
            more = (f"The first {ROW_LIMIT} of {len(group.rows)} rows are listed, in the order chosen above; search "
                    f'and sorting cover all of them. <button type="button" class="lm-more" data-rows="all">'
                    f"Show all {len(group.rows)}</button>")
        body.append(f'<tr><td colspan="{len(head)}" class="lm-empty t">{more}</td></tr>')
    return (f'<section class="lm-group" data-group="{esc(group.key)}"><div class="lm-scroll">'
            f'<table class="lm-table">{group_caption(group)}<thead><tr>{"".join(head)}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div></section>')


def render_board(view: BoardView) -> str:
    """The whole board for one benchmark and track."""
    q = view.query
    parts = ['<div class="lm-board">']
    for notice in view.notices:
        parts.append(f'<p class="lm-notice">{esc(notice)}</p>')
    hub = [render_hub_group(h, q.show_all) for h in view.hub]
    if view.hub_status and q.kind in ("all", "hub"):
        hub.append(f'<p class="lm-summary">{esc(view.hub_status)}</p>')
    elif q.kind == "hub" and not hub:
        hub.append(f'<p class="lm-empty">No result reported on the Hub for {esc(q.benchmark)} / {esc(q.track)}.</p>')
    if not view.groups:
        where = f" for {q.benchmark} / {q.track}" if q.benchmark else ""
        if q.kind != "hub":
            parts.append(f'<p class="lm-empty">No entries{esc(where)} yet. Upload predictions in the '
                         f"<b>Submit</b> tab; reported rows from the papers appear once they are imported.</p>")
        return "".join(parts + hub) + "</div>"
    summary = (f"{view.matched} of {view.total} entr{'y' if view.total == 1 else 'ies'} in "
               f"{len(view.groups)} group{'s' if len(view.groups) != 1 else ''}")
    if len(view.group_keys) > 1 and not q.group:
        summary += " — rows in different groups were computed against different releases or artifacts " \
                   "and are never ranked together"
    parts.append(f'<p class="lm-summary">{esc(summary)}</p>')
    parts += [render_group(g, q.sort, q.show_all) for g in view.groups]
    parts += hub
    parts.append("</div>")
    return "".join(parts)


BOARD_CSS = """
.lm-hidden { display: none !important; }
#lm-audit th, #lm-audit td code { white-space: nowrap; }
.lm-board { font-size: 0.92rem; }
.lm-summary, .lm-notice { margin: 0.25rem 0 0.6rem; color: var(--body-text-color-subdued); }
.lm-notice { color: var(--color-accent); }
.lm-group { margin: 0 0 1.4rem; border: 1px solid var(--border-color-primary); border-radius: 8px; overflow: hidden; }
.lm-scroll { overflow-x: auto; }
.lm-table { width: 100%; border-collapse: collapse; }
.lm-table caption { caption-side: top; text-align: left; padding: 0.55rem 0.75rem;
  background: var(--background-fill-secondary); border-bottom: 1px solid var(--border-color-primary); }
.lm-tuple-title { font-weight: 600; margin-right: 0.5rem; }
.lm-tuple-item { display: inline-block; margin: 0.1rem 0.9rem 0.1rem 0; }
.lm-tuple-k { color: var(--body-text-color-subdued); font-size: 0.85em; }
.lm-group-stats { display: block; margin-top: 0.2rem; color: var(--body-text-color-subdued); font-size: 0.85em; }
.lm-table th, .lm-table td { padding: 0.35rem 0.6rem; border: none !important;
  border-bottom: 1px solid var(--border-color-primary) !important; text-align: right; vertical-align: middle;
  white-space: nowrap; font-variant-numeric: tabular-nums; }
.lm-table td.t, .lm-table td.lm-model, .lm-table th.t { text-align: left; }
.lm-table td b { font-weight: 600; }
.lm-table th { font-weight: 600; background: var(--background-fill-primary); position: sticky; top: 0; }
.lm-table .lm-num { text-align: right; font-variant-numeric: tabular-nums; }
.lm-table th.lm-diag { white-space: normal; min-width: 4.5rem; max-width: 9rem; font-weight: 500;
  font-size: 0.88em; }
.lm-table, .lm-table tr, .lm-status-table, .lm-status-table tr, .lm-errors table, .lm-errors tr { border: none !important; }
.lm-sort { all: unset; cursor: pointer; }
.lm-sort:hover, .lm-sort:focus-visible { text-decoration: underline; }
.lm-table tbody tr:hover { background: var(--background-fill-secondary); }
.lm-model { white-space: normal !important; min-width: 11rem; max-width: 22rem; overflow-wrap: anywhere;
  font-weight: 500; }
.lm-rev { display: block; font-size: 0.8em; color: var(--body-text-color-subdued); font-weight: 400; }
.lm-score { font-weight: 600; }
.lm-ci { color: var(--body-text-color-subdued); font-size: 0.85em; }
.lm-rank-range { display: block; color: var(--body-text-color-subdued); font-size: 0.78em; }
.lm-bar, .lm-bar-ci, .lm-bar-pt { font-style: normal; }
.lm-bar { display: block; position: relative; height: 4px; margin-top: 3px; min-width: 7rem;
  background: var(--border-color-primary); border-radius: 2px; }
.lm-bar-ci { position: absolute; top: 0; height: 4px; background: #93c5fd; border-radius: 2px; }
.lm-bar-pt { position: absolute; top: -2px; width: 3px; height: 8px; margin-left: -1px; background: #1d4ed8; }
.lm-badge { display: inline-block; padding: 0.05rem 0.45rem; border-radius: 999px; font-size: 0.78em;
  font-weight: 600; border: 1px solid transparent; }
.lm-reported { background: #fef3c7; color: #92400e; border-color: #fcd34d; }
.lm-scored { background: #dcfce7; color: #166534; border-color: #86efac; }
.lm-pending { background: #e0e7ff; color: #3730a3; border-color: #a5b4fc; }
.lm-superseded { background: #f3f4f6; color: #374151; border-color: #d1d5db; margin-left: 0.25rem; }
.lm-row-reported td { background: rgba(254, 243, 199, 0.18); }
.lm-cond { background: #f1f5f9; color: #334155; border-color: #cbd5e1; font-weight: 500; margin-left: 0.3rem; }
.lm-flag { background: #fee2e2; color: #991b1b; border-color: #fca5a5; margin-left: 0.3rem; }
.lm-table th.lm-entry, .lm-table td.lm-entry { position: sticky; right: 0; z-index: 1;
  background: var(--background-fill-primary); box-shadow: -1px 0 0 var(--border-color-primary); }
.lm-table th.lm-entry { z-index: 2; }
.lm-none { color: var(--body-text-color-subdued); }
.lm-judges { display: block; }
.lm-judge { font-size: 0.88em; }
.lm-uncalibrated { color: #92400e; font-weight: 600; }
.lm-more { all: unset; cursor: pointer; color: var(--color-accent); text-decoration: underline; margin-left: 0.4rem; }
.lm-table td.lm-empty { text-align: left; }
.lm-empty { padding: 1rem; color: var(--body-text-color-subdued); }
.lm-entry code { font-size: 0.85em; }
.lm-status-table { width: 100%; border-collapse: collapse; font-size: 0.9rem; }
.lm-status-table th, .lm-status-table td { padding: 0.35rem 0.6rem; text-align: left; border: none !important;
  border-bottom: 1px solid var(--border-color-primary) !important; vertical-align: top; }
.lm-id { word-break: break-all; font-size: 0.8em; }
.lm-reason { font-size: 0.85em; color: var(--body-text-color-subdued); max-width: 30rem; white-space: normal; }
.lm-st { display: inline-block; padding: 0.05rem 0.45rem; border-radius: 999px; font-size: 0.8em; font-weight: 600; }
.lm-st-queued, .lm-st-validated { background: #f1f5f9; color: #334155; }
.lm-st-scoring { background: #e0f2fe; color: #075985; }
.lm-st-scored { background: #dcfce7; color: #166534; }
.lm-st-pending_oracle { background: #e0e7ff; color: #3730a3; }
.lm-st-failed { background: #fee2e2; color: #991b1b; }
.lm-errors { border: 1px solid #fca5a5; background: #fef2f2; color: #7f1d1d; border-radius: 8px; padding: 0.6rem 0.9rem; }
.lm-errors table { border-collapse: collapse; margin-top: 0.4rem; width: 100%; }
.lm-errors th, .lm-errors td { text-align: left; padding: 0.2rem 0.5rem; border: none !important;
  border-bottom: 1px solid #fecaca !important; vertical-align: top; background: transparent !important;
  color: #7f1d1d !important; }
.lm-ok { border: 1px solid #86efac; background: #f0fdf4; color: #14532d; border-radius: 8px; padding: 0.6rem 0.9rem; }
.lm-info { border: 1px solid #93c5fd; background: #eff6ff; color: #1e3a8a; border-radius: 8px; padding: 0.6rem 0.9rem; }
.lm-banner { border: 1px solid #fcd34d; background: #fffbeb; color: #78350f; border-radius: 8px;
  padding: 0.5rem 0.8rem; margin-bottom: 0.5rem; }
.lm-progress ol { margin: 0.3rem 0 0 1.2rem; }
.lm-inline { display: inline; } .lm-inline summary { display: inline; cursor: pointer; }
.lm-progress .lm-step-done { color: #166534; }
.lm-progress .lm-step-running { color: #1d4ed8; font-weight: 600; }
.lm-progress .lm-step-failed { color: #991b1b; }
.lm-forest text { font-size: 12px; fill: currentColor; }
.lm-legend { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; margin: 0.3rem 0 0.5rem; font-size: 0.85em; }
.lm-legend i { display: inline-block; width: 0.7rem; height: 0.7rem; border-radius: 50%; margin-right: 0.3rem;
  vertical-align: -0.05rem; }
#lm-audit { overflow-wrap: anywhere; }
#lm-audit table { display: block; max-width: 100%; overflow-x: auto; }
/* audit tables: headers on one line; cell text wraps between words (break-word splits a word only when it alone
   overflows, so short cells are never broken letter by letter); a table wider than the pane scrolls sideways */
#lm-audit th { white-space: nowrap !important; vertical-align: top; }
#lm-audit td { white-space: normal !important; overflow-wrap: break-word; vertical-align: top; }
#lm-audit pre, #lm-audit code { white-space: pre-wrap !important; overflow-wrap: anywhere; word-break: break-word; }
#lm-audit blockquote { white-space: pre-wrap; }
""" + HUB_CSS
