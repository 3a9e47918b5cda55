"""The log of opened (materialised) records, which every offline scholarly artifact keeps the same way.

An agent that opens a record leaves an event (artifact, record, instance, time);
the scorer reads the log to tell what a system looked at from what it merely
found in a search. :class:`OpenedArtifact` is what every opened artifact (1.x
and 2.x) does alike: log an opening, look an instance's attribution up, and
refuse an id it does not hold.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from lemmata.core.errors import InputError
from lemmata.core.jsonl import iter_jsonl
from lemmata.core.models import Frozen
from lemmata.benchmarks.re2math.scholar.querycache import now_utc

A = TypeVar("A")


class MaterialisationEvent(Frozen):
    artifact_id: str
    record_id: str
    instance_id: str | None
    at: str


@dataclass
class MaterialisationLog:
    """Every opening of a source; kept in memory and, with ``path``, appended to a JSONL file."""

    path: Path | None = None
    events: list[MaterialisationEvent] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def append(self, event: MaterialisationEvent) -> None:
        with self._lock:
            self.events.append(event)
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(event.model_dump(mode="json"), sort_keys=True) + "\n")

    @staticmethod
    def read(path: str | Path) -> list[MaterialisationEvent]:
        return [MaterialisationEvent.model_validate(obj) for _, obj in iter_jsonl(path)]


class OpenedArtifact(Generic[A]):
    """An opened offline artifact's look-ups and opening log, the same in every version (``A``: its attribution).

    A version sets :attr:`root`, :attr:`artifact_id` and :attr:`log` when it
    opens and provides :attr:`_attributions` (instance id -> attribution).
    """

    root: Path
    artifact_id: str
    log: MaterialisationLog
    _attributions: Mapping[str, A]

    def attribution(self, instance_id: str) -> A:
        """The instance's attribution: its cited-source record (1.x: and statement) and search cutoff, for scoring
        and the oracle subset; an unknown instance raises InputError."""
        try:
            return self._attributions[instance_id]
        except KeyError:
            raise self._unknown("instance", instance_id) from None

    def attributions(self) -> list[A]:
        return list(self._attributions.values())

    def _unknown(self, what: str, key: str, hint: str = "") -> InputError:
        """The error for a ``<what>_id`` this artifact does not hold (the scorer reports it as a problem of the
        submission)."""
        return InputError.one(str(self.root), f"no {what} {key!r} in artifact {self.artifact_id}{hint}",
                              field=f"{what}_id")

    def _log_opening(self, record_id: str, instance_id: str | None,
                     log: MaterialisationLog | str | Path | None) -> None:
        """Log the opening of ``record_id`` to ``log``: a :class:`MaterialisationLog`, a JSONL path to append to, or
        None for the artifact's own in-memory :attr:`log`."""
        target = log if isinstance(log, MaterialisationLog) else (
            MaterialisationLog(Path(log)) if log is not None else self.log)
        target.append(MaterialisationEvent(artifact_id=self.artifact_id, record_id=record_id, instance_id=instance_id,
                                           at=now_utc()))
