"""The catalog: release ids to folders, built on demand, opened once per process (releases are immutable).

Everything that needs a release — a track handler, a baseline, the retrieval
artifact, the space's first start — resolves it here; builders are found through
the registry (:mod:`lemmata.families`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from lemmata.formats.beir import Collection, Doc
from lemmata.core.errors import InputError, LemmataError
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.paths import releases_dir
from lemmata.release.load import Release
from lemmata.release.load import open_release as open_verified


def release_root(meta: BenchmarkMeta, release_id: str | None = None, root: str | Path | None = None) -> Path:
    """Where the release lives (``$LEMMATA_RELEASES/<release id>``, default ``$LEMMATA_HOME/releases``)."""
    return (Path(root) if root is not None else releases_dir()) / (release_id or meta.release_id)


def release_path(meta: BenchmarkMeta, release_id: str | None = None, *, root: str | Path | None = None,
                 build: bool = True, quiet: bool = True) -> Path:
    """The release folder, built from its pinned sources by its family's builder when missing.

    This is the one place that turns a release id into a folder: scorers, baselines, the retrieval
    artifact and the space all come here, so "open it or build it" has one behaviour and one message.
    """
    release_id = release_id or meta.release_id
    path = release_root(meta, release_id, root)
    if path.is_dir():
        return path
    if not build or release_id != meta.release_id:
        raise LemmataError(f"release {release_id} is not built in {path.parent}; run `lemmata build {meta.family}`"
                           + (f" --out {path.parent}" if root is not None else ""))
    from lemmata.families import builder_classes  # the registry's builders, imported only to build

    for cls in builder_classes(meta.family):
        if cls.meta.release_id == meta.release_id:
            return cls().build(path.parent, quiet=quiet)
    raise LemmataError(f"no builder makes {meta.release_id}")


def load_release(meta: BenchmarkMeta, release_id: str | None = None) -> Release:
    """The opened release (verified once per process; releases are immutable), built when missing.

    The current release's MANIFEST.json is also checked field by field against the registry: release id,
    name, version, builder and builder version, and every upstream source's pinned sha256.
    """
    current = release_id in (None, meta.release_id)
    if not current:
        return open_release_folder(release_path(meta, release_id))
    return _open(str(release_path(meta, release_id)), meta)


def open_release_folder(path: str | Path) -> Release:
    """The one way every path (scoring, the space worker, audit, export, the CLI, artifact builders) opens a
    release folder it was given: every file against MANIFEST.json, and every MANIFEST.json field against the
    registry's metadata of the release the folder claims to be.

    The claim is the folder's name when it is a registered release id (releases are kept under their id),
    else the manifest's own ``release_id``; a release the registry does not know is refused, so an edited
    ``release_id``, ``name``, ``version``, ``builder``, ``builder_version`` or source sha256 never scores.
    Verification is cached per process by the folder's fingerprint (any write re-verifies).
    """
    root = Path(path)
    if not root.is_dir():
        return open_verified(root)  # its error names the folder and how to build it
    return _open(str(root), registered_meta(root))


def open_release(path: str | Path) -> Release:
    """The release folder at ``path``, verified exactly as scoring verifies it (:func:`open_release_folder`):
    every file against MANIFEST.json and every MANIFEST.json field against the registry. This is the public
    ``lemmata.open_release``; an edited ``release_id``, ``name``, ``builder_version`` or source sha256 is an
    :class:`~lemmata.core.errors.InputError` naming the file and field."""
    return open_release_folder(path)


def registered_meta(root: Path) -> BenchmarkMeta:
    """The registry's metadata of the release ``root`` claims to be; an unknown release id is an InputError."""
    from lemmata.families import list_benchmarks
    from lemmata.release.manifest import MANIFEST, read_manifest

    by_id = {m.release_id: m for m in list_benchmarks()}
    if root.name in by_id:
        return by_id[root.name]
    claimed = read_manifest(root).release_id
    if claimed in by_id:
        return by_id[claimed]
    raise InputError.one(str(root / MANIFEST), f"release {claimed!r} is not in the registry (known: "
                                               f"{', '.join(sorted(by_id))}); a release is opened only as one "
                                               "the registry pins", field="release_id")


def _open(root: str, meta: BenchmarkMeta | None = None) -> Release:
    """Verified release (``open_verified`` caches verification by folder fingerprint, so a reopen is cheap)."""
    if meta is None:
        return open_verified(root)
    from lemmata.families import builder_classes
    from lemmata.release.load import expectation

    expect = expectation(meta)
    for cls in builder_classes(meta.family):
        if cls.meta.release_id == meta.release_id:
            expect = expect.model_copy(update={"builder": cls().name, "builder_version": cls.builder_version})
    return open_verified(root, expect=expect)


def table_path(release: Release, config: str, split: str) -> Path:
    for entry in release.card_data.get("configs", []):
        if entry["config_name"] == config:
            for df in entry["data_files"]:
                if df["split"] == split:
                    return release.root / df["path"]
    raise InputError.one(str(release.root), f"release {release.release_id} has no {config}/{split}", field="split")


def read_columns(release: Release, config: str, split: str, columns: list[str]) -> dict[str, list[Any]]:
    """Selected columns of one table (a corpus of a million documents is read for its ids only)."""
    from lemmata.release.parquet import read_table

    table = read_table(table_path(release, config, split), columns=columns)
    return {c: table.column(c).to_pylist() for c in columns}


@lru_cache(maxsize=32)
def _collection(root: str, corpus: str, queries: str, qrels: str, excluded: str | None) -> Collection:
    release = _open(root)
    ids = read_columns(release, "corpus", corpus, ["_id"])["_id"]
    qs = read_columns(release, "queries", queries, ["_id", "text"])
    qr = read_columns(release, "qrels", qrels, ["query-id", "corpus-id", "score"])
    judged: dict[str, dict[str, int]] = {}
    for q, d, s in zip(qr["query-id"], qr["corpus-id"], qr["score"]):
        judged.setdefault(q, {})[d] = int(s)
    out_excluded: dict[str, frozenset[str]] = {}
    if excluded is not None:
        ex = read_columns(release, "excluded_ids", excluded, ["query-id", "excluded-ids"])
        out_excluded = {q: frozenset(e) for q, e in zip(ex["query-id"], ex["excluded-ids"])}
    docs = {i: Doc(i, "") for i in ids}  # texts are not needed to validate or score a run
    return Collection(corpus=docs, queries=dict(zip(qs["_id"], qs["text"])), qrels=judged, excluded=out_excluded)


def corpus_texts(release: Release, split: str) -> dict[str, str]:
    """What a retriever reads of each document of a ``corpus`` split, by id in table order: title and text joined
    as BEIR and MTEB join them. (A scoring :func:`collection` carries ids only; a model run needs the words.)"""
    import pyarrow.parquet as pq

    names = pq.read_schema(table_path(release, "corpus", split)).names
    cols = read_columns(release, "corpus", split, ["_id", *(["title"] if "title" in names else []), "text"])
    titles = cols.get("title") or [None] * len(cols["_id"])
    return {i: " ".join(filter(None, (t, x))) for i, t, x in zip(cols["_id"], titles, cols["text"])}


def collection(release: Release, *, corpus: str, queries: str, qrels: str, excluded: str | None = None) -> Collection:
    """A BEIR collection assembled from splits of a retrieval release's ``corpus``/``queries``/``qrels`` configs."""
    return _collection(str(release.root), corpus, queries, qrels, excluded)
