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
- ``"grounded"`` — an offline artifact scored under the known-content rubric
  (``ground_known.v1``, chosen with :data:`GROUNDINGS`). Source identity alone
  rewards a system that picks the cited record and *composes* a statement
  (only 70 of 200 Eval-200 gold records open with an abstract, so one that
  extracts what it opened is capped lower). Here the statement must also be
  supported by what the cited work is known to contain — its reference
  witness and its opened text —, and a grounding the known content cannot
  decide is *ungradable*, never grounded. The headline is
  **GroundedOfflineToolAcc**; its scoring artifact names the rubric, so it
  ranks apart from OfflineToolAcc, whose results keep their bytes and group.
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

FrozenKind = Literal["offline", "grounded", "live"]

#: the metric id of the paper's measurement; never used for an offline number
PAPER_METRIC = "ToolAcc"
OFFLINE_METRIC = "OfflineToolAcc"
GROUNDED_METRIC = "GroundedOfflineToolAcc"
#: the kinds scored on an offline artifact (no source full text): Suff of every statement, offline metric names
OFFLINE_KINDS: tuple[str, ...] = ("offline", "grounded")
#: what offline Ground means, as chosen for a scoring run (``LEMMATA_RE2MATH_GROUNDING``) -> the frozen kind
GROUNDINGS: dict[str, FrozenKind] = {"source-identity": "offline", "known-content": "grounded"}
DEFAULT_GROUNDING = "source-identity"


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
    "grounded": Headline(kind="grounded", metric=GROUNDED_METRIC,
                         label="GroundedOfflineToolAcc (source identity ∧ known-content support ∧ Suff)",
                         grounded_by="the selected source is the cited source and the judge finds the statement "
                                     "supported by what the cited work is known to contain (its reference witness "
                                     "and its opened text)",
                         rubrics={"ground_known": 1, "suff": 3, "anchor": 2, "query": 1}),
    "live": Headline(kind="live", metric=PAPER_METRIC, label="ToolAcc (Ground ∧ Suff)",
                     grounded_by="the judge finds the statement in the selected source's full text",
                     rubrics={"ground": 2, "suff": 4, "anchor": 2}),
}


def headline(kind: FrozenKind) -> Headline:
    """The headline metric of a frozen-tuple kind.

    >>> headline("offline").metric, headline("live").metric
    ('OfflineToolAcc', 'ToolAcc')
    >>> headline("offline").rubrics["suff"], headline("grounded").metric
    (3, 'GroundedOfflineToolAcc')
    """
    return HEADLINES[kind]


def is_offline(kind: FrozenKind) -> bool:
    """Is this kind scored on an offline artifact (Suff of every statement, the offline metric names)?

    >>> is_offline("offline"), is_offline("grounded"), is_offline("live")
    (True, True, False)
    """
    return kind in OFFLINE_KINDS


def grounding_kind(grounding: str | None) -> FrozenKind:
    """The frozen kind of an offline scoring run from its declared grounding (None: the default, source identity).

    >>> grounding_kind(None), grounding_kind("known-content")
    ('offline', 'grounded')
    >>> grounding_kind("full-text")
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 1 problem found:
      - LEMMATA_RE2MATH_GROUNDING: 'full-text' is not a grounding (known-content, source-identity)
    """
    from lemmata.core.errors import InputError

    name = (grounding or DEFAULT_GROUNDING).strip()
    if name not in GROUNDINGS:
        raise InputError.one("LEMMATA_RE2MATH_GROUNDING",
                             f"{grounding!r} is not a grounding ({', '.join(sorted(GROUNDINGS))})")
    return GROUNDINGS[name]


#: offline artifacts whose results were stored with the key ``CiteRecall@N`` (kept, so their result ids never change)
LEGACY_CITE_RECALL_KEY = (world_id("1.0.0"), world_id("2.0.0"))


def cite_recall_key(kind: FrozenKind, artifact_id: str, n: int) -> str:
    """The result key of CiteRecall@N: ``OfflineCiteRecall@N`` on an offline world (its haystack and display
    are not Google Scholar's), the paper's ``CiteRecall@N`` live; results on the first two offline artifacts keep
    the key they were stored with (the board labels them offline).

    >>> cite_recall_key("offline", "re2math-scholar-offline-2.2.0", 20), cite_recall_key("live", "cache-x", 20)
    ('OfflineCiteRecall@20', 'CiteRecall@20')
    >>> cite_recall_key("offline", "re2math-scholar-offline-2.0.0", 20)
    'CiteRecall@20'
    """
    if is_offline(kind) and artifact_id not in LEGACY_CITE_RECALL_KEY:
        return f"OfflineCiteRecall@{n}"
    return f"CiteRecall@{n}"
