"""MathAtlas (autoformalization of graduate textbook mathematics) and MA-Align (faithfulness judging).

Upstream publishes two Hugging Face datasets, ``MathAtlas/MathAtlas`` (the open ~70% of the
entities of 103 graduate textbooks, with their reference links; splits ``test`` and ``hard``, the
latter being MA-Hard) and ``MathAtlas/MA-Align`` (200 formalizations with ``aligned``/``misaligned``
labels). The record layouts the builders read are the authors' own, as their code reads them
(``offendo/math-atlas``: ``benchmarks/common.py``, ``benchmarks/dependency_context.py``,
``scripts/graph_depth.py``, ``benchmarks/judge_validation.py``); they are declared once, in
:mod:`lemmata.benchmarks.mathatlas.builder`. What could not be seen offline:

- the Hub cards, file listings and full commit shas: both pins carry :data:`lemmata.release.hub.UNPINNED`,
  so nothing is downloaded until the maintainers record the commit sha shown on each dataset's history
  page (MA-Align's history shows commits ``3e04cee`` and ``537e9a6``, 7-character prefixes only);
- the exact column list of the public parquet files: the builders read the columns the authors' code
  reads, fail naming file, row and field when one is missing, and list every other column on the card;
- the licence, recorded as not stated; the builder refuses a snapshot whose card states a licence
  until it is recorded here.

Release 2.0.0 replaces 1.0.0, which was defined on an assumed layout (``id, book, type, statement,
dependencies, depth``; a boolean ``faithful``) that upstream never published: no 1.0.0 release could
be built from the real data, and 2.0.0's entity and pair ids are the upstream uuids.
"""

from __future__ import annotations

from typing import Any

from lemmata.release.hub import UNPINNED
from lemmata.core.meta import BenchmarkMeta, ConfigSpec, HubPin, MainScore, arxiv_citation, split_configs

ATLAS_REPO = "MathAtlas/MathAtlas"
ALIGN_REPO = "MathAtlas/MA-Align"
ENTITY_TYPES = ("definition", "theorem", "exercise", "example", "proof")
#: the upstream splits of MathAtlas/MathAtlas: the open split and MA-Hard
ATLAS_SPLITS = ("test", "hard")
#: the entity types each MathAtlas track formalizes (``ma-hard``: every MA-Hard entity, whatever its type)
TRACK_TYPES: dict[str, tuple[str, ...]] = {
    "statements": ("theorem", "example", "exercise"),  # the paper's "statements" (§4.1)
    "definitions": ("definition",),
    "ma-hard": ("definition", "theorem", "example", "exercise"),
}
#: the two MA-Align label sets a judge is scored against, by name
LABEL_SETS = {
    "published": "the `label` column of MathAtlas/MA-Align (the paper's gold labels)",
    "relabel": "the authors' re-verification of all 200 pairs (offendo/math-atlas, "
               "benchmarks/labels/ma-align-relabel.tsv; changes 34 labels)",
}

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
        license_note=_LICENSE_NOTE, citation=CITATION, authors=_AUTHORS, version="2.0.0", released="2026-11-27",
        upstream_repo=repo,
        hub=(HubPin(repo_id=repo, revision=UNPINNED, description=f"{holds}; revision to be recorded"),), **fields,
    )


MATHATLAS = _release(
    ATLAS_REPO, "entities with their reference links; splits test and hard (MA-Hard)",
    name="mathatlas",
    title="MathAtlas: autoformalization of graduate-level mathematics in the wild",
    description=(
        "Definitions, theorems, examples, exercises and proofs extracted from 103 graduate mathematics textbooks "
        "(the open ~70% of the corpus, as the authors publish it), each with its type, natural-language text, the "
        "entities its references may point to, and a dependency depth Lemmata computes over those links "
        "(strongly connected components condensed, longest path; not the paper's depth). MA-Hard, the authors' "
        "698 hardest items, is its own split and track. A system formalizes an entity in Lean 4; a formalization "
        "is correct when it compiles and a judge finds it faithful."
    ),
    configs=(ConfigSpec(name="entities", splits=ATLAS_SPLITS, default=True,
                        description="every entity: type, text, dependencies, Lemmata's SCC depth; split test is "
                                    "upstream's open split, hard is MA-Hard"),
             ConfigSpec(name="dependencies", splits=("open",),
                        description="one row per (entity, candidate target) of upstream object_links, self-edges "
                                    "dropped, marked resolved when the target is in the release")),
    main_score=MainScore(metric="correct",
                         description="share of entities whose formalization compiles and is judged faithful "
                                     "(statements track: theorems, examples and exercises; definitions track: "
                                     "definitions; ma-hard track: every MA-Hard entity)"),
    tracks=tuple(TRACK_TYPES),
    tags=("mathematics", "autoformalization", "lean4", "dependency-graph", "textbooks"),
)

MA_ALIGN = _release(
    ALIGN_REPO, "formalizations with aligned/misaligned labels",
    name="ma-align",
    title="MA-Align: judging the faithfulness of Lean formalizations",
    description=(
        "Pairs of a natural-language statement or definition from MathAtlas and a Lean 4 formalization of it "
        "(100 definitions, 100 statements), labelled aligned or misaligned by people; the authors' later "
        "re-verification of all 200 pairs ships beside the published labels as a second label set. A judge "
        "predicts the label; it is scored by accuracy against each label set, named, with precision, recall "
        "and F1 of the aligned class."
    ),
    configs=split_configs(("pairs", "statement, formalization, published label and the authors' relabel")),
    main_score=MainScore(metric="accuracy", description="share of pairs whose predicted label equals the published "
                                                        "label (accuracy against the authors' relabel beside it)"),
    tracks=("judge",),
    tags=("mathematics", "autoformalization", "lean4", "llm-as-judge", "faithfulness"),
)

RELEASES = (MATHATLAS, MA_ALIGN)
