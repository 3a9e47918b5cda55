"""MathNet-Retrieve: retrieve a mathematically equivalent reformulation of an olympiad problem.

Upstream is the Hugging Face dataset ``ShadenA/MathNet-Retrieve`` (BEIR layout,
configs ``easy``/``medium``/``hard`` sharing one corpus and one query set). The
pinned revision ``edab33b…`` is the commit whose card this release follows
("Update dataset card", parent ``89b624f`` which added the data); a later
revision ``f3ecc756…`` is referenced by third-party evaluation code and has not
been reviewed here.
"""

from __future__ import annotations

from typing import Any

from lemmata.core.meta import BenchmarkMeta, ConfigSpec, HubPin, MainScore, RankingSpec

HUB_REPO = "ShadenA/MathNet-Retrieve"
HUB_REVISION = "edab33b5ae2c56c18da0b9a174530de2012a1075"
TIERS = ("easy", "medium", "hard")
#: Recall cut-offs reported for every run; the paper tabulates @1 and @5
RECALL_KS = (1, 5, 10)
MAIN_METRIC = "recall@5"

CITATION = """@inproceedings{alshammari2026mathnet,
  title     = {{MathNet}: A Global Multimodal Benchmark for Mathematical Reasoning and Retrieval},
  author    = {Alshammari, Shaden and Wen, Kevin and Zainal, Abrar and Hamilton, Mark and Safaei, Navid and Albarakati, Sultan and Freeman, William T. and Torralba, Antonio},
  booktitle = {International Conference on Learning Representations},
  year      = {2026},
  eprint    = {2604.18584},
  archivePrefix = {arXiv},
  url       = {https://arxiv.org/abs/2604.18584}
}"""


def mathnet_release(repo: str, revision: str, layout: str, hub_configs: tuple[str, ...] = (),
                    **fields: Any) -> BenchmarkMeta:
    """A MathNet release: what every one states alike (the paper, its authors and the Hub card's licence) and its
    upstream, the Hub dataset ``repo`` pinned at ``revision`` (``layout``: what the pin holds, in ``hub_configs``)."""
    return BenchmarkMeta(
        family="mathnet", paper_url="https://arxiv.org/abs/2604.18584", citation=CITATION,
        authors=("Shaden Alshammari", "Kevin Wen", "Abrar Zainal", "Mark Hamilton", "Navid Safaei", "Sultan Albarakati",
                 "William T. Freeman", "Antonio Torralba"),
        license="CC BY 4.0 (cc-by-4.0, as stated on the Hugging Face card)", license_id="cc-by-4.0",
        upstream_repo=repo, upstream_commit=revision,
        hub=(HubPin(repo_id=repo, revision=revision, configs=hub_configs, description=layout),), **fields,
    )


MATHNET_RETRIEVE = mathnet_release(
    HUB_REPO, HUB_REVISION,
    "BEIR layout per tier: corpus.jsonl, queries.jsonl, qrels/test.jsonl (and qrels/test.tsv)", TIERS,
    name="mathnet-retrieve",
    title="MathNet-Retrieve: equivalent-problem retrieval for olympiad mathematics",
    description=(
        "Given an olympiad problem, retrieve its mathematically equivalent reformulation from a shared corpus of "
        "117,088 documents (equivalents at three tiers, LLM-written near-miss hard negatives, distractors). Each of "
        "the 15,000 queries has exactly one positive per tier; the easy, medium and hard tiers disguise the surface "
        "form increasingly while the underlying problem stays the same. Scored by Recall@1, @5 and @10."
    ),
    version="1.0.0",
    released="2026-11-21",
    task_type="equivalence-retrieval",
    license_note=(
        "The problems come from national and international olympiads; the MathNet authors note that a country or "
        "contest may assert its own copyright over individual problems."
    ),
    configs=(
        ConfigSpec(name="qrels", description="relevance judgements, one split per tier (one positive per query)",
                   splits=TIERS, default=True),
        ConfigSpec.named_split("queries", "the 15,000 query problems (shared by all tiers)"),
        ConfigSpec.named_split("corpus", "the shared retrieval corpus (identical for all tiers upstream)"),
    ),
    main_score=MainScore(metric="Recall@k",
                         description="share of queries whose positive is among the top k (k = 1, 5, 10); "
                                     "Recall@5 is the headline"),
    tracks=TIERS,
    tags=("mathematics", "olympiad", "retrieval", "beir", "equivalence"),
    ranking=RankingSpec(
        measures=tuple(f"recall@{k}" for k in RECALL_KS), main_metric=MAIN_METRIC,
        track_description="the tier whose qrels score the run",
        schema_file="mathnet-retrieve-submission.schema.json",
        schema_title="MathNet-Retrieve submission, format lemmata-submission/1 (one JSONL line)",
        schema_description="MathNet-Retrieve submission files are UTF-8 JSONL: line 1 is the header (Header), every "
                           "further line a record (RankingRecord). See submissions/mathnet/README.md.",
        summary="{rankings} rankings for tier {track}",
        notes=("Recall@k over the {judged:,} queries of tier {track}; ties ranked by doc id.",),
    ),
)

RELEASES = (MATHNET_RETRIEVE,)
