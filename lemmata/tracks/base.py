"""The interface between submission files, scorers and the leaderboard space.

A *track handler* owns one benchmark's submission format: it validates an
upload completely (every problem, with line and field) and scores a validated
submission into an immutable :class:`~lemmata.formats.results.Result`. The space and
the CLI only ever talk to this interface, dispatching on the header's
``benchmark`` field.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lemmata.core.errors import InputError
from lemmata.formats.results import ModelInfo, Result
from lemmata.formats.envelope import Envelope
from lemmata.formats.schema import SchemaFile


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
    #: the file line of each record, where the handler keeps them (problems found later name the line)
    lines: tuple[int, ...] = ()
    #: the outcome of the runner request-log check (:meth:`TrackHandler.check_runner_log`); None: self-reported
    runner_log: Any | None = None
    #: tokens and price the run's request log reports (:class:`~lemmata.formats.results.RunUsage`); None: no log,
    #: or no usage in it. Attached to the result by the one scoring path (:mod:`lemmata.scoring`)
    usage: Any | None = None

    @property
    def declared_runner_log(self) -> str | None:
        """The ``runner.log_sha256`` the header declares (written by ``lemmata run``), or None."""
        runner = getattr(self.header, "runner", None)
        sha = getattr(runner, "log_sha256", None)
        return sha if isinstance(sha, str) else None


@dataclass(frozen=True)
class AuditView:
    """Everything shown for one item of a scored entry (rendered as markdown by the space)."""

    item_id: str
    sections: list[tuple[str, str]]  # (title, markdown body)
    #: argument-free TeX macros of the item's paper where the release records them (name without backslash → body);
    #: the viewer expands them and shows math with any other unknown macro as source
    macros: dict[str, str] = field(default_factory=dict)


class TrackHandler(ABC):
    """One benchmark's submission format and scorer."""

    benchmark: ClassVar[str]
    tracks: ClassVar[tuple[str, ...]]
    #: a line the Submit tab's guide adds for this benchmark (e.g. the command that builds its example)
    guide_note: ClassVar[str | None] = None

    @abstractmethod
    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        """Check header and records; raise InputError listing every problem."""

    @abstractmethod
    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        """Score a validated submission; items needing an unavailable oracle are pending."""

    @classmethod
    def schema_files(cls) -> list["SchemaFile"]:
        """The committed JSON Schema file(s) of this track's submission lines (``lemmata schemas``)."""
        return []

    def check_runner_log(self, submission: Validated, log: bytes, filename: str) -> Any:
        """Check a runner request log against the submission and the frozen release; the outcome is kept in
        :attr:`Validated.runner_log` and recorded by :meth:`score`. Raises InputError naming file, line and field
        of every mismatch; a benchmark whose runs write no log refuses every log."""
        raise InputError.one(filename, f"{self.benchmark} submissions take no runner request log", field="runner")

    def audit(self, result: Result, item_id: str, submission: Validated | None) -> AuditView:
        """Per-item view for the audit viewer; the default shows the stored item record."""
        import json

        for item in result.items:
            if str(item.get("item_id", item.get("instance_id", item.get("query_id")))) == item_id:
                body = "```json\n" + json.dumps(item, indent=2, ensure_ascii=False) + "\n```"
                return AuditView(item_id=item_id, sections=[("Item", body)])
        raise InputError.one(result.result_id, f"no item {item_id!r} in this result", field="item_id")
