"""The interface between submission files, scorers and the leaderboard space.

A *track handler* owns one benchmark's submission format: it validates an
upload completely (every problem, with line and field) and scores a validated
submission into an immutable :class:`~lemmata.results.Result`. The space and
the CLI only ever talk to this interface, dispatching on the header's
``benchmark`` field.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lemmata.errors import InputError
from lemmata.hashing import sha256_bytes
from lemmata.registry import suggest
from lemmata.results import ModelInfo, Result
from lemmata.submissions.envelope import Envelope, parse_envelope


@dataclass(frozen=True)
class OracleConfig:
    """Which oracles are reachable for this scoring run (None: work that needs it stays pending)."""

    judge: Any | None = None
    lean: Any | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Validated:
    """A submission that passed validation, ready to store and score."""

    benchmark: str
    track: str
    model: ModelInfo
    header: Any
    records: list[Any]
    sha256: str
    filename: str
    summary: str = ""
    needs_oracle: bool = False


@dataclass(frozen=True)
class AuditView:
    """Everything shown for one item of a scored entry (rendered as markdown by the space)."""

    item_id: str
    sections: list[tuple[str, str]]  # (title, markdown body)


class TrackHandler(ABC):
    """One benchmark's submission format and scorer."""

    benchmark: ClassVar[str]
    tracks: ClassVar[tuple[str, ...]]

    @abstractmethod
    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        """Check header and records; raise InputError listing every problem."""

    @abstractmethod
    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        """Score a validated submission; items needing an unavailable oracle are pending."""

    def audit(self, result: Result, item_id: str, submission: Validated | None) -> AuditView:
        """Per-item view for the audit viewer; the default shows the stored item record."""
        import json

        for item in result.items:
            if str(item.get("item_id", item.get("instance_id", item.get("query_id")))) == item_id:
                body = "```json\n" + json.dumps(item, indent=2, ensure_ascii=False) + "\n```"
                return AuditView(item_id=item_id, sections=[("Item", body)])
        raise InputError.one(result.result_id, f"no item {item_id!r} in this result", field="item_id")


#: benchmark (header ``benchmark`` value) -> "module:Class"
HANDLERS: dict[str, str] = {}


def register_handler(benchmark: str, ref: str) -> None:
    HANDLERS[benchmark] = ref


def _ensure_registered() -> None:
    importlib.import_module("lemmata.scoring.handlers")


def handler_for(benchmark: str) -> TrackHandler:
    _ensure_registered()
    if benchmark not in HANDLERS:
        raise InputError.one("header", suggest("benchmark", benchmark, HANDLERS), field="benchmark")
    module, _, cls = HANDLERS[benchmark].partition(":")
    return getattr(importlib.import_module(module), cls)()


def known_benchmarks() -> list[str]:
    _ensure_registered()
    return sorted(HANDLERS)


def validate_upload(data: bytes, filename: str, *, max_bytes: int | None = None) -> Validated:
    """Parse the envelope, dispatch on ``benchmark`` and validate completely."""
    envelope = parse_envelope(data, filename, max_bytes=max_bytes)
    benchmark = envelope.header.get("benchmark")
    if not isinstance(benchmark, str):
        raise InputError.one(filename, "header must name the benchmark (string)", envelope.header_line, "benchmark")
    _ensure_registered()
    if benchmark not in HANDLERS:
        raise InputError.one(filename, suggest("benchmark", benchmark, HANDLERS), envelope.header_line, "benchmark")
    return handler_for(benchmark).validate(envelope, sha256_bytes(data))
