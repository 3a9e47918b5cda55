"""A quiet-able progress display on stderr for long CLI steps."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


class Steps:
    """Numbered step lines (``[2/5] writing Parquet … 0.4s``); silent when ``quiet``."""

    def __init__(self, total: int, *, quiet: bool = False, stream=None) -> None:
        self.total = total
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.n = 0
        self._t = time.perf_counter()

    def step(self, label: str) -> None:
        self.n += 1
        now = time.perf_counter()
        if not self.quiet:
            print(f"[{self.n}/{self.total}] {label}", file=self.stream, flush=True)
        self._t = now


def track(items: Iterable[T], *, total: int | None = None, desc: str = "", quiet: bool = False) -> Iterator[T]:
    """Iterate with a tqdm bar on stderr (no bar when quiet or not a terminal)."""
    if quiet:
        yield from items
        return
    from tqdm.auto import tqdm

    yield from tqdm(items, total=total, desc=desc, file=sys.stderr, disable=not sys.stderr.isatty(), leave=False)
