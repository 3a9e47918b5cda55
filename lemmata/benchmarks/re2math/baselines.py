"""Re²Math's offline baselines: theorem and source retrieval by BM25 / static embeddings / hybrid, and the lexical agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.benchmarks.re2math.theorem.retrieval import QUERIES_CONFIG, THEOREM_BENCHMARK, load_track
from lemmata.catalog import release_path
from lemmata.retrievers.baseline import RETRIEVERS
from lemmata.tracks.baseline_runs import DEFAULT_DEPTH, rank_all, run_header, run_lines, write_run


def theorem_retrieval_run(retriever: str, variant: str, out_dir: str | Path, *, split: str = "test",
                          depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the Re²Math reference statements for every proof state of ``split``; returns the run file."""
    doc_ids, texts, queries, _ = load_track(release_path(RE2MATH), split, variant)
    rankings, config = rank_all(retriever, doc_ids, texts, queries, depth)
    header = run_header(THEOREM_BENCHMARK, RE2MATH.release_id, f"{QUERIES_CONFIG}/{split}", variant, retriever, config,
                     f"Offline baseline, reproduced by `lemmata baselines run theorem-retrieval --retriever "
                     f"{retriever} --variant {variant}`; top {depth} of {len(doc_ids)} statements.")
    return write_run(Path(out_dir) / f"{THEOREM_BENCHMARK}.{split}.{variant}.{retriever}.jsonl",
                  run_lines(header, rankings))


def source_retrieval_run(retriever: str, variant: str, out_dir: str | Path, *, split: str = "test",
                         depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the records of the offline world for every proof state of ``split``; returns the run file."""
    from lemmata.benchmarks.re2math.source.retrieval import SOURCE_BENCHMARK, SPLITS, default_source_track

    track = default_source_track()
    queries = track.query_texts(split, variant)
    rankings, config = rank_all(retriever, track.doc_ids, track.doc_texts(), queries, depth)
    header = run_header(SOURCE_BENCHMARK, track.release_id, "/".join(SPLITS[split]), variant, retriever, config,
                        f"Offline baseline, reproduced by `lemmata baselines run source-retrieval --retriever "
                        f"{retriever} --variant {variant}`; top {depth} of {len(track.doc_ids)} records of "
                        f"{track.world_id} (title and author surnames).")
    header = {**header, "corpus": track.world_id}
    return write_run(Path(out_dir) / f"{SOURCE_BENCHMARK}.{split}.{variant}.{retriever}.jsonl",
                     run_lines(header, rankings))


def source_jobs() -> list[tuple[str, Callable[[Path], Path]]]:
    """The source-retrieval baseline runs (not in :func:`jobs`: they need the current world, see the CLI)."""
    return [(f"source retrieval, {variant}, {r}", lambda folder, r=r, v=variant: source_retrieval_run(r, v, folder))
            for variant in ("raw", "assisted") for r in RETRIEVERS]


def jobs() -> list[tuple[str, Callable[[Path], Path]]]:
    """Every Re²Math baseline run: (label, function writing its submission file into a folder)."""
    from lemmata.benchmarks.re2math.agent.lexical import run_agent

    out: list[tuple[str, Callable[[Path], Path]]] = []
    for variant in ("raw", "assisted"):
        for r in RETRIEVERS:
            out.append((f"theorem retrieval, {variant}, {r}",
                        lambda folder, r=r, v=variant: theorem_retrieval_run(r, v, folder)))
    out.append(("Re2Math lexical agent, assisted", lambda folder: run_agent(folder, track="assisted")))
    return out
