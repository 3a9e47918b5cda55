"""TaoBench: Lean 4 exercises from Tao's *Analysis I*, each paired with a Mathlib twin.

Two releases from upstream ``ataylor24/TaoAnalysisBench``:

- ``taobench-150``: the paper's 150 pairs (``Evaluation/TaoBench_TaoBenchMathlib.jsonl``),
  checked upstream on Lean ``v4.23.0-rc2``;
- ``taobench-v1``: the 600 exercises of upstream release ``v1.0.0`` (a textbook file
  and a Mathlib file, paired one-to-one by ``FQN``), Lean ``v4.26.0``.
"""

from __future__ import annotations

from typing import Any

from lemmata.core.meta import BenchmarkMeta, MainScore, SourceFile, arxiv_citation, split_configs

UPSTREAM_REPO = "ataylor24/TaoAnalysisBench"
COMMIT_150 = "eaee2b3633463cff2827904f17a52597221557ef"
COMMIT_V1 = "a9b231d77cbaf75065b887f37259a2256ad6ee45"  # tag v1.0.0
_RAW = f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/"

PAIRS_150 = "TaoBench_TaoBenchMathlib.jsonl"
TEXTBOOK_V1 = "TaoBenchAnalysis_textbook.jsonl"
MATHLIB_V1 = "TaoBenchAnalysis_mathlib.jsonl"
CROISSANT_V1 = "upstream_croissant.json"
LICENSE = "LICENSE"

#: what upstream states about the toolchains (the 150 file carries no version field)
LEAN_150 = "leanprover/lean4:v4.23.0-rc2"
#: the Mathlib the 150 pairs were checked with upstream: the paper's evaluation README
#: (``Evaluation/README.md`` at upstream commit 7e176d83) deploys the Kimina Lean server with
#: ``LEAN_SERVER_LEAN_VERSION=v4.23.0-rc2``, whose ``setup.sh`` installs mathlib4 at ``MATHLIB_BRANCH``, which
#: defaults to that Lean version: Mathlib's tag ``v4.23.0-rc2``. Release 1.0.0 left it null (not stated in the data).
MATHLIB_150 = "v4.23.0-rc2"
MATHLIB_V1_VERSION = "v4.26.0"  # upstream croissant: "Compiles under leanprover/lean4:v4.26.0 + Mathlib v4.26.0"

#: the two formulations of every exercise
FORMULATIONS = ("tao", "mathlib")

#: Upstream files that are not well-formed Lean, pinned so a new defect stops the build and a fixed one is noticed:
#: ``(release name, formulation, FQN) -> reason``. Their rows carry the reason in ``<formulation>_defect``
#: and no statement; scoring leaves them out.
KNOWN_DEFECTS: dict[tuple[str, str, str], str] = {
    ("taobench-v1", "tao", fqn): "unterminated comment: the module comment is closed with `-*/`, not `-/`"
    for fqn in (
        "Chapter3.SetTheory.Set.bounded_on_finite",
        "Chapter11.IntegrableOn.of_extend",
        "Chapter11.IntegrableOn.min",
        "Chapter11.α_len_of_id",
        "Chapter3.Function.inv_of_comp",
        "Chapter6.Sequence.exists_three_limit_points",
    )
}


def _src(name: str, commit: str, path: str, sha256: str, description: str) -> SourceFile:
    return SourceFile(name=name, upstream_path=path, commit=commit, url=f"{_RAW}{commit}/{path}", sha256=sha256,
                      description=description)


_LICENSE_SRC = _src(LICENSE, COMMIT_V1, "LICENSE",
                    "006adf11e9ece320271bdbbdc0a692044d2059ae93482fcd6ff93aa4866e658e", "upstream MIT licence")

SOURCES_150 = (
    _src(PAIRS_150, COMMIT_150, "Evaluation/TaoBench_TaoBenchMathlib.jsonl",
         "0a085d4fbe50df46388985013ce047de803d064ddd3d9f850e60711f7915544f",
         "the paper's 150 TaoBench / TaoBench-Mathlib pairs"),
    _LICENSE_SRC,
)
SOURCES_V1 = (
    SOURCES_150[0],  # read only to mark the exercises shared with taobench-150
    _src(TEXTBOOK_V1, COMMIT_V1, "data/TaoBenchAnalysis_textbook.jsonl",
         "8d457f0d126a2fde8667d2dabe8d7089ea7379474635b0dd0fd8f55ba3ee62ef",
         "600 exercises in Tao's definitional framework"),
    _src(MATHLIB_V1, COMMIT_V1, "data/TaoBenchAnalysis_mathlib.jsonl",
         "dab464d6d6a4b557175bd2fcb602a27e069ad568bc838e04203ae92754392924",
         "the 600 Mathlib restatements"),
    _src(CROISSANT_V1, COMMIT_V1, "croissant.json",
         "0b38ec6c964979df4908229bfee44397a148b6dc39875c20b4e91b436662e147",
         "upstream Croissant (states the data files' sha256 and the toolchain)"),
    _LICENSE_SRC,
)

CITATION = arxiv_citation(
    "taylor2026taobench", title="{TaoBench}: Do Automated Theorem Prover {LLMs} Generalize Beyond {MathLib}?",
    author="Taylor, Alexander K. and Zhang, Junyi and Ji, Ethan and Sahai, Vigyan and Deng, Haikang and Chen, "
           "Yuanzhou and Yuan, Yifan and Wu, Di and Gu, Jia-Chen and Chang, Kai-Wei and Peng, Nanyun and Sahai, Amit "
           "and Wang, Wei",
    year=2026, eprint="2603.12744", primary_class="cs.LG", doi=True,
)

AUTHORS = (
    "Alexander K. Taylor", "Junyi Zhang", "Ethan Ji", "Vigyan Sahai", "Haikang Deng", "Yuanzhou Chen", "Yifan Yuan",
    "Di Wu", "Jia-Chen Gu", "Kai-Wei Chang", "Nanyun Peng", "Amit Sahai", "Wei Wang",
)

_LICENSE_NOTE = (
    "The upstream repository carries the MIT licence (Copyright (c) 2026 TaoBenchAnalysis contributors), "
    "reproduced verbatim at the end of the card body. The Hugging Face copy of the 150 pairs (`uclanlp/TaoBench`) "
    "states CC-BY-4.0; attribute the paper under either. The exercises are extracted from the Lean formalization "
    "of *Analysis I* in `teorth/analysis` (Apache-2.0)."
)

_MAIN = MainScore(metric="pass@k", description="share of exercises with at least one of k attempts that passes "
                  "the integrity checks and compiles (unbiased estimator from n attempts)")
_TAGS = ("mathematics", "lean4", "mathlib", "theorem-proving", "formal-verification", "analysis")


def _release(commit: str, sources: tuple[SourceFile, ...], pairs: str, **fields: Any) -> BenchmarkMeta:
    """A release built from ``sources`` of upstream ``commit``, with what both releases state alike (the task, the
    paper, the upstream repository and its licence) and their one config: the exercise pairs (``pairs`` says which),
    in one test split.

    Each release pins ``manifest_sha256``: its build from the pinned sources is byte-reproducible (`lemmata build`,
    then `sha256sum MANIFEST.json`).
    """
    return BenchmarkMeta(
        family="taobench", task_type="theorem-proving", upstream_repo=UPSTREAM_REPO, upstream_commit=commit,
        sources=sources, paper_url="https://arxiv.org/abs/2603.12744", license="MIT", license_id="mit",
        license_note=_LICENSE_NOTE, citation=CITATION, authors=AUTHORS, configs=split_configs(("pairs", pairs)),
        main_score=_MAIN, tracks=FORMULATIONS, tags=_TAGS, **fields,
    )


TAOBENCH_150 = _release(
    COMMIT_150, SOURCES_150, "the paper's 150 exercise pairs (Tao framework + Mathlib twin)",
    name="taobench-150",
    title="TaoBench-150: Tao's Analysis I exercises paired with Mathlib twins",
    description=(
        "The 150 exercise pairs of the TaoBench paper. Each exercise from Terence Tao's Analysis I is a "
        "self-contained Lean 4 file in Tao's own definitional framework (custom naturals, integers, rationals, "
        "reals, sets and sequences, with the local definitions and given lemmas it needs) and a mathematically "
        "equivalent statement over standard Mathlib. A prover must replace the exercise's `sorry`; pass@k is "
        "compared between the two formulations of the same exercise."
    ),
    version="1.1.0", released="2026-11-22",
    manifest_sha256="f896e001ef45078f4d6b211972bac735aab34a3b3929e40a9b35ebf104b77a04",
)

TAOBENCH_V1 = _release(
    COMMIT_V1, SOURCES_V1, "600 exercise pairs (textbook framework + Mathlib restatement)",
    name="taobench-v1",
    title="TaoBench v1: 600 Tao's Analysis I exercises paired with Mathlib twins",
    description=(
        "The 600 exercises of upstream release v1.0.0 (TaoBenchAnalysis): a textbook-flavoured Lean 4 file in "
        "Tao's reconstructed framework and a Mathlib-only restatement for each, paired one-to-one by fully "
        "qualified name. Superset of the paper's 150 pairs in a newer extraction (145 names in common), "
        "on Lean v4.26.0."
    ),
    version="1.0.0", released="2026-11-21",
    manifest_sha256="1a5cff7a7863d2e696dbe48e4390807781e0a311383b4077eb9b0ae3c078c906",
)

RELEASES = (TAOBENCH_150, TAOBENCH_V1)
