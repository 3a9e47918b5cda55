"""MathNet-Solve: olympiad problem solving (the paper's task I) and retrieval-augmented solving (task III).

Upstream is the Hugging Face dataset ``ShadenA/MathNet``: one parquet config per country or competition
(split ``train``) and an ``all`` config repeating every problem under ``data/all/``. Upstream has published two
schemas (23 columns with ``unique_id``; 10 columns with ``id``); the pinned revision ``33e6b3bc…`` is the one
public code cites when it loads config ``all`` by ``id`` (27,817 rows), so very likely the 10-column one, not
seen directly here. The builder recognises each schema explicitly
(:data:`lemmata.benchmarks.mathnet.solve_schema.SCHEMAS`), records which it read in MANIFEST.json and fails
with one problem per column that fits neither.

Release 1.1.0 (builder 1.1) supersedes 1.0.0: its MANIFEST.json records the schema read, ``language`` is
normalised (one English name per language), and ``data/all/`` is no longer downloaded.

The paper evaluates on Test-Set-Small (70 problems) and Test-Set-Large (5,500), but upstream does not publish
which problems they hold. This release therefore defines its own evaluation subsets — stratified by domain ×
language × image presence with a fixed seed — and names them as Lemmata's (``lemmata_strat_70``,
``lemmata_strat_5500``), never with the paper's split names; scores on them are not the paper's numbers.
"""

from __future__ import annotations

from lemmata.benchmarks.mathnet.meta import mathnet_release
from lemmata.core.meta import ConfigSpec, MainScore

HUB_REPO = "ShadenA/MathNet"
HUB_REVISION = "33e6b3bc254e6f0f0c1479b4252f5e9dd551d56c"
#: upstream's aggregate config (every file once more); the builder reads the per-country configs instead
AGGREGATE_CONFIG = "all"
#: Lemmata's stratified evaluation subsets: name -> target size (the paper's sizes, not the paper's problems)
SUBSETS = {"lemmata_strat_70": 70, "lemmata_strat_5500": 5500}
SUBSET_SEED = 20260420
#: the four domains of the paper's Table 4 (topic path heads); anything else is "other"
DOMAINS = ("algebra", "number_theory", "geometry", "discrete_math")
#: the conditions of the MathRAG track
CONDITIONS = ("zero-shot", "expert-rag", "retriever-rag")
MAIN_METRIC = "proof_grade"

MATHNET_SOLVE = mathnet_release(
    HUB_REPO, HUB_REVISION,
    "one parquet config per country or competition (data/<Config>/train-*.parquet), split 'train', in schema A "
    "(23 columns, unique_id) or B (10 columns, id); images as a list of Image values; data/all/ repeats every "
    "file and is skipped",
    name="mathnet-solve",
    title="MathNet-Solve: olympiad problem solving and retrieval-augmented solving",
    description=(
        "Olympiad problems from national and international competitions in many languages, some with figures, "
        "with expert solutions, final answers where the problem has one, topic paths, language, problem type and "
        "provenance. A model writes a solution; a grader model compares it with the reference solutions on the "
        "IMO-Bench 0-7 scale and only 7 counts. A separate answer check compares stated final answers with "
        "math-verify. Evaluation subsets are Lemmata's stratified samples, not the paper's test sets."
    ),
    version="1.1.0",
    released="2026-11-27",
    task_type="problem-solving",
    license_note=(
        "The problems and solutions come from national and international olympiad booklets; the MathNet authors "
        "release them under CC BY 4.0 unless a country asserts its own copyright, which some competitions do "
        "over their problems and official solutions. Check the booklet's terms (column `source_booklet`) before "
        "redistributing individual problems."
    ),
    configs=(
        ConfigSpec(name="problems", description="every problem once ('full') and Lemmata's stratified evaluation "
                                                "subsets (same rows)", splits=("full", *SUBSETS), default=True),
        ConfigSpec.named_split("images", "the problems' figures, one row per image (unique_id, index)"),
    ),
    main_score=MainScore(metric="ProofGrade",
                         description="share of problems whose solution a grader model scores 7 of 7 against the "
                                     "reference solutions (pending grades count as not yet known)"),
    tracks=CONDITIONS,
    tags=("mathematics", "olympiad", "problem-solving", "multimodal", "multilingual", "rag"),
)
