"""The per-item audit viewer: what the scorer saw and decided for one instance of one entry.

The handler's :class:`~lemmata.tracks.base.AuditView` supplies the sections
(rendered context, queries, candidates, selected source and statement, every
verdict with its reason). The space adds the entry's facts and passes every
section through :func:`~lemmata.space.safety.safe_markdown`, because sections
quote submitted text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from lemmata.core.errors import InputError
from lemmata.formats.results import Result
from lemmata.tracks.base import Validated
from lemmata.space.safety import md_escape, safe_markdown
from lemmata.store import Store, SubmissionIntegrityError
from lemmata.store.integrity import ResultIntegrityError

_ID_KEYS = ("item_id", "instance_id", "query_id")


def item_id(item: dict[str, Any]) -> str | None:
    for key in _ID_KEYS:
        if item.get(key) is not None:
            return str(item[key])
    return None


def item_ids(result: Result) -> list[str]:
    """Ids of a result's per-item records, in stored order."""
    return [i for i in (item_id(it) for it in result.items) if i is not None]


def item_choices(result: Result, limit: int = 5000) -> list[tuple[str, str]]:
    """Dropdown choices: the id, with the item's verdict or status when the record has one."""
    out = []
    for it in result.items[:limit]:
        iid = item_id(it)
        if iid is None:
            continue
        tag = next((str(it[k]) for k in ("verdict", "status", "correct", "passed", "hit") if k in it), "")
        out.append((f"{iid} — {tag}" if tag else iid, iid))
    return out


class SubmissionCache:
    """Validated submissions by hash (the audit needs them; parsing a large file twice is wasteful)."""

    def __init__(self, store: Store, size: int = 8) -> None:
        self.store = store
        self.size = size
        self._items: OrderedDict[str, Validated | None] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sha256: str, filename: str) -> Validated | None:
        from lemmata.scoring import validate_upload

        with self._lock:
            if sha256 in self._items:
                self._items.move_to_end(sha256)
                return self._items[sha256]
        path = self.store.submission_path(sha256)
        validated: Validated | None = None
        if path.exists():
            data = self.store.submission_bytes(sha256)  # verified: an edited file raises, never shows
            log = self.store.runner_log_for(data)  # the runner request log it declares, verified the same way
            try:
                validated = validate_upload(data, filename, max_bytes=max(len(data), 1), runner_log=log)
            except InputError:
                validated = None
        with self._lock:
            self._items[sha256] = validated
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return validated


def _code(value: object) -> str:
    """An inline code span that survives a markdown table cell.

    >>> print(_code("a|b`c"))
    `a\\|b'c`
    """
    return "`" + str(value).replace("`", "'").replace("|", "\\|") + "`"


def superseded_note(result: Result) -> str:
    """What the audit says after a superseded retrieval artifact: its successor and why, from the artifact's
    history (read now, like the board's badge), else the successor a result of 1.0.0 or 2.0.0 stores."""
    from lemmata.families import superseded_version

    version = superseded_version(result.frozen.retrieval_artifact)
    if version is not None:
        return f" — superseded by {_code(version.superseded_by)}: it {md_escape(version.why or '')}"
    stored = result.flags.get("superseded_by")
    return f" — superseded by {_code(stored)}" if stored else ""


def entry_facts(result: Result) -> str:
    f = result.frozen
    main = result.main
    from lemmata.formats.numbers import number_format, score_text
    from lemmata.metrics.bounds import result_bounds

    value = score_text(main.value, main.interval)
    if main.value is not None and main.interval:
        value += f" ({md_escape(main.interval_kind or 'interval')})"
    bounds = result_bounds(result)
    pending = str(result.pending)
    if bounds is not None:
        pattern = number_format([bounds.low, bounds.high])
        value = f"pending: {pattern.format(bounds.low)}–{pattern.format(bounds.high)}"
        pending += (f" ({bounds.confirmed} confirmed so far; at most {bounds.open} more could still count, so at "
                    f"most {bounds.confirmed + bounds.open} of {bounds.total})")
    rows = [
        ("Model", md_escape(result.model.name) + (f" ({md_escape(result.model.revision)})"
                                                   if result.model.revision else "")),
        ("Source", "reported (from the paper)" if result.kind == "reported" else "scored here"),
        ("Benchmark / track", f"{md_escape(result.benchmark)} / {md_escape(result.track)}"),
        (md_escape(main.metric), value),
        ("Pending items", pending),
        ("Release", _code(f.dataset_release)),
        ("Split", _code(f.split)),
        ("Retrieval artifact", (_code(f.retrieval_artifact) + superseded_note(result)) if f.retrieval_artifact
         else "none"),
        ("Scoring artifact", _code(f.scoring_artifact)),
        ("Date", f.date),
        ("Entry", f"{_code(result.result_id)} (version {result.version}"
                  + (f", supersedes {_code(result.supersedes[:12])}" if result.supersedes else "") + ")"),
        ("Submission", _code(result.submission_sha256)),
    ]
    return "| Entry | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows) + "\n"


def integrity_notice(exc: ResultIntegrityError) -> str:
    """What the audit view says instead of an entry whose stored file fails its integrity check."""
    return (f"## Integrity error\n\nThe stored file of entry {_code(exc.result_id)} (`{md_escape(exc.path)}`) no "
            f"longer matches its content hash: {md_escape(exc.reason)}. Nothing from it is shown; the leaderboard "
            "lists it without numbers and the exports leave it out.\n")


def audited_result(store: Store, result_id: str | None) -> Result | None:
    """The entry to audit, or None when there is none or its stored file fails its integrity check."""
    if not result_id:
        return None
    try:
        return store.get_result(result_id)
    except ResultIntegrityError:
        return None


def notes_md(notes: list[str], limit: int = 10) -> str:
    """An entry's notes as a list: each note is a sentence of its own (joining them with '; ' read '.;').

    >>> print(notes_md(["First note.", "Second | note"]))
    **Notes:**
    <BLANKLINE>
    - First note\\.
    - Second \\| note
    <BLANKLINE>
    """
    return "**Notes:**\n\n" + "".join(f"- {md_escape(n)}\n" for n in notes[:limit])


def render_audit(store: Store, cache: SubmissionCache, result_id: str | None, item: str | None) -> str:
    """Markdown for one item of one entry (or the reason there is nothing to show)."""
    from lemmata.families import handler_for

    if not result_id:
        return "Choose an entry (click an entry id on the leaderboard, or pick one above)."
    try:
        result = store.get_result(result_id)
    except ResultIntegrityError as exc:
        return integrity_notice(exc)
    if result is None:
        return f"No entry `{md_escape(result_id[:64])}` in this store."
    parts = [f"## {md_escape(result.model.name)}\n", entry_facts(result)]
    if result.notes:
        parts.append(notes_md(result.notes))
    if not result.items:
        parts.append("\nThis entry carries no per-item records"
                     + (": it reproduces a paper's aggregate numbers, which were not re-scored here."
                        if result.kind == "reported" else ".") + "\n")
        return "\n".join(parts)
    ids = item_ids(result)
    if not item:
        parts.append(f"\nChoose one of the {len(ids)} items above to see what the scorer saw and decided.\n")
        return "\n".join(parts)
    if item not in ids:
        parts.append(f"\nThis entry has no item `{md_escape(item[:200])}`.\n")
        return "\n".join(parts)
    submission = None
    if result.kind == "scored":
        rec = store.get_submission(result.submission_sha256)
        if rec is not None:
            try:
                submission = cache.get(rec.sha256, rec.filename)
            except SubmissionIntegrityError as exc:
                parts.append(f"\n**Integrity error**: {md_escape(str(exc))}. What was scored cannot be shown.\n")
                return "\n".join(parts)
    try:
        view = handler_for(result.benchmark).audit(result, item, submission)
    except InputError as exc:
        parts.append("\n" + md_escape(str(exc)) + "\n")
        return "\n".join(parts)
    parts.append(f"\n---\n\n## Item {_code(view.item_id)}\n")
    from lemmata.space.texmath import katex_or_source

    for title, body in view.sections:
        parts.append(f"### {md_escape(title)}\n\n{katex_or_source(safe_markdown(body), view.macros)}\n")
    return "\n".join(parts)
