"""Re²Math's offline baselines: theorem and source retrieval by BM25 / static embeddings / hybrid, and the lexical agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lemmata.benchmarks.re2math.evaluation_tasks import source_task, theorem_task
from lemmata.retrievers.baseline import RETRIEVERS
from lemmata.tracks.baseline_runs import DEFAULT_DEPTH, write_run
from lemmata.tracks.model_runs import BaselineRanker, run_task


def theorem_retrieval_run(retriever: str, variant: str, out_dir: str | Path, *, split: str = "test",
                          depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the Re²Math reference statements for every proof state of ``split``; returns the run file.

    The same path as ``lemmata evaluate --model RETRIEVER`` (:mod:`lemmata.tracks.model_runs`), with the
    baseline's own notes.
    """
    task = theorem_task(split, variant)
    n = len(task.parts[0].doc_ids)
    data, _ = run_task(task, BaselineRanker(retriever, depth=depth),
                       notes=f"Offline baseline, reproduced by `lemmata baselines run theorem-retrieval --retriever "
                             f"{retriever} --variant {variant}`; top {depth} of {n} statements.")
    return write_run(Path(out_dir) / f"{task.filename}.{retriever}.jsonl", data)


def source_retrieval_run(retriever: str, variant: str, out_dir: str | Path, *, split: str = "test",
                         depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the records of the offline world for every proof state of ``split``; returns the run file.

    The published baselines rank without the year-cutoff filter (``year_cutoff=False``), as they always did.
    """
    task = source_task(split, variant, year_cutoff=False)
    n, world = len(task.parts[0].doc_ids), task.header_tail["corpus"]
    data, _ = run_task(task, BaselineRanker(retriever, depth=depth),
                       notes=f"Offline baseline, reproduced by `lemmata baselines run source-retrieval --retriever "
                             f"{retriever} --variant {variant}`; top {depth} of {n} records of {world} (title and "
                             "author surnames).")
    return write_run(Path(out_dir) / f"{task.filename}.{retriever}.jsonl", data)


def source_jobs() -> list[tuple[str, Callable[[Path], Path]]]:
    """The source-retrieval baseline runs (not in :func:`jobs`: they need the current world, see the CLI)."""
    from lemmata.benchmarks.re2math.source.retrieval import SOURCE_VARIANTS

    return [(f"source retrieval, {variant}, {r}", lambda folder, r=r, v=variant: source_retrieval_run(r, v, folder))
            for variant in SOURCE_VARIANTS for r in RETRIEVERS]


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
