"""What a 2.x world is: its id, file names and ``ARTIFACT.json`` (inputs, composition, build settings)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME

VERSION = "2.0.0"
#: the builder's identity as recorded in ARTIFACT.json and MANIFEST.json; fixed once the world has shipped, so that
#: moving code never changes its bytes
BUILDER_ID = "lemmata.benchmarks.re2math.scholar.world.build_world"
BUILDER_VERSION = "1"
#: sha256 of the frozen world's MANIFEST.json (which lists every file's sha256): the build is byte-reproducible from
#: the pinned sources, so every machine's 2.0.0 is these bytes, and a folder rewritten consistently (a file edited,
#: MANIFEST.json regenerated) is refused on open, as a pinned release is
MANIFEST_SHA256 = "048645d65ffd6138520c650fdf32e43b2b58cb7af851bc8aadc9a23ba4cb01f1"
SCHEMA = "lemmata.scholarly-artifact/2"
BACKEND = "offline-bm25s-world"
DISTRACTOR_RELEASE = "math-arxiv-meta-1.0.0"
RELEASE_CONFIG, RELEASE_SPLIT = "full", "full"

RECORDS_FILE = "records.parquet"
IDENTITY_FILE = "identity.jsonl"
ATTRIBUTIONS_FILE = "attributions.jsonl"


def world_id(version: str = VERSION) -> str:
    return f"{ARTIFACT_NAME}-{version}"


class WorldInfo(BaseModel):
    """``ARTIFACT.json`` of a world: its inputs, composition and build settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["lemmata.scholarly-artifact/2"] = SCHEMA
    id: str
    name: str
    version: str
    release_id: str
    release_manifest_sha256: str
    release_rows: str
    distractor_release_id: str
    distractor_manifest_sha256: str
    builder: str
    builder_version: str
    backend: dict[str, Any]
    tokenizer: dict[str, Any]
    presentation: dict[str, Any]
    year_policy: str
    composition: dict[str, int]
