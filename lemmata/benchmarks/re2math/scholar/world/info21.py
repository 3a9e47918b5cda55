"""What a 2.1 world is: its id, version, builder identity and ``ARTIFACT.json`` (inputs, composition, settings).

File names, the release rows read and the distractor release are 2.0.0's
(:mod:`~lemmata.benchmarks.re2math.scholar.world.info`).
"""

from __future__ import annotations

from typing import Any, Literal

from lemmata.benchmarks.re2math.scholar.world.info import WorldInfo, world_id

VERSION = "2.1.0"
#: the builder's identity as recorded in ARTIFACT.json and MANIFEST.json; fixed once the world has shipped, so that
#: moving code never changes its bytes
BUILDER_ID = "lemmata.benchmarks.re2math.scholar.world21.build_world_21"
BUILDER_VERSION = "1"
#: sha256 of the frozen world's MANIFEST.json (see 2.0.0's ``MANIFEST_SHA256``)
MANIFEST_SHA256 = "15004485dc9deee2f657b054ed691f570afea71064e2c9ec0fe760024dd6c665"
SCHEMA = "lemmata.scholarly-artifact/2.1"
WORLD_ID = world_id(VERSION)


class WorldInfo21(WorldInfo):
    """``ARTIFACT.json`` of a 2.1 world: 2.0.0's fields plus the math_bib input (``bibliography``)."""

    schema_version: Literal["lemmata.scholarly-artifact/2.1"] = SCHEMA  # type: ignore[assignment]
    bibliography: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The fields as ``ARTIFACT.json`` stores them: the inputs (``bibliography`` last among them), then the
        builder, settings and composition."""
        doc = self.model_dump(mode="json")
        head = list(doc)[:list(doc).index("distractor_manifest_sha256") + 1]
        return {**{k: doc[k] for k in head}, "bibliography": doc["bibliography"],
                **{k: v for k, v in doc.items() if k not in head and k != "bibliography"}}
