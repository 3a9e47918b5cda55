"""A Lean verifier: a client for a Kimina Lean server, and the verifier's scoring artifact.

The server is `project-numina/kimina-lean-server`, a FastAPI front to the Lean
REPL. The parts of its HTTP API this client uses:

- ``GET /health`` → ``{"status": "ok"}``;
- ``POST /checks`` with ``{"snippets": [{"id", "code"}, ...], "timeout": s, "debug": false, "reuse": true}``
  → one ``CheckResponse`` per snippet: ``{"id", "time", "error"?, "response"?}``, where ``response`` is the
  REPL's ``{"env", "messages"?: [{"severity", "pos": {"line", "column"}, "endPos", "data"}],
  "sorries"?: [{"pos", "endPos", "goal"}]}``. A Lean error is a message of severity ``error``; a ``sorry``
  gives a ``declaration uses 'sorry'`` warning and an entry of ``sorries``; a snippet that runs past
  ``timeout`` seconds comes back with ``error`` = ``Lean REPL command timed out in … seconds``;
- ``Authorization: Bearer <key>`` when the server sets an API key; HTTP 429 (``No available REPLs``) when
  every REPL is busy.

The server runs a snippet's leading ``import`` lines as a header in a cached REPL
and sends only the rest to Lean (rewriting any ``import Mathlib.*`` to ``import
Mathlib``), so Lean's line numbers count from the body; the client learns this
from its first probe and reports every position in the submitted code's lines.
The server does not report its versions, so the client asks Lean itself
(``#eval Lean.versionString``) and takes the Mathlib revision from configuration:
every verdict records both. Configuration comes from the environment, so no
credential sits in a file: ``LEMMATA_LEAN_URL``, ``LEMMATA_LEAN_API_KEY``,
``LEMMATA_MATHLIB_VERSION`` (required with a URL), and optionally
``LEMMATA_LEAN_VERSION`` (checked against the server), ``LEMMATA_LEAN_VERIFIER_ID``,
``LEMMATA_LEAN_TIMEOUT_S`` (per attempt), ``LEMMATA_LEAN_BATCH`` and
``LEMMATA_LEAN_MAX_RETRIES``.

Busy servers (429), server errors (5xx), dropped connections, malformed bodies
and REPL failures other than a command timeout are retried with exponential
backoff; when retries run out the attempt has no verdict (it stays *pending*).
A command timeout is a verdict: the attempt did not check in time.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lemmata.core.models import Frozen
from lemmata.core.settings import environment, read as setting
from lemmata.core.errors import LemmataError
from lemmata.oracles.artifact import ARTIFACT_FILE, VerdictArtifact, read_artifact_manifest  # noqa: F401
from lemmata.oracles.http import OracleAuthError, OracleRequestError  # noqa: F401  (re-exported)
from lemmata.oracles.http import Retryable, env_numbers, send, with_retries
from lemmata.oracles.judge import OracleUnavailable, slug

ENV_URL = "LEMMATA_LEAN_URL"
ENV_API_KEY = "LEMMATA_LEAN_API_KEY"
ENV_MATHLIB = "LEMMATA_MATHLIB_VERSION"
ENV_LEAN = "LEMMATA_LEAN_VERSION"
ENV_VERIFIER_ID = "LEMMATA_LEAN_VERIFIER_ID"
USER_AGENT = "lemmata-lean/1"
VERSION_PROBE = "#eval Lean.versionString"
#: the header of the probe: what servers preload (``LEAN_SERVER_INIT_REPLS``), so the probe hits a warm REPL
PROBE_HEADER = "import Mathlib\nimport Aesop"
ARTIFACT_SCHEMA = "lemmata.lean-artifact/1"
_COMMAND_TIMEOUT = re.compile(r"^Lean REPL command timed out", re.IGNORECASE)


# --- configuration ------------------------------------------------------------------------------------------------


class LeanConfig(Frozen):
    url: str = Field(pattern=r"^https?://\S+$")
    api_key: str = Field(default="", repr=False)
    mathlib_version: str = Field(min_length=1, description="Mathlib revision the server's project was built with")
    expected_lean_version: str | None = Field(default=None, description="refuse a server running another Lean")
    verifier_name: str = Field(default="kimina", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    timeout_s: int = Field(default=60, ge=1, le=3600, description="per attempt, enforced by the server")
    batch_size: int = Field(default=8, ge=1, le=256)
    max_retries: int = Field(default=4, ge=0)
    backoff_s: float = Field(default=1.0, ge=0)
    max_backoff_s: float = Field(default=60.0, ge=0)
    http_slack_s: float = Field(default=120.0, ge=0, description="added to the HTTP timeout for queueing")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "LeanConfig | None":
        """The configured server, or None when ``LEMMATA_LEAN_URL`` is not set (verification stays pending)."""
        env = environment(environ)
        url = (setting(ENV_URL, env) or "")
        if not url:
            return None
        mathlib = (setting(ENV_MATHLIB, env) or "")
        if not mathlib:
            raise LemmataError(f"{ENV_URL} is set but {ENV_MATHLIB} is not: name the Mathlib revision the Lean server "
                               "was built with (the server does not report it, and every verdict records it)")
        extra = env_numbers(env, (("LEMMATA_LEAN_TIMEOUT_S", "timeout_s", int),
                                  ("LEMMATA_LEAN_BATCH", "batch_size", int),
                                  ("LEMMATA_LEAN_MAX_RETRIES", "max_retries", int)), kind="an integer")
        try:
            return cls(url=url, api_key=(setting(ENV_API_KEY, env) or ""), mathlib_version=mathlib,
                       expected_lean_version=(setting(ENV_LEAN, env) or "") or None,
                       verifier_name=(setting(ENV_VERIFIER_ID, env) or "") or "kimina", **extra)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise LemmataError(f"Lean server configuration: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None


# --- protocol models ----------------------------------------------------------------------------------------------


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Pos(_Lenient):
    line: int
    column: int


class LeanMessage(_Lenient):
    severity: Literal["trace", "info", "warning", "error"]
    pos: Pos | None = None
    endPos: Pos | None = None
    data: str


class SorryNote(_Lenient):
    pos: Pos | None = None
    endPos: Pos | None = None
    goal: str = ""


class ReplResponse(_Lenient):
    env: int | None = None
    messages: list[LeanMessage] = Field(default_factory=list)
    sorries: list[SorryNote] = Field(default_factory=list)


class CheckResponse(_Lenient):
    """One snippet's answer, as the server sends it."""

    id: str
    time: float = 0.0
    error: str | None = None
    response: ReplResponse | None = None


class CheckResult(Frozen):
    """What Lean said about one snippet (``error`` is the server's, e.g. a command timeout)."""

    id: str
    time_s: float = 0.0
    error: str | None = None
    messages: tuple[LeanMessage, ...] = ()
    sorries: tuple[SorryNote, ...] = ()

    @property
    def timed_out(self) -> bool:
        return bool(self.error and _COMMAND_TIMEOUT.match(self.error))

    def errors(self) -> list[LeanMessage]:
        return [m for m in self.messages if m.severity == "error"]


# --- the client ---------------------------------------------------------------------------------------------------


class KiminaClient:
    """HTTP client for one Kimina Lean server."""

    def __init__(self, config: LeanConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self.requests_sent = 0
        self.body_relative: bool | None = None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": USER_AGENT}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        return headers

    def _request(self, method: str, path: str, body: bytes | None, timeout: float) -> bytes:
        url = self.config.url.rstrip("/") + path
        req = urllib.request.Request(url, data=body, headers=self._headers(), method=method)
        self.requests_sent += 1
        return send(req, timeout=timeout, who=f"the Lean server {url}", key_env=ENV_API_KEY)

    def _with_retries(self, what: str, call: Callable[[], Any]) -> Any:
        return with_retries(
            call, max_retries=self.config.max_retries, backoff_s=self.config.backoff_s,
            max_backoff_s=self.config.max_backoff_s, sleep=self._sleep,
            unavailable=lambda n, why: f"Lean server {self.config.url} gave no answer to {what} after {n} attempt(s): {why}",
        )

    def health(self) -> bool:
        """True when ``/health`` answers ``ok``; raises OracleUnavailable when the server cannot be reached."""
        def call() -> bool:
            raw = self._request("GET", "/health", None, 30)
            try:
                return json.loads(raw).get("status") == "ok"
            except (ValueError, AttributeError):
                raise Retryable("malformed /health body") from None
        return self._with_retries("/health", call)

    def check(self, snippets: Sequence[tuple[str, str]]) -> list[CheckResult]:
        """Check ``(id, code)`` snippets; positions are in the coordinates of each snippet's code.

        The first call probes the server (see :meth:`probe`) to learn how it reports positions.
        """
        if self.body_relative is None:
            self.probe()
        results = self._check_raw(snippets)
        if not self.body_relative:
            return results
        return [to_file_coordinates(r, code) for r, (_, code) in zip(results, snippets)]

    def _check_raw(self, snippets: Sequence[tuple[str, str]]) -> list[CheckResult]:
        """Check ``(id, code)`` snippets in one ``/checks`` request; results in the order given, as the server sent them.

        Transient failures of the whole request are retried; so are single snippets the server could
        not run (a REPL failure other than a command timeout). Raises OracleUnavailable when retries
        run out.
        """
        ids = [sid for sid, _ in snippets]
        if len(set(ids)) != len(ids):
            raise ValueError("snippet ids must be unique within a request")
        todo = dict(snippets)
        done: dict[str, CheckResult] = {}
        transient = ""
        for attempt in range(self.config.max_retries + 1):
            batch = [(sid, todo[sid]) for sid in ids if sid not in done]
            results = self._with_retries("/checks", lambda: self._post_checks(batch))
            for res in results:
                if res.error and not res.timed_out:
                    transient = res.error
                    continue
                done[res.id] = res
            if len(done) == len(ids):
                return [done[sid] for sid in ids]
            if attempt < self.config.max_retries:
                self._sleep(min(self.config.max_backoff_s, self.config.backoff_s * (2 ** attempt)))
        raise OracleUnavailable(f"Lean server {self.config.url} could not run {len(ids) - len(done)} snippet(s): "
                                f"{transient[:200]}")

    def _post_checks(self, batch: list[tuple[str, str]]) -> list[CheckResult]:
        body = json.dumps({"snippets": [{"id": sid, "code": code} for sid, code in batch],
                           "timeout": self.config.timeout_s, "debug": False, "reuse": True}).encode("utf-8")
        # the server runs snippets in parallel over its REPLs; allow for a full sequential worst case plus queueing
        http_timeout = self.config.timeout_s * len(batch) + self.config.http_slack_s
        raw = self._request("POST", "/checks", body, http_timeout)
        try:
            parsed = [CheckResponse.model_validate(r) for r in json.loads(raw)]
        except (ValueError, TypeError, ValidationError):
            raise Retryable("malformed /checks body: " + raw[:120].decode("utf-8", "replace")) from None
        by_id = {r.id: r for r in parsed}
        missing = [sid for sid, _ in batch if sid not in by_id]
        if missing:
            raise Retryable(f"/checks answer lacks {len(missing)} snippet(s)")
        out = []
        for sid, _ in batch:
            r = by_id[sid]
            if r.error is None and r.response is None:
                raise Retryable(f"/checks answer for {sid} has neither response nor error")
            resp = r.response or ReplResponse()
            out.append(CheckResult(id=sid, time_s=r.time, error=r.error, messages=tuple(resp.messages),
                                   sorries=tuple(resp.sorries)))
        return out

    def probe(self) -> str:
        """The server's Lean version, asked of Lean itself; also learns how the server reports positions.

        Current servers check the leading ``import`` lines (the header) in a cached REPL and send only the
        rest (the body) to Lean, so Lean's line numbers count from the body. The probe carries a header
        and the answer's line says which convention this server follows; :meth:`check` then reports every
        position in the coordinates of the submitted code.
        """
        (res,) = self._check_raw([("lemmata-lean-version", f"{PROBE_HEADER}\n\n{VERSION_PROBE}")])
        for m in res.messages:
            if m.severity == "info":
                body_line = 1
                file_line = PROBE_HEADER.count("\n") + 3
                if m.pos is not None and m.pos.line not in (body_line, file_line):
                    raise OracleUnavailable(f"Lean server {self.config.url} answered the probe at line "
                                            f"{m.pos.line}, neither {body_line} (body) nor {file_line} (file)")
                self.body_relative = m.pos is None or m.pos.line == body_line
                text = m.data.strip()
                return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text
        raise OracleUnavailable(f"Lean server {self.config.url} did not answer the version probe "
                                f"({'; '.join(m.data for m in res.messages)[:200] or res.error})")

    def lean_version(self) -> str:
        return self.probe()


def header_lines(code: str) -> int:
    r"""Lines the server takes as the header: the leading ``import`` and blank lines (as its ``split_snippet``).

    >>> header_lines("import Mathlib\n\nimport Aesop\ntheorem t : True := trivial")
    3
    >>> header_lines("theorem t : True := trivial")
    0
    """
    n = 0
    for line in code.splitlines():
        if line.strip().startswith("import ") or not line.strip():
            n += 1
        else:
            break
    return n


def _shift(pos: Pos | None, by: int) -> Pos | None:
    return None if pos is None else Pos(line=pos.line + by, column=pos.column)


def to_file_coordinates(result: CheckResult, code: str) -> CheckResult:
    """``result`` with body-relative line numbers moved to the submitted code's lines."""
    by = header_lines(code)
    if not by:
        return result
    messages = tuple(m.model_copy(update={"pos": _shift(m.pos, by), "endPos": _shift(m.endPos, by)})
                     for m in result.messages)
    sorries = tuple(x.model_copy(update={"pos": _shift(x.pos, by), "endPos": _shift(x.endPos, by)})
                    for x in result.sorries)
    return result.model_copy(update={"messages": messages, "sorries": sorries})


# --- the verifier ---------------------------------------------------------------------------------------------------


class VerifierIdentity(Frozen):
    """What a verdict depends on besides the attempt: recorded in every verdict and in the artifact id."""

    verifier: str
    lean_version: str
    mathlib_version: str
    timeout_s: int

    def artifact_id(self, benchmark: str) -> str:
        """``<benchmark>-lean:<verifier>:lean-<v>:mathlib-<v>:timeout-<s>s``.

        >>> VerifierIdentity(verifier="kimina", lean_version="4.23.0-rc2", mathlib_version="v4.23.0",
        ...                  timeout_s=60).artifact_id("taobench")
        'taobench-lean:kimina:lean-4.23.0-rc2:mathlib-v4.23.0:timeout-60s'
        """
        return (f"{benchmark}-lean:{self.verifier}:lean-{self.lean_version}:mathlib-{self.mathlib_version}"
                f":timeout-{self.timeout_s}s")


class LeanVerifier:
    """A reachable Lean server with known versions: checks attempts in batches."""

    def __init__(self, config: LeanConfig, *, sleep: Callable[[float], None] = time.sleep,
                 client: KiminaClient | None = None) -> None:
        self.config = config
        self.client = client or KiminaClient(config, sleep=sleep)
        lean = self.client.probe()
        if config.expected_lean_version and config.expected_lean_version.lstrip("v") != lean.lstrip("v"):
            raise LemmataError(f"the Lean server runs Lean {lean}, but {ENV_LEAN} says "
                               f"{config.expected_lean_version}")
        self.identity = VerifierIdentity(verifier=config.verifier_name, lean_version=lean,
                                         mathlib_version=config.mathlib_version, timeout_s=config.timeout_s)

    def check(self, codes: Mapping[str, str]) -> dict[str, CheckResult | None]:
        """Results by key; None for attempts the server could not answer (they stay pending)."""
        keys = list(codes)
        out: dict[str, CheckResult | None] = {}
        for start in range(0, len(keys), self.config.batch_size):
            chunk = keys[start:start + self.config.batch_size]
            try:
                results = self.client.check([(f"a{start + i}", codes[k]) for i, k in enumerate(chunk)])
            except OracleUnavailable:
                out.update({k: None for k in chunk})
                continue
            out.update(zip(chunk, results))
        return out

    def describe(self) -> dict[str, Any]:
        """Public facts for ``ARTIFACT.json`` (never the URL's credentials)."""
        return {**self.identity.model_dump(), "kind": "kimina-lean-server", "batch_size": self.config.batch_size}


def verifier_from_env(environ: Mapping[str, str] | None = None) -> LeanVerifier | None:
    """The live verifier configured by environment, or None (verification stays pending)."""
    config = LeanConfig.from_env(environ)
    return LeanVerifier(config) if config else None


# --- the verifier's scoring artifact --------------------------------------------------------------------------------


class LeanArtifactManifest(Frozen):
    schema_: Literal["lemmata.lean-artifact/1"] = Field(ARTIFACT_SCHEMA, alias="schema")
    artifact_id: str
    benchmark: str
    identity: VerifierIdentity
    checks: dict[str, str] = Field(default_factory=dict, description="versions of checks applied before the verifier")
    verifier: dict[str, Any] = Field(default_factory=dict)
    cache_file: str = "verdicts.jsonl"


class LeanArtifact(VerdictArtifact[LeanArtifactManifest]):
    """The frozen scoring artifact of one Lean verifier: ``ARTIFACT.json`` and its append-only verdict cache.

    A verdict is keyed by ``sha256`` of the canonical JSON of the verifier identity (verifier id, Lean and
    Mathlib versions, timeout), the release id, the item and the attempt's sha256 (the attempt's text is
    content-addressed by it). Opening an existing folder checks it belongs to the same identity, so
    verdicts of different Lean setups never mix.
    """

    kind = "Lean verifier"
    manifest_model = LeanArtifactManifest

    def __init__(self, folder: str | Path, *, benchmark: str, identity: VerifierIdentity,
                 checks: Mapping[str, str] | None = None) -> None:
        self.benchmark = benchmark
        self.identity = identity
        self.checks = dict(checks or {})
        self.artifact_id = identity.artifact_id(benchmark)
        super().__init__(folder, LeanArtifactManifest(artifact_id=self.artifact_id, benchmark=benchmark,
                                                      identity=identity, checks=self.checks))

    @classmethod
    def open(cls, folder: str | Path) -> "LeanArtifact":
        """An existing artifact, identity read from its ``ARTIFACT.json``."""
        manifest = read_artifact_manifest(Path(folder), LeanArtifactManifest, cls.kind)
        return cls(folder, benchmark=manifest.benchmark, identity=manifest.identity, checks=manifest.checks)

    def check_manifest(self, found: LeanArtifactManifest) -> None:
        if found.benchmark != self.benchmark or found.identity != self.identity:
            raise LemmataError(f"{self.folder} is the Lean artifact {found.artifact_id}, not {self.artifact_id}")
        if found.checks != self.checks:
            raise LemmataError(f"{self.folder} was made with checks {found.checks}, not {self.checks}")

    def _ensure_manifest(self, verifier: LeanVerifier | None) -> None:
        if not self.manifest_path.exists():
            self.write_manifest(self.manifest.model_copy(
                update={"verifier": verifier.describe() if verifier else {}}))

    def key_fields(self, **item: Any) -> dict[str, Any]:
        return {**self.identity.model_dump(), **self.checks, **item}

    def lookup(self, **item: Any) -> dict[str, Any] | None:
        return self.cache.get(self.key_fields(**item))

    def record(self, verdict: Mapping[str, Any], *, verifier: LeanVerifier | None, **item: Any) -> dict[str, Any]:
        """Append a verdict (the first recorded for a key wins) and return the one on record."""
        if verifier is not None and verifier.identity != self.identity:
            raise LemmataError(f"verifier {verifier.identity.artifact_id(self.benchmark)} cannot write into "
                               f"{self.artifact_id}")
        self._ensure_manifest(verifier)
        oracle = verifier.describe() if verifier else {"kind": "recorded"}
        return self.cache.put(self.key_fields(**item), verdict, oracle=oracle)


def default_artifact_dir(benchmark: str, identity: VerifierIdentity) -> Path:
    """``<artifacts>/lean/<artifact id as a file name>``."""
    from lemmata.core.paths import artifacts_dir

    return artifacts_dir() / "lean" / slug(identity.artifact_id(benchmark))
