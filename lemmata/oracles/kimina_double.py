"""An in-process stand-in for a Kimina Lean server, for tests and timing runs — not a verifier.

It speaks the server's HTTP protocol (``/health``, ``/checks``, ``/check``,
``/verify``, bearer-key auth, 429 when told to be busy) on ``127.0.0.1``, checks
only the body after the leading imports as the server does (so positions count
from the body), and
answers with what it can check without Lean: lexical well-formedness
(unterminated comments and literals are errors), balanced brackets, every
``sorry``/``admit`` reported the way Lean reports it (a ``declaration uses
'sorry'`` warning at the declaration plus an entry of ``sorries``), and
``#print axioms`` answered with the standard axioms plus ``sorryAx`` when the
file has a ``sorry`` and every ``axiom`` the file declares. It answers
the version probe with ``lean_version`` — by default
``0.0.0-protocol-double`` — so every verdict it produced names its origin.
Its verdicts say nothing about whether a proof is correct: never ship them in
a scoring artifact.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from lemmata.lean.lexer import CLOSERS, OPENERS, LexError, lex
from lemmata.lean.structure import parse
from lemmata.oracles.local_server import JsonHandler, LocalServer

DOUBLE_LEAN_VERSION = "0.0.0-protocol-double"
#: a line comment with this text makes the double answer as if the snippet ran past its timeout
TIMEOUT_MARKER = "-- protocol-double: run past the timeout"
_PAIRS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "@[": "]", "#[": "]", "%[": "]", "‹": "›", "⟦": "⟧"}


def _pos(line: int, column: int) -> dict[str, int]:
    return {"line": line, "column": column}


def split_snippet(code: str) -> tuple[str, str]:
    r"""Header (leading ``import`` and blank lines) and body, as the server splits a snippet.

    >>> split_snippet("import Mathlib.Tactic\n\ntheorem t : True := trivial\n")
    ('import Mathlib', 'theorem t : True := trivial')
    """
    lines = code.splitlines()
    k = 0
    while k < len(lines) and (lines[k].strip().startswith("import ") or not lines[k].strip()):
        k += 1
    imports = [ln.strip() for ln in lines[:k] if ln.strip()]
    header = (["import Mathlib"] if any(i.startswith("import Mathlib") for i in imports) else []) + list(
        dict.fromkeys(i for i in imports if not i.startswith("import Mathlib")))
    return "\n".join(header), "\n".join(lines[k:])


def check_code(code: str, timeout: float) -> dict[str, Any]:
    """The double's answer for one snippet: ``{"error": ...}`` or ``{"response": {...}}``."""
    if TIMEOUT_MARKER in code:
        return {"error": f"Lean REPL command timed out in {timeout:g} seconds"}
    messages: list[dict[str, Any]] = []
    sorries: list[dict[str, Any]] = []
    try:
        lexed = lex(code)
    except LexError as exc:
        return {"response": {"env": 0, "messages": [
            {"severity": "error", "pos": _pos(exc.line, 0), "endPos": None, "data": exc.message}]}}
    stack: list[Any] = []
    for tok in lexed.tokens:
        if tok.kind != "sym":
            continue
        if tok.text in OPENERS:
            stack.append(tok)
        elif tok.text in CLOSERS:
            if not stack or _PAIRS[stack[-1].text] != tok.text:
                messages.append({"severity": "error", "pos": _pos(tok.line, tok.col), "endPos": None,
                                 "data": f"unexpected token '{tok.text}'; expected command"})
                break
            stack.pop()
    if stack and not messages:
        tok = stack[-1]
        messages.append({"severity": "error", "pos": _pos(tok.line, tok.col), "endPos": None,
                         "data": f"unexpected end of input; expected '{_PAIRS[tok.text]}'"})
    commands = parse(code).commands
    declared_axioms = [c.decl.full_name for c in commands if c.decl is not None and c.decl.keyword == "axiom"]
    for cmd in commands:
        uses = [t for t in cmd.tokens if t.kind == "ident" and t.text in ("sorry", "admit")]
        if not uses:
            continue
        name_tok = cmd.decl.header[1] if cmd.decl is not None and len(cmd.decl.header) > 1 else cmd.tokens[0]
        messages.append({"severity": "warning", "pos": _pos(name_tok.line, name_tok.col),
                         "endPos": _pos(name_tok.line, name_tok.col + len(name_tok.text)),
                         "data": "declaration uses 'sorry'"})
        for t in uses:
            sorries.append({"pos": _pos(t.line, t.col), "endPos": _pos(t.line, t.col + len(t.text)),
                            "goal": "⊢ ?", "proofState": len(sorries)})
    for lineno, text in enumerate(code.split("\n"), start=1):
        if text.strip() == "#eval Lean.versionString":
            messages.append({"severity": "info", "pos": _pos(lineno, 0), "endPos": _pos(lineno, 5),
                             "data": f'"{DOUBLE_LEAN_VERSION}"'})
        if text.startswith("#print axioms "):
            name = text.split(None, 2)[2].strip()
            # the double cannot see what a proof uses: it names every axiom the file could reach
            used = ["propext", *(["sorryAx"] if sorries else []), "Classical.choice", "Quot.sound", *declared_axioms]
            messages.append({"severity": "info", "pos": _pos(lineno, 0), "endPos": _pos(lineno, len(text)),
                             "data": f"'{name}' depends on axioms: [{', '.join(used)}]"})
    response: dict[str, Any] = {"env": 0}
    if messages:
        response["messages"] = messages
    if sorries:
        response["sorries"] = sorries
    return {"response": response}


@dataclass
class KiminaDouble(LocalServer):
    """Serve the protocol on 127.0.0.1 (ephemeral port) in a thread; use as a context manager."""

    api_key: str | None = None
    busy: list[int] = field(default_factory=list)
    """HTTP statuses to answer the next requests with (popped first), e.g. ``[429, 503]``"""
    flaky_snippets: int = 0
    """how many next snippets answer with a REPL failure (not a timeout), to exercise snippet retries"""
    split_header: bool = True
    """check only the body after the leading import lines, as the server does (positions count from the body)"""
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        server = self

        class Handler(JsonHandler):
            def _send(self, code: int, payload: Any) -> None:
                self.send_json(code, json.dumps(payload).encode("utf-8"))

            def _gate(self) -> bool:
                with server.lock:
                    status = server.busy.pop(0) if server.busy else None
                if status is not None:
                    self._send(status, {"detail": "No available REPLs" if status == 429 else "scripted failure"})
                    return False
                if server.api_key is not None:
                    auth = self.headers.get("Authorization", "")
                    if not auth:
                        self._send(401, {"detail": "Missing API key"})
                        return False
                    if auth.removeprefix("Bearer ").strip() != server.api_key:
                        self._send(401, {"detail": "Invalid API key"})
                        return False
                return True

            def do_GET(self) -> None:
                if self.path.rstrip("/") in ("/health", ""):
                    return self._send(200, {"status": "ok"})
                self._send(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if not self._gate():
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    return self._send(422, {"detail": "body is not JSON"})
                with server.lock:
                    server.requests.append({"path": self.path, "body": body})
                path = self.path.rstrip("/")
                if path == "/checks":
                    snippets = body.get("snippets")
                    if not isinstance(snippets, list) or not snippets or any("id" not in s for s in snippets):
                        return self._send(422, {"detail": "`snippets` must be provided with ids"})
                    if len({s["id"] for s in snippets}) != len(snippets):
                        return self._send(422, {"detail": "`snippets` must have unique ids"})
                    return self._send(200, [server._answer(s["id"], s.get("code", ""), body) for s in snippets])
                if path == "/check":
                    s = body.get("snippet") or {}
                    if "id" not in s:
                        return self._send(422, {"detail": "`snippet.id` is required"})
                    return self._send(200, server._answer(s["id"], s.get("code", ""), body))
                if path == "/verify":
                    results = []
                    for c in body.get("codes", []):
                        ans = server._answer(str(c.get("custom_id")), c.get("proof") or c.get("code") or "", body)
                        resp = dict(ans.get("response") or {}) or None
                        if resp is not None:
                            resp["time"] = ans["time"]
                        results.append({"custom_id": ans["id"], "error": ans.get("error"), "response": resp})
                    return self._send(200, {"results": results})
                self._send(404, {"detail": "Not Found"})

        self.serve(Handler)

    def _answer(self, sid: str, code: str, body: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        with self.lock:
            flaky = self.flaky_snippets > 0
            self.flaky_snippets -= flaky
        if flaky:
            return {"id": sid, "time": 0.0, "error": "REPL process died unexpectedly"}
        ans = check_code(split_snippet(code)[1] if self.split_header else code, float(body.get("timeout", 30)))
        return {"id": sid, "time": round(time.perf_counter() - start, 6), **ans}
