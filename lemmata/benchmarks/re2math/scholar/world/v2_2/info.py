"""What world 2.2.0 is: its id, version, builder identity and ``ARTIFACT.json`` (2.1's fields, schema 2.2).

File names, the release rows read and the distractor releases are every world's
(:mod:`~lemmata.benchmarks.re2math.scholar.world.info`).
"""

from __future__ import annotations

from typing import Literal

from lemmata.benchmarks.re2math.scholar.world.info import distractor_release
from lemmata.benchmarks.re2math.scholar.world.v2_1.info import WorldInfo21
from lemmata.benchmarks.re2math.scholar.worlds import world_id

VERSION = "2.2.0"
SCHEMA = "lemmata.scholarly-artifact/2.2"
WORLD_ID = world_id(VERSION)
#: the distractor release it reads: math-arxiv-meta-1.1.0 (ids repaired, float-shortened twins merged)
DISTRACTORS = distractor_release(VERSION)
#: the builder's identity (fixed once the world ships) and the sha256 of the world's MANIFEST.json, as 2.1 pins its own
BUILDER_ID, BUILDER_VERSION = "lemmata.benchmarks.re2math.scholar.world.v2_2.build.build_world", "1"
MANIFEST_SHA256 = "63f8c60675ff514eafa4177eec7310f91b381276a105e0ceed018c6d130fa0da"


class WorldInfo22(WorldInfo21):
    """``ARTIFACT.json`` of a 2.2 world: 2.1's fields (the math_bib input included) under schema 2.2."""

    schema_version: Literal["lemmata.scholarly-artifact/2.2"] = SCHEMA  # type: ignore[assignment]
