"""What the scorer sees of a world: which cited sources and citing papers a record stands for.

Written to ``identity.jsonl`` and ``attributions.jsonl`` at build time and read
only by the scorer (:meth:`ScholarWorld.is_cited_source`,
:meth:`ScholarWorld.attribution`); search and open never read them. These are
2.0.0's records; a later version's rules extend them in its own package
(:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_1.scorer`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lemmata.core.models import Frozen

MatchRule = Literal["arxiv", "doi", "title_author", "none"]


class Identity(Frozen):
    """What one non-distractor record stands for (scorer's view; never shown by search or open)."""

    record_id: str
    distractor: str | None = Field(description="arXiv id of the distractor record it is, if any")
    rule: MatchRule = Field(description="how the cited source was matched to the distractor ('none': not matched)")
    citations: list[str] = Field(default_factory=list, description="bibliography strings of this work")
    citing_papers: list[str] = Field(default_factory=list, description="paper keys of citing papers it is")


class WorldAttribution(Frozen):
    """Which record is an instance's cited source and which is its citing paper."""

    instance_id: str
    paper_key: str
    citing_record_id: str
    year_cutoff: int | None
    record_id: str
    rule: MatchRule
    cited_after_cutoff: bool
