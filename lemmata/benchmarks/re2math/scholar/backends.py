"""Open any retrieval artifact by folder, cache file or id: the 1.x scholarly artifact, a frozen query cache, or
a 2.x world — the one entry point a scorer and the CLI use to replay a frozen tuple's searches."""

from __future__ import annotations

from pathlib import Path

from lemmata.benchmarks.re2math.scholar import world as scholar_world
from lemmata.benchmarks.re2math.scholar.artifact import (
    ScholarArtifact, artifact_id, default_artifact, open_artifact,
)
from lemmata.benchmarks.re2math.scholar.querycache import ReplayBackend
from lemmata.benchmarks.re2math.scholar.world import WorldBackend
from lemmata.core.errors import InputError

__all__ = ["open_backend"]


def open_backend(artifact: str | Path) -> "ScholarArtifact | ReplayBackend | WorldBackend":
    """The search backend of a retrieval artifact, by folder / cache file or by id (the ``frozen`` tuple's value).

    A folder holding a scholarly artifact opens as :class:`ScholarArtifact`; a
    frozen query cache (folder) or a recorded cache file (``.jsonl``) replays
    as :class:`~lemmata.benchmarks.re2math.scholar.querycache.ReplayBackend`; a 2.x world folder
    as :class:`~lemmata.benchmarks.re2math.scholar.world.WorldBackend`. An id is looked up
    under ``artifacts_dir()``; the default offline artifact is built when missing.
    Every backend answers ``search(query, year_cutoff, n)`` with the ids its
    artifact fixes, which is what a scorer replays.
    """
    from lemmata.core.paths import artifacts_dir
    from lemmata.benchmarks.re2math.scholar.querycache import QUERIES_FILE
    from lemmata.benchmarks.re2math.scholar.worlds import WORLDS, current_world, is_any_world, open_any_world

    path = Path(artifact)
    if not path.exists() and "/" not in str(artifact) and not str(artifact).endswith(".jsonl"):
        path = artifacts_dir() / str(artifact)
        if not path.exists():
            if str(artifact) == artifact_id():
                return default_artifact()
            declared = WORLDS.find(str(artifact))
            if declared is not None and declared.kind == "world":
                return scholar_world.WorldBackend(current_world(version=declared.version))
            raise InputError.one(str(artifact), f"unknown retrieval artifact: neither a path nor an artifact under "
                                                f"{artifacts_dir()}", field="retrieval_artifact")
    if path.is_file() or (path / QUERIES_FILE).is_file():
        return ReplayBackend.open(path)
    if is_any_world(path):
        return scholar_world.WorldBackend(open_any_world(path))
    return open_artifact(path)
