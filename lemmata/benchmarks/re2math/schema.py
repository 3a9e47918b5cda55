"""The upstream Re²Math instance schema, validated row by row on build."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Paper(_Strict):
    paper_id: str = Field(min_length=1)
    title: str
    publication_date: str


class GlobalContext(_Strict):
    setup: str
    target_theorem: str


class X(_Strict):
    global_context: GlobalContext
    local_context: list[str] = Field(max_length=5, description="proof blocks before the gap, oldest first")
    anchor_hint: str


class Y(_Strict):
    reference_tool_latex: str = Field(min_length=1)
    reference_tool_type: str
    restated_in_citing_paper: bool


class Z(_Strict):
    citation_key: str
    citation_content: str
    source_type: str
    locator: str
    locator_snippet: str | None = None
    doi: str
    arxiv_id: str


class Strata(_Strict):
    domain: str
    tool_family: str


class Instance(_Strict):
    instance_id: str = Field(min_length=1)
    split: str
    paper: Paper
    x: X
    y: Y
    z: Z
    strata: Strata
