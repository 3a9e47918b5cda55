"""``--model SPEC``: one string names any model the harness can run.

============================  ===========================================================================
``bm25`` / ``static`` /        the built-in baselines (BM25 via bm25s, static embeddings of the shipped
``hybrid``                     model with windowing, their reciprocal-rank fusion)
``st:NAME_OR_PATH``            a sentence-transformers model (Hub name from the local cache, or a folder)
``model2vec:NAME_OR_PATH``     a model2vec model; ``model2vec:tokenlearn-static-model`` is the shipped one
``openai:MODEL``               an OpenAI-compatible ``/v1/embeddings`` endpoint (``LEMMATA_EMBEDDINGS_*``)
``PATH``                       a local folder: sentence-transformers when it has ``modules.json``, else model2vec
============================  ===========================================================================

Unknown kinds and names fail with close-match suggestions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.registry import UnknownNameError, suggest
from lemmata.retrievers.endpoint import EndpointConfig

BASELINES: tuple[str, ...] = ("bm25", "static", "hybrid")
KINDS: dict[str, str] = {"st": "sentence-transformers", "sentence-transformers": "sentence-transformers",
                         "model2vec": "model2vec", "openai": "openai"}


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: ``kind`` (baseline, sentence-transformers, model2vec, openai) and its target."""

    kind: str
    target: str


def parse_spec(spec: str) -> ModelSpec:
    """Parse a model spec.

    >>> parse_spec("bm25"), parse_spec("st:intfloat/e5-small-v2")
    (ModelSpec(kind='baseline', target='bm25'), ModelSpec(kind='sentence-transformers', target='intfloat/e5-small-v2'))
    >>> parse_spec("openai:text-embedding-3-small").kind
    'openai'
    >>> parse_spec("bm52")
    Traceback (most recent call last):
    ...
    lemmata.core.registry.UnknownNameError: unknown model 'bm52'; did you mean 'bm25'? (known: bm25, hybrid, model2vec:NAME, openai:MODEL, st:NAME, static)
    >>> parse_spec("sentence-transformer:x")
    Traceback (most recent call last):
    ...
    lemmata.core.registry.UnknownNameError: unknown model kind 'sentence-transformer'; did you mean 'sentence-transformers'? (known: model2vec, openai, sentence-transformers, st)
    """
    spec = spec.strip()
    if not spec:
        raise UnknownNameError("a model spec is required (e.g. bm25, st:NAME, model2vec:NAME, openai:MODEL)")
    if spec in BASELINES:
        return ModelSpec("baseline", spec)
    kind, sep, target = spec.partition(":")
    if sep and kind in KINDS:
        if kind == "openai":
            return ModelSpec("openai", target)
        if not target:
            raise UnknownNameError(f"{spec!r} names no model after {kind + ':'!r}")
        return ModelSpec(KINDS[kind], target)
    path = Path(spec).expanduser()
    if path.is_dir():
        is_st = (path / "modules.json").is_file() or (path / "config_sentence_transformers.json").is_file()
        return ModelSpec("sentence-transformers" if is_st else "model2vec", str(path))
    if spec == "openai":
        return ModelSpec("openai", "")
    if sep and "/" not in kind:
        raise UnknownNameError(suggest("model kind", kind, sorted(KINDS)))
    raise UnknownNameError(suggest("model", spec, [*BASELINES, *(f"{k}:NAME" for k in ("st", "model2vec")),
                                                   "openai:MODEL"]))


def load_model(spec: str | ModelSpec, *, prompts: Mapping[str, str] | None = None,
               devices: Sequence[str] | None = None, max_length: int | None = None) -> Any:
    """The encoder a spec names (baselines are returned as their :class:`ModelSpec`; the harness ranks them)."""
    from lemmata.retrievers import encoders

    s = parse_spec(spec) if isinstance(spec, str) else spec
    p = dict(prompts) if prompts else None
    if s.kind == "baseline":
        return s
    if s.kind == "sentence-transformers":
        return encoders.SentenceTransformerEncoder(s.target, prompts=p, devices=list(devices) if devices else None,
                                                   max_length=max_length)
    if s.kind == "model2vec":
        return encoders.Model2VecEncoder(s.target, prompts=p)
    config = EndpointConfig.from_env("LEMMATA_EMBEDDINGS_", "an OpenAI-compatible embeddings model", s.target or None)
    return encoders.OpenAIEmbeddingsEncoder(config, prompts=p)
