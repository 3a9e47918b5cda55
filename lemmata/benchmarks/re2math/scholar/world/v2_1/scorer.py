"""What the scorer sees of world 2.1: 2.0.0's identity and attribution records, with one more match rule.

Cited sources are matched as in 2.0.0, plus ``title_year`` for same-work arXiv
twins (the same normalised title, a year a few apart).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lemmata.benchmarks.re2math.scholar.world.scorer import Identity, WorldAttribution

MatchRule21 = Literal["arxiv", "doi", "title_author", "title_year", "none"]


class Identity21(Identity):
    """2.0.0's identity record, with the same-work twin rule ``title_year``."""

    rule: MatchRule21 = Field(description="how the cited source was matched to the distractor ('none': not matched)")


class WorldAttribution21(WorldAttribution):
    """2.0.0's attribution record, with the same-work twin rule ``title_year``."""

    rule: MatchRule21
