"""Accepting an upload: validate everything synchronously, then store once, or say exactly why not.

Nothing is stored until the file and the form both pass. A file whose bytes
are already stored points to the existing entry. A new entry counts against
the submitter's rate limit inside the store's write transaction, so parallel
uploads cannot overrun it. A full disk or I/O error while storing is one
sentence to the visitor (outcome ``unavailable``) with nothing half-written.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Literal

from lemmata.core.errors import InputError, Problem
from lemmata.space.config import SpaceConfig
from lemmata.space.safety import clean_text, esc
from lemmata.store import RateLimited, Store, SubmissionRecord
from lemmata.store.faults import StorageError, describe_fault, is_storage_fault

OutcomeKind = Literal["created", "duplicate", "invalid", "rate_limited", "unavailable"]
log = logging.getLogger("lemmata.space.submit")
FORM = "form"
MAX_SUBMITTER = 100
MAX_CONTACT = 200
MAX_NOTES = 2000


@dataclass(frozen=True)
class SubmissionForm:
    """What the submitter typed next to the file."""

    submitter: str = ""
    contact: str = ""
    notes: str = ""


@dataclass(frozen=True)
class SubmitOutcome:
    kind: OutcomeKind
    message: str
    problems: list[Problem] = field(default_factory=list)
    record: SubmissionRecord | None = None
    result_ids: list[str] = field(default_factory=list)
    #: checks the problems kept from running, each with why (shown under the problems, not counted)
    skipped: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The machine-readable outcome the API returns next to the rendered message."""
        rec = self.record
        return {
            "outcome": self.kind,
            "message": self.message,
            "problems": [p.as_dict() for p in self.problems],
            "skipped": [p.as_dict() for p in self.skipped],
            "sha256": rec.sha256 if rec else None,
            "status": rec.status if rec else None,
            "benchmark": rec.benchmark if rec else None,
            "track": rec.track if rec else None,
            "model": rec.model_name if rec else None,
            "result_ids": list(self.result_ids),
        }


def form_problems(form: SubmissionForm) -> tuple[SubmissionForm, list[Problem]]:
    """The cleaned form and every problem with it."""
    problems: list[Problem] = []
    cleaned: dict[str, str] = {}
    for name, limit in (("submitter", MAX_SUBMITTER), ("contact", MAX_CONTACT)):
        try:
            cleaned[name] = clean_text(getattr(form, name), max_len=limit, field=name)
        except ValueError as exc:
            problems.append(Problem(FORM, str(exc), field=name))
            cleaned[name] = ""
    notes = (form.notes or "").replace("\r\n", "\n").strip()
    if len(notes) > MAX_NOTES:
        problems.append(Problem(FORM, f"notes are longer than {MAX_NOTES} characters", field="notes"))
    cleaned["notes"] = notes[:MAX_NOTES]
    if not cleaned["submitter"] and not any(p.field == "submitter" for p in problems):
        problems.append(Problem(FORM, "enter a submitter name (a person or a team) so the entry can be attributed",
                                field="submitter"))
    return SubmissionForm(**cleaned), problems


def _header_dict(header: Any) -> dict[str, Any]:
    if hasattr(header, "model_dump"):
        return header.model_dump(mode="json")
    return dict(header) if isinstance(header, dict) else {"header": str(header)}


def client_key(host: str | None) -> str | None:
    """A rate-limit key for a client address that does not store the address itself."""
    if not host:
        return None
    return "client:" + hashlib.sha256(host.encode("utf-8")).hexdigest()[:16]


def by_line(problems) -> list[Problem]:
    """The file's problems in line order (the header's first); problems of the whole file, with no line, last.

    >>> [p.line for p in by_line([Problem("f", "x", 9), Problem("f", "y"), Problem("f", "z", 2)])]
    [2, 9, None]
    """
    return sorted(problems, key=lambda p: (p.line is None, p.line or 0))


def _base_name(filename: str | None, default: str) -> str:
    return (filename or default).replace("\\", "/").rsplit("/", 1)[-1][:200] or default


def submit_upload(store: Store, config: SpaceConfig, data: bytes | None, filename: str | None,
                  form: SubmissionForm, *, client: str | None = None, user: str | None = None,
                  runner_log: bytes | None = None, runner_log_name: str | None = None) -> SubmitOutcome:
    """Validate ``data`` and the form completely; store a new entry at most once.

    ``runner_log`` is the optional second upload: the request log ``lemmata run`` wrote beside the file. It must
    hash to the ``runner.log_sha256`` the file's header records and agree with the file and the release
    (:func:`lemmata.scoring.attach_runner_log`); it is stored with the entry under its own sha256.
    """
    from lemmata.scoring import validate_upload

    form, problems = form_problems(form)
    filename = _base_name(filename, "upload.jsonl")
    log_name = _base_name(runner_log_name, "runner-log.jsonl")
    if data is None:
        problems.insert(0, Problem(FORM, "choose a predictions file (.jsonl) to upload", field="file"))
        return SubmitOutcome("invalid", "Nothing was stored: fix the problems below and upload again.", problems)
    try:
        validated = validate_upload(data, filename, max_bytes=config.max_submission_bytes, runner_log=runner_log,
                                    runner_log_name=log_name)
    except InputError as exc:
        return SubmitOutcome("invalid", "Nothing was stored: fix the problems below and upload again.",
                             by_line(exc.problems) + problems, skipped=list(exc.skipped))
    try:
        existing = store.get_submission(validated.sha256)  # hashed once, by validation
        result_ids = store.result_ids_for_submission(existing.sha256) if existing is not None else []
    except (OSError, sqlite3.Error) as exc:  # a full disk can stop SQLite from opening the index at all
        if not is_storage_fault(exc):
            raise
        log.error("reading the store for an upload failed: %s", exc)
        return SubmitOutcome("unavailable", f"The server could not check the upload because {describe_fault(exc)}; "
                                            "nothing was stored, please try again later.")
    if existing is not None:
        return SubmitOutcome("duplicate", "This exact file was already submitted; nothing new was stored.",
                             record=existing, result_ids=result_ids)
    if problems:
        return SubmitOutcome("invalid", "The file is valid, but nothing was stored: fix the form below.", problems)
    keys = [f"submitter:{form.submitter.casefold()}"]
    if user:
        keys.append(f"user:{user.casefold()}")
    if client:
        keys.append(client)
    try:
        record, created = store.add_submission(
            data, filename=filename, benchmark=validated.benchmark, track=validated.track,
            model_name=validated.model.name, submitter=form.submitter, header=_header_dict(validated.header),
            contact=form.contact or None, notes=form.notes or None, status="queued",
            rate_limit=config.rate_limit, rate_keys=keys, sha256=validated.sha256,
            runner_log=runner_log if validated.runner_log is not None else None)
    except RateLimited as exc:
        return SubmitOutcome("rate_limited", str(exc).capitalize() + ". Nothing was stored.")
    except StorageError as exc:  # full disk, I/O error: the store already removed what it had written
        log.error("storing an upload failed: %s", exc.__cause__ or exc)
        return SubmitOutcome("unavailable", str(exc))
    if not created:  # another upload of the same bytes won the race
        return SubmitOutcome("duplicate", "This exact file was already submitted; nothing new was stored.",
                             record=record, result_ids=store.result_ids_for_submission(record.sha256))
    summary = f" {validated.summary.strip().rstrip('.')}." if validated.summary.strip() else ""
    oracle = " Some items need an oracle verdict; they are listed as pending until one is available." \
        if validated.needs_oracle else ""
    logged = (" The attempts match the runner request log (prompts recomputed from the release); it is stored "
              "with the entry." if validated.runner_log is not None else "")
    return SubmitOutcome("created", f"Valid and stored: queued for scoring.{summary}{logged}{oracle}", record=record)


def render_outcome(outcome: SubmitOutcome) -> str:
    """The outcome as escaped HTML: every problem with its line, field and reason."""
    if outcome.kind == "invalid":
        rows = "".join(
            f"<tr><td>{esc(p.file)}</td><td>{esc(p.line) if p.line is not None else '–'}</td>"
            f"<td><code>{esc(p.field) if p.field else '–'}</code></td><td>{esc(p.reason)}</td></tr>"
            for p in outcome.problems)
        n = len(outcome.problems)
        skipped = ""
        if outcome.skipped:
            skipped = ('<p class="lm-skipped"><b>Not checked yet</b> (these checks run once the problems above are '
                       "fixed):</p><ul>" + "".join(f"<li>{esc(p.reason)}</li>" for p in outcome.skipped) + "</ul>")
        return (f'<div class="lm-errors" role="alert"><b>{n} problem{"s" if n != 1 else ""} found.</b> '
                f"{esc(outcome.message)}<table><thead><tr><th>File</th><th>Line</th><th>Field</th><th>Reason</th>"
                f"</tr></thead><tbody>{rows}</tbody></table>{skipped}</div>")
    if outcome.kind in ("rate_limited", "unavailable"):
        return f'<div class="lm-errors" role="alert">{esc(outcome.message)}</div>'
    rec = outcome.record
    assert rec is not None
    facts = (f"<li>model <b>{esc(rec.model_name)}</b> · {esc(rec.benchmark)} / {esc(rec.track)}</li>"
             f"<li>content hash <code>{esc(rec.sha256)}</code></li>"
             f"<li>received {esc(rec.received_at)} from {esc(rec.submitter)}; status <b>{esc(rec.status)}</b>"
             f"{' — ' + esc(rec.status_reason) if rec.status_reason else ''}</li>")
    if outcome.result_ids:
        facts += "<li>results: " + ", ".join(
            f'<a href="#audit" data-audit="{esc(r)}"><code>{esc(r[:12])}</code></a>' for r in outcome.result_ids) \
            + "</li>"
    cls = "lm-ok" if outcome.kind == "created" else "lm-info"
    follow = " Follow it in the <b>Status</b> tab; the leaderboard updates by itself when scoring ends." \
        if outcome.kind == "created" else " The existing entry is shown below."
    return f'<div class="{cls}" role="status">{esc(outcome.message)}{follow}<ul>{facts}</ul></div>'
