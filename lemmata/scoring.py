"""The one scoring path: validate an upload, check its runner log, score it, store it, chain its versions.

The CLI (``lemmata score``, ``run``, ``evaluate``, ``baselines``), the space's
worker and upload form, and the harness all come through here, so a file is
judged the same way wherever it arrives. :func:`validate_upload` parses the
envelope and dispatches on the header's ``benchmark`` through the registry
(:mod:`lemmata.families`); :func:`score_upload` scores validated bytes in
memory; :func:`score_file` stores the bytes as a submission and scores the
*stored* bytes (:func:`score_stored`) exactly as an upload is, into an
immutable result whose corrections are new versions (:func:`chain_version`).
Scoring the same file twice stores nothing new. A full disk or I/O error raises
:class:`~lemmata.core.errors.LemmataError` with one sentence, never a bare
``OSError``; nothing half-written is left behind.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lemmata import families
from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.hashing import sha256_bytes
from lemmata.core.registry import suggest
from lemmata.formats.results import Result, RunUsage
from lemmata.formats.runner_log import declared_log_sha256, log_beside
from lemmata.store import Store, SubmissionRecord
from lemmata.store.faults import describe_fault, is_storage_fault
from lemmata.tracks.base import OracleConfig, Validated

__all__ = ["FAULT_RETRIES", "SUBMITTER", "attach_runner_log", "chain_version", "failure_reason", "oracles_from_env",
           "recognised", "runner_log_beside", "score_file", "score_stored", "score_upload", "score_validated",
           "settled_status", "validate_upload"]

log = logging.getLogger("lemmata.scoring")
#: the longest failure reason recorded on a submission
MAX_REASON = 2000
#: how often a submission whose scoring hit a storage fault is queued again before it is marked failed
FAULT_RETRIES = 3

SUBMITTER = "lemmata-baselines"


def score_file(path: str | Path, store: Store, *, submitter: str = SUBMITTER,
               oracles: OracleConfig | None = None, runner_log: str | Path | None = None) -> Result:
    """Validate ``path`` (with the runner request log its header declares, if any: ``runner_log``, else the one
    beside it, :func:`runner_log_beside`), add both to ``store`` and score it; returns the stored (latest) result."""
    path = Path(path)
    data = path.read_bytes()
    log_path = runner_log_beside(path, data, runner_log)
    log_data = log_path.read_bytes() if log_path is not None else None
    validated = validate_upload(data, path.name, runner_log=log_data,
                                runner_log_name=log_path.name if log_path is not None else "runner-log.jsonl")
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
    data = store.submission_bytes(record.sha256)
    log_data = store.runner_log_for(data)  # verified against the sha256 the verified upload declares
    validated = validate_upload(data, record.filename, max_bytes=max(len(data), 1), runner_log=log_data,
                                runner_log_name=log_beside(record.filename).name)
    result = with_usage(families.handler_for(validated.benchmark).score(validated, received_at=record.received_at,
                                                                         oracles=oracles), validated)
    if result.submission_sha256 != record.sha256:
        raise ValueError("the handler returned a result for a different submission")
    stored, _ = store.add_result(chain_version(store, result))
    return stored


def settled_status(stored: Result) -> tuple[str, str | None]:
    """The submission status a stored result settles: waiting for an oracle, or scored."""
    if stored.pending > 0 or stored.status == "pending_oracle":
        return "pending_oracle", f"{stored.pending} item(s) wait for an oracle verdict"
    return "scored", None


def validate_upload(data: bytes, filename: str, *, max_bytes: int | None = None, runner_log: bytes | None = None,
                    runner_log_name: str = "runner-log.jsonl") -> "Validated":
    """Parse the envelope, dispatch on ``benchmark`` and validate completely.

    Line problems of the envelope, header problems and record problems come back
    together in one InputError; a file that is one JSON document is offered to
    the families' recognisers, which may say what it is instead. A header that
    declares a runner request log (``runner.log_sha256``) needs ``runner_log``,
    and a given log needs such a header (:func:`attach_runner_log`).
    """
    validated = _validate(data, filename, max_bytes)
    return attach_runner_log(validated, runner_log, runner_log_name)


def runner_log_beside(path: Path, data: bytes, given: str | Path | None = None) -> Path | None:
    """The request log to check the submission file ``path`` (bytes ``data``) against: ``given``, else the log
    ``lemmata run`` wrote beside it (:func:`~lemmata.formats.runner_log.log_beside`) when the file's header
    declares one and it is there, else None. So ``lemmata score FILE`` checks the log the space checks for the
    *runner log* badge without being told, and both give the same result."""
    if given is not None:
        log = Path(given)
        if not log.is_file():
            raise InputError.one(str(log), "no such file", field="runner_log")
        return log
    beside = log_beside(path)
    return beside if beside.is_file() and declared_log_sha256(_first_object(data)) is not None else None


def _first_object(data: bytes) -> Any:
    """The first non-blank line parsed as JSON (the header of a well-formed upload), or None: validation reports
    whatever is wrong with it."""
    import json

    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if data[start:end].strip():
            try:
                return json.loads(data[start:end])
            except ValueError:
                return None
        start = end + 1
    return None


def attach_runner_log(validated: "Validated", log: bytes | None, log_name: str) -> "Validated":
    """``validated`` with its runner request log checked, or unchanged when neither the header nor the caller
    names a log; InputError when one names a log the other lacks, when the log does not hash to the header's
    ``runner.log_sha256``, or when the benchmark's check finds a mismatch with the release."""
    import dataclasses

    declared = validated.declared_runner_log
    if log is None and declared is None:
        return validated
    if log is None:
        raise InputError.one(validated.filename, f"the header records a runner request log (sha256 {declared[:12]}…) "
                                                 "but none was given: upload the log written beside the submission "
                                                 "(*.runner-log.jsonl; `lemmata score --runner-log FILE`), or remove the header's runner field (the "
                                                 "entry is then self-reported)", field="runner.log_sha256")
    if declared is None:
        raise InputError.one(log_name, "a runner request log was given, but the submission header records none "
                                       "(runner.log_sha256): only a submission written by `lemmata run` names its log",
                             field="runner")
    actual = sha256_bytes(log)
    if actual != declared:
        raise InputError.one(log_name, f"the log hashes to {actual[:12]}…, but the submission header records "
                                       f"runner.log_sha256 {declared[:12]}…: it was edited after the run hashed it, or "
                                       "it is another run's log", field="runner.log_sha256")
    outcome = families.handler_for(validated.benchmark).check_runner_log(validated, log, log_name)
    return dataclasses.replace(validated, runner_log=outcome, usage=log_usage(log, log_name))


def log_usage(log: bytes, log_name: str) -> RunUsage | None:
    """The tokens and price a checked request log reports, summed over its answers (None: none reported)."""
    from lemmata.formats.runner_log import read_log

    _, entries = read_log(log, log_name)
    return RunUsage.of([entry.answer.model_dump() for _, entry in entries])


def with_usage(result: Result, validated: Validated) -> Result:
    """``result`` carrying the run's usage where its log reported any, and the condition ``runner_log: consistent``
    with the check's provenance where its log passed (:func:`lemmata.tracks.runner_log.with_runner_log`; a handler
    may record both itself). A result without a log keeps its bytes and id."""
    from lemmata.tracks.runner_log import with_runner_log

    update: dict[str, Any] = {}
    if validated.usage is not None and result.usage is None:
        update["usage"] = validated.usage
    if validated.runner_log is not None and "runner_log" not in result.flags:
        update["flags"], update["provenance"] = with_runner_log(result.flags, result.provenance, validated.runner_log)
    return result.model_copy(update=update).finalized() if update else result


def _validate(data: bytes, filename: str, max_bytes: int | None) -> "Validated":
    from lemmata.formats.envelope import NotJsonl, cap_problems, parse_envelope, skipped

    try:
        envelope = parse_envelope(data, filename, max_bytes=max_bytes, keep_going=True)
    except NotJsonl as exc:
        raise InputError(recognised(exc.document, filename) or list(exc.problems)) from None
    benchmark = envelope.header.get("benchmark")
    if not isinstance(benchmark, str) or benchmark not in families.handlers():
        reason = "header must name the benchmark (string)" if not isinstance(benchmark, str) else \
            suggest("benchmark", benchmark, families.handlers())
        raise InputError(cap_problems([Problem(filename, reason, envelope.header_line, "benchmark"),
                                       *envelope.problems], filename),
                         [skipped(filename, "the records", "the header names no known benchmark")])
    try:
        validated = families.handler_for(benchmark).validate(envelope, sha256_bytes(data))
    except InputError as exc:  # the list a person reads stays bounded; the total stays stated
        given = {id(p) for p in exc.problems}  # by identity: hashing a hostile file's problems costs seconds
        found = [p for p in envelope.problems if id(p) not in given] + list(exc.problems)
        if any(p.field == "format" and p.line == envelope.header_line for p in envelope.problems):
            # the envelope said what ``format`` must be; the header model's own word on it would repeat that
            found = [p for p in found if not (p.field == "header.format" and p.line == envelope.header_line)]
        raise InputError(cap_problems(found, filename), list(exc.skipped)) from None
    if envelope.problems:  # a handler that forgot the envelope's line problems still cannot accept the file
        raise InputError(cap_problems(list(envelope.problems), filename))
    return validated


def recognised(document: Any, filename: str) -> list["Problem"]:
    """What a family's recogniser says about an upload that is one JSON document (empty: nobody knows it)."""
    for family in families.families().values():
        for ref in family.recognisers:
            problems = family.load(ref)(document, filename)  # type: ignore[operator]
            if problems:
                return list(problems)
    return []


def oracles_from_env(*, live: bool = True, extra: dict[str, Any] | None = None) -> OracleConfig:
    """The oracles configured by environment (``LEMMATA_JUDGE_*``, ``LEMMATA_LEAN_URL``); ``live=False``: none,
    so only cached verdicts count and the rest stays pending."""
    judge = lean = None
    if live:
        from lemmata.oracles.chat import judge_from_env
        from lemmata.oracles.lean import verifier_from_env

        judge, lean = judge_from_env(), verifier_from_env()
    return OracleConfig(judge=judge, lean=lean, extra=dict(extra or {}))


def score_upload(data: bytes, filename: str, *, received_at: str | None = None, oracles: OracleConfig | None = None,
                 max_bytes: int | None = None, runner_log: bytes | None = None,
                 runner_log_name: str = "runner-log.jsonl", quiet: bool = False) -> tuple[Validated, Any, Result]:
    """Validate and score an upload's bytes in memory, as the space would (nothing is stored): returns the
    validated submission, the handler that scored it and the result. ``received_at`` defaults to today (UTC)."""
    validated = validate_upload(data, filename, max_bytes=max_bytes, runner_log=runner_log,
                                runner_log_name=runner_log_name)
    handler, result = score_validated(validated, received_at=received_at, oracles=oracles, quiet=quiet)
    return validated, handler, result


def score_validated(validated: Validated, *, received_at: str | None = None, oracles: OracleConfig | None = None,
                    quiet: bool = False) -> tuple[Any, Result]:
    """Score a validated submission in memory with its benchmark's handler: ``(handler, result)``."""
    import datetime as dt

    handler = families.handler_for(validated.benchmark)
    if hasattr(handler, "quiet"):
        handler.quiet = quiet
    received = received_at or dt.datetime.now(dt.timezone.utc).date().isoformat()
    return handler, with_usage(handler.score(validated, received_at=received, oracles=oracles or OracleConfig()),
                               validated)
