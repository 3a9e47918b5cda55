"""Corpus embeddings computed once per (model identity, corpus content) and kept on disk, memory-mapped.

Encoding a 346k-record corpus is the slow part of an evaluation; ranking is
cheap. So the document vectors of a corpus are written to
``<root>/<model key>/<corpus key>/vectors.f32`` (row-major float32, one row per
document in corpus order) chunk by chunk, and ``state.json`` records after every
chunk how many rows are done with the sha256 of each finished chunk. A run that
is interrupted (Ctrl-C, a lost machine) resumes at the first unfinished chunk;
a finished cache is opened read-only as a ``numpy.memmap`` and never loaded
whole. Every finished chunk is verified against its recorded hash whenever the
cache is opened, so a damaged file is re-encoded, never silently used.

The model key hashes what decides the vectors — name, revision or weights hash,
document prompt, maximum length, endpoint model; the corpus key hashes the ids
and texts in order. A different prompt or a changed text is a different cache.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lemmata.core.atomic import atomic_write_text
from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json

VECTORS = "vectors.f32"
STATE = "state.json"
DEFAULT_CHUNK = 8192
STATE_VERSION = 1


def corpus_key(doc_ids: Sequence[str], texts: Sequence[str]) -> str:
    """sha256 (first 32 hex digits) over the corpus's ids and texts, in order.

    >>> corpus_key(["a"], ["x"]) == corpus_key(["a"], ["x"]), corpus_key(["a"], ["x"]) == corpus_key(["a"], ["y"])
    (True, False)
    """
    if len(doc_ids) != len(texts):
        raise ValueError(f"{len(doc_ids)} doc ids for {len(texts)} texts")
    digest = hashlib.sha256()
    for doc_id, text in zip(doc_ids, texts):
        for part in (doc_id, text):
            raw = part.encode("utf-8")
            digest.update(len(raw).to_bytes(8, "little") + raw)
    return digest.hexdigest()[:32]


def model_key(info: Any) -> str:
    """What decides a model's document vectors (the ``ModelInfo`` fields that change them), hashed."""
    body = info.model_dump(mode="json", include={"name", "revision", "max_length", "endpoint_model", "dimension"})
    body["document_prompt"] = (info.prompts or {}).get("document")
    return sha256_json(body)[:32]


@contextmanager
def _locked(folder: Path):
    """One writer per cache folder (a second process waits for the first)."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@dataclass
class EncodeStats:
    """What one call did: rows taken from the cache, rows encoded now, and how fast."""

    rows: int
    cached: int
    encoded: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.encoded / self.seconds if self.seconds > 0 else 0.0


class EmbeddingCache:
    """The folder of cached corpus embeddings (default ``$LEMMATA_EMBEDDING_CACHE`` or ``$LEMMATA_HOME/embeddings``)."""

    def __init__(self, root: str | Path | None = None) -> None:
        if root is None:
            from lemmata.core.paths import lemmata_home
            from lemmata.core.settings import read

            root = read("LEMMATA_EMBEDDING_CACHE") or lemmata_home() / "embeddings"
        self.root = Path(root).expanduser()
        self.last: EncodeStats | None = None

    def folder(self, encoder: Any, doc_ids: Sequence[str], texts: Sequence[str], *, normalised: bool = True) -> Path:
        """Where one (model, corpus) pair's vectors live (unit-normalised and raw vectors apart)."""
        return self.root / model_key(encoder.info) / (corpus_key(doc_ids, texts) + ("" if normalised else "-raw"))

    def corpus_vectors(self, encoder: Any, doc_ids: Sequence[str], texts: Sequence[str], *, batch_size: int = 256,
                       chunk: int = DEFAULT_CHUNK, quiet: bool = False, normalise_rows: bool = True) -> np.ndarray:
        """The document vectors of the corpus, read-only and memory-mapped: encoded only where not cached yet."""
        folder = self.folder(encoder, doc_ids, texts, normalised=normalise_rows)
        n = len(texts)
        if n == 0:
            raise LemmataError("cannot encode an empty corpus")
        with _locked(folder):
            state = self._verified_state(folder, n)
            start = time.perf_counter()
            cached = state["done"] if state else 0
            if state is None or state["done"] < n:
                state = self._encode(folder, state, encoder, doc_ids, texts, batch_size=batch_size, chunk=chunk,
                                     quiet=quiet, normalise_rows=normalise_rows)
            self.last = EncodeStats(rows=n, cached=cached, encoded=n - cached, seconds=time.perf_counter() - start)
        return np.memmap(folder / VECTORS, dtype=np.float32, mode="r", shape=(n, state["dim"]))

    # -- internals ----------------------------------------------------------------------------------------------
    def _verified_state(self, folder: Path, n: int) -> dict[str, Any] | None:
        """The recorded progress, with every recorded chunk checked against its hash (None: start afresh)."""
        path = folder / STATE
        if not path.is_file() or not (folder / VECTORS).is_file():
            return None
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            ok = state.get("version") == STATE_VERSION and state["rows"] == n and state["dim"] > 0
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            return None
        size = (folder / VECTORS).stat().st_size
        if size != n * state["dim"] * 4:
            return None
        vectors = np.memmap(folder / VECTORS, dtype=np.float32, mode="r", shape=(n, state["dim"]))
        good = 0
        for i, digest in enumerate(state["chunks"]):
            a, b = i * state["chunk"], min((i + 1) * state["chunk"], n)
            if hashlib.sha256(np.ascontiguousarray(vectors[a:b]).tobytes()).hexdigest() != digest:
                print(f"embedding cache {folder}: chunk {i} does not match its recorded hash; re-encoding from "
                      f"row {a}", file=sys.stderr)
                break
            good += 1
        del vectors
        state["chunks"] = state["chunks"][:good]
        state["done"] = min(good * state["chunk"], n)
        return state

    def _encode(self, folder: Path, state: dict[str, Any] | None, encoder: Any, doc_ids: Sequence[str],
                texts: Sequence[str], *, batch_size: int, chunk: int, quiet: bool,
                normalise_rows: bool) -> dict[str, Any]:
        from tqdm.auto import tqdm

        from lemmata.retrievers.encoders import checked_vectors, normalise

        n = len(texts)
        if state is None:
            state = {"version": STATE_VERSION, "rows": n, "dim": 0, "chunk": chunk, "done": 0, "chunks": [],
                     "model": encoder.info.model_dump(mode="json")}
        chunk = state["chunk"]
        vectors = None
        if state["dim"]:
            vectors = np.memmap(folder / VECTORS, dtype=np.float32, mode="r+", shape=(n, state["dim"]))
        bar = tqdm(total=n, initial=state["done"], desc=f"encoding {encoder.info.name}", unit="text",
                   unit_scale=True, smoothing=0.1, file=sys.stderr, disable=quiet, dynamic_ncols=True)
        try:
            for a in range(state["done"], n, chunk):
                b = min(a + chunk, n)
                # checked before normalising (which would turn a NaN row into a zero row) and before caching
                rows = checked_vectors(encoder.encode(list(texts[a:b]), role="document", batch_size=batch_size),
                                       model=encoder.info.name, role="document", ids=doc_ids[a:b],
                                       dim=state["dim"] or None, first_row=a)
                if normalise_rows:
                    rows = normalise(rows)
                if vectors is None:
                    state["dim"] = int(rows.shape[1])
                    vectors = np.memmap(folder / VECTORS, dtype=np.float32, mode="w+", shape=(n, state["dim"]))
                vectors[a:b] = rows
                vectors.flush()
                state["chunks"].append(hashlib.sha256(np.ascontiguousarray(rows).tobytes()).hexdigest())
                state["done"] = b
                atomic_write_text(folder / STATE, json.dumps(state, indent=1, sort_keys=True))
                bar.update(b - a)
        finally:
            bar.close()
            del vectors
        return state
