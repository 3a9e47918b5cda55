"""What world 2.1.0 is: its id, version, builder identity and ``ARTIFACT.json`` (inputs, composition, settings).

File names, the release rows read and the distractor release are every world's
(:mod:`~lemmata.benchmarks.re2math.scholar.world.info`).
"""

from __future__ import annotations

from typing import Any, Literal

from lemmata.benchmarks.re2math.scholar.world.info import WorldInfo
from lemmata.benchmarks.re2math.scholar.worlds import world_id

VERSION = "2.1.0"
SCHEMA = "lemmata.scholarly-artifact/2.1"
WORLD_ID = world_id(VERSION)
#: the builder's identity (fixed when the world shipped) and the sha256 of the frozen world's MANIFEST.json, as
#: world 2.0.0 records and pins its own (:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_0.info`)
BUILDER_ID, BUILDER_VERSION = "lemmata.benchmarks.re2math.scholar.world21.build_world_21", "1"
MANIFEST_SHA256 = "15004485dc9deee2f657b054ed691f570afea71064e2c9ec0fe760024dd6c665"


class WorldInfo21(WorldInfo):
    """``ARTIFACT.json`` of a 2.1 world: every world's fields plus the math_bib input (``bibliography``)."""

    schema_version: Literal["lemmata.scholarly-artifact/2.1"] = SCHEMA  # type: ignore[assignment]
    bibliography: dict[str, Any]

    def sources(self) -> list[dict[str, str]]:
        """The two input releases and the math_bib table."""
        return [*super().sources(), {"name": f"math_bib/{self.bibliography.get('file')}",
                                     "url": "lemmata-mirror:math_bib", "sha256": self.bibliography.get("sha256")}]

    def to_json(self) -> dict[str, Any]:
        """The fields as ``ARTIFACT.json`` stores them: the inputs (``bibliography`` last among them), then the
        builder, settings and composition."""
        doc = self.model_dump(mode="json")
        head = list(doc)[:list(doc).index("distractor_manifest_sha256") + 1]
        return {**{k: doc[k] for k in head}, "bibliography": doc["bibliography"],
                **{k: v for k, v in doc.items() if k not in head and k != "bibliography"}}
