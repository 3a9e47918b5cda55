"""What a Re²Math headline number means, decided by the kind of frozen tuple it was computed against.

The paper's **ToolAcc** is Ground ∧ Suff, where Ground is judged against the
*full text* of the selected source. An offline retrieval artifact (1.x or the
2.x world) has no source full text, so Ground cannot be judged as the paper
does; a number computed there must not carry the paper's name. The kinds:

- ``"offline"`` — the frozen tuple's retrieval artifact is an offline
  artifact. The headline is **OfflineToolAcc (source identity ∧ Suff)**:
  grounded means the selected source *is* the instance's cited source by the
  identity matcher, and Suff is judged from the gap and the statement alone
  (rubric ``suff.v3``, the fenced ``suff.v2``: no source text, no anchor hint).
- ``"live"`` — the frozen tuple records real source text for every opened
  source (the paper's reported rows; the live protocol). Only here is the
  headline **ToolAcc**.

:func:`headline` is the one place the id and label come from; the
aggregation takes them from the frozen tuple's kind, never from the caller's
choice of words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lemmata.core.models import Frozen
from lemmata.benchmarks.re2math.scholar.worlds import world_id

FrozenKind = Literal["offline", "live"]

#: the metric id of the paper's measurement; never used for an offline number
PAPER_METRIC = "ToolAcc"
OFFLINE_METRIC = "OfflineToolAcc"


class Headline(Frozen):
    """A headline metric: its id (the key in ``Result.metrics`` and ``Score.metric``) and its display label."""

    kind: FrozenKind
    metric: str = Field(min_length=1)
    label: str = Field(min_length=1)
    grounded_by: str = Field(description="what 'grounded' means for this kind")
    rubrics: dict[str, int] = Field(description="rubric name -> version asked of the judge")


HEADLINES: dict[str, Headline] = {
    "offline": Headline(kind="offline", metric=OFFLINE_METRIC, label="OfflineToolAcc (source identity ∧ Suff)",
                        grounded_by="the selected source is the cited source by the source-identity matcher",
                        rubrics={"suff": 3, "anchor": 2, "query": 1}),
    "live": Headline(kind="live", metric=PAPER_METRIC, label="ToolAcc (Ground ∧ Suff)",
                     grounded_by="the judge finds the statement in the selected source's full text",
                     rubrics={"ground": 2, "suff": 4, "anchor": 2}),
}


def headline(kind: FrozenKind) -> Headline:
    """The headline metric of a frozen-tuple kind.

    >>> headline("offline").metric, headline("live").metric
    ('OfflineToolAcc', 'ToolAcc')
    >>> headline("offline").rubrics["suff"]
    3
    """
    return HEADLINES[kind]


#: offline artifacts whose results were stored with the key ``CiteRecall@N`` (kept, so their result ids never change)
LEGACY_CITE_RECALL_KEY = (world_id("1.0.0"), world_id("2.0.0"))


def cite_recall_key(kind: FrozenKind, artifact_id: str, n: int) -> str:
    """The result key of CiteRecall@N: ``OfflineCiteRecall@N`` on an offline world (its haystack and display
    are not Google Scholar's), the paper's ``CiteRecall@N`` live; results on the first two offline artifacts keep
    the key they were stored with (the board labels them offline).

    >>> cite_recall_key("offline", "re2math-scholar-offline-2.1.0", 20), cite_recall_key("live", "cache-x", 20)
    ('OfflineCiteRecall@20', 'CiteRecall@20')
    >>> cite_recall_key("offline", "re2math-scholar-offline-2.0.0", 20)
    'CiteRecall@20'
    """
    if kind == "offline" and artifact_id not in LEGACY_CITE_RECALL_KEY:
        return f"OfflineCiteRecall@{n}"
    return f"CiteRecall@{n}"
