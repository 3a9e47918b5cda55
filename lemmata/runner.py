"""Score a submission file into a store exactly as an upload is: validate, store, score, store the result.

Baselines are leaderboard rows like any other, so they take the uploaded
path: the envelope is parsed and validated by the benchmark's handler, the
bytes are stored as a submission, and the space's scoring worker scores the
stored bytes (not the in-memory objects) into an immutable result. Scoring
the same file twice stores nothing new. A full disk or I/O error raises
:class:`~lemmata.core.errors.LemmataError` with one sentence, never a bare
``OSError``; nothing half-written is left behind.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.core.errors import LemmataError
from lemmata.formats.results import Result
from lemmata.tracks.base import OracleConfig
from lemmata.store import Store
from lemmata.store_faults import describe_fault, is_storage_fault

SUBMITTER = "lemmata-baselines"


def score_file(path: str | Path, store: Store, *, submitter: str = SUBMITTER,
               oracles: OracleConfig | None = None) -> Result:
    """Validate ``path``, add it to ``store`` and score it; returns the stored (latest) result."""
    from lemmata.registry import validate_upload
    from lemmata.space.worker import ScoringWorker

    path = Path(path)
    data = path.read_bytes()
    validated = validate_upload(data, path.name)
    record, _ = store.add_submission(
        data, filename=path.name, benchmark=validated.benchmark, track=validated.track,
        model_name=validated.model.name, submitter=submitter, header=validated.header.model_dump(mode="json"),
        status="scoring",  # scored right here; a running space worker must not claim it too
    )
    worker = ScoringWorker(store, oracles=lambda: oracles or OracleConfig())
    result = worker.process(record)
    if result is None:
        cause = worker.last_error
        if cause is not None and is_storage_fault(cause):
            raise LemmataError(f"scoring {path.name} could not be stored because {describe_fault(cause)}; "
                               "the submission is queued to be scored again") from cause
        reason = store.get_submission(record.sha256).status_reason  # type: ignore[union-attr]
        raise LemmataError(f"scoring {path.name} failed: {reason}") from cause
    return result
