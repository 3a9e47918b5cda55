"""The board's groups of results reported on the Hub, as HTML: every value from the Hub escaped, every link checked.

A Hub group is drawn apart from the frozen-tuple groups: its caption says whose leaderboard it is and that
nothing in it was scored here, its rank column is the Hub's own rank, and its badges are the Hub's (verified,
community). A dataset without a leaderboard, or whose reply was refused, is one line saying so.
"""

from __future__ import annotations

from lemmata.formats.numbers import number_format
from lemmata.space.hub_results import HubEntry, HubGroup
from lemmata.space.safety import esc, link

#: entries listed per Hub group unless the visitor asks for all
HUB_ROW_LIMIT = 100
HUB_BADGE = '<span class="lm-badge lm-hub">reported on the Hub</span>'


def entry_badges(entry: HubEntry) -> str:
    """The source badge and the Hub's own state of the entry (verified by the Hub, or community: an open PR).

    >>> e = HubEntry.model_validate({"rank": 1, "modelId": "o/m", "value": 1, "filename": "f", "verified": True})
    >>> "verified on the Hub" in entry_badges(e), "community" in entry_badges(e)
    (True, False)
    """
    out = HUB_BADGE
    if entry.verified:
        out += (' <span class="lm-badge lm-hub-verified" title="the Hub marks this result verified (its own check, '
                'not a score computed here)">verified on the Hub</span>')
    if entry.community:
        out += (f' <span class="lm-badge lm-hub-community" title="submitted in pull request #{entry.pull_request}, '
                'not merged by the model\'s owner">community</span>')
    return out


def source_cell(entry: HubEntry) -> str:
    """Where the entry was submitted from: its source link (checked), else the result file it was read from.

    >>> e = HubEntry.model_validate({"rank": 1, "modelId": "o/m", "value": 1, "filename": ".eval_results/x.yaml",
    ...     "verified": False, "source": {"url": "javascript:alert(1)", "name": "<b>x</b>"}})
    >>> source_cell(e)
    '&lt;b&gt;x&lt;/b&gt;'
    """
    if entry.source is not None and (entry.source.url or entry.source.name):
        return link(entry.source.name or "source", entry.source.url)
    return f"<code>{esc(entry.filename)}</code>"


def _caption(group: HubGroup) -> str:
    board = group.board
    dataset = link(group.dataset_id, f"https://huggingface.co/datasets/{group.dataset_id}")
    task = (f"task <code>{esc(group.task_id)}</code> of {group.tasks}: the Hub's reply does not say which task an "
            "entry is for" if group.tasks > 1 else f"task <code>{esc(group.task_id)}</code>")
    verified = sum(e.verified for e in board.entries)
    stats = [f"{len(group.entries)} of {len(board.entries)} shown" if len(group.entries) != len(board.entries)
             else f"{len(board.entries)} entr{'y' if len(board.entries) == 1 else 'ies'}",
             f"{verified} verified on the Hub", "values as the model repositories report them: not scored here and "
             "never ranked with the rows scored here", f"fetched {board.fetched_at}"]
    if board.left_out:
        stats.append(f"{board.left_out} further entr{'y' if board.left_out == 1 else 'ies'} not read")
    notes = [f"{board.refused_count} entr{'y' if board.refused_count == 1 else 'ies'} refused (not the Hub's "
             "documented fields): " + "; ".join(str(p) for p in board.refused)] if board.refused_count else []
    if board.reason:
        notes.append(board.reason)
    extra = "".join(f'<span class="lm-group-stats">{esc(n)}</span>' for n in notes)
    return (f'<caption><span class="lm-tuple-title">Reported on the Hub</span> {HUB_BADGE} '
            f'<span class="lm-tuple-item"><span class="lm-tuple-k">leaderboard of</span> {dataset}</span>'
            f'<span class="lm-tuple-item">{task}</span>'
            f'<span class="lm-group-stats">{esc(" · ".join(stats))}</span>{extra}</caption>')


def render_hub_group(group: HubGroup, show_all: bool = False) -> str:
    """One dataset's Hub leaderboard as a group of its own (or a line saying why it has no entries)."""
    board = group.board
    if board.state == "none":
        return (f'<p class="lm-summary" data-group="{esc(group.key)}">Reported on the Hub: no leaderboard for '
                f'{link(group.dataset_id, f"https://huggingface.co/datasets/{group.dataset_id}")} yet (no model '
                "repository reports a result on it).</p>")
    if board.state != "loaded":
        return (f'<p class="lm-summary" data-group="{esc(group.key)}">Reported on the Hub: the leaderboard of '
                f"{esc(group.dataset_id)} could not be read — {esc(board.reason or board.state)}</p>")
    rows = group.entries if show_all else group.entries[:HUB_ROW_LIMIT]
    pattern = number_format(e.value for e in rows)
    head = ('<th title="the entry\'s rank on the Hub\'s leaderboard (the Hub ranks; this space does not)">Hub #</th>'
            '<th class="t">Model</th><th class="t" title="reported on the Hub: declared by a model repository\'s '
            '.eval_results file, not scored here">Source</th>'
            '<th title="the value as the model repository reports it">Value (as reported)</th>'
            '<th class="t" title="where the result was submitted from">Submitted from</th>'
            '<th class="t">Notes</th>')
    body = [f'<tr class="lm-row-hub"><td>{e.rank}</td><td class="lm-model">{link(e.model_id, e.model_url)}</td>'
            f'<td class="t">{entry_badges(e)}</td><td><b>{pattern.format(e.value)}</b></td>'
            f'<td class="t">{source_cell(e)}</td><td class="t lm-reason">{esc(e.notes or "")}</td></tr>'
            for e in rows]
    if not rows:
        body.append('<tr><td colspan="6" class="lm-empty">No Hub entry matches the search or filter.</td></tr>')
    if len(group.entries) > len(rows):
        body.append(f'<tr><td colspan="6" class="lm-empty t">The first {len(rows)} of {len(group.entries)} Hub '
                    f'entries are listed. <button type="button" class="lm-more" data-rows="all">Show all '
                    f"{len(group.entries)}</button></td></tr>")
    return (f'<section class="lm-group lm-hub-group" data-group="{esc(group.key)}"><div class="lm-scroll">'
            f'<table class="lm-table">{_caption(group)}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div></section>')


#: the Hub groups' badges (added to the board's style sheet)
HUB_CSS = """
.lm-hub { background: #ede9fe; color: #5b21b6; border-color: #c4b5fd; }
.lm-hub-verified { background: #dcfce7; color: #166534; border-color: #86efac; margin-left: 0.25rem; }
.lm-hub-community { background: #f1f5f9; color: #334155; border-color: #cbd5e1; margin-left: 0.25rem; }
.lm-row-hub td { background: rgba(237, 233, 254, 0.18); }
"""
