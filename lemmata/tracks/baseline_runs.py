"""Baseline runs: the built-in retrievers through the model-run path (:mod:`lemmata.tracks.model_runs`).

A run file is exactly what a user would upload (see :mod:`lemmata.tracks.ranking`),
so the baselines are scored by the same validation and handler as any entry.
Rankings are cut at :data:`DEFAULT_DEPTH` documents: every reported measure
looks at the top 100 at most, and the files stay small.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.tracks.model_runs import DEFAULT_DEPTH, FLAGS

BASELINE_FLAGS = FLAGS

__all__ = ["BASELINE_FLAGS", "DEFAULT_DEPTH", "write_run"]


def write_run(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
