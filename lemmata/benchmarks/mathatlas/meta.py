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

from functools import partial

from lemmata.release.hub import UNPINNED
from lemmata.core.meta import BenchmarkMeta, ConfigSpec, HubPin, MainScore

ATLAS_REPO = "MathAtlas/MathAtlas"
ALIGN_REPO = "MathAtlas/MA-Align"
ENTITY_TYPES = ("definition", "theorem", "exercise", "example", "proof")

CITATION = """@misc{patel2026mathatlas,
  title         = {{MathAtlas}: A Benchmark for Autoformalization in the Wild},
  author        = {Patel, Nilay and Arias, Noah and Babayan, Davit and Cochran, Victoria and Libman, Timothy and Mahmood, Hafsah and McCarty, Liam and Munoz, Soli and Willey, Laurel and Flanigan, Jeffrey},
  year          = {2026},
  eprint        = {2605.14061},
  archivePrefix = {arXiv},
  primaryClass  = {cs.AI},
  url           = {https://arxiv.org/abs/2605.14061}
}"""

_AUTHORS = ("Nilay Patel", "Noah Arias", "Davit Babayan", "Victoria Cochran", "Timothy Libman", "Hafsah Mahmood",
            "Liam McCarty", "Soli Munoz", "Laurel Willey", "Jeffrey Flanigan")
_LICENSE_NOTE = (
    "The Hugging Face card's licence could not be reviewed when this release was defined; the paper (arXiv "
    "2605.14061) is distributed under CC BY 4.0. The entities are excerpts of published textbooks; ask the authors "
    "before uses beyond research evaluation."
)

#: what both releases state alike: the task, the paper, the licence and the first release
_release = partial(
    BenchmarkMeta, family="mathatlas", task_type="autoformalization", paper_url="https://arxiv.org/abs/2605.14061",
    license="not stated in the sources reviewed for this release", license_id="unknown", license_note=_LICENSE_NOTE,
    citation=CITATION, authors=_AUTHORS, version="1.0.0", released="2026-11-21",
)

MATHATLAS = _release(
    name="mathatlas",
    title="MathAtlas: autoformalization of graduate-level mathematics in the wild",
    description=(
        "Definitions, theorems, exercises, examples and proofs extracted from 103 graduate mathematics textbooks, "
        "each with its type, natural-language statement, the entities it depends on and its depth in the "
        "dependency graph. A system formalizes a statement in Lean 4; a formalization is correct when it compiles "
        "and a judge finds it faithful."
    ),
    upstream_repo=ATLAS_REPO,
    hub=(HubPin(repo_id=ATLAS_REPO, revision=UNPINNED,
                description="entities with dependency relations and depth; revision to be recorded"),),
    configs=(
        ConfigSpec(name="entities", description="every entity: type, statement, dependencies, depth",
                   splits=("test",), default=True),
        ConfigSpec(name="dependencies", description="the dependency graph as edges (entity -> entity it uses)",
                   splits=("test",)),
    ),
    main_score=MainScore(metric="correct",
                         description="share of entities whose formalization compiles and is judged faithful "
                                     "(statements track: theorems; definitions track: definitions)"),
    tracks=("statements", "definitions"),
    tags=("mathematics", "autoformalization", "lean4", "dependency-graph", "textbooks"),
)

MA_ALIGN = _release(
    name="ma-align",
    title="MA-Align: judging the faithfulness of Lean formalizations",
    description=(
        "Pairs of a natural-language statement from MathAtlas and a Lean 4 formalization of it, each labelled "
        "faithful or not by people. A judge predicts the label; it is scored by accuracy, precision, recall and F1 "
        "against the gold labels, with intervals."
    ),
    upstream_repo=ALIGN_REPO,
    hub=(HubPin(repo_id=ALIGN_REPO, revision=UNPINNED,
                description="formalizations with binary faithfulness labels; revision to be recorded"),),
    configs=(
        ConfigSpec(name="pairs", description="statement, formalization and gold faithfulness label",
                   splits=("test",), default=True),
    ),
    main_score=MainScore(metric="accuracy", description="share of pairs whose predicted label equals the gold label"),
    tracks=("judge",),
    tags=("mathematics", "autoformalization", "lean4", "llm-as-judge", "faithfulness"),
)

RELEASES = (MATHATLAS, MA_ALIGN)
