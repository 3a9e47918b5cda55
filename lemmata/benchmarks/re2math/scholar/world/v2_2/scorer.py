"""What the scorer sees of world 2.2: 2.1's identity and attribution records, with the rule ``same_work``.

A cited work whose record absorbed an arXiv record by the same-work rule
(:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_2.works`) is matched to it
by ``same_work``. One work is one record, so a record of the cited work *is*
the cited work: identity stays record equality, in CiteRecall, SourceAcc and
the source-retrieval qrels alike.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lemmata.benchmarks.re2math.scholar.world.scorer import Identity, WorldAttribution

MatchRule22 = Literal["arxiv", "doi", "title_author", "title_year", "same_work", "none"]


class Identity22(Identity):
    """2.1's identity record, with the rule ``same_work``."""

    rule: MatchRule22 = Field(description="how the cited source was matched to the distractor ('none': not matched)")


class WorldAttribution22(WorldAttribution):
    """2.1's attribution record, with the rule ``same_work``."""

    rule: MatchRule22
