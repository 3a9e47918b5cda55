"""The release builder of a benchmark whose data lives on the Hugging Face Hub: its set-up, written once.

A Hub-pinned builder names its snapshots by the metadata's
:class:`~lemmata.core.meta.HubPin` records, reads them from ``--source-dir`` or
the local mirror when given (else downloads exactly the pinned revision,
optionally from another ``endpoint``), records every file it reads for the
manifest (:class:`~lemmata.release.hub.UsedFiles`) and checks each card's
licence against the metadata. A family builder only turns the snapshots into
tables, and declares the card layouts it reads (:meth:`HubReleaseBuilder.card_layouts`)
so that ``lemmata build NAME --check`` can compare them with the pinned cards
before any data file is downloaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from lemmata.core.meta import HubPin
from lemmata.release.builder import ReleaseBuilder
from lemmata.release.card_check import CardLayout, CardReport, check_card
from lemmata.release.hub import UsedFiles, check_card_license, mirror_or, snapshot

__all__ = ["HubReleaseBuilder"]


class HubReleaseBuilder(ReleaseBuilder):
    """A release built from pinned Hub snapshots; ``sources`` maps each snapshot's name to its folder."""

    #: the snapshot files a build may read (matched against paths inside each repository)
    allow_patterns: ClassVar[tuple[str, ...]] = ("README.md", "*.jsonl", "*.json", "*.parquet", "*.tsv", "*.csv")
    #: snapshot files a build never reads although ``allow_patterns`` matches them (a folder duplicating others)
    ignore_patterns: ClassVar[tuple[str, ...]] = ()

    def __init__(self, source_dir: str | Path | None = None, *, endpoint: str | None = None) -> None:
        super().__init__(source_dir)
        self.endpoint = endpoint
        self.used = UsedFiles()

    def pins(self) -> dict[str, HubPin]:
        """The snapshots the build reads, by source name (default: every pin of the metadata, by repository)."""
        return {pin.repo_id: pin for pin in self.meta.hub}

    def fetch_sources(self) -> dict[str, Path]:
        source_dir = mirror_or(self.source_dir, self.meta)
        return {name: snapshot(pin, allow_patterns=self.allow_patterns, ignore_patterns=self.ignore_patterns,
                               source_dir=source_dir, endpoint=self.endpoint)
                for name, pin in self.pins().items()}

    def manifest_sources(self) -> list[dict[str, str]]:
        return self.used.manifest()

    def expected_license(self, name: str) -> str:
        """The licence id the card of source ``name`` must state (default: the release's)."""
        return self.meta.license_id

    def checked_root(self, sources: dict[str, Path], name: str) -> Path:
        """The snapshot folder of source ``name``, once its card states the licence the metadata records."""
        root = sources[name]
        check_card_license(self.pins()[name], root, self.expected_license(name))
        return root

    def card_layouts(self) -> dict[str, tuple[CardLayout, ...]]:
        """The card layouts this builder reads, by source name; several where upstream published several.

        Derive them from the builder's own row models and config names, so the check and the build cannot
        disagree. Default: none declared, which the check reports as a difference.
        """
        return {}

    def check_cards(self, names: list[str] | None = None) -> list[CardReport]:
        """Fetch only each pinned card (``README.md``; no data file) and compare it with :meth:`card_layouts`."""
        source_dir = mirror_or(self.source_dir, self.meta)
        layouts = self.card_layouts()
        reports = []
        for name, pin in self.pins().items():
            if names is not None and name not in names:
                continue
            root = snapshot(pin, allow_patterns=("README.md",), source_dir=source_dir, endpoint=self.endpoint)
            reports.append(check_card(name, pin, root / "README.md", self.expected_license(name),
                                      layouts.get(name, ())))
        return reports
