"""Score a submission file into a store exactly as an upload is: validate, store, score, store the result.

Baselines are leaderboard rows like any other, so they take the uploaded
path: the envelope is parsed and validated by the benchmark's handler, the
bytes are stored as a submission, and the same function the space's worker uses scores the
stored bytes (not the in-memory objects) into an immutable result. Scoring
the same file twice stores nothing new. A full disk or I/O error raises
:class:`~lemmata.core.errors.LemmataError` with one sentence, never a bare
``OSError``; nothing half-written is left behind.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lemmata.core.errors import InputError, LemmataError
from lemmata.formats.results import Result
from lemmata.store import Store, SubmissionRecord
from lemmata.store.faults import describe_fault, is_storage_fault
from lemmata.tracks.base import OracleConfig

__all__ = ["FAULT_RETRIES", "SUBMITTER", "chain_version", "failure_reason", "score_file", "score_stored", "settled_status"]

log = logging.getLogger("lemmata.tracks.runner")
#: the longest failure reason recorded on a submission
MAX_REASON = 2000
#: how often a submission whose scoring hit a storage fault is queued again before it is marked failed
FAULT_RETRIES = 3

SUBMITTER = "lemmata-baselines"


def score_file(path: str | Path, store: Store, *, submitter: str = SUBMITTER,
               oracles: OracleConfig | None = None, runner_log: str | Path | None = None) -> Result:
    """Validate ``path`` (with the runner request log its header declares, if any), add both to ``store`` and
    score it; returns the stored (latest) result."""
    from lemmata.families import validate_upload

    path = Path(path)
    data = path.read_bytes()
    log_data = Path(runner_log).read_bytes() if runner_log is not None else None
    validated = validate_upload(data, path.name, runner_log=log_data,
                                runner_log_name=Path(runner_log).name if runner_log is not None else "runner-log.jsonl")
    record, _ = store.add_submission(
        data, filename=path.name, benchmark=validated.benchmark, track=validated.track,
        model_name=validated.model.name, submitter=submitter, header=validated.header.model_dump(mode="json"),
        status="scoring",  # scored right here; a running space worker must not claim it too
        runner_log=log_data,
    )
    try:
        result = score_stored(store, record, oracles or OracleConfig())
    except Exception as cause:
        if is_storage_fault(cause):
            log.warning("scoring %s hit a storage fault: %s", path.name, describe_fault(cause))
            store.requeue_after_fault(record.sha256, f"storage fault while scoring: {describe_fault(cause)}",
                                      max_retries=FAULT_RETRIES)
            raise LemmataError(f"scoring {path.name} could not be stored because {describe_fault(cause)}; "
                               "the submission is queued to be scored again") from cause
        store.set_status(record.sha256, "failed", failure_reason(cause))
        raise LemmataError(f"scoring {path.name} failed: {failure_reason(cause)}") from cause
    status, reason = settled_status(result)
    store.set_status(record.sha256, status, reason)  # type: ignore[arg-type]
    return result


def chain_version(store: Store, result: Result) -> Result:
    """``result`` as the next version of the submission's latest result of the same kind, or that latest
    result itself when nothing but the scoring time differs."""
    previous = [r for r in store.results_for_submission(result.submission_sha256)
                if r.kind == result.kind and r.benchmark == result.benchmark and r.track == result.track]
    superseded = {r.supersedes for r in previous if r.supersedes}
    latest = [r for r in previous if r.result_id not in superseded]
    if not latest:
        return result.finalized()
    prev = max(latest, key=lambda r: (r.version, r.scored_at))
    same = result.model_copy(update={"version": prev.version, "supersedes": prev.supersedes})
    if same.content_id() == prev.result_id:
        return prev
    return result.model_copy(update={"version": prev.version + 1, "supersedes": prev.result_id}).finalized()


def failure_reason(exc: BaseException) -> str:
    if isinstance(exc, InputError):
        text = "the stored file was refused when scored: " + "; ".join(str(p) for p in exc.problems[:10])
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text[:MAX_REASON]


def score_stored(store: Store, record: SubmissionRecord, oracles: OracleConfig) -> Result:
    """Score one stored submission from its stored bytes and store the next result version.

    Raises whatever went wrong (the caller records the submission's status: the space's worker retries
    storage faults, :func:`score_file` reports them in one sentence).
    """
    from lemmata.families import handler_for, validate_upload

    data = store.submission_bytes(record.sha256)
    log_data = store.runner_log_for(data)  # verified against the sha256 the verified upload declares
    validated = validate_upload(data, record.filename, max_bytes=max(len(data), 1), runner_log=log_data,
                                runner_log_name=f"{Path(record.filename).stem}.runner-log.jsonl")
    result = handler_for(validated.benchmark).score(validated, received_at=record.received_at, oracles=oracles)
    if result.submission_sha256 != record.sha256:
        raise ValueError("the handler returned a result for a different submission")
    stored, _ = store.add_result(chain_version(store, result))
    return stored


def settled_status(stored: Result) -> tuple[str, str | None]:
    """The submission status a stored result settles: waiting for an oracle, or scored."""
    if stored.pending > 0 or stored.status == "pending_oracle":
        return "pending_oracle", f"{stored.pending} item(s) wait for an oracle verdict"
    return "scored", None
