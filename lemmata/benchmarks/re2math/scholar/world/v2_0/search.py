"""Opening world 2.0.0: its folder verified (every file, every MANIFEST.json field, the pinned manifest)."""

from __future__ import annotations

from pathlib import Path

from lemmata.benchmarks.re2math.scholar.layout import declares_schema
from lemmata.benchmarks.re2math.scholar.world.search import ScholarWorld, read_world
from lemmata.benchmarks.re2math.scholar.world.v2_0.info import (
    BUILDER_VERSION, MANIFEST_SHA256, SCHEMA, VERSION, WorldInfo20,
)


def is_world(path: str | Path) -> bool:
    """Does this folder hold a 2.0.0 world?"""
    return declares_schema(path, SCHEMA)


def open_world(path: str | Path, *, verify: bool = True) -> ScholarWorld:
    """Open a 2.0.0 world folder; with ``verify`` (default) every file's sha256 is checked against MANIFEST.json
    first, and every MANIFEST.json field against what the (hashed) ``ARTIFACT.json`` and this builder say it must be:
    id, name, version, builder and builder version, and each input release's manifest name, url and sha256."""
    return ScholarWorld(*read_world(path, WorldInfo20, version=VERSION, builder_version=BUILDER_VERSION, verify=verify,
                                    manifest_sha256=MANIFEST_SHA256))
