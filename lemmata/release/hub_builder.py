"""The release builder of a benchmark whose data lives on the Hugging Face Hub: its set-up, written once.

A Hub-pinned builder names its snapshots by the metadata's
:class:`~lemmata.core.meta.HubPin` records, reads them from ``--source-dir`` or
the local mirror when given (else downloads exactly the pinned revision,
optionally from another ``endpoint``), records every file it reads for the
manifest (:class:`~lemmata.release.hub.UsedFiles`) and checks each card's
licence against the metadata. A family builder only turns the snapshots into
tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from lemmata.core.meta import HubPin
from lemmata.release.builder import ReleaseBuilder
from lemmata.release.hub import UsedFiles, check_card_license, mirror_or, snapshot

__all__ = ["HubReleaseBuilder"]


class HubReleaseBuilder(ReleaseBuilder):
    """A release built from pinned Hub snapshots; ``sources`` maps each snapshot's name to its folder."""

    #: the snapshot files a build may read (matched against paths inside each repository)
    allow_patterns: ClassVar[tuple[str, ...]] = ("README.md", "*.jsonl", "*.json", "*.parquet", "*.tsv", "*.csv")

    def __init__(self, source_dir: str | Path | None = None, *, endpoint: str | None = None) -> None:
        super().__init__(source_dir)
        self.endpoint = endpoint
        self.used = UsedFiles()

    def pins(self) -> dict[str, HubPin]:
        """The snapshots the build reads, by source name (default: every pin of the metadata, by repository)."""
        return {pin.repo_id: pin for pin in self.meta.hub}

    def fetch_sources(self) -> dict[str, Path]:
        source_dir = mirror_or(self.source_dir, self.meta)
        return {name: snapshot(pin, allow_patterns=self.allow_patterns, source_dir=source_dir, endpoint=self.endpoint)
                for name, pin in self.pins().items()}

    def manifest_sources(self) -> list[dict[str, str]]:
        return self.used.manifest()

    def checked_root(self, sources: dict[str, Path], name: str) -> Path:
        """The snapshot folder of source ``name``, once its card states the licence the metadata records."""
        root = sources[name]
        check_card_license(self.pins()[name], root, self.meta.license_id)
        return root
