"""Second-stage rerankers: a model that reads a query and a document together and rescores a first stage's top.

``--rerank SPEC`` names one:

==============================  ==========================================================================
``ce:NAME_OR_PATH``             a sentence-transformers ``CrossEncoder`` (Hub name from the local cache, or
                                a folder); ``cross-encoder:`` is the same
``rerank-api:MODEL``            any rerank endpoint of the Cohere / Jina form — ``POST {base}/rerank`` with
                                ``{"model", "query", "documents"}``, answered ``{"results": [{"index",
                                "relevance_score"}]}`` (Cohere ``/v2``, Jina ``/v1``, vLLM and TEI-style
                                servers) — at ``LEMMATA_RERANK_BASE_URL`` (``_API_KEY``, ``_TIMEOUT_S``)
``PATH``                        a local CrossEncoder folder
==============================  ==========================================================================

The reranker reads each query as the benchmark states it (no task instruction: the MIRB authors' fork passes a
cross-encoder the bare query, ``mteb/evaluation/evaluators/RetrievalEvaluator.py``, ``search_cross_encoder``) and
each document's text. Its identity (:class:`~lemmata.formats.results.RerankerInfo`) is part of the run's model
identity, so a reranked run is another system than its first stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lemmata.core.errors import LemmataError
from lemmata.core.registry import UnknownNameError, suggest
from lemmata.retrievers.endpoint import EndpointConfig

KINDS: dict[str, str] = {"ce": "cross-encoder", "cross-encoder": "cross-encoder", "rerank-api": "endpoint"}


class Reranker(Protocol):
    """What the harness needs from a second stage."""

    #: the reranker's identity, without the depth (the run sets it)
    identity: dict[str, Any]

    def rerank(self, queries: Sequence[str], candidates: Sequence[Sequence[str]]) -> list[list[float]]:
        """One score per candidate document of each query (higher: more relevant)."""


@dataclass(frozen=True)
class RerankSpec:
    kind: str
    target: str


def parse_rerank_spec(spec: str) -> RerankSpec:
    """Parse a ``--rerank`` spec.

    >>> parse_rerank_spec("ce:cross-encoder/ms-marco-MiniLM-L6-v2")
    RerankSpec(kind='cross-encoder', target='cross-encoder/ms-marco-MiniLM-L6-v2')
    >>> parse_rerank_spec("rerank-api:bge-reranker-v2-m3").kind
    'endpoint'
    >>> parse_rerank_spec("cross:x")
    Traceback (most recent call last):
    ...
    lemmata.core.registry.UnknownNameError: unknown reranker kind 'cross'; did you mean 'cross-encoder'? (known: ce, cross-encoder, rerank-api)
    """
    spec = spec.strip()
    kind, sep, target = spec.partition(":")
    if sep and kind in KINDS:
        if not target:
            raise UnknownNameError(f"{spec!r} names no model after {kind + ':'!r}")
        return RerankSpec(KINDS[kind], target)
    if spec and Path(spec).expanduser().is_dir():
        return RerankSpec("cross-encoder", spec)
    raise UnknownNameError(suggest("reranker kind", kind if sep else spec, sorted(KINDS)))


def load_reranker(spec: str | RerankSpec, *, max_length: int | None = None, batch_size: int = 32,
                  device: str | None = None) -> Reranker:
    s = parse_rerank_spec(spec) if isinstance(spec, str) else spec
    if s.kind == "cross-encoder":
        return CrossEncoderReranker(s.target, max_length=max_length, batch_size=batch_size, device=device)
    return EndpointReranker(EndpointConfig.from_env("LEMMATA_RERANK_", "a rerank endpoint", s.target))


def rescored(docs: Sequence[str], scores: Sequence[float]) -> list[tuple[str, float]]:
    """``docs`` with their new scores as float32 values, sorted by (score descending, doc id).

    >>> rescored(["b", "a", "c"], [0.5, 0.5, 0.9])
    [('c', 0.8999999761581421), ('a', 0.5), ('b', 0.5)]
    """
    import numpy as np

    if len(scores) != len(docs):
        raise LemmataError(f"the reranker answered {len(scores)} scores for {len(docs)} documents")
    values = np.asarray(scores, dtype=np.float32).tolist()
    return sorted(zip(docs, values), key=lambda p: (-p[1], p[0]))


# -- sentence-transformers CrossEncoder -------------------------------------------------------------------------

@dataclass
class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` scoring (query, document) pairs, batched across queries."""

    name_or_path: str
    max_length: int | None = None
    batch_size: int = 32
    device: str | None = None
    identity: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        from lemmata.retrievers.encoders import loaded, require, resolve_local

        st = require("sentence_transformers")
        folder, revision = resolve_local(self.name_or_path)
        self.model = loaded("CrossEncoder", folder, lambda: st.CrossEncoder(
            str(folder), device=self.device, local_files_only=True, max_length=self.max_length))
        name = self.name_or_path if not Path(self.name_or_path).expanduser().is_dir() else folder.name
        limit = getattr(self.model, "max_seq_length", None)
        self.identity = {"name": name, "revision": revision,
                         "max_length": int(limit) if isinstance(limit, int) and limit < 100_000_000 else None}

    def rerank(self, queries: Sequence[str], candidates: Sequence[Sequence[str]]) -> list[list[float]]:
        pairs = [(q, d) for q, docs in zip(queries, candidates) for d in docs]
        flat = self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False,
                                  convert_to_numpy=True) if pairs else []
        out, at = [], 0
        for docs in candidates:
            out.append([float(s) for s in flat[at:at + len(docs)]])
            at += len(docs)
        return out


# -- a rerank endpoint (Cohere / Jina form) ---------------------------------------------------------------------

@dataclass
class EndpointReranker:
    """Scores from ``POST {base}/rerank``, one request per query (the ``index`` of each result maps it back)."""

    config: EndpointConfig
    identity: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
        self.client = httpx.Client(timeout=self.config.timeout_s, headers=headers)
        self.identity = {"name": self.config.model, "endpoint_model": None}

    def _scores(self, query: str, docs: Sequence[str]) -> list[float]:
        url = f"{self.config.base_url}/rerank"
        response = self.client.post(url, json={"model": self.config.model, "query": query, "documents": list(docs),
                                               "top_n": len(docs)})
        if response.status_code != 200:
            raise LemmataError(f"{url}: HTTP {response.status_code}: {response.text[:300]}")
        body = response.json()
        scores: dict[int, float] = {}
        for i, r in enumerate(body.get("results") or []):
            if not isinstance(r, dict) or not isinstance(r.get("index"), int) or not isinstance(
                    r.get("relevance_score"), (int, float)):
                raise LemmataError(f"{url}: results[{i}] has no integer index and numeric relevance_score")
            scores[r["index"]] = float(r["relevance_score"])
        if sorted(scores) != list(range(len(docs))):
            raise LemmataError(f"{url}: the endpoint scored {len(scores)} of {len(docs)} documents")
        if isinstance(body.get("model"), str) and self.identity["endpoint_model"] is None:
            self.identity["endpoint_model"] = body["model"]
        return [scores[i] for i in range(len(docs))]

    def rerank(self, queries: Sequence[str], candidates: Sequence[Sequence[str]]) -> list[list[float]]:
        return [self._scores(q, docs) if docs else [] for q, docs in zip(queries, candidates)]

    def close(self) -> None:
        self.client.close()
