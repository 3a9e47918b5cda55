"""TaoBench's offline baselines: cross-framework equivalence retrieval by BM25 / static embeddings / hybrid."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lemmata.benchmarks.taobench.equivalence import CONFIG, EQUIVALENCE_BENCHMARK, SPLIT, load_track
from lemmata.benchmarks.taobench.meta import RELEASES
from lemmata.catalog import release_path
from lemmata.retrievers.baseline import RETRIEVERS
from lemmata.tracks.baseline_runs import DEFAULT_DEPTH, rank_all, run_header, run_lines, write_run


def equivalence_run(retriever: str, release: str, direction: str, out_dir: str | Path, *,
                    depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the other framework's statements for every TaoBench statement of ``release``; returns the run file."""
    meta = next(m for m in RELEASES if m.name == release or m.release_id == release)
    track = load_track(release_path(meta), direction)
    rankings, config = rank_all(retriever, track.doc_ids, track.doc_texts,
                                {q["_id"]: q["text"] for q in track.queries}, depth)
    header = run_header(EQUIVALENCE_BENCHMARK, meta.release_id, f"{CONFIG}/{SPLIT}", direction, retriever, config,
                     f"Offline baseline, reproduced by `lemmata baselines run equivalence --release {meta.name} "
                     f"--direction {direction} --retriever {retriever}`; top {depth} of {len(track.corpus)} "
                     "statements.")
    return write_run(Path(out_dir) / f"{EQUIVALENCE_BENCHMARK}.{meta.name}.{direction}.{retriever}.jsonl",
                  run_lines(header, rankings))


def jobs() -> list[tuple[str, Callable[[Path], Path]]]:
    """Every TaoBench baseline run: (label, function writing its submission file into a folder)."""
    out: list[tuple[str, Callable[[Path], Path]]] = []
    for release in ("taobench-150", "taobench-v1"):
        for direction in ("tao2mathlib", "mathlib2tao"):
            for r in RETRIEVERS:
                out.append((f"equivalence, {release}, {direction}, {r}",
                            lambda folder, r=r, rel=release, d=direction: equivalence_run(r, rel, d, folder)))
    return out
