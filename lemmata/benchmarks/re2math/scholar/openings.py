"""The log of opened (materialised) records, which every offline scholarly artifact keeps the same way.

An agent that opens a record leaves an event (artifact, record, instance, time);
the scorer reads the log to tell what a system looked at from what it merely
found in a search.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from lemmata.core.jsonl import iter_jsonl
from lemmata.core.models import Frozen


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
