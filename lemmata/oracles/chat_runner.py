"""Run many chat completions against any OpenAI-compatible endpoint: concurrent, retried, cached, resumable.

A benchmark protocol (TaoBench's sampler, Re²Math's E3/E4 agent) turns its
items into :class:`ChatJob` s and hands a batch to :meth:`ChatRunner.run`;
what comes back is one :class:`Completion` per job — the text, or an
*abstention* with its reason. Nothing a model answers crashes a run:

- **bounded concurrency** — at most ``concurrency`` requests in flight
  (:class:`~lemmata.oracles.pool.Pool`), over the one chat client
  (:class:`~lemmata.oracles.chat.ChatClient`: pooled connections; OpenAI,
  vLLM, TGI, llama.cpp server and Ollama all speak ``POST /chat/completions``);
- **retries** — the client's: 429, 5xx, timeouts, dropped connections and
  bodies that are not a chat completion are retried with exponential backoff
  from ``LEMMATA_LLM_BACKOFF_S``, at least the server's ``Retry-After``; when
  retries run out the job is an abstention (``unavailable: …``) that is *not*
  cached, so the next run asks again; a request the endpoint rejects (context
  too long) is a ``rejected: …`` abstention, not cached either; refused
  credentials (401/403) stop the run at once;
- **abstentions** — a refusal (``message.refusal`` or ``finish_reason`` =
  ``content_filter``), a truncated completion (``finish_reason`` = ``length``),
  an empty or missing message and a reply without choices are answers
  (:func:`~lemmata.oracles.chat.parse_completion`): they are recorded, with
  their reason, and cached like any answer. So is an *oversize* reply: the
  runner reads at most :data:`MAX_REPLY_BYTES` of a reply body and keeps at
  most :data:`MAX_REPLY_TEXT_BYTES` of completion text, bounds derived from
  the upload's line limit, so a run never writes a record its own scorer
  refuses (the text of an oversize reply is dropped, its size recorded);
- **circuit breaker** — after ``breaker`` failed attempts in a row across the
  run (5xx, timeouts, dropped connections: no answer at all; a rate limit does
  not count, and any answer resets the count, a malformed one included: a
  model whose replies to some prompts never parse is not a dead endpoint,
  and those jobs end as ``unavailable``) the endpoint is taken for down:
  the run stops at once with :class:`EndpointDown`, every answer received so
  far cached, and the same command resumes it. A dead endpoint therefore ends
  a run after about ``ceil(breaker / concurrency)`` rounds of attempts, each
  at most ``timeout_s`` plus its backoff: seconds for an endpoint that answers
  every request with a 500, one ``timeout_s`` (600 s by default) for a silent
  one at the default concurrency of 8, instead of every job's full retry
  schedule;
- **request cache** — every answer is appended (one JSON line, written before
  the job counts as done) to a cache file keyed by the request: model, the
  sha256 of the messages, every sampling parameter, the seed and the sample
  index. A rerun costs nothing; a run stopped by Ctrl-C or a crash resumes
  where it stopped, and the answers it gets are the ones the first run got, so
  the submission written at the end is byte-identical. A torn last line (the
  process died mid-write) is ignored;
- **accounting** — requests sent, answers served from the cache, prompt and
  completion tokens and cost (where the endpoint reports ``usage.cost``), and
  abstentions by reason, in :class:`RunStats`; a progress bar with ETA on a
  terminal.

The endpoint comes from ``LEMMATA_LLM_BASE_URL`` / ``LEMMATA_LLM_API_KEY``,
else ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` as the ``openai`` client reads
them (:meth:`Endpoint.from_env`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json
from lemmata.core.settings import environment, read as setting
from lemmata.formats.envelope import MAX_LINE_BYTES
from lemmata.formats.runner_log import LogEntry, LoggedAnswer, LoggedSampling
from lemmata.oracles.chat import (
    ChatClient,
    ChatEndpoint,
    ChatRejected,
    Completion,
    ReplyTooLarge,
    parse_completion,
    request_body,
)
from lemmata.oracles.http import Retryable, env_numbers
from lemmata.oracles.judge import OracleUnavailable
from lemmata.oracles.pool import Pool

__all__ = ["MAX_REPLY_BYTES", "MAX_REPLY_TEXT_BYTES", "ChatJob", "ChatRunner", "Completion", "Endpoint",
           "EndpointDown", "RequestCache", "RunInterrupted", "RunStats", "Sampling", "bounded", "parse_completion",
           "request_key"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: retryable failures after which a job becomes an "unavailable" abstention for this run
UNAVAILABLE = "unavailable"
#: a reply over a size bound: an abstention with its size, its text dropped
OVERSIZE = "oversize"
#: the most of one reply body the runner reads: one upload line's limit (a longer body is not read on)
MAX_REPLY_BYTES = MAX_LINE_BYTES
#: the most completion text (UTF-8 bytes) a run keeps: written as JSON (at most 6 bytes for each byte escaped)
#: with the rest of its record, it still fits one upload line (:data:`~lemmata.formats.envelope.MAX_LINE_BYTES`)
#: and one runner-log line
MAX_REPLY_TEXT_BYTES = MAX_LINE_BYTES // 8


class RunInterrupted(LemmataError):
    """The run was stopped (Ctrl-C); every answer received so far is in the cache and a rerun resumes."""


class EndpointDown(LemmataError):
    """The circuit breaker stopped the run: the endpoint failed too many attempts in a row. Every answer received
    so far is cached, so the same command resumes once the endpoint answers again."""


class Sampling(BaseModel):
    """Sampling parameters sent with every request of a run (and part of every cache key)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = Field(default=0.0, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = Field(default=None, description="base seed; sample i of an item is sent seed + i")

    def request_fields(self, sample: int) -> dict[str, Any]:
        """The body fields for sample ``sample`` (unset ones are left to the server).

        >>> Sampling(temperature=1.0, seed=7).request_fields(2)
        {'temperature': 1.0, 'seed': 9}
        """
        out: dict[str, Any] = {"temperature": self.temperature}
        if self.top_p is not None:
            out["top_p"] = self.top_p
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        if self.seed is not None:
            out["seed"] = self.seed + sample
        return out


@dataclass(frozen=True)
class ChatJob:
    """One request: ``messages`` sampled with ``sampling``; ``sample`` tells the N draws of one prompt apart."""

    id: str
    messages: tuple[Mapping[str, str], ...]
    sampling: Sampling = Sampling()
    sample: int = 0

    def messages_sha256(self) -> str:
        """sha256 of the messages (role and content, canonical JSON): what a request log records of the prompt."""
        return sha256_json([{"role": m["role"], "content": m["content"]} for m in self.messages])

    def cache_key(self, model: str) -> str:
        """sha256 over (model, prompt hash, sampling parameters, seed, sample index)."""
        return request_key(model, self.messages_sha256(), self.sampling, self.sample)

    def logged(self, model: str, completion: "Completion", item: str) -> LogEntry:
        """This request and the answer a run used, as one request-log entry (:mod:`lemmata.formats.runner_log`)."""
        return LogEntry(key=self.cache_key(model), item=item, sample=self.sample, model=model,
                        messages_sha256=self.messages_sha256(),
                        sampling=LoggedSampling(**self.sampling.model_dump(mode="json")),
                        seed=self.sampling.request_fields(self.sample).get("seed"),
                        answer=LoggedAnswer(**completion.model_dump(mode="json")))


def request_key(model: str, messages_sha256: str, sampling: Sampling, sample: int) -> str:
    """The request cache's key: a scorer recomputes it from a request log's fields.

    >>> request_key("m", "0" * 64, Sampling(), 0)[:12]
    '49029641ab75'
    """
    return sha256_json({"model": model, "prompt": messages_sha256, "sampling": sampling.model_dump(mode="json"),
                        "sample": sample, "sent": sampling.request_fields(sample)})


# --- the endpoint -------------------------------------------------------------------------------------------------


class Endpoint(ChatEndpoint):
    """The runner's endpoint: where requests go, how patiently, and how many at a time."""

    key_hint: ClassVar[str] = "LEMMATA_LLM_API_KEY or OPENAI_API_KEY"
    user_agent: ClassVar[str] = "lemmata-runner/1"

    timeout_s: float = Field(default=600.0, gt=0)
    max_retries: int = Field(default=6, ge=0)
    concurrency: int = Field(default=8, ge=1, le=1024)
    breaker: int = Field(default=8, ge=1, description="failed attempts in a row (no reply between) that stop a run")

    @classmethod
    def from_env(cls, model: str, environ: Mapping[str, str] | None = None, **override: Any) -> "Endpoint":
        """``LEMMATA_LLM_*`` first, then ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; keyword overrides win."""
        env = environment(environ)
        fields: dict[str, Any] = {
            "base_url": setting("LEMMATA_LLM_BASE_URL", env) or setting("OPENAI_BASE_URL", env) or DEFAULT_BASE_URL,
            "api_key": setting("LEMMATA_LLM_API_KEY", env) or setting("OPENAI_API_KEY", env) or "",
            **env_numbers(env, (("LEMMATA_LLM_TIMEOUT_S", "timeout_s", float),
                                ("LEMMATA_LLM_MAX_RETRIES", "max_retries", int),
                                ("LEMMATA_LLM_BACKOFF_S", "backoff_s", float),
                                ("LEMMATA_LLM_CONCURRENCY", "concurrency", int),
                                ("LEMMATA_LLM_BREAKER", "breaker", int))),
        }
        fields.update({k: v for k, v in override.items() if v is not None})
        try:
            return cls(model=model, **fields)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise LemmataError(f"chat endpoint: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None

    @property
    def shown_url(self) -> str:
        """The base URL without credentials or query (what run metadata records).

        >>> Endpoint(base_url="https://u:secret@h.example/v1?key=k", model="m").shown_url
        'https://h.example/v1'
        """
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(self.base_url)
        return urlunsplit((parts.scheme, parts.hostname + (f":{parts.port}" if parts.port else ""), parts.path, "", ""))


def bounded(completion: Completion) -> Completion:
    """``completion``, or an ``oversize`` abstention without its text when the text is longer than a run keeps.

    >>> bounded(Completion(text="short")).text
    'short'
    >>> big = bounded(Completion(text="x" * (MAX_REPLY_TEXT_BYTES + 1), finish_reason="stop"))
    >>> big.text is None, big.abstention.startswith("oversize: the completion is 1,048,577 bytes"), big.finish_reason
    (True, True, 'stop')
    """
    size = len(completion.text.encode("utf-8", "surrogatepass")) if completion.text else 0
    if size <= MAX_REPLY_TEXT_BYTES:
        return completion
    return completion.model_copy(update={
        "text": None, "abstention": f"{OVERSIZE}: the completion is {size:,} bytes of text; a run keeps at most "
                                    f"{MAX_REPLY_TEXT_BYTES:,} (what one submission line can hold)"})


# --- the cache ----------------------------------------------------------------------------------------------------


class RequestCache:
    """Answers by request key, one JSON line each, appended as they arrive (``None`` folder: memory only)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._answers: dict[str, Completion] = {}
        self._torn_tail = False
        self._fh: Any = None
        if self.path is not None and self.path.is_file():
            with open(self.path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                if fh.tell():
                    fh.seek(-1, os.SEEK_END)
                    self._torn_tail = fh.read(1) != b"\n"
                fh.seek(0)
                for raw in fh:
                    try:
                        obj = json.loads(raw)
                        self._answers[obj["key"]] = Completion.model_validate(obj["completion"])
                    except (ValueError, KeyError, TypeError):
                        continue  # a torn line written when a run was killed: that request is asked again

    def get(self, key: str) -> Completion | None:
        return self._answers.get(key)

    def __len__(self) -> int:
        return len(self._answers)

    def put(self, key: str, completion: Completion) -> None:
        """Keep an answer and append it to the file at once (flushed: a killed run keeps every answer received).
        The file stays open between answers, so a run of thousands of requests does not reopen it each time."""
        line = json.dumps({"key": key, "completion": completion.model_dump(mode="json", exclude_none=True)},
                          ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            self._answers[key] = completion
            if self.path is None:
                return
            if self._fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "a", encoding="utf-8")
            self._fh.write(("\n" if self._torn_tail else "") + line)
            self._fh.flush()
            self._torn_tail = False

    def close(self) -> None:
        """Close the append handle (a later answer opens it again)."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __del__(self) -> None:
        fh = getattr(self, "_fh", None)
        if fh is not None:
            fh.close()


def default_cache(model: str) -> RequestCache:
    """The per-model cache file under ``LEMMATA_LLM_CACHE`` (default ``$LEMMATA_HOME/cache/chat``)."""
    from lemmata.core.paths import lemmata_home
    from lemmata.oracles.judge import slug

    folder = setting("LEMMATA_LLM_CACHE")
    root = Path(folder).expanduser() if folder else lemmata_home() / "cache" / "chat"
    return RequestCache(root / f"{slug(model)}.jsonl")


# --- the runner ---------------------------------------------------------------------------------------------------


@dataclass
class RunStats:
    """What a run cost: the run's metadata (never part of a submission, which must not depend on it)."""

    #: prompts the run had to answer, and how: from the cache, sent, or sent again after a failure
    jobs: int = 0
    from_cache: int = 0
    sent: int = 0
    retries: int = 0
    #: what the endpoint reported spending (tokens; price only where it says)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    #: unusable completions by reason (refused, truncated, ...), and which model the endpoint said answered
    abstentions: Counter = field(default_factory=Counter)
    endpoint_models: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def add(self, c: Completion) -> None:
        self.prompt_tokens += c.prompt_tokens or 0
        self.completion_tokens += c.completion_tokens or 0
        if c.cost is not None:
            self.cost = (self.cost or 0.0) + c.cost
        if c.abstention:
            self.abstentions[c.abstention.split(":")[0]] += 1
        if c.endpoint_model:
            self.endpoint_models[c.endpoint_model] += 1

    def as_dict(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "from_cache": self.from_cache, "requests_sent": self.sent,
                "retries": self.retries, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost": self.cost,
                "abstentions": dict(sorted(self.abstentions.items())),
                "endpoint_models": dict(sorted(self.endpoint_models.items())), "seconds": round(self.seconds, 3)}


class ChatRunner:
    """One endpoint, one cache; :meth:`run` answers a batch of jobs concurrently."""

    def __init__(self, endpoint: Endpoint, cache: RequestCache | None = None, *,
                 sleep: Callable[[float], None] | None = None, transport: Any = None) -> None:
        self.endpoint = endpoint
        self.cache = cache if cache is not None else RequestCache(None)
        self.stats = RunStats()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        #: failed attempts in a row (no reply between), and why the breaker stopped the run (None: it did not)
        self._failures = 0
        self._tripped: str | None = None
        # a backoff wait ends early when the run stops (the breaker, Ctrl-C): nothing sleeps past a stopped run
        self.client = ChatClient(endpoint, sleep=sleep or self._stop.wait, transport=transport,
                                 connections=endpoint.concurrency)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> "ChatRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # one request ---------------------------------------------------------------------------------------------

    def ask(self, job: ChatJob) -> tuple[Completion, bool]:
        """The answer to one job and whether it may be cached (transport failures and rejections may not)."""
        body = request_body(self.endpoint.model, job.messages, job.sampling.request_fields(job.sample))

        def once() -> tuple[Completion, bool]:
            if self._stop.is_set():
                raise EndpointDown(self._tripped) if self._tripped else RunInterrupted("stopped")
            self._count("sent")
            try:
                raw = self.client.post(body, max_bytes=MAX_REPLY_BYTES)
            except ReplyTooLarge as exc:  # an answer, and a model's own: recorded and cached like a truncated one
                self._breaker(None)
                return Completion(abstention=f"{OVERSIZE}: {exc}"), True
            except Retryable as exc:  # no answer: an error status, a timeout, a dropped connection
                if self._breaker(exc):
                    raise EndpointDown(self._tripped) from None
                raise
            except ChatRejected as exc:
                # the endpoint rejected this one request (context too long, bad parameter): an answer, not cached
                self._breaker(None)
                detail = exc.raw[:300].decode("utf-8", "replace").strip()
                return Completion(abstention=f"rejected: HTTP {exc.status} {detail[:200]}".strip()), False
            self._breaker(None)  # the endpoint answered; a body that is no chat completion is retried all the same
            return bounded(parse_completion(raw)), True

        try:
            return self.client.retrying(once, unavailable=lambda n, why: f"no answer after {n} attempt(s): {why}",
                                        on_retry=lambda: self._count("retries"))
        except OracleUnavailable as exc:
            return Completion(abstention=f"{UNAVAILABLE}: {exc}"), False

    def _breaker(self, failure: Retryable | None) -> bool:
        """Count a failed attempt (``failure``) or reset the count on a reply; at ``endpoint.breaker`` failures in
        a row, stop the run (every thread's next attempt, and every backoff wait, ends there) and return True.
        A rate limit (429) is the endpoint answering "slower", not failing: it neither counts nor resets."""
        with self._lock:
            if failure is None:
                self._failures = 0
                return False
            if failure.status == 429:
                return self._tripped is not None
            self._failures += 1
            if self._failures < self.endpoint.breaker and self._tripped is None:
                return False
            if self._tripped is None:
                self._tripped = (f"the chat endpoint {self.endpoint.shown_url} failed {self._failures} attempts in a "
                                 f"row with no answer between them (the last: {str(failure)[:200]}); the run stopped")
        self._stop.set()
        return True

    def _count(self, name: str) -> None:
        with self._lock:
            setattr(self.stats, name, getattr(self.stats, name) + 1)

    def _ask_and_cache(self, job: ChatJob, key: str) -> Completion:
        # cached in the worker thread the moment it arrives, so an answer in flight when the run is stopped is kept
        completion, cacheable = self.ask(job)
        if cacheable:
            self.cache.put(key, completion)
        return completion

    # a batch ---------------------------------------------------------------------------------------------------

    def run(self, jobs: Sequence[ChatJob], *, desc: str = "chat", quiet: bool = False,
            on_answer: Callable[[ChatJob, Completion], Iterable[ChatJob] | Future | None] | None = None,
            ) -> dict[str, Completion]:
        """Answers by job id (every job, follow-ups included); Ctrl-C raises :class:`RunInterrupted`.

        ``on_answer(job, completion)`` is called in the calling thread for every answer, cached ones
        included, after it is cached; the jobs it returns are *follow-ups* asked in the same run (a
        multi-step protocol: the next step of one item starts as soon as its previous answer is in, while
        other items' requests are still in flight). Job ids must be unique across the run.

        ``on_answer`` may instead return a :class:`~concurrent.futures.Future` when the answer's next step needs
        something not yet there (a world still opening): the answer is handed to ``on_answer`` again once that
        future is done, and meanwhile the run goes on — the requests queued and in flight, the other answers —
        where waiting in ``on_answer`` would have held every next request back.
        """
        started = time.perf_counter()
        model = self.endpoint.model
        out: dict[str, Completion] = {}
        order: list[str] = []
        ready: deque[tuple[ChatJob, Completion]] = deque()
        waiting: dict[Future, list[tuple[ChatJob, Completion]]] = {}
        self._stop.clear()
        self._failures, self._tripped = 0, None
        pool: Pool[tuple[ChatJob, str], Completion] = Pool(lambda item: self._ask_and_cache(*item),
                                                           workers=self.endpoint.concurrency, name="lemmata-chat")
        bar = _bar(len(jobs), 0, desc, quiet)
        seen: set[str] = set()

        def add(new: Iterable[ChatJob]) -> None:
            for job in new:
                if job.id in seen:
                    raise ValueError(f"job id {job.id!r} is used twice in one run")
                seen.add(job.id)
                order.append(job.id)
                self.stats.jobs += 1
                key = job.cache_key(model)
                hit = self.cache.get(key)
                if hit is not None:
                    self.stats.from_cache += 1
                    answered(job, bounded(hit))  # a cache written before the bound holds no more than a reply may
                else:
                    pool.add((job, key))

        def answered(job: ChatJob, completion: Completion) -> None:
            out[job.id] = completion
            self.stats.add(completion)
            if bar is not None:
                bar.update(1)
            ready.append((job, completion))

        def follow_up() -> None:
            for fut in [fut for fut in waiting if fut.done()]:  # answers whose next step can go on now, first
                ready.extendleft(reversed(waiting.pop(fut)))
            while ready:
                job, completion = ready.popleft()
                follow = on_answer(job, completion) if on_answer is not None else None
                if isinstance(follow, Future):  # handed back after the pool's next wait ends on it
                    waiting.setdefault(follow, []).append((job, completion))
                    pool.watch(follow)
                    continue
                if follow:
                    follow = list(follow)
                    if bar is not None:
                        bar.total += len(follow)
                    add(follow)

        try:
            add(jobs)
            follow_up()
            for batch in pool.batches():
                for (job, _), completion in batch:
                    answered(job, completion)
                follow_up()
            if self._tripped is not None:  # the last jobs ran out of retries as the breaker tripped
                raise EndpointDown(self._tripped)
        except KeyboardInterrupt:
            self._stop.set()
            pool.close()
            raise RunInterrupted(f"interrupted after {len(out)} answers; every answer received is cached: run the "
                                 "same command again to resume") from None
        except (EndpointDown, RunInterrupted):
            if self._tripped is None:
                raise
            pool.close()
            raise EndpointDown(f"{self._tripped} after {len(out)} of {len(order)} answers; every answer received "
                               "is cached: run the same command again to resume once the endpoint answers "
                               f"(LEMMATA_LLM_BREAKER={self.endpoint.breaker} sets how many failures in a row "
                               "stop a run)") from None
        finally:
            self._stop.set()
            pool.close()
            if bar is not None:
                bar.close()
            self.stats.seconds += time.perf_counter() - started
        return {i: out[i] for i in order}


def _bar(total: int, initial: int, desc: str, quiet: bool) -> Any:
    import sys

    if quiet or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, file=sys.stderr, unit="req", leave=False)
