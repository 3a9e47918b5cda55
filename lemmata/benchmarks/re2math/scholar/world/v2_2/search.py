"""An opened 2.2 world: 2.1's uniform hit, opening and year-prefix search, with 2.2's scorer records."""

from __future__ import annotations

from pathlib import Path

from lemmata.benchmarks.re2math.scholar.layout import declares_schema
from lemmata.benchmarks.re2math.scholar.world.search import read_world
from lemmata.benchmarks.re2math.scholar.world.v2_1.search import UniformWorld
from lemmata.benchmarks.re2math.scholar.world.v2_2.info import (
    BUILDER_VERSION, MANIFEST_SHA256, SCHEMA, VERSION, WorldInfo22,
)
from lemmata.benchmarks.re2math.scholar.world.v2_2.scorer import Identity22, WorldAttribution22


class SameWorkWorld(UniformWorld):
    """An opened 2.2 world: one work, one record."""

    _identity_model = Identity22
    _attribution_model = WorldAttribution22


def is_world(path: str | Path) -> bool:
    """Does this folder hold a 2.2 world?"""
    return declares_schema(path, SCHEMA)


def open_world(path: str | Path, *, verify: bool = True) -> SameWorkWorld:
    """Open a 2.2 world folder, verified as a 2.1 world is (every file, every MANIFEST.json field, the pin)."""
    root, info = read_world(path, WorldInfo22, version=VERSION, builder_version=BUILDER_VERSION, verify=verify,
                            manifest_sha256=MANIFEST_SHA256)
    return SameWorkWorld(root, info)  # type: ignore[arg-type]
