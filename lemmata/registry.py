"""The benchmark registry: one place that knows every release by name.

Unknown names fail with close-match suggestions, as a user typing
``lemmata build re2mth`` deserves.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from lemmata.meta import BenchmarkMeta


class UnknownNameError(KeyError):
    """A name that is not registered; the message carries suggestions."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plain
        return str(self.args[0]) if self.args else "unknown name"


def suggest(kind: str, name: str, known: Iterable[str]) -> str:
    """A one-sentence 'unknown X' message with close matches.

    >>> suggest("benchmark", "re2mth", ["re2math", "taobench-150"])
    "unknown benchmark 're2mth'; did you mean 're2math'? (known: re2math, taobench-150)"
    """
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    msg = f"unknown {kind} {name!r}"
    if close:
        msg += "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return msg + f" (known: {', '.join(known)})"


def _load() -> dict[str, BenchmarkMeta]:
    from lemmata.benchmarks import ALL

    table: dict[str, BenchmarkMeta] = {}
    for meta in ALL:
        if meta.name in table:
            raise RuntimeError(f"benchmark {meta.name!r} registered twice")
        table[meta.name] = meta
    return table


_REGISTRY: dict[str, BenchmarkMeta] | None = None


def registry() -> dict[str, BenchmarkMeta]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _load()
    return _REGISTRY


def get_benchmark(name: str) -> BenchmarkMeta:
    """Metadata of a registered release by name (``re2math``) or release id (``re2math-1.0.0``)."""
    table = registry()
    if name in table:
        return table[name]
    for meta in table.values():
        if meta.release_id == name:
            return meta
    raise UnknownNameError(suggest("benchmark", name, table))


def list_benchmarks() -> list[BenchmarkMeta]:
    return sorted(registry().values(), key=lambda m: m.name)
