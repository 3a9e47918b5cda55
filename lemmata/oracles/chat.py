"""An OpenAI-compatible chat-completions client, and the judge built on it.

Configured by environment so no credential ever sits in a file:
``LEMMATA_JUDGE_BASE_URL`` (e.g. ``https://api.openai.com/v1``),
``LEMMATA_JUDGE_MODEL``, ``LEMMATA_JUDGE_API_KEY``, and optionally
``LEMMATA_JUDGE_ID`` (the judge's name in the scoring artifact; default
``chat:<model>``), ``LEMMATA_JUDGE_TIMEOUT_S``, ``LEMMATA_JUDGE_MAX_RETRIES``,
``LEMMATA_JUDGE_JSON_MODE`` (``0`` to never send ``response_format``).

Requests use temperature 0 and ask for a JSON object where the server
supports it (a server that rejects ``response_format`` is asked again without
it). Rate limits (429), server errors (5xx), timeouts, dropped connections and
protocol-malformed bodies are retried with exponential backoff (``Retry-After``
is honoured up to the backoff cap); when retries run out the question stays
pending. Authentication failures stop the run: no retry can fix them.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lemmata.core.settings import environment, read as setting
from lemmata.core.errors import Error, LemmataError
from lemmata.oracles.http import OracleAuthError, OracleRequestError, Retryable, send, with_retries
from lemmata.oracles.judge import Judge, JudgeAnswer, OracleUnavailable, Rubric, parse_verdict, unparsable

__all__ = ["ChatClient", "ChatConfig", "ChatJudge", "OracleAuthError", "OracleRequestError", "OracleUnavailable",
           "judge_from_env"]

ENV_BASE_URL = "LEMMATA_JUDGE_BASE_URL"
ENV_MODEL = "LEMMATA_JUDGE_MODEL"
ENV_API_KEY = "LEMMATA_JUDGE_API_KEY"
ENV_JUDGE_ID = "LEMMATA_JUDGE_ID"
USER_AGENT = "lemmata-judge/1"


class ChatConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(pattern=r"^https?://\S+$")
    model: str = Field(min_length=1)
    api_key: str = Field(default="", repr=False)
    judge_id: str | None = None
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_s: float = Field(default=1.0, ge=0)
    max_backoff_s: float = Field(default=60.0, ge=0)
    json_mode: bool = True
    max_tokens: int = Field(default=1024, gt=0)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "ChatConfig | None":
        """The configured judge endpoint, or None when base URL or model is not set."""
        env = environment(environ)
        base, model = (setting(ENV_BASE_URL, env) or ""), (setting(ENV_MODEL, env) or "")
        if not base or not model:
            return None
        extra: dict[str, Any] = {}
        for name, key, conv in (("LEMMATA_JUDGE_TIMEOUT_S", "timeout_s", float),
                                ("LEMMATA_JUDGE_MAX_RETRIES", "max_retries", int)):
            if setting(name, env):
                try:
                    extra[key] = conv(setting(name, env))
                except ValueError:
                    raise LemmataError(f"{name} must be a number, got {env[name]!r}") from None
        json_mode = setting("LEMMATA_JUDGE_JSON_MODE", env)
        if json_mode:
            extra["json_mode"] = json_mode.lower() not in ("0", "false", "no")
        return cls(base_url=base, model=model, api_key=(setting(ENV_API_KEY, env) or ""),
                   judge_id=setting(ENV_JUDGE_ID, env), **extra)

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def resolved_judge_id(self) -> str:
        return self.judge_id or f"chat:{self.model}"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    messages: list[ChatMessage]
    temperature: float = 0.0
    max_tokens: int
    response_format: dict[str, str] | None = None


class _ReplyMessage(BaseModel):
    content: str | None = None


class _Choice(BaseModel):
    message: _ReplyMessage
    finish_reason: str | None = None


class ChatCompletion(BaseModel):
    """The fields of a chat-completions response this client relies on (others are ignored)."""

    id: str | None = None
    model: str | None = None
    choices: list[_Choice] = Field(min_length=1)


class _WithoutJsonMode(Error):
    """The server rejected ``response_format``: ask again without it."""


class ChatClient:
    """One endpoint; ``complete`` returns the assistant's text or raises."""

    def __init__(self, config: ChatConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self._json_mode = config.json_mode
        self.requests_sent = 0

    def _post(self, body: bytes) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": USER_AGENT}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        req = urllib.request.Request(self.config.endpoint, data=body, headers=headers, method="POST")
        self.requests_sent += 1

        def json_mode_refused(status: int, detail: str) -> BaseException | None:
            if status == 400 and self._json_mode and "response_format" in detail:
                self._json_mode = False
                return _WithoutJsonMode()
            return None

        return send(req, timeout=self.config.timeout_s, who=f"the judge endpoint {self.config.endpoint}",
                    key_env=ENV_API_KEY, on_status=json_mode_refused)

    def _request(self, messages: list[dict[str, str]]) -> bytes:
        req = ChatRequest(model=self.config.model, messages=[ChatMessage(**m) for m in messages],
                          max_tokens=self.config.max_tokens,
                          response_format={"type": "json_object"} if self._json_mode else None)
        return req.model_dump_json(exclude_none=True).encode("utf-8")

    def complete(self, messages: list[dict[str, str]]) -> ChatCompletion:
        """POST the messages; retry transient failures; raise OracleUnavailable when retries run out."""

        def once() -> ChatCompletion:
            while True:
                try:
                    raw = self._post(self._request(messages))
                except _WithoutJsonMode:
                    continue  # the server has no JSON mode: the same request without response_format
                try:
                    completion = ChatCompletion.model_validate_json(raw)
                except ValidationError:
                    raise Retryable("malformed chat-completions body: " + raw[:120].decode("utf-8", "replace")) from None
                if completion.choices[0].message.content is None:
                    raise Retryable("chat-completions reply without message content")
                return completion

        return with_retries(
            once, max_retries=self.config.max_retries, backoff_s=self.config.backoff_s,
            max_backoff_s=self.config.max_backoff_s, sleep=self._sleep,
            unavailable=lambda n, why: f"judge endpoint {self.config.endpoint} gave no answer after {n} attempt(s): {why}",
        )


class ChatJudge(Judge):
    """A judge behind an OpenAI-compatible chat-completions endpoint."""

    def __init__(self, config: ChatConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.client = ChatClient(config, sleep=sleep)
        self.judge_id = config.resolved_judge_id

    def ask(self, rubric: Rubric, messages: list[dict[str, str]]) -> JudgeAnswer:
        completion = self.client.complete(messages)
        text = completion.choices[0].message.content or ""
        verdict = parse_verdict(text)
        if verdict is None:
            return JudgeAnswer(verdict=unparsable(text), parsed=False, raw=text)
        return JudgeAnswer(verdict=verdict, parsed=True, raw=text)

    def describe(self) -> dict[str, Any]:
        return {"id": self.judge_id, "kind": "openai-chat-completions", "model": self.config.model,
                "temperature": 0.0}


def judge_from_env(environ: Mapping[str, str] | None = None) -> ChatJudge | None:
    """The live judge configured by environment, or None (judge-dependent work stays pending)."""
    config = ChatConfig.from_env(environ)
    return ChatJudge(config) if config else None
