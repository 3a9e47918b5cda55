"""The one OpenAI-compatible chat-completions client, its response models, and the judge built on it.

Every chat request Lemmata sends goes through :class:`ChatClient`: one pooled
``httpx`` connection set per endpoint, one way to read a reply
(:class:`ChatCompletion`, :func:`parse_completion`), one retry policy
(:func:`~lemmata.oracles.http.with_retries`: rate limits (429), server errors
(5xx), timeouts, dropped connections and protocol-malformed bodies are retried
with exponential backoff from the endpoint's ``backoff_s``, at least the
server's ``Retry-After``, up to the backoff cap). Refused credentials stop the
work at once: no retry can fix them. Two kinds of endpoint use it:

- the judge (:class:`ChatConfig`, :class:`ChatJudge`), configured by
  environment so no credential ever sits in a file: ``LEMMATA_JUDGE_BASE_URL``
  (e.g. ``https://api.openai.com/v1``), ``LEMMATA_JUDGE_MODEL``,
  ``LEMMATA_JUDGE_API_KEY``, and optionally ``LEMMATA_JUDGE_ID`` (the judge's
  name in the scoring artifact; default ``chat:<model>``),
  ``LEMMATA_JUDGE_TIMEOUT_S``, ``LEMMATA_JUDGE_MAX_RETRIES``,
  ``LEMMATA_JUDGE_JSON_MODE`` (``0`` to never send ``response_format``). Its
  requests use temperature 0 and ask for a JSON object where the server
  supports it (a server that rejects ``response_format`` is asked again
  without it); a reply without message content is retried, and when retries
  run out the question stays pending;
- the runner of ``lemmata run`` (:mod:`lemmata.oracles.chat_runner`), which
  puts its request cache, abstentions and accounting on top.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lemmata.core.errors import Error
from lemmata.core.models import Frozen
from lemmata.core.settings import environment, read as setting
from lemmata.oracles.http import (
    RETRY_STATUS,
    OracleAuthError,
    OracleRequestError,
    Retryable,
    env_numbers,
    retry_after,
    with_retries,
)
from lemmata.oracles.judge import Judge, JudgeAnswer, OracleUnavailable, Rubric, parse_verdict, unparsable

__all__ = ["ChatClient", "ChatCompletion", "ChatConfig", "ChatEndpoint", "ChatJudge", "ChatRejected", "Completion",
           "OracleAuthError", "OracleRequestError", "OracleUnavailable", "ReplyTooLarge", "judge_from_env",
           "parse_completion", "request_body"]

ENV_BASE_URL = "LEMMATA_JUDGE_BASE_URL"
ENV_MODEL = "LEMMATA_JUDGE_MODEL"
ENV_API_KEY = "LEMMATA_JUDGE_API_KEY"
ENV_JUDGE_ID = "LEMMATA_JUDGE_ID"
#: the largest response body read (a chat completion is far smaller)
MAX_RESPONSE_BYTES = 16 * 1024 * 1024

T = TypeVar("T")


# --- endpoints ----------------------------------------------------------------------------------------------------


class ChatEndpoint(Frozen):
    """Where chat requests go and how patiently; a subclass names the endpoint's role in messages."""

    #: the endpoint in messages ("the judge endpoint https://…"), the setting that holds its key, its User-Agent
    role: ClassVar[str] = "chat endpoint"
    key_hint: ClassVar[str] = ""
    user_agent: ClassVar[str] = "lemmata/1"

    base_url: str = Field(pattern=r"^https?://\S+$")
    model: str = Field(min_length=1)
    api_key: str = Field(default="", repr=False)
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_s: float = Field(default=1.0, ge=0)
    max_backoff_s: float = Field(default=60.0, ge=0)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


class ChatConfig(ChatEndpoint):
    """The judge's endpoint (``LEMMATA_JUDGE_*``)."""

    role: ClassVar[str] = "judge endpoint"
    key_hint: ClassVar[str] = ENV_API_KEY
    user_agent: ClassVar[str] = "lemmata-judge/1"

    judge_id: str | None = None
    json_mode: bool = True
    max_tokens: int = Field(default=1024, gt=0)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "ChatConfig | None":
        """The configured judge endpoint, or None when base URL or model is not set."""
        env = environment(environ)
        base, model = (setting(ENV_BASE_URL, env) or ""), (setting(ENV_MODEL, env) or "")
        if not base or not model:
            return None
        extra: dict[str, Any] = env_numbers(env, (("LEMMATA_JUDGE_TIMEOUT_S", "timeout_s", float),
                                                  ("LEMMATA_JUDGE_MAX_RETRIES", "max_retries", int)))
        json_mode = setting("LEMMATA_JUDGE_JSON_MODE", env)
        if json_mode:
            extra["json_mode"] = json_mode.lower() not in ("0", "false", "no")
        return cls(base_url=base, model=model, api_key=(setting(ENV_API_KEY, env) or ""),
                   judge_id=setting(ENV_JUDGE_ID, env), **extra)

    @property
    def endpoint(self) -> str:
        return self.url

    @property
    def resolved_judge_id(self) -> str:
        return self.judge_id or f"chat:{self.model}"


# --- the protocol -------------------------------------------------------------------------------------------------


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Message(_Lenient):
    content: str | None = None
    refusal: str | None = None


class _Choice(_Lenient):
    message: _Message | None = None
    finish_reason: str | None = None


class Usage(_Lenient):
    """Token and cost accounting of one reply (``cost`` where the endpoint reports it)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None


class ChatCompletion(_Lenient):
    """The fields of a chat-completions response Lemmata reads (others are ignored)."""

    model: str | None = None
    choices: list[_Choice] | None = None
    usage: Any = None  # read leniently: odd accounting never costs an answer

    @classmethod
    def read(cls, raw: bytes) -> "ChatCompletion":
        """The body as a completion; raises Retryable when it is not one at all (a proxy's error page)."""
        try:
            return cls.model_validate_json(raw)
        except ValidationError:
            raise Retryable("malformed chat-completions body: " + raw[:120].decode("utf-8", "replace")) from None

    def accounting(self) -> Usage:
        try:
            return Usage.model_validate(self.usage) if isinstance(self.usage, dict) else Usage()
        except ValidationError:
            return Usage()


class Completion(Usage):
    """One answer: ``text`` when usable, else ``abstention`` says why (the text, if any, is kept for audit)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str | None = None
    abstention: str | None = None
    finish_reason: str | None = None
    endpoint_model: str | None = None

    @property
    def ok(self) -> bool:
        return self.abstention is None


def parse_completion(raw: bytes) -> Completion:
    """A chat-completions body as a :class:`Completion`; raises Retryable when it is not one at all.

    A refusal (``message.refusal`` or ``finish_reason`` = ``content_filter``), a truncated completion
    (``finish_reason`` = ``length``), an empty or missing message and a reply without choices are answers
    with an abstention reason.

    >>> parse_completion(b'{"model": "m-1", "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}').text
    'hi'
    >>> parse_completion(b'{"choices": [{"message": {"content": "x"}, "finish_reason": "length"}]}').abstention
    'truncated: the completion hit the token limit (finish_reason=length)'
    >>> parse_completion(b'{"choices": []}').abstention
    'no choices in the reply'
    >>> parse_completion(b'{"choices": [{"message": {"content": "y"}}], "usage": {"prompt_tokens": "many"}}').text
    'y'
    """
    body = ChatCompletion.read(raw)
    meta = {"endpoint_model": body.model, **body.accounting().model_dump()}
    if not body.choices:
        return Completion(abstention="no choices in the reply", **meta)
    choice = body.choices[0]
    message = choice.message or _Message()
    reason, text = choice.finish_reason, message.content
    if message.refusal:
        why = "refused: " + " ".join(message.refusal.split())[:300]
    elif reason == "content_filter":
        why = "refused: the endpoint's content filter stopped the completion"
    elif reason == "length":
        why = "truncated: the completion hit the token limit (finish_reason=length)"
    elif text is None or not text.strip():
        why = "empty completion"
    else:
        why = None
    return Completion(text=text, abstention=why, finish_reason=reason, **meta)


def request_body(model: str, messages: Sequence[Mapping[str, str]], fields: Mapping[str, Any]) -> bytes:
    """The JSON body of one chat-completions request: model, messages, then the sampling ``fields``.

    >>> request_body("m", [{"role": "user", "content": "é"}], {"temperature": 0.0})
    b'{"model": "m", "messages": [{"role": "user", "content": "\\xc3\\xa9"}], "temperature": 0.0}'
    """
    return json.dumps({"model": model, "messages": [dict(m) for m in messages], **fields},
                      ensure_ascii=False).encode("utf-8")


# --- the client ---------------------------------------------------------------------------------------------------


class ReplyTooLarge(Retryable):
    """The reply body ran past the byte cap of its reader, which stopped reading there. Retried like any malformed
    reply by default; the runner, whose cap is what one submission line can hold, records it as an abstention."""


class ChatRejected(Error):
    """The endpoint refused this one request (a 4xx other than credentials or rate limits); ``raw`` is its body."""

    def __init__(self, status: int, raw: bytes) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.raw = raw


class ChatClient:
    """One endpoint over pooled connections: :meth:`post` sends one request, :meth:`retrying` retries a call.

    ``complete`` is the judge's question (a :class:`ChatConfig` endpoint); the runner builds its own on
    :meth:`post`. The connection pool opens on the first request and is safe to share between threads.
    """

    def __init__(self, config: ChatEndpoint, *, sleep: Callable[[float], None] = time.sleep,
                 transport: Any = None, connections: int | None = None) -> None:
        self.config = config
        self._sleep = sleep
        self._transport = transport
        self._connections = connections
        self._json_mode = bool(getattr(config, "json_mode", False))
        self._http: Any = None
        self._lock = threading.Lock()
        self.requests_sent = 0

    @property
    def who(self) -> str:
        return f"the {self.config.role} {self.config.url}"

    def _open(self) -> Any:
        import httpx

        with self._lock:
            if self._http is None:
                headers = {"Content-Type": "application/json", "Accept": "application/json",
                           "User-Agent": self.config.user_agent}
                if self.config.api_key:
                    headers["Authorization"] = f"Bearer {self.config.api_key}"
                limits = (httpx.Limits(max_connections=self._connections, max_keepalive_connections=self._connections)
                          if self._connections else httpx.Limits())
                self._http = httpx.Client(headers=headers, timeout=self.config.timeout_s, limits=limits,
                                          transport=self._transport, trust_env=False)
            return self._http

    def post(self, body: bytes, *, max_bytes: int = MAX_RESPONSE_BYTES) -> bytes:
        """One request; the 200 body, else Retryable (transient), OracleAuthError or :class:`ChatRejected`.

        At most ``max_bytes`` of the reply are read: a longer one raises :class:`ReplyTooLarge` (a Retryable)."""
        import httpx

        http = self._open()
        with self._lock:
            self.requests_sent += 1
        try:
            with http.stream("POST", self.config.url, content=body) as resp:
                chunks, size = [], 0
                for chunk in resp.iter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        raise ReplyTooLarge(f"the reply is larger than {max_bytes:,} bytes (read no further)")
                    chunks.append(chunk)
                raw, status, headers = b"".join(chunks), resp.status_code, resp.headers
        except httpx.TimeoutException:
            raise Retryable(f"no answer within {self.config.timeout_s:g}s") from None
        except httpx.HTTPError as exc:
            raise Retryable(f"connection failed: {type(exc).__name__}: {exc}") from None
        if status in (401, 403):
            raise OracleAuthError(f"{self.who} refused the credentials (HTTP {status}); check {self.config.key_hint}")
        if status in RETRY_STATUS or status >= 500:
            detail = raw[:300].decode("utf-8", "replace").strip()
            raise Retryable(f"HTTP {status} {detail[:120]}".strip(), retry_after(headers), status=status)
        if status != 200:
            raise ChatRejected(status, raw)
        return raw

    def retrying(self, call: Callable[[], T], *, unavailable: Callable[[int, str], str],
                 on_retry: Callable[[], None] | None = None) -> T:
        """``call`` until it does not raise Retryable, with the endpoint's retry budget and backoff."""

        def sleep(seconds: float) -> None:
            if on_retry is not None:
                on_retry()
            self._sleep(seconds)

        return with_retries(call, max_retries=self.config.max_retries, backoff_s=self.config.backoff_s,
                            max_backoff_s=self.config.max_backoff_s, sleep=sleep, unavailable=unavailable)

    def complete(self, messages: list[dict[str, str]]) -> ChatCompletion:
        """The judge's question: temperature 0, JSON mode while the server accepts it, a reply with content.

        Transient failures and replies without message content are retried; raises OracleUnavailable when
        retries run out, OracleRequestError when the server rejects the request itself.
        """
        config: Any = self.config

        def once() -> ChatCompletion:
            while True:
                fields = {"temperature": 0.0, "max_tokens": config.max_tokens,
                          **({"response_format": {"type": "json_object"}} if self._json_mode else {})}
                try:
                    raw = self.post(request_body(config.model, messages, fields))
                except ChatRejected as exc:
                    detail = exc.raw[:500].decode("utf-8", "replace").strip()
                    if exc.status == 400 and self._json_mode and "response_format" in detail:
                        self._json_mode = False
                        continue  # the server has no JSON mode: the same request without response_format
                    raise OracleRequestError(f"{self.who} rejected the request (HTTP {exc.status}): "
                                             f"{detail[:200]}") from None
                completion = ChatCompletion.read(raw)
                if not completion.choices or completion.choices[0].message is None:
                    raise Retryable("malformed chat-completions body: " + raw[:120].decode("utf-8", "replace"))
                if completion.choices[0].message.content is None:
                    raise Retryable("chat-completions reply without message content")
                return completion

        return self.retrying(
            once, unavailable=lambda n, why: f"{self.config.role} {self.config.url} gave no answer after {n} "
                                             f"attempt(s): {why}")

    def close(self) -> None:
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None


# --- the judge ----------------------------------------------------------------------------------------------------


class ChatJudge(Judge):
    """A judge behind an OpenAI-compatible chat-completions endpoint.

    ``read_reply`` reads a reply strictly (None when it is not the one shape allowed) and ``when_unreadable``
    is what is recorded for a reply it cannot read; a grader replaces both.
    """

    read_reply = staticmethod(parse_verdict)
    when_unreadable = staticmethod(unparsable)

    def __init__(self, config: ChatConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.client = ChatClient(config, sleep=sleep)
        self.judge_id = config.resolved_judge_id

    def ask(self, rubric: Rubric, messages: list[dict[str, str]]) -> JudgeAnswer:
        text = self.client.complete(messages).choices[0].message.content or ""  # type: ignore[index, union-attr]
        reply = self.read_reply(text)
        if reply is None:
            return JudgeAnswer(verdict=self.when_unreadable(text), parsed=False, raw=text)
        return JudgeAnswer(verdict=reply, parsed=True, raw=text)

    def describe(self) -> dict[str, Any]:
        return {"id": self.judge_id, "kind": "openai-chat-completions", "model": self.config.model,
                "temperature": 0.0}


def judge_from_env(environ: Mapping[str, str] | None = None) -> ChatJudge | None:
    """The live judge configured by environment, or None (judge-dependent work stays pending)."""
    config = ChatConfig.from_env(environ)
    return ChatJudge(config) if config else None
