"""What every 2.x world shares: its file names, inputs and the fields of its ``ARTIFACT.json``.

Each version's own facts (version, builder identity, schema, the pinned
MANIFEST.json sha256) are in its package's ``info``
(:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_0.info`,
:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_1.info`).
"""

from __future__ import annotations

from typing import Any

from lemmata.benchmarks.re2math.scholar.layout import ArtifactHead

BACKEND = "offline-bm25s-world"
DISTRACTOR_RELEASE = "math-arxiv-meta-1.0.0"
RELEASE_CONFIG, RELEASE_SPLIT = "full", "full"

RECORDS_FILE = "records.parquet"
IDENTITY_FILE = "identity.jsonl"
ATTRIBUTIONS_FILE = "attributions.jsonl"


class WorldInfo(ArtifactHead):
    """``ARTIFACT.json`` of a world: its inputs, composition and build settings (a version fixes its schema)."""

    distractor_release_id: str
    distractor_manifest_sha256: str
    builder: str
    builder_version: str
    backend: dict[str, Any]
    tokenizer: dict[str, Any]
    presentation: dict[str, Any]
    year_policy: str
    composition: dict[str, int]

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
