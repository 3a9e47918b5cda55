"""What world 2.0.0 is: its version, builder identity, schema and pinned manifest."""

from __future__ import annotations

from typing import Literal

from lemmata.benchmarks.re2math.scholar.world.info import WorldInfo
from lemmata.benchmarks.re2math.scholar.worlds import world_id

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
WORLD_ID = world_id(VERSION)


class WorldInfo20(WorldInfo):
    """``ARTIFACT.json`` of a 2.0.0 world."""

    schema_version: Literal["lemmata.scholarly-artifact/2"] = SCHEMA  # type: ignore[assignment]
