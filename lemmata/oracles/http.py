"""The HTTP layer every oracle client shares: one request, classified failures, retries with backoff.

Oracle servers (an OpenAI-compatible judge, a Kimina Lean server) fail in the
same ways: refused credentials and malformed requests are configuration
problems to report at once; rate limits, server errors, timeouts and dropped
connections are transient and retried with exponential backoff (honouring
``Retry-After``) until the client's budget runs out, after which the work stays
*pending* (:class:`~lemmata.oracles.judge.OracleUnavailable`). Every client
retries through :func:`with_retries` and reads its numeric settings with
:func:`env_numbers`; :func:`send` performs one request for the clients that
talk to their server one request at a time (the Lean server, arXiv), while the
chat client (:class:`~lemmata.oracles.chat.ChatClient`) keeps a pool of
connections open and classifies its statuses the same way.
"""

from __future__ import annotations

import http.client
import random
import socket
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from lemmata.core.errors import Error, LemmataError
from lemmata.core.settings import read as setting
from lemmata.oracles.judge import OracleUnavailable

T = TypeVar("T")

#: HTTP statuses that mean "try again later"
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OracleAuthError(LemmataError):
    """The server refused the credentials (401/403)."""


class OracleRequestError(LemmataError):
    """The server rejected the request itself (a 4xx other than rate limiting): a configuration problem."""


class ResponseTooLarge(LemmataError):
    """The server sent more than the caller's ``max_bytes``: refused unread, never retried."""


class Retryable(Error):
    """A transient failure; ``retry_after`` is the server's requested wait in seconds, if it gave one, and
    ``status`` the HTTP status that said so (None: a timeout, a dropped connection, a malformed body)."""

    def __init__(self, why: str, retry_after: float | None = None, *, status: int | None = None) -> None:
        super().__init__(why)
        self.retry_after = retry_after
        self.status = status


def retry_after(headers: Any) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds form), or None.

    >>> retry_after({"Retry-After": "3"}), retry_after({"Retry-After": "soon"}), retry_after(None)
    (3.0, None, None)
    """
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def env_numbers(env: Mapping[str, str], table: Iterable[tuple[str, str, Callable[[str], Any]]], *,
                kind: str = "a number") -> dict[str, Any]:
    """``{field: value}`` of the variables of ``table`` (name, field, conversion) that are set in ``env``.

    A client's numeric settings (timeouts, retries, batch sizes) read one way; a value that does not convert
    is a configuration error naming the variable.

    >>> env_numbers({"LEMMATA_JUDGE_TIMEOUT_S": "7"}, [("LEMMATA_JUDGE_TIMEOUT_S", "timeout_s", float)])
    {'timeout_s': 7.0}
    >>> env_numbers({"LEMMATA_JUDGE_MAX_RETRIES": "many"}, [("LEMMATA_JUDGE_MAX_RETRIES", "max_retries", int)])
    Traceback (most recent call last):
    ...
    lemmata.core.errors.LemmataError: LEMMATA_JUDGE_MAX_RETRIES must be a number, got 'many'
    """
    out: dict[str, Any] = {}
    for name, key, conv in table:
        value = setting(name, env)
        if value:
            try:
                out[key] = conv(value)
            except ValueError:
                raise LemmataError(f"{name} must be {kind}, got {value!r}") from None
    return out


def send(
    req: urllib.request.Request,
    *,
    timeout: float,
    who: str,
    key_env: str,
    on_status: Callable[[int, str], BaseException | None] | None = None,
    max_bytes: int | None = None,
) -> bytes:
    """Perform one request; raise Retryable for transient failures, an Oracle*Error for configuration ones.

    ``who`` names the server in messages ("the judge endpoint https://…"); ``on_status`` may turn a
    non-retryable status into a client-specific exception (return None to fall through); a body longer
    than ``max_bytes`` raises :class:`ResponseTooLarge` after reading at most ``max_bytes + 1`` bytes.
    """
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            if max_bytes is None:
                return resp.read()
            body = resp.read(max_bytes + 1)
            if len(body) > max_bytes:
                raise ResponseTooLarge(f"{who} sent more than {max_bytes} bytes")
            return body
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:500].decode("utf-8", "replace").strip()
        if exc.code in (401, 403):
            raise OracleAuthError(f"{who} refused the credentials (HTTP {exc.code}); check {key_env}") from None
        if exc.code in RETRY_STATUS or exc.code >= 500:
            raise Retryable(f"HTTP {exc.code} {detail[:120]}".strip(), retry_after(exc.headers)) from None
        special = on_status(exc.code, detail) if on_status else None
        if special is not None:
            raise special from None
        raise OracleRequestError(f"{who} rejected the request (HTTP {exc.code}): {detail[:200]}") from None
    except (TimeoutError, socket.timeout) as exc:
        raise Retryable(f"no answer within {timeout:g}s") from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise Retryable(f"no answer within {timeout:g}s") from None
        raise Retryable(f"connection failed: {exc.reason}") from None
    except (http.client.HTTPException, ConnectionError, OSError) as exc:
        raise Retryable(f"connection failed: {exc}") from None


def with_retries(
    call: Callable[[], T],
    *,
    max_retries: int,
    backoff_s: float,
    max_backoff_s: float,
    sleep: Callable[[float], None],
    unavailable: Callable[[int, str], str],
) -> T:
    """Run ``call`` until it does not raise Retryable; after ``max_retries`` retries raise OracleUnavailable.

    The wait doubles from ``backoff_s`` (capped at ``max_backoff_s``) with 10% jitter, and is at least
    the server's ``Retry-After``; ``unavailable(attempts, last_reason)`` words the final message.
    """
    attempt = 0
    while True:
        try:
            return call()
        except Retryable as exc:
            if attempt >= max_retries:
                raise OracleUnavailable(unavailable(attempt + 1, str(exc))) from None
            delay = min(max_backoff_s, backoff_s * (2 ** attempt))
            delay *= 1 + 0.1 * random.random()  # jitter keeps parallel workers apart
            if exc.retry_after is not None:
                delay = min(max_backoff_s, max(delay, exc.retry_after))
            sleep(delay)
            attempt += 1
