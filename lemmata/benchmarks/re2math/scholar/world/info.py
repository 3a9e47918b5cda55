"""What every 2.x world shares: its file names, inputs and the fields of its ``ARTIFACT.json``.

Each version's own facts (version, builder identity, schema, the pinned
MANIFEST.json sha256) are in its package's ``info``
(:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_0.info`,
:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_1.info`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from lemmata.benchmarks.re2math.scholar.layout import ArtifactHead

BACKEND = "offline-bm25s-world"
DISTRACTOR_RELEASE = "math-arxiv-meta-1.0.0"
#: the worlds built on another distractor release than :data:`DISTRACTOR_RELEASE` (2.2.0: its ids repaired)
DISTRACTOR_RELEASES = {"2.2.0": "math-arxiv-meta-1.1.0"}


def distractor_release(version: str) -> str:
    """The math-arxiv-meta release id a world version is built on.

    >>> distractor_release("2.1.0"), distractor_release("2.2.0")
    ('math-arxiv-meta-1.0.0', 'math-arxiv-meta-1.1.0')
    """
    return DISTRACTOR_RELEASES.get(version, DISTRACTOR_RELEASE)
RELEASE_CONFIG, RELEASE_SPLIT = "full", "full"

RECORDS_FILE = "records.parquet"
IDENTITY_FILE = "identity.jsonl"
ATTRIBUTIONS_FILE = "attributions.jsonl"


class WorldInfo(ArtifactHead):
    """``ARTIFACT.json`` of a world: its inputs, composition and build settings (a version fixes its schema)."""

    distractor_release_id: str = Field(description="the math-arxiv-meta release its distractors come from")
    distractor_manifest_sha256: str = Field(description="that release's MANIFEST.json sha256, which every open checks")
    builder: str
    builder_version: str
    backend: dict[str, Any] = Field(description="how it ranks: the bm25s settings")
    tokenizer: dict[str, Any] = Field(description="the frozen tokenizer: name, version and settings")
    presentation: dict[str, Any] = Field(description="what a hit shows (id, title, authors; no year)")
    year_policy: str = Field(description="how a query's year cutoff is applied to undated records")
    composition: dict[str, int] = Field(description="record count by origin")

    def sources(self) -> list[dict[str, str]]:
        """The inputs its MANIFEST.json names (name, url, sha256), as the builder writes them and every open checks
        them: the two input releases' manifests (a version with more inputs adds them)."""
        from lemmata.release.manifest import MANIFEST

        return [{"name": f"{release}/{MANIFEST}", "url": f"lemmata-release:{release}", "sha256": sha256}
                for release, sha256 in ((self.release_id, self.release_manifest_sha256),
                                        (self.distractor_release_id, self.distractor_manifest_sha256))]

    def to_json(self) -> dict[str, Any]:
        """The fields as ``ARTIFACT.json`` stores them."""
        return self.model_dump(mode="json")
