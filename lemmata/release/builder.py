"""The release builder base: sources in, one complete release folder out, atomically.

Subclasses turn verified raw files into tables; this class writes Parquet, the
card, Croissant, CITATION.cff and the manifest into a temporary folder beside
the target and renames it into place, so a failed build leaves nothing behind
and an existing release is replaced only by a complete one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from lemmata.core.atomic import atomic_dir
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.paths import releases_dir
from lemmata.core.progress import Steps
from lemmata.release.card import CARD, SplitStats, render_card
from lemmata.release.citation import CITATION_FILE, render_citation
from lemmata.release.croissant import write_croissant
from lemmata.release.manifest import write_manifest
from lemmata.release.parquet import shard_name, write_rows
from lemmata.release.sources import SourceUnavailable, resolve_sources

if TYPE_CHECKING:  # pragma: no cover
    from datasets import Features


@dataclass
class SplitTable:
    config: str
    split: str
    rows: list[dict[str, Any]]


class ReleaseBuilder(ABC):
    """Base class; subclasses set ``meta``, ``source_names`` and implement the hooks."""

    meta: ClassVar[BenchmarkMeta]
    builder_version: ClassVar[str] = "1"
    #: the builder's identity as recorded in a release's MANIFEST and card; fixed once a release has shipped, so
    #: that moving code never changes a release's bytes (default: the class's module path)
    builder_id: ClassVar[str | None] = None
    source_names: ClassVar[tuple[str, ...]] = ()

    def __init__(self, source_dir: str | Path | None = None) -> None:
        self.source_dir = Path(source_dir) if source_dir is not None else None

    # -- hooks -------------------------------------------------------------
    @abstractmethod
    def features(self) -> dict[str, "Features"]:
        """Pinned features per config."""

    @abstractmethod
    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        """Verified raw files in, one table per (config, split) out; bad rows raise InputError."""

    def fetch_sources(self) -> dict[str, Path]:
        """Verified local paths of the raw inputs, by name.

        Default: the pinned ``meta.sources`` files from ``source_dir``, a local
        mirror, or their URLs. Hub-pinned builders override this.
        """
        return resolve_sources(self.meta, list(self.source_names) or None, self.source_dir)

    def manifest_sources(self) -> list[dict[str, str]]:
        """``{name, url, sha256}`` of every raw input, for MANIFEST.json (Hub builders list snapshot files)."""
        return [{"name": s.name, "url": s.url, "sha256": s.sha256}
                for s in self.meta.sources if not self.source_names or s.name in self.source_names]

    def manifest_layouts(self) -> dict[str, str] | None:
        """Which published layout of each source the build read (MANIFEST.json ``layouts``); None: not recorded."""
        return None

    def card_body(self, tables: list[SplitTable]) -> str:
        """Benchmark-specific card sections (markdown)."""
        return ""

    # -- driver ------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.builder_id or f"{type(self).__module__}.{type(self).__qualname__}"

    def build(self, out_root: str | Path | None = None, *, quiet: bool = False) -> Path:
        meta = self.meta
        out_root = Path(out_root) if out_root is not None else releases_dir()
        steps = Steps(6, quiet=quiet)
        steps.step(f"fetching and verifying sources of {meta.release_id}")
        try:
            sources = self.fetch_sources()
        except SourceUnavailable as exc:  # a Hub snapshot does not know its family; the advice names it
            raise exc.for_family(meta.family) from None
        steps.step("converting and checking rows")
        tables = self.make_tables(sources)
        features = self.features()

        out_root.mkdir(parents=True, exist_ok=True)
        with atomic_dir(out_root / meta.release_id) as tmp:
            steps.step(f"writing Parquet ({sum(len(t.rows) for t in tables)} rows in {len(tables)} split(s))")
            stats: list[SplitStats] = []
            shards: dict[str, dict[str, str]] = {}
            for t in tables:
                rel = f"data/{t.config}/{shard_name(t.split)}"
                write_rows(t.rows, features[t.config], tmp / rel)
                stats.append(SplitStats(t.config, t.split, rel, len(t.rows), (tmp / rel).stat().st_size))
                shards.setdefault(t.config, {})[t.split] = rel
            steps.step("writing dataset card, CITATION.cff and Croissant")
            card = render_card(meta, features, stats, body=self.card_body(tables),
                               builder=self.name, builder_version=self.builder_version)
            (tmp / CARD).write_text(card, encoding="utf-8")
            (tmp / CITATION_FILE).write_text(render_citation(meta), encoding="utf-8")
            write_croissant(tmp, meta, {c: (features[c], s) for c, s in shards.items()})
            steps.step("writing MANIFEST.json")
            write_manifest(
                tmp, release_id=meta.release_id, name=meta.name, version=meta.version, builder=self.name,
                builder_version=self.builder_version,
                sources=self.manifest_sources(), layouts=self.manifest_layouts(),
            )
            target = out_root / meta.release_id
            steps.step(f"moving release into place: {target}")
        return target


