"""The papers' own published numbers, imported as ``kind="reported"`` results.

Every benchmark family has an importer that turns its paper's transcribed
tables into immutable results tied to the paper's artifacts (never ranked
with rows scored here). This module lists them once, for the CLI and the
space's first start.
"""

from __future__ import annotations

import importlib

#: ``module:function`` of every family's importer; each takes a store and returns ``[(result, created)]``
IMPORTERS: tuple[str, ...] = (
    "lemmata.re2math.reported:import_reported",
    "lemmata.hubtracks.reported:import_reported",
    "lemmata.taobench.reported:import_reported",
)


def importer(ref: str):
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def import_all(store) -> list[tuple[str, list]]:
    """Run every importer into ``store``; returns ``[(importer ref, [(result, created), ...])]``."""
    return [(ref, importer(ref)(store)) for ref in IMPORTERS]
