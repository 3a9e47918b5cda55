"""What a system sees of world 2.1: one uniform hit and the bibliographic opening, the same for every record.

A hit shows ``id, rank, score, title, authors`` and nothing else (no year,
snippet, abstract, DOI, arXiv id or venue: the distractors cannot match their
distribution); an opening shows the full bibliographic entry and the abstract
where one exists. Titles and authors are rendered by
:mod:`lemmata.benchmarks.re2math.scholar.display`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from lemmata.core.models import Frozen, frozen_value
from lemmata.benchmarks.re2math.scholar.display import MAX_AUTHORS
from lemmata.benchmarks.re2math.scholar.world.view import RankedHit, ScholarSearch


@frozen_value
class UniformHit(RankedHit):
    """One search hit: the same five fields for every record, rendered by one display."""

    title: Annotated[str, Field(description="display title (LaTeX to text, NFC, hyphens repaired, sentence case)")]
    authors: Annotated[tuple[str, ...], Field(description=f"display surnames (ASCII, capitalised), at most "
                                                          f"{MAX_AUTHORS}")]


class UniformSearch(ScholarSearch):
    """One query's ranked hits (``lemmata artifact search --json`` prints exactly this)."""

    hits: list[UniformHit]  # type: ignore[assignment]


class BibliographicRecord(Frozen):
    """An opened record: its full bibliographic entry and the abstract where one exists, never a statement."""

    artifact_id: str
    id: str
    title: str
    authors: list[str]
    year: int | None
    venue: str | None
    arxiv_id: str | None
    doi: str | None
    abstract: str | None
    text: str = Field(description="the text an agent reads")


def render_entry(rid: str, title: str, authors: Sequence[str], year: int | None, venue: str | None,
                 arxiv_id: str | None, doi: str | None, abstract: str | None) -> str:
    """The text of an opened record, one layout for every record.

    >>> print(render_entry("r0000001", "A title", ["Kim"], 1996, "Ann. of Math. 144", None, "10.1/x", None), end="")
    # A title
    <BLANKLINE>
    Record: r0000001
    Authors: Kim
    Year: 1996
    Venue: Ann. of Math. 144
    DOI: 10.1/x
    """
    lines = [f"# {title}", "", f"Record: {rid}"]
    lines += [f"Authors: {', '.join(authors)}"] if authors else []
    lines += [f"Year: {year}"] if year is not None else []
    lines += [f"Venue: {venue}"] if venue else []
    lines += [f"arXiv: {arxiv_id}"] if arxiv_id else []
    lines += [f"DOI: {doi}"] if doi else []
    if abstract:
        lines += ["", "## Abstract", " ".join(abstract.split())]
    return "\n".join(lines) + "\n"
