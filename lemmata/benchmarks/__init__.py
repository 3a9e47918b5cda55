"""Benchmark families: one folder each, owning its metadata, builders, tracks, reported rows and baselines.

Each family's ``__init__`` declares a :class:`~lemmata.core.family.Family`;
:mod:`lemmata.families` names the families and loads them lazily. A family may
import the generic layers (tracks, oracles, retrievers, release, formats,
metrics, core) and the catalog, never the space or the CLI, and never another
family.
"""
