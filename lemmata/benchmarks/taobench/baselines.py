"""TaoBench's offline baselines: cross-framework equivalence retrieval by BM25 / static embeddings / hybrid."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lemmata.benchmarks.taobench.evaluation_tasks import equivalence_task
from lemmata.retrievers.baseline import RETRIEVERS
from lemmata.tracks.baseline_runs import DEFAULT_DEPTH, write_run
from lemmata.tracks.model_runs import BaselineRanker, run_task


def equivalence_run(retriever: str, release: str, direction: str, out_dir: str | Path, *,
                    depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the other framework's statements for every TaoBench statement of ``release``; returns the run file.

    The same path as ``lemmata evaluate --model RETRIEVER`` (:mod:`lemmata.tracks.model_runs`), with the
    baseline's own notes.
    """
    task = equivalence_task(release, direction)
    name = task.name.split(":", 1)[1].split("/")[0]
    data, _ = run_task(task, BaselineRanker(retriever, depth=depth),
                       notes=f"Offline baseline, reproduced by `lemmata baselines run equivalence --release {name} "
                             f"--direction {direction} --retriever {retriever}`; top {depth} of "
                             f"{len(task.parts[0].doc_ids)} statements.")
    return write_run(Path(out_dir) / f"{task.filename}.{retriever}.jsonl", data)


def jobs() -> list[tuple[str, Callable[[Path], Path]]]:
    """Every TaoBench baseline run: (label, function writing its submission file into a folder)."""
    out: list[tuple[str, Callable[[Path], Path]]] = []
    for release in ("taobench-150", "taobench-v1"):
        for direction in ("tao2mathlib", "mathlib2tao"):
            for r in RETRIEVERS:
                out.append((f"equivalence, {release}, {direction}, {r}",
                            lambda folder, r=r, rel=release, d=direction: equivalence_run(r, rel, d, folder)))
    return out
