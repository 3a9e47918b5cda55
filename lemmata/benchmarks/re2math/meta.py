"""Re²Math: source-grounded theorem retrieval for gaps in research proofs."""

from __future__ import annotations

from lemmata.core.meta import BenchmarkMeta, ConfigSpec, MainScore, SourceFile, arxiv_citation

UPSTREAM_REPO = "lyuzicheng/Re-2Math"
UPSTREAM_COMMIT = "da7b008ac7a2f76373f8e23ca7c5b00966f3a239"
_RAW = f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}/"


def _src(name: str, path: str, sha256: str, description: str) -> SourceFile:
    return SourceFile(
        name=name, upstream_path=path, commit=UPSTREAM_COMMIT, url=_RAW + path, sha256=sha256, description=description
    )


SOURCES = (
    _src("benchmark_dataset_full.jsonl", "data/benchmark_dataset_full.jsonl",
         "d6607d66650a04d8707eae50f1938dc8b2965ebcbeb867700d740e47d448dbb1", "all 860 curated instances"),
    _src("benchmark_dataset_eval200.jsonl", "data/benchmark_dataset_eval200.jsonl",
         "71b20efba43d965bb8b3bcbb11ef3041016c5272e30498ae8a57a5ebfe24bc13", "the paper's Eval-200 test set"),
    _src("benchmark_dataset_full.summary.json", "data/benchmark_dataset_full.summary.json",
         "3ee2ec673bf98593daae2272aed2c691409576e60442d8cecb391f638182664f", "upstream counts of the full file"),
    _src("benchmark_dataset_eval200.summary.json", "data/benchmark_dataset_eval200.summary.json",
         "e903b1d3e845f41762b2e73ca5489988b5307fb30f8cf8d8b73ae74b126b16e7", "upstream counts and selection policy of Eval-200"),
    _src("benchmark_dataset_eval200.structural_audit.json", "data/benchmark_dataset_eval200.structural_audit.json",
         "eb0e3e655b6d7e91b92f82f8da49ec8263af850531ea425a205c504bff75f185", "upstream structural audit of Eval-200"),
    _src("paper_all_tables.json", "results/paper_all_tables.json",
         "492f1d7fb87314354a206169fac50e0ce242130c3842c968e6eda758d63f9c4f", "the paper's result tables (7 models)"),
    _src("paper_main_tables.json", "results/paper_main_tables.json",
         "65a0d6c63e34dafd0ae6c7e7cc27cd240725b8a899e95ea4ba386b1096f540e1", "the paper's main tables"),
    _src("oracle_materialization_summary.json", "results/oracle_materialization_summary.json",
         "f11eaac3aaf631040a466bb156fff6d0ed6ae1873bbe6c3f93d1b768f2394f89", "which cited sources the paper could materialise"),
)

CITATION = arxiv_citation(
    "lyu2026re2math", title="{Re$^2$Math}: Benchmarking Theorem Retrieval in Research-Level Mathematics",
    author="Lyu, Zicheng and Yang, Wenjie and Zhang, Shengzhong and Huang, Zengfeng", year=2026, eprint="2605.09012",
    primary_class="cs.AI",
)

RE2MATH = BenchmarkMeta(
    name="re2math",
    family="re2math",
    title="Re²Math: theorem retrieval for gaps in research-level proofs",
    description=(
        "Each instance is a gap in the proof of a main theorem of a research paper, with the paper's setup, "
        "the target theorem, up to five local proof blocks (oldest first) and a leakage-controlled anchor hint. "
        "A system must find a scholarly source and a statement in it that is grounded in that source (Ground) "
        "and sufficient to close the gap (Suff); ToolAcc = Ground ∧ Suff."
    ),
    version="1.0.0",
    released="2026-11-21",
    task_type="tool-retrieval",
    upstream_repo=UPSTREAM_REPO,
    upstream_commit=UPSTREAM_COMMIT,
    paper_url="https://arxiv.org/abs/2605.09012",
    sources=SOURCES,
    license="not stated by the authors",
    license_id="unknown",
    license_note=(
        "The upstream repository carries no licence file. The paper (arXiv 2605.09012) is distributed under the "
        "arXiv non-exclusive licence. Excerpts of citing papers are redistributed for research evaluation with "
        "attribution to the paper; ask the authors before other uses."
    ),
    citation=CITATION,
    authors=("Zicheng Lyu", "Wenjie Yang", "Shengzhong Zhang", "Zengfeng Huang"),
    configs=(
        ConfigSpec(name="eval200", description="the paper's Eval-200 test set (200 gaps, 5 domains × 40)",
                   splits=("test",), default=True),
        ConfigSpec.named_split("full", "all 860 curated instances, unsplit"),
        ConfigSpec(name="pool", description="train/dev split of the non-test rows at citing-paper level",
                   splits=("train", "dev")),
        ConfigSpec(name="retrieval_corpus", splits=("corpus",),
                   description="theorem-retrieval corpus: every distinct reference statement"),
        ConfigSpec(name="retrieval_queries", splits=("test", "train", "dev"),
                   description="theorem-retrieval queries: rendered proof states (raw, assisted)"),
        ConfigSpec(name="retrieval_qrels", description="theorem-retrieval relevance: each query's own statement",
                   splits=("test", "train", "dev")),
    ),
    main_score=MainScore(metric="OfflineToolAcc", description=(
        "offline headline: share of gaps whose selected source is the cited source (source identity) and whose "
        "statement is judged sufficient (OfflineToolAcc = source identity ∧ Suff); the paper's ToolAcc "
        "(Ground ∧ Suff against the source's full text) is measured only by the live protocol and shown for the "
        "paper's reported rows")),
    tracks=("raw", "assisted"),
    tags=("mathematics", "theorem-retrieval", "retrieval-augmented-generation", "scholarly-search"),
    # the byte-reproducible build from the pinned sources (`lemmata build` then `sha256sum MANIFEST.json`)
    manifest_sha256="0566ef48f71ca5eb46aca3e47e4caf1913e57714d2e06486a50104a366abfb9c",
)

RELEASES = (RE2MATH,)
