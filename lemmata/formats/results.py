"""The immutable result record every score in Lemmata is stored as.

A result names its *frozen tuple* — dataset release, split, retrieval artifact,
scoring artifact, evaluation date — so rows computed against different releases
or artifacts are never ranked together. ``result_id`` is a content hash of
everything except ``scored_at``: scoring the same file twice gives the same id;
``sealed_sha256`` hashes everything but the id and itself, ``scored_at`` included,
so a stored date cannot be edited either (results stored before the seal carry
none and keep their ids: they are the one schema-1 form whose date is unbound);
and a correction (new verdicts, a fixed scorer) is a new result with
``version + 1`` that ``supersedes`` the old one; nothing stored is rewritten.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_serializer

from lemmata.core.hashing import sha256_json
from lemmata.core.models import Frozen
from lemmata.formats.names import clean_name

RESULT_SCHEMA = "lemmata.result/1"

Kind = Literal["scored", "reported"]
Status = Literal["complete", "pending_oracle"]


def omit_when_none(*fields: str) -> Any:
    """A model serializer that leaves ``fields`` out of the dump while they are None.

    Fields added to a stored format after records were stored are named here, so a record
    stored before them dumps as it did: its bytes and its content-hash id stay the same.
    """
    def omit(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        for key in fields:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    return model_serializer(mode="wrap")(omit)


class FrozenTuple(Frozen):
    """What a number was computed against; results are comparable only within one group."""

    dataset_release: str = Field(description="release id, e.g. 're2math-1.0.0'")
    split: str = Field(description="'<config>/<split>', e.g. 'eval200/test'")
    retrieval_artifact: str | None = Field(description="frozen retrieval artifact id, or None when the track has none")
    scoring_artifact: str = Field(description="scorer/oracle id with versions, e.g. judge id + rubric versions")
    date: str = Field(description="evaluation date (YYYY-MM-DD): the submission's received date, or the paper's")

    @field_validator("date")
    @classmethod
    def _iso_date(cls, v: str) -> str:
        dt.date.fromisoformat(v)
        return v

    def group_key(self) -> str:
        """Rows with equal keys may be ranked together (the date is not part of it)."""
        return " | ".join([self.dataset_release, self.split, self.retrieval_artifact or "-", self.scoring_artifact])


#: what kind of system a result is for (the board filters on it)
ModelKind = Literal["retriever", "llm", "agent", "prover", "baseline", "other"]

#: ModelInfo fields added after results were first stored: omitted from the JSON when unset, so the
#: content hash (the result id) of every result stored before them stays byte-identical
_OPTIONAL_MODEL_FIELDS = ("kind", "parameters", "dimension", "max_length", "open_weights", "licence",
                          "prompts", "index", "endpoint_model", "sampling", "prompt_version", "modality",
                          "instruction_template", "reranker")


class RerankerInfo(Frozen):
    """The second stage of a reranked run: which model rescored the first stage's top ``depth``."""

    name: str = Field(min_length=1, max_length=200)
    revision: str | None = Field(default=None, max_length=200, description="model revision, commit or weights hash")
    endpoint_model: str | None = Field(default=None, max_length=200,
                                       description="the model id a rerank endpoint reported (may differ from name)")
    max_length: int | None = Field(default=None, ge=1, le=100_000_000,
                                   description="maximum input length in tokens the reranker was run with")
    depth: int = Field(ge=1, le=1000, description="how many of the first stage's documents were rescored")

    @field_validator("name", "revision", "endpoint_model")
    @classmethod
    def _visible(cls, v: str | None, info: ValidationInfo) -> str | None:
        return None if v is None else clean_name(v, f"model.reranker.{info.field_name}")

    _omit_unset = omit_when_none("revision", "endpoint_model", "max_length")


class ModelInfo(Frozen):
    """Who produced a submission: the declared model identity, shown on the board and part of the result."""

    name: str = Field(min_length=1, max_length=200)
    revision: str | None = Field(default=None, max_length=200,
                                 description="model revision, commit or weights hash")
    url: str | None = Field(default=None, max_length=500)
    kind: ModelKind | None = Field(default=None, description="retriever, llm, agent, prover, baseline or other")
    parameters: int | None = Field(default=None, ge=0, le=10**15, description="parameter count, where known")
    dimension: int | None = Field(default=None, ge=1, le=1_000_000, description="embedding dimension (retrievers)")
    max_length: int | None = Field(default=None, ge=1, le=100_000_000,
                                   description="maximum input length in tokens the model was run with")
    open_weights: bool | None = Field(default=None, description="weights publicly downloadable")
    licence: str | None = Field(default=None, max_length=100, description="the model's licence (SPDX id or name)")
    prompts: dict[str, str] | None = Field(default=None, max_length=16,
                                           description="prompts by role, e.g. {'query': 'query: ', 'document': ''}")
    index: str | None = Field(default=None, max_length=100,
                              description="search index kind, e.g. 'exact' or 'usearch-hnsw(M=16)'")
    endpoint_model: str | None = Field(default=None, max_length=200,
                                       description="the model id an API endpoint reported (may differ from name)")
    sampling: dict[str, float | int | str | bool | None] | None = Field(
        default=None, max_length=32, description="sampling parameters (temperature, top_p, seed, max_tokens, n)")
    prompt_version: str | None = Field(default=None, max_length=100,
                                       description="version of the benchmark's prompt templates the run used")
    modality: Literal["text", "text+image"] | None = Field(
        default=None, description="what the model was declared to read: text only (figures as their text "
                                  "description) or text and images (figures as image parts)")
    instruction_template: str | None = Field(
        default=None, max_length=500, description="how each task's declared query instruction was put before its "
                                                  "queries, '{instruction}' standing for it (e.g. 'Instruct: "
                                                  "{instruction}\\nQuery: '); unset: no instructions were applied")
    reranker: RerankerInfo | None = Field(default=None, description="the cross-encoder or rerank endpoint that "
                                                                    "rescored this first stage's top documents")

    @field_validator("name", "revision", "endpoint_model")
    @classmethod
    def _visible(cls, v: str | None, info: ValidationInfo) -> str | None:
        """NFC, and nothing a reader cannot see (zero-width, bidi and control characters, private use)."""
        return None if v is None else clean_name(v, f"model.{info.field_name}")

    @field_validator("url")
    @classmethod
    def _http(cls, v: str | None) -> str | None:
        if v is not None and v != "" and not re.match(r"^https?://[^\s<>\"']+$", v):
            raise ValueError("url must be an http(s) URL without spaces or quotes")
        return v or None

    _omit_unset_optional = omit_when_none(*_OPTIONAL_MODEL_FIELDS)

    def identity(self) -> str:
        """A hash of everything that makes a system this system (name, revision, prompts, index, sampling…).

        Beyond ``name``/``revision``/``url`` every field is optional metadata a header
        may declare (a harness fills them from the model it ran); unset fields are left
        out of the JSON, so results stored before they existed keep their ids. Two runs
        that differ in prompts, index or sampling are never taken for the same system;
        licence, openness and size describe a model without changing what ran, so they
        are left out of the identity.

        >>> ModelInfo(name="bm25").model_dump(mode="json")
        {'name': 'bm25', 'revision': None, 'url': None}
        >>> m = ModelInfo(name="e5", parameters=33_000_000, prompts={"query": "query: "})
        >>> sorted(m.model_dump(mode="json"))
        ['name', 'parameters', 'prompts', 'revision', 'url']
        >>> m.identity() != ModelInfo(name="e5", parameters=33_000_000).identity()
        True
        >>> ModelInfo(name="e5", licence="MIT").identity() == ModelInfo(name="e5").identity()
        True
        """
        body = self.model_dump(mode="json", exclude={"url", "licence", "open_weights", "parameters", "kind"})
        return sha256_json(body)[:16]


class Score(Frozen):
    """The headline number of a result, with its interval when one is defined."""

    metric: str
    value: float | None = Field(description="None when nothing is computable yet (all pending)")
    interval: tuple[float, float] | None = None
    interval_kind: str | None = Field(default=None, description="e.g. 'wilson95', 'paper_cluster_bootstrap95'")
    count: int | None = None
    total: int | None = None
    bounds: tuple[float, float] | None = Field(
        default=None, description="while items are pending, the range the headline can still end in (every pending "
                                  "verdict failing … every one passing), where the scorer computes it (a rate that is "
                                  "not a count over items, e.g. pass@k over n samples); None otherwise")

    _omit_unbounded = omit_when_none("bounds")  # results stored before the field keep their bytes and ids


class RunUsage(Frozen):
    """What an LLM run spent, summed over the answers of its runner request log, as the endpoint reported them.

    Self-reported like the log (the scorer checks the log against the release, but cannot recompute what an
    endpoint charged): tokens are counted over the answers that report them, and ``cost`` only where every
    answer reports one (an endpoint that reports no price gives None, never 0). Not part of a score.

    >>> RunUsage.of([{"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.5},
    ...              {"prompt_tokens": 3, "completion_tokens": None}, {"abstention": "timeout"}]).model_dump()
    {'answers': 3, 'reporting': 2, 'prompt_tokens': 13, 'completion_tokens': 5, 'cost': None}
    >>> RunUsage.of([{"text": "x"}]) is None
    True
    """

    answers: int = Field(ge=0, description="answers in the run's request log")
    reporting: int = Field(ge=0, description="answers whose endpoint reported token usage")
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    cost: float | None = Field(default=None, ge=0, description="total price, where every answer reports one")

    @classmethod
    def of(cls, answers: list[dict[str, Any]]) -> "RunUsage | None":
        """The sums over logged answers (``LoggedAnswer`` dumps); None when no answer reports any usage."""
        def count(a: dict[str, Any], key: str) -> int:
            v = a.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0

        reporting = [a for a in answers if count(a, "prompt_tokens") or count(a, "completion_tokens")]
        if not reporting:
            return None
        costs = [a.get("cost") for a in answers]
        priced = all(isinstance(c, (int, float)) and not isinstance(c, bool) and c >= 0 for c in costs)
        return cls(answers=len(answers), reporting=len(reporting),
                   prompt_tokens=sum(count(a, "prompt_tokens") for a in answers),
                   completion_tokens=sum(count(a, "completion_tokens") for a in answers),
                   cost=round(float(sum(costs)), 6) if priced else None)  # type: ignore[arg-type]


class Result(Frozen):
    schema_version: Literal["lemmata.result/1"] = RESULT_SCHEMA
    result_id: str = ""
    version: int = Field(default=1, ge=1)
    supersedes: str | None = None
    kind: Kind
    benchmark: str = Field(description="registry name of the release's benchmark, e.g. 're2math'")
    track: str
    frozen: FrozenTuple
    submission_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    model: ModelInfo
    flags: dict[str, Any] = Field(default_factory=dict)
    main: Score
    metrics: dict[str, Any] = Field(default_factory=dict)
    breakdowns: dict[str, Any] = Field(default_factory=dict)
    items: list[dict[str, Any]] = Field(default_factory=list)
    pending: int = Field(default=0, ge=0, description="items whose verdict awaits an oracle")
    status: Status = "complete"
    notes: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)
    #: tokens and price of an LLM run, from its runner request log (None: no log, or no usage reported in it)
    usage: RunUsage | None = None
    scored_at: str = Field(description="wall-clock time of scoring; the only field that differs between rescoring runs")
    sealed_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$",
        description="hash of every stored field but result_id and itself (scored_at included): binds the date, "
                    "which the result id leaves out so that rescoring the same file gives the same id")

    # results stored before the seal, and results without usage, keep their bytes and ids
    _omit_unsealed = omit_when_none("sealed_sha256", "usage")

    def content_id(self) -> str:
        """Hash of the result without ``result_id``, ``scored_at`` and the seal (the same file scored twice has
        one id)."""
        body = self.model_dump(mode="json", exclude={"result_id", "scored_at", "sealed_sha256"})
        return sha256_json(body)

    def seal(self) -> str:
        """Hash of every field but ``result_id`` and the seal itself: what is stored or shown, the date included."""
        return sha256_json(self.model_dump(mode="json", exclude={"result_id", "sealed_sha256"}))

    def finalized(self) -> "Result":
        """This result with ``result_id`` set from its content and sealed (its date bound as well)."""
        done = self.model_copy(update={"result_id": self.content_id(), "sealed_sha256": None})
        return done.model_copy(update={"sealed_sha256": done.seal()})

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_file(cls, path: str | Path) -> "Result":
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def make_result(**fields: Any) -> Result:
    """Build, validate and content-address a result (``scored_at`` defaults to now)."""
    fields.setdefault("scored_at", now_iso())
    return Result(**fields).finalized()
