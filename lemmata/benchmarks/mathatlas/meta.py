"""MathAtlas (autoformalization of graduate textbook mathematics) and MA-Align (faithfulness judging).

Upstream publishes two Hugging Face datasets, ``MathAtlas/MathAtlas`` (entities
of 103 graduate textbooks with their dependency graph) and ``MathAtlas/MA-Align``
(200 formalizations with binary faithfulness labels). No stored copy of their
cards, file listings or commit history was available when this release was
defined, so:

- both pins carry :data:`lemmata.release.hub.UNPINNED`: nothing is downloaded until the
  maintainers record the commit sha shown on each dataset's history page;
- the upstream column names the builders expect are declared once, in
  :mod:`lemmata.benchmarks.mathatlas.builder` (``AtlasEntity``, ``AlignPair``); a snapshot
  with other columns fails with one problem per missing or unknown field, so a
  schema change is a one-place fix;
- the licence is recorded as not stated; the builder refuses a snapshot whose
  card states a licence until it is recorded here.
"""

from __future__ import annotations

from typing import Any

from lemmata.release.hub import UNPINNED
from lemmata.core.meta import BenchmarkMeta, HubPin, MainScore, arxiv_citation, split_configs

ATLAS_REPO = "MathAtlas/MathAtlas"
ALIGN_REPO = "MathAtlas/MA-Align"
ENTITY_TYPES = ("definition", "theorem", "exercise", "example", "proof")

CITATION = arxiv_citation(
    "patel2026mathatlas", title="{MathAtlas}: A Benchmark for Autoformalization in the Wild",
    author="Patel, Nilay and Arias, Noah and Babayan, Davit and Cochran, Victoria and Libman, Timothy and Mahmood, "
           "Hafsah and McCarty, Liam and Munoz, Soli and Willey, Laurel and Flanigan, Jeffrey",
    year=2026, eprint="2605.14061", primary_class="cs.AI",
)

_AUTHORS = ("Nilay Patel", "Noah Arias", "Davit Babayan", "Victoria Cochran", "Timothy Libman", "Hafsah Mahmood",
            "Liam McCarty", "Soli Munoz", "Laurel Willey", "Jeffrey Flanigan")
_LICENSE_NOTE = (
    "The Hugging Face card's licence could not be reviewed when this release was defined; the paper (arXiv "
    "2605.14061) is distributed under CC BY 4.0. The entities are excerpts of published textbooks; ask the authors "
    "before uses beyond research evaluation."
)


def _release(repo: str, holds: str, **fields: Any) -> BenchmarkMeta:
    """A release with what both state alike (the task, the paper, the licence and the first release) and its
    upstream: the Hub dataset ``repo``, which ``holds`` what it says, pinned to no revision yet."""
    return BenchmarkMeta(
        family="mathatlas", task_type="autoformalization", paper_url="https://arxiv.org/abs/2605.14061",
        license="not stated in the sources reviewed for this release", license_id="unknown",
        license_note=_LICENSE_NOTE, citation=CITATION, authors=_AUTHORS, version="1.0.0", released="2026-11-21",
        upstream_repo=repo,
        hub=(HubPin(repo_id=repo, revision=UNPINNED, description=f"{holds}; revision to be recorded"),), **fields,
    )


MATHATLAS = _release(
    ATLAS_REPO, "entities with dependency relations and depth",
    name="mathatlas",
    title="MathAtlas: autoformalization of graduate-level mathematics in the wild",
    description=(
        "Definitions, theorems, exercises, examples and proofs extracted from 103 graduate mathematics textbooks, "
        "each with its type, natural-language statement, the entities it depends on and its depth in the "
        "dependency graph. A system formalizes a statement in Lean 4; a formalization is correct when it compiles "
        "and a judge finds it faithful."
    ),
    configs=split_configs(("entities", "every entity: type, statement, dependencies, depth"),
                          ("dependencies", "the dependency graph as edges (entity -> entity it uses)")),
    main_score=MainScore(metric="correct",
                         description="share of entities whose formalization compiles and is judged faithful "
                                     "(statements track: theorems; definitions track: definitions)"),
    tracks=("statements", "definitions"),
    tags=("mathematics", "autoformalization", "lean4", "dependency-graph", "textbooks"),
)

MA_ALIGN = _release(
    ALIGN_REPO, "formalizations with binary faithfulness labels",
    name="ma-align",
    title="MA-Align: judging the faithfulness of Lean formalizations",
    description=(
        "Pairs of a natural-language statement from MathAtlas and a Lean 4 formalization of it, each labelled "
        "faithful or not by people. A judge predicts the label; it is scored by accuracy, precision, recall and F1 "
        "against the gold labels, with intervals."
    ),
    configs=split_configs(("pairs", "statement, formalization and gold faithfulness label")),
    main_score=MainScore(metric="accuracy", description="share of pairs whose predicted label equals the gold label"),
    tracks=("judge",),
    tags=("mathematics", "autoformalization", "lean4", "llm-as-judge", "faithfulness"),
)

RELEASES = (MATHATLAS, MA_ALIGN)
