"""The status table: every submission's state, as the store records it.

States: ``queued`` (validated, waiting), ``scoring``, ``scored``,
``pending_oracle`` (scored; some verdicts await an oracle) and ``failed``
(with the reason). Contact details are never shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lemmata.space.safety import esc
from lemmata.store import SubmissionRecord

STATUS_LABELS = {
    "validated": "validated",
    "queued": "queued",
    "scoring": "scoring…",
    "scored": "scored",
    "pending_oracle": "pending oracle",
    "failed": "failed",
}
STATUS_HELP = {
    "validated": "passed validation",
    "queued": "validated and waiting for the scorer",
    "scoring": "the scorer is working on it",
    "scored": "scored; the row is on the leaderboard",
    "pending_oracle": "scored; some items wait for an oracle verdict and count as pending",
    "failed": "scoring failed; the reason is shown",
}


def status_badge(status: str) -> str:
    return (f'<span class="lm-st lm-st-{esc(status)}" title="{esc(STATUS_HELP.get(status, status))}">'
            f"{esc(STATUS_LABELS.get(status, status))}</span>")


def filter_records(records: Sequence[SubmissionRecord], search: str) -> list[SubmissionRecord]:
    terms = [t for t in (search or "").casefold().split() if t]
    if not terms:
        return list(records)
    out = []
    for r in records:
        hay = " ".join([r.model_name, r.submitter, r.sha256, r.benchmark, r.track, r.status, r.filename]).casefold()
        if all(t in hay for t in terms):
            out.append(r)
    return out


def render_status(records: Sequence[SubmissionRecord], results: Mapping[str, list[str]],
                  counts: Mapping[str, int], *, worker_alive: bool, limit: int = 200, notice: str | None = None,
                  pending: Mapping[str, str] | None = None) -> str:
    """An escaped HTML table of submissions, newest first, with links into the audit viewer.

    ``notice``: why scoring is held up (the worker's :meth:`~lemmata.space.worker.ScoringWorker.notice`), shown
    above the table; ``pending``: by sha256, the reason an entry the index still marks ``scoring`` waits (a
    status change the store refused), shown in its row when it has no recorded reason of its own."""
    summary = ", ".join(f"{n} {STATUS_LABELS.get(s, s)}" for s, n in sorted(counts.items())) or "no submissions yet"
    worker = "the scorer is running" if worker_alive else "the scorer is not running yet (preparing)"
    head = f'<p class="lm-summary">{esc(summary)} — {esc(worker)}.</p>'
    if notice:
        head += f'<div class="lm-banner" role="note">{esc(notice)}</div>'
    pending = pending or {}
    if not records:
        return head + '<p class="lm-empty">Nothing to show.</p>'
    rows = []
    for r in list(records)[:limit]:
        links = ", ".join(f'<a href="#audit" data-audit="{esc(rid)}"><code>{esc(rid[:12])}</code></a>'
                          for rid in results.get(r.sha256, [])) or "–"
        why = r.status_reason or (pending.get(r.sha256) if r.status == "scoring" else None)
        reason = f'<div class="lm-reason">{esc(why)}</div>' if why else ""
        rows.append(
            f"<tr><td>{esc(r.received_at.replace('T', ' ').replace('+00:00', ' UTC'))}</td>"
            f"<td><b>{esc(r.model_name)}</b><div class='lm-rev'>{esc(r.filename)}</div></td>"
            f"<td>{esc(r.benchmark)} / {esc(r.track)}</td><td>{esc(r.submitter)}</td>"
            f"<td>{status_badge(r.status)}{reason}</td><td>{r.attempts}</td>"
            f"<td><code title='{esc(r.sha256)}'>{esc(r.sha256[:12])}</code></td><td>{links}</td></tr>")
    more = f'<p class="lm-summary">Showing the newest {limit}.</p>' if len(records) > limit else ""
    return (head + '<div class="lm-scroll"><table class="lm-status-table"><thead><tr><th>Received</th><th>Model</th>'
            "<th>Benchmark / track</th><th>Submitter</th><th>Status</th><th>Attempts</th><th>Content hash</th>"
            f"<th>Results</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>{more}")
