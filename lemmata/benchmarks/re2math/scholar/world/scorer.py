"""What the scorer sees of the world: which cited sources and citing papers a record stands for.

Written to ``identity.jsonl`` and ``attributions.jsonl`` at build time and read
only by the scorer (:meth:`ScholarWorld.is_cited_source`,
:meth:`ScholarWorld.attribution`); search and open never read them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MatchRule = Literal["arxiv", "doi", "title_author", "none"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Identity(_Model):
    """What one non-distractor record stands for (scorer's view; never shown by search or open)."""

    record_id: str
    distractor: str | None = Field(description="arXiv id of the distractor record it is, if any")
    rule: MatchRule = Field(description="how the cited source was matched to the distractor ('none': not matched)")
    citations: list[str] = Field(default_factory=list, description="bibliography strings of this work")
    citing_papers: list[str] = Field(default_factory=list, description="paper keys of citing papers it is")


class WorldAttribution(_Model):
    """Which record is an instance's cited source and which is its citing paper."""

    instance_id: str
    paper_key: str
    citing_record_id: str
    year_cutoff: int | None
    record_id: str
    rule: MatchRule
    cited_after_cutoff: bool


# -- world 2.1: one more match rule, for same-work arXiv twins

MatchRule21 = Literal["arxiv", "doi", "title_author", "title_year", "none"]


class Identity21(Identity):
    """2.0.0's identity record, with the same-work twin rule ``title_year``."""

    rule: MatchRule21 = Field(description="how the cited source was matched to the distractor ('none': not matched)")


class WorldAttribution21(WorldAttribution):
    """2.0.0's attribution record, with the same-work twin rule ``title_year``."""

    rule: MatchRule21
