"""Text encoders behind one small protocol, run through the field's own libraries.

An :class:`Encoder` turns texts into vectors for one *role* (``"query"`` or
``"document"``), knows its identity (:class:`~lemmata.formats.results.ModelInfo`)
and the similarity its vectors are compared by. Four kinds are wrapped here,
none of them re-implemented:

- :class:`SentenceTransformerEncoder` — a ``sentence-transformers`` model by Hub
  name (from the local Hub cache; nothing is downloaded here) or local folder,
  with its own prompts and, for several devices, its own multi-process pool;
- :class:`Model2VecEncoder` — a ``model2vec`` static model (the one the
  ``tokenlearn-static-model`` wheel ships is ``model2vec:tokenlearn-static-model``);
- :class:`OpenAIEmbeddingsEncoder` — any OpenAI-compatible ``/v1/embeddings``
  endpoint (OpenAI, vLLM, TEI, llama.cpp server) through the ``openai`` client;
- :class:`ObjectEncoder` — any object with ``encode(texts, …)`` (the protocol
  MTEB and sentence-transformers share); ``encode_query`` / ``encode_document``
  are used when it has them, otherwise the role's prompt is prepended.

The heavy libraries are optional extras (``pip install 'lemmata[models]'``) and
imported only when such an encoder is built. Every encoder returns float32 rows;
for cosine similarity they are unit-normalised by :func:`normalise`, so an exact
search is a plain matrix product. Whatever a model returns is checked before it
is normalised, cached or searched (:func:`checked_vectors`): a row that is not
one finite vector of the model's dimension per text would rank arbitrarily
(normalising even turns a NaN row into a zero row), so it is refused, naming
the model and the items.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from lemmata.core.errors import LemmataError
from lemmata.retrievers.endpoint import EndpointConfig
from lemmata.formats.results import ModelInfo

Role = Literal["query", "document"]
ROLES: tuple[str, ...] = ("query", "document")
Similarity = Literal["cosine", "dot"]


@runtime_checkable
class Encoder(Protocol):
    """What the evaluation harness needs from a model."""

    #: the declared model identity (name, revision or weights hash, dimension, prompts, …)
    info: ModelInfo
    similarity: Similarity

    def encode(self, texts: Sequence[str], *, role: Role, batch_size: int) -> np.ndarray:
        """One float32 row per text.

        An encoder that takes instructions (:func:`declared_template`) also accepts ``prompt=TEXT``: the prompt
        this call's texts get instead of the role's own (a task's instruction in the model's template).
        """


class MissingExtra(LemmataError):
    """An optional library the chosen model kind needs is not installed."""


class BadVectors(LemmataError):
    """A model returned vectors that cannot be ranked: not one row per text, the wrong dimension, NaN or Inf."""


class ModelRefused(LemmataError):
    """The model library refused (or failed on) a model folder: not a model of that kind, files missing or damaged,
    or a model that needs its own code run (``trust_remote_code``, which the harness never grants)."""


def loaded(kind: str, folder: str | Path, load: Any) -> Any:
    """``load()``, the model library's own loader, with whatever it raises on a folder that is not a loadable
    model turned into one :class:`ModelRefused` sentence naming the folder and the library's reason.

    The libraries raise many kinds (OSError, ValueError, JSON and safetensors errors, …) for a damaged or hostile
    folder; none of them is a Lemmata failure to report with a traceback.

    >>> def bad():
    ...     raise ValueError("Could not find expected model files\\nmore detail")
    >>> try:
    ...     loaded("model2vec", "/m", bad)
    ... except ModelRefused as exc:
    ...     print(exc)
    model folder /m was refused as a model2vec model: ValueError: Could not find expected model files
    """
    try:
        return load()
    except LemmataError:
        raise
    except Exception as exc:  # a library's loader raises many kinds on hostile files; none escapes as a traceback
        first = (str(exc).strip().splitlines() or [""])[0][:500]
        raise ModelRefused(f"model folder {folder} was refused as a {kind} model: {type(exc).__name__}"
                           + (f": {first}" if first else "")) from exc


#: items named in a :class:`BadVectors` message at most (then how many more)
SHOWN_ITEMS = 10


def checked_vectors(vectors: Any, *, model: str, role: str, ids: Sequence[str], dim: int | None = None,
                    first_row: int = 0) -> np.ndarray:
    """``vectors`` as float32 rows when they are one finite row per id, ``dim`` wide when given; else
    :class:`BadVectors` naming the model, the role and (at most :data:`SHOWN_ITEMS` of) the items and rows.

    >>> checked_vectors([[1.0, 0.0], [0.0, 2.0]], model="m", role="document", ids=["a", "b"]).dtype
    dtype('float32')
    >>> checked_vectors([[1.0, float("nan")], [0.0, 1e39]], model="m", role="document", ids=["a", "b"], first_row=8)
    Traceback (most recent call last):
    ...
    lemmata.retrievers.encoders.BadVectors: model 'm' returned NaN or infinite values in 2 document vector(s): 'a' (row 8), 'b' (row 9); such a vector cannot be ranked, so nothing was scored
    >>> checked_vectors([[1.0, 0.0]], model="m", role="query", ids=["q1"], dim=3)
    Traceback (most recent call last):
    ...
    lemmata.retrievers.encoders.BadVectors: model 'm' returned query vectors of dimension 2; its document vectors have dimension 3
    """
    try:
        with np.errstate(over="ignore"):  # a float64 past float32's range becomes inf, refused below
            v = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:  # ragged rows, or values that are not numbers
        raise BadVectors(f"model {model!r} returned {role} vectors that are not one row of numbers per text "
                         f"({str(exc)[:200]})") from None
    if v.ndim != 2 or v.shape[0] != len(ids) or v.shape[1] == 0:
        raise BadVectors(f"model {model!r} returned an array of shape {v.shape} for {len(ids):,} {role} text(s); "
                         "it must return one vector per text")
    if dim is not None and v.shape[1] != dim:
        raise BadVectors(f"model {model!r} returned {role} vectors of dimension {v.shape[1]}; its document vectors "
                         f"have dimension {dim}")
    bad = np.flatnonzero(~np.isfinite(v).all(axis=1))
    if bad.size:
        shown = ", ".join(f"{str(ids[i])[:100]!r} (row {first_row + i})" for i in bad[:SHOWN_ITEMS])
        more = f" and {bad.size - SHOWN_ITEMS:,} more" if bad.size > SHOWN_ITEMS else ""
        raise BadVectors(f"model {model!r} returned NaN or infinite values in {bad.size:,} {role} vector(s): "
                         f"{shown}{more}; such a vector cannot be ranked, so nothing was scored")
    return v


def require(module: str, extra: str = "models"):
    """Import an optional library or say which extra brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(f"this model kind needs the optional package {module!r}: "
                           f"pip install 'lemmata[{extra}]'") from exc


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Unit-length float32 rows (a zero row stays zero).

    >>> normalise(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2:
        raise ValueError(f"an encoder must return one row per text, got shape {v.shape}")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def weights_hash(folder: str | Path, *, patterns: Sequence[str] = ("*.safetensors", "*.bin", "*.json", "*.txt",
                                                                    "*.model")) -> str:
    """A short sha256 over a model folder's weight and configuration files (names and bytes), sorted by path.

    It is the model's ``revision`` when it is loaded from a folder, so a changed file is another model.
    """
    root = Path(folder)
    digest = hashlib.sha256()
    files = sorted({p for pat in patterns for p in root.rglob(pat) if p.is_file()})
    if not files:
        raise LemmataError(f"{root}: no model files (weights or configuration) found")
    for path in files:
        digest.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()[:16]


def _prompts(prompts: Mapping[str, str] | None) -> dict[str, str] | None:
    if not prompts:
        return None
    bad = sorted(set(prompts) - set(ROLES))
    if bad:
        raise ValueError(f"prompt roles must be {ROLES}, got {bad}")
    return {r: prompts[r] for r in ROLES if prompts.get(r)} or None


# -- task instructions ----------------------------------------------------------------------------------------

#: the template instruction-tuned embedding models put a task's instruction in before a query: e5-mistral's,
#: gte-Qwen's and NV-Embed's (GitHub ``j991222/mirb`` at ``a2b2d600``, ``mteb/models/gte_models.py`` and
#: ``nvidia_models.py``: ``f"Instruct: {instruction}\\nQuery: "``, for queries only; documents get none)
INSTRUCT_TEMPLATE = "Instruct: {instruction}\nQuery: "
_SLOT = "{instruction}"


def check_template(template: str) -> str:
    """``template`` when it holds ``{instruction}`` exactly once.

    >>> check_template("Represent this query for {instruction}: ")
    'Represent this query for {instruction}: '
    >>> check_template("Instruct: \\nQuery: ")
    Traceback (most recent call last):
    ...
    ValueError: an instruction template must hold '{instruction}' exactly once, got 'Instruct: \\nQuery: '
    """
    if template.count(_SLOT) != 1:
        raise ValueError(f"an instruction template must hold {_SLOT!r} exactly once, got {template!r}")
    return template


def instructed(template: str, instruction: str) -> str:
    """The query prompt of one task: its instruction in the template (plain replacement: an instruction's braces
    stay as written).

    >>> instructed(INSTRUCT_TEMPLATE, "Given a math formula, retrieve relevant formulas.")
    'Instruct: Given a math formula, retrieve relevant formulas.\\nQuery: '
    """
    return check_template(template).replace(_SLOT, instruction)


def template_of(query_prompt: str | None) -> str | None:
    """The instruction template a model's own query prompt declares, when it is the ``Instruct: …\\nQuery:`` form
    instruction-tuned models ship (e5-mistral, gte-Qwen2, Qwen3-Embedding configure their default task that way).

    >>> template_of("Instruct: Given a web search query, retrieve relevant passages that answer the query\\nQuery:")
    'Instruct: {instruction}\\nQuery:'
    >>> template_of("query: ") is None
    True
    """
    import re

    found = re.fullmatch(r"(Instruct:\s*).+?(\s*\nQuery:\s*)", query_prompt or "", flags=re.DOTALL)
    return f"{found.group(1)}{_SLOT}{found.group(2)}" if found else None


def declared_template(encoder: Any) -> str | None:
    """The instruction template an encoder declares it takes (``instruction_template``), or None."""
    template = getattr(encoder, "instruction_template", None)
    return check_template(template) if isinstance(template, str) else None


# -- sentence-transformers ------------------------------------------------------------------------------------

def resolve_local(name_or_path: str) -> tuple[Path, str]:
    """``(folder, revision)`` of a model: a local folder (revision = its weights hash) or a Hub name already in
    the local Hub cache (revision = the cached commit). Nothing is downloaded."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path, weights_hash(path)
    from huggingface_hub import snapshot_download

    try:
        folder = Path(snapshot_download(name_or_path, local_files_only=True))
    except Exception as exc:  # the hub library raises several kinds for "not cached"
        raise LemmataError(f"model {name_or_path!r} is neither a local folder nor in the local Hub cache "
                           f"(download it first, e.g. `hf download {name_or_path}`)") from exc
    return folder, folder.name


@dataclass
class SentenceTransformerEncoder:
    """A sentence-transformers model; ``devices`` of more than one entry use the library's multi-process pool."""

    name_or_path: str
    prompts: dict[str, str] | None = None
    devices: list[str] | None = None
    max_length: int | None = None
    similarity: Similarity = "cosine"
    info: ModelInfo = field(init=False)

    def __post_init__(self) -> None:
        st = require("sentence_transformers")
        folder, revision = resolve_local(self.name_or_path)
        device = self.devices[0] if self.devices and len(self.devices) == 1 else None
        self.model = loaded("sentence-transformers", folder,
                            lambda: st.SentenceTransformer(str(folder), device=device, local_files_only=True))
        if self.max_length:
            self.model.max_seq_length = self.max_length
        own = getattr(self.model, "prompts", {}) or {}
        self.instruction_template = template_of(own.get("query"))
        if self.prompts is None:  # the model's own query/document prompts, when its configuration names them
            self.prompts = _prompts({r: own[r] for r in ROLES if own.get(r)})
        else:
            self.prompts = _prompts(self.prompts)
        fn = getattr(self.model, "similarity_fn_name", None) or "cosine"
        self.similarity = "dot" if str(fn) == "dot" else "cosine"
        self._pool = None
        name = self.name_or_path if not Path(self.name_or_path).expanduser().is_dir() else folder.name
        dim_of = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        limit = self.model.max_seq_length
        self.info = ModelInfo(
            name=name, revision=revision, kind="retriever",
            parameters=int(sum(p.numel() for p in self.model.parameters())),
            dimension=int(dim_of() or 0) or None,
            max_length=int(limit) if limit and np.isfinite(limit) else None,
            prompts=self.prompts,
        )

    def encode(self, texts: Sequence[str], *, role: Role, batch_size: int = 32,
               prompt: str | None = None) -> np.ndarray:
        prompt = prompt if prompt is not None else (self.prompts or {}).get(role)
        kwargs: dict[str, Any] = {"prompt": prompt, "batch_size": batch_size, "show_progress_bar": False,
                                  "convert_to_numpy": True}
        if self.devices and len(self.devices) > 1:
            if self._pool is None:
                self._pool = self.model.start_multi_process_pool(target_devices=list(self.devices))
            kwargs["pool"] = self._pool
        return np.asarray(self.model.encode(list(texts), **kwargs), dtype=np.float32)

    def close(self) -> None:
        if self._pool is not None:
            self.model.stop_multi_process_pool(self._pool)
            self._pool = None


# -- model2vec ------------------------------------------------------------------------------------------------

SHIPPED_STATIC = "tokenlearn-static-model"


def shipped_static_model() -> Path:
    """The model2vec model folder inside the ``tokenlearn-static-model`` wheel (a core dependency)."""
    import static_model

    return Path(static_model.__file__).resolve().parent / "model"


@dataclass
class Model2VecEncoder:
    """A model2vec static model (``model2vec.StaticModel``), from a folder or the local Hub cache."""

    name_or_path: str
    prompts: dict[str, str] | None = None
    similarity: Similarity = "cosine"
    info: ModelInfo = field(init=False)

    def __post_init__(self) -> None:
        m2v = require("model2vec")
        if self.name_or_path == SHIPPED_STATIC:
            from importlib.metadata import version

            folder, name = shipped_static_model(), f"{SHIPPED_STATIC}=={version(SHIPPED_STATIC)}"
            revision = weights_hash(folder)
        else:
            folder, revision = resolve_local(self.name_or_path)
            name = self.name_or_path if not Path(self.name_or_path).expanduser().is_dir() else folder.name
        self.prompts = _prompts(self.prompts)
        self.model = loaded("model2vec", folder, lambda: m2v.StaticModel.from_pretrained(str(folder)))
        emb = self.model.embedding
        self.info = ModelInfo(name=name, revision=revision, kind="retriever",
                              parameters=int(np.prod(np.shape(emb))), dimension=int(self.model.dim),
                              open_weights=True, prompts=self.prompts)

    def encode(self, texts: Sequence[str], *, role: Role, batch_size: int = 1024,
               prompt: str | None = None) -> np.ndarray:
        prompt = prompt if prompt is not None else (self.prompts or {}).get(role, "")
        items = [prompt + t for t in texts] if prompt else list(texts)
        return np.asarray(self.model.encode(items, batch_size=batch_size, show_progress_bar=False),
                          dtype=np.float32)


# -- OpenAI-compatible /v1/embeddings ---------------------------------------------------------------------------

@dataclass
class OpenAIEmbeddingsEncoder:
    """Embeddings from an OpenAI-compatible endpoint, through the ``openai`` client (retries and timeouts are its)."""

    config: EndpointConfig
    prompts: dict[str, str] | None = None
    dimensions: int | None = None
    similarity: Similarity = "cosine"
    info: ModelInfo = field(init=False)

    def __post_init__(self) -> None:
        openai = require("openai")
        self.prompts = _prompts(self.prompts)
        self.client = openai.OpenAI(base_url=self.config.base_url, api_key=self.config.api_key or "none",
                                    timeout=self.config.timeout_s, max_retries=self.config.max_retries)
        probe = self._request(["dimension probe"])
        self.info = ModelInfo(name=self.config.model, kind="retriever", dimension=probe[1].shape[1],
                              endpoint_model=probe[0], prompts=self.prompts)

    def _request(self, texts: list[str]) -> tuple[str, np.ndarray]:
        kwargs: dict[str, Any] = {"model": self.config.model, "input": texts, "encoding_format": "float"}
        if self.dimensions:
            kwargs["dimensions"] = self.dimensions
        response = self.client.embeddings.create(**kwargs)
        rows = sorted(response.data, key=lambda d: d.index)
        if [d.index for d in rows] != list(range(len(texts))):
            raise BadVectors(f"{self.config.base_url}: the endpoint answered {len(rows)} embeddings for "
                             f"{len(texts)} inputs")
        sizes = sorted({len(d.embedding) for d in rows})
        if len(sizes) > 1:
            raise BadVectors(f"model {self.config.model!r} at {self.config.base_url} answered embeddings of "
                             f"different lengths {sizes[:5]} in one batch")
        return str(response.model), np.asarray([d.embedding for d in rows], dtype=np.float32)

    def encode(self, texts: Sequence[str], *, role: Role, batch_size: int = 64,
               prompt: str | None = None) -> np.ndarray:
        prompt = prompt if prompt is not None else (self.prompts or {}).get(role, "")
        items = [(prompt + t) or " " for t in texts]  # endpoints refuse an empty input
        out = []
        for i in range(0, len(items), batch_size):
            rows = self._request(items[i:i + batch_size])[1]
            if rows.shape[1] != self.info.dimension:
                raise BadVectors(f"model {self.config.model!r} at {self.config.base_url} answered embeddings of "
                                 f"length {rows.shape[1]}; its first answer had length {self.info.dimension}")
            out.append(rows)
        return np.concatenate(out) if out else np.zeros((0, self.info.dimension or 0), dtype=np.float32)


# -- any object with encode -----------------------------------------------------------------------------------

@dataclass
class ObjectEncoder:
    """Wrap any object with ``encode(texts, …)``; ``info`` names it (the harness cannot know its revision)."""

    model: Any
    info: ModelInfo
    prompts: dict[str, str] | None = None
    similarity: Similarity = "cosine"

    def __post_init__(self) -> None:
        if not callable(getattr(self.model, "encode", None)):
            raise TypeError(f"{type(self.model).__name__} has no encode(texts, ...) method")
        self.prompts = _prompts(self.prompts)
        if self.prompts and self.info.prompts != self.prompts:
            self.info = self.info.model_copy(update={"prompts": self.prompts})
        self.instruction_template = getattr(self.model, "instruction_template", None)

    def encode(self, texts: Sequence[str], *, role: Role, batch_size: int = 32,
               prompt: str | None = None) -> np.ndarray:
        texts = list(texts)
        prompt = prompt if prompt is not None else (self.prompts or {}).get(role, "")
        method = getattr(self.model, f"encode_{role}", None)
        if callable(method) and not prompt:
            return np.asarray(method(texts), dtype=np.float32)
        return np.asarray(self.model.encode([prompt + t for t in texts] if prompt else texts), dtype=np.float32)


def as_encoder(model: Any, *, name: str | None = None, prompts: Mapping[str, str] | None = None) -> Encoder:
    """An :class:`Encoder` from an encoder, or from any object with ``encode`` (named by ``name``)."""
    if isinstance(model, Encoder) and not prompts:
        return model
    if isinstance(model, (SentenceTransformerEncoder, Model2VecEncoder, OpenAIEmbeddingsEncoder)):
        return model
    label = name or getattr(model, "model_card_data", None) and getattr(model.model_card_data, "model_name", None)
    return ObjectEncoder(model, ModelInfo(name=str(label or type(model).__name__), kind="retriever"),
                         prompts=dict(prompts) if prompts else None)
