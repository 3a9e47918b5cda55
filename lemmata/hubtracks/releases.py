"""The built release a submission is scored against, read once per process (releases are immutable)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from lemmata.beir import Collection, Doc
from lemmata.errors import InputError, LemmataError
from lemmata.meta import BenchmarkMeta
from lemmata.paths import releases_dir
from lemmata.release.load import Release, open_release


def served_header(envelope, model, meta: BenchmarkMeta):
    """An upload's validated header, which must name the release this space serves for ``meta``.

    Every header problem is reported at once; records are not looked at before the header is right.
    """
    from lemmata.submissions.envelope import validate_model

    problems: list = []
    name, line = envelope.filename, envelope.header_line
    header = validate_model(model, envelope.header, name, line, problems, prefix="header")
    if header is None:
        raise InputError(problems)
    if header.release != meta.release_id:
        raise InputError.one(name, f"release {header.release!r} is not served; use {meta.release_id!r}", line,
                             "header.release")
    return header


def release_root(meta: BenchmarkMeta, release_id: str | None = None) -> Path:
    """Where the release lives (``$LEMMATA_HOME/releases/<release id>``)."""
    return releases_dir() / (release_id or meta.release_id)


def load_release(meta: BenchmarkMeta, release_id: str | None = None) -> Release:
    root = release_root(meta, release_id)
    if not root.is_dir():
        raise LemmataError(f"release {release_id or meta.release_id} is not built in {root.parent}; "
                           f"run `lemmata build {meta.family}` first")
    return _open(str(root))


@lru_cache(maxsize=8)
def _open(root: str) -> Release:
    return open_release(root)


def table_path(release: Release, config: str, split: str) -> Path:
    for entry in release.card_data.get("configs", []):
        if entry["config_name"] == config:
            for df in entry["data_files"]:
                if df["split"] == split:
                    return release.root / df["path"]
    raise InputError.one(str(release.root), f"release {release.release_id} has no {config}/{split}", field="split")


def read_columns(release: Release, config: str, split: str, columns: list[str]) -> dict[str, list[Any]]:
    """Selected columns of one table (a corpus of a million documents is read for its ids only)."""
    import pyarrow.parquet as pq

    table = pq.read_table(table_path(release, config, split), columns=columns)
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


def collection(release: Release, *, corpus: str, queries: str, qrels: str, excluded: str | None = None) -> Collection:
    """A BEIR collection assembled from splits of a retrieval release's ``corpus``/``queries``/``qrels`` configs."""
    return _collection(str(release.root), corpus, queries, qrels, excluded)
