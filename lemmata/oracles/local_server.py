"""How an oracle's test double is served: on 127.0.0.1, an ephemeral port, a daemon thread, a context manager.

The doubles (:mod:`~lemmata.oracles.chat_double`, :mod:`~lemmata.oracles.kimina_double`) differ in the
protocol they speak, not in how they are served: :class:`JsonHandler` answers quietly with JSON bytes (a
client that hung up is no failure of the double), and :class:`LocalServer` starts the server on ``with``
and stops it on exit.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = ["JsonHandler", "LocalServer"]


class JsonHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing and answers with a JSON body."""

    def log_message(self, *args: Any) -> None:
        pass

    def send_json(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    #: connections waiting to be accepted, as a real endpoint's listen backlog (``socketserver``'s 5 let a
    #: client opening 16 connections at once lose some, each one's request then waiting a second for the
    #: retransmission: a delay no real endpoint adds, which moved runner timings by up to 1.4 s)
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up (a stopped run) is no failure of the double


class LocalServer:
    """A base for doubles: :meth:`serve` a handler class; ``with`` runs it; :attr:`url` is ``http://127.0.0.1:PORT``."""

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
