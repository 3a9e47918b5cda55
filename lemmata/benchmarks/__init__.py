"""Metadata records of every registered benchmark release (see :mod:`lemmata.registry`)."""

from __future__ import annotations

import importlib

from lemmata.meta import BenchmarkMeta

#: modules that each define ``RELEASES: tuple[BenchmarkMeta, ...]``
_MODULES = ("re2math", "mathnet", "mirb", "mathatlas", "taobench", "math_arxiv_meta")


def _collect() -> tuple[BenchmarkMeta, ...]:
    out: list[BenchmarkMeta] = []
    for name in _MODULES:
        out.extend(importlib.import_module(f"lemmata.benchmarks.{name}").RELEASES)
    return tuple(out)


ALL: tuple[BenchmarkMeta, ...] = _collect()
