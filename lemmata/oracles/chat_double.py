"""An in-process server speaking the OpenAI chat-completions protocol: the double tests and speed scripts run against.

``POST /v1/chat/completions`` with ``{"model", "messages", ...}`` answers
``{"id", "object": "chat.completion", "model", "choices": [{"index": 0,
"message": {"role": "assistant", "content"}, "finish_reason"}], "usage"}`` as
OpenAI does; ``GET /v1/models`` lists the served model. ``answer(body)``
returns the assistant's text for a request (or a :class:`Reply` to shape the
choice: refusal, finish reason, no choices, raw body, HTTP status with
headers); ``script`` entries are served first, one per request, whatever the
request. ``latency_s`` delays every answer, as a real endpoint does. It is a
test double: it runs no model.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lemmata.oracles.local_server import JsonHandler, LocalServer

__all__ = ["ChatDouble", "Reply"]


@dataclass(frozen=True)
class Reply:
    """A shaped answer: ``content`` with ``finish_reason``, or a refusal, no choices, a raw body or a status."""

    content: str | None = None
    finish_reason: str = "stop"
    refusal: str | None = None
    no_choices: bool = False
    raw: bytes | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


class ChatDouble(LocalServer):
    """``with ChatDouble(answer) as server:`` … ``server.base_url`` is ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, answer: Callable[[dict[str, Any]], str | Reply] = lambda body: "ok", *,
                 model_id: str | None = None, api_key: str | None = None, latency_s: float = 0.0,
                 script: list[Reply] | None = None) -> None:
        self.answer = answer
        self.model_id = model_id
        self.api_key = api_key
        self.latency_s = latency_s
        self.script = list(script or [])
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(JsonHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints
            # TCP_NODELAY, as real endpoints (uvicorn, vLLM) set it: the headers and the body go out in two writes,
            # and with Nagle's algorithm the body would wait for the client's delayed ACK (about 40 ms a request)
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    return self.send_json(404, b'{"error": {"message": "not found"}}')
                self.send_json(200, json.dumps({"object": "list", "data": [
                    {"id": server.model_id or "double", "object": "model"}]}).encode())

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                if self.path != "/v1/chat/completions":
                    return self.send_json(404, b'{"error": {"message": "not found"}}')
                if server.api_key is not None and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self.send_json(401, b'{"error": {"message": "invalid api key"}}')
                try:
                    body = json.loads(raw)
                    if not (isinstance(body["model"], str) and isinstance(body["messages"], list)):
                        raise ValueError
                except (ValueError, KeyError, TypeError):
                    return self.send_json(400, b'{"error": {"message": "bad request body"}}')
                with server.lock:
                    server.requests.append(body)
                    step = server.script.pop(0) if server.script else None
                if server.latency_s:
                    time.sleep(server.latency_s)
                reply = step if step is not None else server.answer(body)
                if isinstance(reply, str):
                    reply = Reply(content=reply)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200 or reply.raw is not None:
                    return self.send_json(reply.status, reply.raw if reply.raw is not None
                                          else b'{"error": {"message": "scripted"}}', reply.headers)
                self.send_json(200, server.completion(body, reply))

        self.serve(Handler)

    def completion(self, body: dict[str, Any], reply: Reply) -> bytes:
        prompt = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        choices = [] if reply.no_choices else [{
            "index": 0, "message": {"role": "assistant", "content": reply.content, "refusal": reply.refusal},
            "finish_reason": reply.finish_reason}]
        return json.dumps({"id": "chatcmpl-double", "object": "chat.completion", "created": 0,
                           "model": self.model_id or body["model"], "choices": choices,
                           "usage": {"prompt_tokens": prompt, "completion_tokens": len((reply.content or "").split()),
                                     "total_tokens": 0}}).encode("utf-8")

    @property
    def base_url(self) -> str:
        return self.url + "/v1"
