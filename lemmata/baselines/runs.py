"""Baseline runs: rank every query of a derived retrieval track and write the run as a submission file.

A run file is exactly what a user would upload (see :mod:`lemmata.retrieval_tracks`),
so the baselines are scored by the same validation and handler as any entry.
Rankings are cut at :data:`DEFAULT_DEPTH` documents: every reported measure
looks at the top 100 at most, and the files stay small.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lemmata.baselines.retrievers import MODEL_NAMES, build_retriever
from lemmata.errors import LemmataError
from lemmata.meta import BenchmarkMeta
from lemmata.retrieval.fusion import Ranking
from lemmata.submissions.envelope import SUBMISSION_FORMAT

DEFAULT_DEPTH = 100
BASELINE_FLAGS = {"tuned_on_track_data": False, "used_external_data": False}


def ensure_release(meta: BenchmarkMeta, *, build: bool = True, quiet: bool = True) -> Path:
    """The release folder under ``releases_dir()``, built from its pinned sources when missing."""
    from lemmata.builders import builder_classes
    from lemmata.paths import releases_dir

    path = releases_dir() / meta.release_id
    if path.is_dir():
        return path
    if not build:
        raise LemmataError(f"release {meta.release_id} is not built; run `lemmata build {meta.family}`")
    for cls in builder_classes(meta.family):
        if cls.meta.name == meta.name:
            return cls().build(releases_dir(), quiet=quiet)
    raise LemmataError(f"no builder makes {meta.release_id}")


def run_lines(header: Mapping[str, Any], rankings: Mapping[str, Ranking]) -> bytes:
    """The submission bytes: header, then one ranking record per query (in the given query order)."""
    lines = [json.dumps(dict(header), ensure_ascii=False)]
    for qid, ranking in rankings.items():
        lines.append(json.dumps({"query_id": qid, "ranking": [{"doc_id": d, "score": float(s)} for d, s in ranking]},
                                ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def rank_all(retriever: str, doc_ids: list[str], doc_texts: list[str], queries: Mapping[str, str],
             depth: int = DEFAULT_DEPTH) -> tuple[dict[str, Ranking], dict]:
    """``({query id: ranking}, retriever config)`` for every query, in query order."""
    index = build_retriever(retriever, doc_ids, doc_texts)
    qids = list(queries)
    ranked = index.search_many([queries[q] for q in qids], depth)
    return dict(zip(qids, ranked)), index.config


def _header(benchmark: str, release: str, split: str, track: str, retriever: str, config: dict,
            notes: str) -> dict[str, Any]:
    from lemmata import __version__

    return {"format": SUBMISSION_FORMAT, "benchmark": benchmark, "release": release, "split": split, "track": track,
            "model": {"name": MODEL_NAMES[retriever], "revision": f"lemmata {__version__}"},
            "flags": BASELINE_FLAGS, "system": config, "notes": notes}


def theorem_retrieval_run(retriever: str, variant: str, out_dir: str | Path, *, split: str = "test",
                          depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the Re²Math reference statements for every proof state of ``split``; returns the run file."""
    from lemmata.benchmarks.re2math import RE2MATH
    from lemmata.re2math.theorem_retrieval import QUERIES_CONFIG, load_track
    from lemmata.retrieval_tracks import THEOREM_BENCHMARK

    doc_ids, texts, queries, _ = load_track(ensure_release(RE2MATH), split, variant)
    rankings, config = rank_all(retriever, doc_ids, texts, queries, depth)
    header = _header(THEOREM_BENCHMARK, RE2MATH.release_id, f"{QUERIES_CONFIG}/{split}", variant, retriever, config,
                     f"Offline baseline, reproduced by `lemmata baselines run theorem-retrieval --retriever "
                     f"{retriever} --variant {variant}`; top {depth} of {len(doc_ids)} statements.")
    return _write(Path(out_dir) / f"{THEOREM_BENCHMARK}.{split}.{variant}.{retriever}.jsonl",
                  run_lines(header, rankings))


def equivalence_run(retriever: str, release: str, direction: str, out_dir: str | Path, *,
                    depth: int = DEFAULT_DEPTH) -> Path:
    """Rank the other framework's statements for every TaoBench statement of ``release``; returns the run file."""
    from lemmata.registry import get_benchmark
    from lemmata.retrieval_tracks import EQUIVALENCE_BENCHMARK
    from lemmata.taobench.equivalence import CONFIG, SPLIT, load_track

    meta = get_benchmark(release)
    track = load_track(ensure_release(meta), direction)
    rankings, config = rank_all(retriever, track.doc_ids, track.doc_texts,
                                {q["_id"]: q["text"] for q in track.queries}, depth)
    header = _header(EQUIVALENCE_BENCHMARK, meta.release_id, f"{CONFIG}/{SPLIT}", direction, retriever, config,
                     f"Offline baseline, reproduced by `lemmata baselines run equivalence --release {meta.name} "
                     f"--direction {direction} --retriever {retriever}`; top {depth} of {len(track.corpus)} "
                     "statements.")
    return _write(Path(out_dir) / f"{EQUIVALENCE_BENCHMARK}.{meta.name}.{direction}.{retriever}.jsonl",
                  run_lines(header, rankings))


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
