"""What a system sees of the world: search hits and opened records, one shape for every record.

Every record is shown through the same fields, built by the same code from the
same kinds of information, so nothing a system observes tells a cited source
from a distractor (ids are positions in a (year, title) order, there is no
``kind``, and search results show no field that only some origins have).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import Field

from lemmata.core.latex_text import latex_to_text
from lemmata.core.models import Frozen, frozen_value

#: authors shown per record: citation strings often end their lists in "et al.", arXiv metadata never does
MAX_AUTHORS = 4


@frozen_value
class RankedHit:
    """What every world's hit starts with: the record id, its rank and its score.

    A hit is a frozen value, not a model, and a hit's author list is a tuple: a search builds twenty hits and
    its caller keeps them, so each hit is one object the cyclic collector tracks
    (:func:`~lemmata.core.models.frozen_value`), and a tuple of strings leaves the collector's view at its first
    young collection where a list stays in it for life. Measured on the offline world with numba loaded, a loop
    of 860 single searches whose answers are kept started a full collection (about 0.1 s) in one round of eight,
    where hits as models with author lists started one in six of eight, on either query set. Immutable parts
    also make a hit hash as a frozen value should."""

    id: str
    rank: Annotated[int, Field(ge=1)]
    score: float


@frozen_value
class ScholarHit(RankedHit):
    """One search hit, the same fields for every record whatever its origin."""

    title: str
    authors: Annotated[tuple[str, ...], Field(description=f"capitalised surnames, at most {MAX_AUTHORS}")]
    year: int | None
    snippet: Annotated[str, Field(description="byline made of the shown authors and year (the same rule for every "
                                              "record)")]


class ScholarSearch(Frozen):
    """One query's ranked hits (``lemmata artifact search --json`` prints exactly this)."""

    artifact_id: str
    query: str
    cutoff: int | None
    n: int
    hits: list[ScholarHit]


class OpenedRecord(Frozen):
    """An opened record: what is genuinely known about the document, never a statement from the release."""

    artifact_id: str
    id: str
    title: str
    authors: list[str]
    year: int | None
    arxiv_id: str | None
    doi: str | None
    abstract: str | None
    text: str = Field(description="the text an agent reads")


def display_authors(surnames: Iterable[str | None]) -> list[str]:
    """Shown author list: distinct capitalised surnames, at most :data:`MAX_AUTHORS`.

    >>> display_authors(["kim", "samworth", "kim", None, "o'connell", "van", "bergh"])
    ['Kim', 'Samworth', "O'connell", 'Van']
    """
    out: list[str] = []
    for s in surnames:
        if s and s[:1].upper() + s[1:] not in out:
            out.append(s[:1].upper() + s[1:])
    return out[:MAX_AUTHORS]


def display_title(title: str) -> str:
    r"""Shown title: LaTeX removed, whitespace collapsed, no trailing punctuation.

    >>> display_title(r"Sharp bounds for $L^p$ norms of \emph{harmonic} maps.")
    'Sharp bounds for L^p norms of harmonic maps'
    """
    return " ".join(latex_to_text(title).split()).strip(" ,.;:")


def snippet(authors: Sequence[str], year: int | None) -> str:
    """The byline every hit shows.

    >>> snippet(["Kim", "Samworth"], 2016), snippet([], None)
    ('Kim, Samworth - 2016', '')
    """
    parts = [", ".join(authors)] if authors else []
    if year is not None:
        parts.append(str(year))
    return " - ".join(parts)


def index_text(title: str, authors: Sequence[str]) -> str:
    """The text a search ranks for one record — its shown title, then its shown authors — as exported for BEIR
    corpora and external rankers (the index itself tokenizes the same two fields)."""
    return title + "\n" + " ".join(authors)


def render_opened(title: str, authors: Sequence[str], year: int | None, arxiv_id: str | None, doi: str | None,
                  abstract: str | None, record_id: str) -> str:
    """The text of an opened record, the same layout for every record."""
    lines = [f"# {title}", "", f"Record: {record_id}"]
    lines += [f"Authors: {', '.join(authors)}"] if authors else []
    lines += [f"Year: {year}"] if year is not None else []
    lines += [f"arXiv: {arxiv_id}"] if arxiv_id else []
    lines += [f"DOI: {doi}"] if doi else []
    if abstract:
        lines += ["", "## Abstract", " ".join(abstract.split())]
    return "\n".join(lines) + "\n"
