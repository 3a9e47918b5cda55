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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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


class ChatDouble:
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

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints
            # TCP_NODELAY, as real endpoints (uvicorn, vLLM) set it: the headers and the body go out in two writes,
            # and with Nagle's algorithm the body would wait for the client's delayed ACK (about 40 ms a request)
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    return self._send(404, b'{"error": {"message": "not found"}}')
                self._send(200, json.dumps({"object": "list", "data": [
                    {"id": server.model_id or "double", "object": "model"}]}).encode())

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                if self.path != "/v1/chat/completions":
                    return self._send(404, b'{"error": {"message": "not found"}}')
                if server.api_key is not None and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self._send(401, b'{"error": {"message": "invalid api key"}}')
                try:
                    body = json.loads(raw)
                    if not (isinstance(body["model"], str) and isinstance(body["messages"], list)):
                        raise ValueError
                except (ValueError, KeyError, TypeError):
                    return self._send(400, b'{"error": {"message": "bad request body"}}')
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
                    return self._send(reply.status, reply.raw if reply.raw is not None
                                      else b'{"error": {"message": "scripted"}}', reply.headers)
                self._send(200, server.completion(body, reply))

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that hung up (a stopped run) is no failure of the double

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

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
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "ChatDouble":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
