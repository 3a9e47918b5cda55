"""Baseline runs: rank every query of a derived retrieval track and write the run as a submission file.

A run file is exactly what a user would upload (see :mod:`lemmata.tracks.ranking`),
so the baselines are scored by the same validation and handler as any entry.
Rankings are cut at :data:`DEFAULT_DEPTH` documents: every reported measure
looks at the top 100 at most, and the files stay small.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lemmata.retrievers.baseline import MODEL_NAMES, build_retriever
from lemmata.retrievers.fusion import Ranking
from lemmata.formats.envelope import SUBMISSION_FORMAT

DEFAULT_DEPTH = 100
BASELINE_FLAGS = {"tuned_on_track_data": False, "used_external_data": False}


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


def run_header(benchmark: str, release: str, split: str, track: str, retriever: str, config: dict,
            notes: str) -> dict[str, Any]:
    from lemmata import __version__

    return {"format": SUBMISSION_FORMAT, "benchmark": benchmark, "release": release, "split": split, "track": track,
            "model": {"name": MODEL_NAMES[retriever], "revision": f"lemmata {__version__}"},
            "flags": BASELINE_FLAGS, "system": config, "notes": notes}


def write_run(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
