"""Lemmata: versioned releases, exact metrics and a leaderboard for mathematical tool retrieval and formalization.

The public API is the names in ``__all__``; they are imported on first use, so
``import lemmata`` (and the CLI) stays fast. Everything else is reachable from
its module but may move between versions.

>>> import lemmata
>>> lemmata.get_benchmark("re2math").release_id
're2math-1.0.0'
>>> sorted(set(lemmata.__all__) - set(dir(lemmata)))
[]
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

#: public name -> module it lives in
_PUBLIC: dict[str, str] = {
    # errors
    "Error": "lemmata.core.errors", "InputError": "lemmata.core.errors", "LemmataError": "lemmata.core.errors",
    "Problem": "lemmata.core.errors", "UnknownNameError": "lemmata.core.registry",
    # metadata and the registry
    "BenchmarkMeta": "lemmata.core.meta", "get_benchmark": "lemmata.families", "list_benchmarks": "lemmata.families",
    "handler_for": "lemmata.families", "validate_upload": "lemmata.scoring",
    # releases
    "open_release": "lemmata.catalog", "release_path": "lemmata.catalog", "load_release": "lemmata.catalog",
    # results and scoring
    "Result": "lemmata.formats.results", "FrozenTuple": "lemmata.formats.results", "score_file": "lemmata.scoring",
    "Store": "lemmata.store", "OracleConfig": "lemmata.tracks.base", "TrackHandler": "lemmata.tracks.base",
    "RankingTrack": "lemmata.tracks.ranking",
    # running a model on the ranking tracks
    "evaluate": "lemmata.harness.evaluate",
}

__all__ = ["__version__", *sorted(_PUBLIC)]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'lemmata' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
