"""Every environment variable Lemmata reads, declared once: name, meaning, default, and whether it is a secret.

Configuration is read at the edges (the CLI, the space, an oracle's ``from_env``)
through :func:`read`, which refuses a name that is not declared here — so this
table is the whole configuration surface, ``lemmata env`` prints it, and a
variable can neither be read in two spellings nor read without documentation.
:func:`unknown` finds ``LEMMATA_*`` variables that are set but mean nothing (a
typo such as ``LEMMATA_JUGDE_MODEL``), with close-match suggestions; the CLI and
the space warn about them at start.

>>> read("LEMMATA_JUDGE_MODEL", {"LEMMATA_JUDGE_MODEL": " m "})
'm'
>>> read("LEMMATA_MATERIALISER_TIMEOUT_S", {})
>>> unknown({"LEMMATA_JUGDE_MODEL": "x", "LEMMATA_HOME": "/h", "PATH": "/bin"})
["LEMMATA_JUGDE_MODEL is not a Lemmata setting; did you mean 'LEMMATA_JUDGE_MODEL'?"]
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PREFIXES", "VARIABLES", "Variable", "describe", "environment", "read", "read_prefix", "unknown"]


@dataclass(frozen=True)
class Variable:
    """One environment variable: what it sets and its default (None: unset means off / not configured)."""

    name: str
    description: str
    default: str | None = None
    secret: bool = False
    area: str = "paths"


def _secret(name: str) -> bool:
    """Whether a variable holds a credential (an API key or a token), masked wherever its value is shown."""
    return name.endswith(("_API_KEY", "_TOKEN"))


#: area -> ``(name, description[, default])`` of its variables
_AREAS: dict[str, tuple[tuple[str, ...], ...]] = {
    "paths": (
        ("LEMMATA_HOME", "root of releases, artifacts, baselines and the store",
         "$XDG_DATA_HOME/lemmata or ~/.local/share/lemmata"),
        ("LEMMATA_RELEASES", "folder of built releases", "$LEMMATA_HOME/releases"),
        ("LEMMATA_STORE", "leaderboard store (durable files + SQLite index)", "$LEMMATA_HOME/store"),
        ("LEMMATA_MIRROR", "local mirror of pinned upstream files, one folder per family",
         "../shared/data beside the checkout, when present"),
        ("XDG_DATA_HOME", "base of the default LEMMATA_HOME", "~/.local/share"),
        ("LEMMATA_HUB_OWNER", "Hub user or organisation the releases are published under (card snippets)", "lemmata"),
    ),
    # uploads and the space
    "space": (
        ("LEMMATA_MAX_SUBMISSION_BYTES", "upload size limit in bytes", str(32 * 1024 * 1024)),
        ("LEMMATA_RATE_LIMIT", "submissions per submitter and window, e.g. '1000/1h'"),
        ("LEMMATA_ADMIN_TOKEN", "token that enables moderation (hide, unhide, rescore)"),
        ("LEMMATA_ADMINS", "comma-separated Hub user names with admin rights on a hosted Space"),
        ("LEMMATA_BOOTSTRAP", "build releases, artifact, reported rows and baselines on first start", "1"),
        ("LEMMATA_REFRESH_SECONDS", "how often open pages refresh the board"),
        ("LEMMATA_WORKER_POLL_SECONDS", "how often the scoring worker looks at the queue"),
        ("LEMMATA_RESULTS_REPO", "Hub dataset '<owner>/<name>' that mirrors the store's immutable files"),
        ("LEMMATA_SYNC_MINUTES", "minutes between pushes to LEMMATA_RESULTS_REPO", "5"),
        ("LEMMATA_REPO_URL", "the source repository linked from the page header, Submit tab and About page"),
    ),
    # the judge
    "judge": (
        ("LEMMATA_JUDGE_BASE_URL", "OpenAI-compatible endpoint of the LLM judge"),
        ("LEMMATA_JUDGE_MODEL", "judge model name"),
        ("LEMMATA_JUDGE_API_KEY", "judge API key"),
        ("LEMMATA_JUDGE_ID", "the judge's id in artifact names (default: derived from the model)"),
        ("LEMMATA_JUDGE_ARTIFACT", "judge artifact folder (verdict cache) to score against"),
        ("LEMMATA_JUDGE_TIMEOUT_S", "seconds per judge request", "120"),
        ("LEMMATA_JUDGE_MAX_RETRIES", "retries of a failed judge request", "5"),
        ("LEMMATA_JUDGE_JSON_MODE", "ask the endpoint for JSON output", "1"),
        ("LEMMATA_JUDGE_CONCURRENCY", "judge requests in flight while scoring", "4"),
    ),
    # the Lean verifier
    "lean": (
        ("LEMMATA_LEAN_URL", "Kimina Lean server"),
        ("LEMMATA_LEAN_API_KEY", "Lean server API key"),
        ("LEMMATA_MATHLIB_VERSION", "Mathlib revision the Lean server was built with (required with a server)"),
        ("LEMMATA_LEAN_VERSION", "Lean version the server must report"),
        ("LEMMATA_LEAN_VERIFIER_ID", "the verifier's id in artifact names", "kimina"),
        ("LEMMATA_LEAN_ARTIFACT", "Lean verifier artifact folder (verdict cache) to score against"),
        ("LEMMATA_LEAN_TIMEOUT_S", "seconds per proof check"),
        ("LEMMATA_LEAN_BATCH", "proofs per server request"),
        ("LEMMATA_LEAN_MAX_RETRIES", "retries of a failed server request", "4"),
    ),
    # the answer check (math-verify in bounded worker processes)
    "answers": (
        ("LEMMATA_ANSWER_CHECK_TIMEOUT_S", "wall-clock seconds per answer comparison", "1.5"),
        ("LEMMATA_ANSWER_CHECK_MEMORY_MB", "address space per answer-checking process, in MB", "400"),
        ("LEMMATA_ANSWER_CHECK_WORKERS", "answer-checking processes", "2"),
        ("LEMMATA_ANSWER_CHECK_FILE_S", "seconds a file's answer checks may lose to answers cut off by the bound; "
         "all of them together may take this plus 0.1 s per answer", "30"),
    ),
    # the evaluation harness (lemmata evaluate)
    "evaluate": (
        ("LEMMATA_EMBEDDINGS_BASE_URL", "OpenAI-compatible endpoint serving /v1/embeddings (openai:MODEL)"),
        ("LEMMATA_EMBEDDINGS_MODEL", "embedding model name at that endpoint (when the spec is just 'openai')"),
        ("LEMMATA_EMBEDDINGS_API_KEY", "API key of the embeddings endpoint"),
        ("LEMMATA_EMBEDDINGS_TIMEOUT_S", "seconds per embeddings request", "120"),
        ("LEMMATA_EMBEDDING_CACHE", "folder of cached corpus embeddings", "$LEMMATA_HOME/embeddings"),
    ),
    # the model under evaluation (lemmata run re2math / taobench): an OpenAI-compatible chat endpoint
    "llm": (
        ("LEMMATA_LLM_BASE_URL", "OpenAI-compatible endpoint of the model a run evaluates (overrides OPENAI_BASE_URL)"),
        ("LEMMATA_LLM_API_KEY", "API key of that endpoint (overrides OPENAI_API_KEY)"),
        ("OPENAI_BASE_URL", "the endpoint, as the openai client reads it", "https://api.openai.com/v1"),
        ("OPENAI_API_KEY", "the endpoint's key, as the openai client reads it"),
        ("LEMMATA_LLM_CONCURRENCY", "chat requests in flight during a run", "8"),
        ("LEMMATA_LLM_TIMEOUT_S", "seconds per chat request", "600"),
        ("LEMMATA_LLM_MAX_RETRIES", "retries of a failed chat request (429, 5xx, timeouts)", "6"),
        ("LEMMATA_LLM_BACKOFF_S", ("seconds before the first retry of a chat request, doubled at each retry (at "
                                   "least the server's Retry-After)"), "1"),
        ("LEMMATA_LLM_CACHE", "folder of the on-disk chat request cache", "$LEMMATA_HOME/cache/chat"),
    ),
    # search and sources (Re²Math live protocol)
    "live": (
        ("SERPAPI_API_KEY", "SerpAPI key for recording Google Scholar searches (never written anywhere)"),
        ("SERPAPI_BASE_URL", "SerpAPI endpoint", "https://serpapi.com"),
        ("LEMMATA_ARXIV_BASE_URL", "where arXiv e-prints are fetched", "https://arxiv.org"),
        ("LEMMATA_ARXIV_API_URL", "arXiv export API (versions, DOI search)", "https://export.arxiv.org/api/query"),
        ("LEMMATA_MATERIALISE", "materialise missing sources while scoring with the default arXiv URLs"),
    ),
}

VARIABLES: tuple[Variable, ...] = tuple(
    Variable(*row, secret=_secret(row[0]), area=area) for area, rows in _AREAS.items() for row in rows
)

#: families of variables read by prefix, each field named by the rest of the variable's name
PREFIXES: dict[str, tuple[str, tuple[str, ...]]] = {
    "LEMMATA_MATERIALISER_": ("arXiv source materialisation: request pacing, retries and text bounds",
                              ("TIMEOUT_S", "MAX_RETRIES", "BACKOFF_S", "MAX_BACKOFF_S", "MIN_INTERVAL_S", "CONTACT",
                               "DOI_TABLE", "MAX_DOWNLOAD_BYTES", "MAX_UNPACKED_BYTES", "MAX_MEMBERS",
                               "MAX_MEMBER_BYTES", "PROSE_BUDGET_CHARS", "MAX_STATEMENT_CHARS", "MAX_TEXT_CHARS",
                               "MAX_INPUT_DEPTH", "PDF_MAX_PAGES")),
    "LEMMATA_AGENT_": ("the reference agent's OpenAI-compatible model (lemmata re2math run-agent)",
                       ("BASE_URL", "MODEL", "API_KEY", "TIMEOUT_S", "MAX_RETRIES", "JSON_MODE", "ID")),
}

_BY_NAME = {v.name: v for v in VARIABLES}
_PREFIXED = {prefix + field for prefix, (_, fields) in PREFIXES.items() for field in fields}


def environment(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The variables configuration is read from: the process environment, or the mapping a caller (a test) passes.

    The one place Lemmata touches ``os.environ`` for configuration; every ``from_env`` reads through it.

    >>> environment({"LEMMATA_HOME": "/h"})
    {'LEMMATA_HOME': '/h'}
    """
    return os.environ if environ is None else environ


def declared(name: str) -> bool:
    return name in _BY_NAME or name in _PREFIXED


def read(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The stripped value of a declared variable, or None when unset or blank.

    Reading an undeclared name is a programming error: declare it in :data:`VARIABLES` or :data:`PREFIXES`.
    """
    if not declared(name):
        raise KeyError(f"{name} is not a declared setting (lemmata.core.settings)")
    value = environment(environ).get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def read_prefix(prefix: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{field: value}`` of the set variables of one prefix family (``LEMMATA_AGENT_MODEL`` -> ``MODEL``)."""
    if prefix not in PREFIXES:
        raise KeyError(f"{prefix} is not a declared settings prefix (lemmata.core.settings)")
    env = environment(environ)
    return {field: value for field in PREFIXES[prefix][1] if (value := read(prefix + field, env)) is not None}


def unknown(environ: Mapping[str, str] | None = None) -> list[str]:
    """One sentence per ``LEMMATA_*`` variable that is set but declared nowhere (with a close match when one exists)."""
    env = environment(environ)
    known = sorted(set(_BY_NAME) | _PREFIXED)
    out = []
    for name in sorted(env):
        if name.startswith("LEMMATA_") and not declared(name):
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
            out.append(f"{name} is not a Lemmata setting" + (f"; did you mean {close[0]!r}?" if close else ""))
    return out


def describe(environ: Mapping[str, str] | None = None) -> list[dict[str, str | None]]:
    """Every declared variable with its current value (secrets masked), default and meaning, for ``lemmata env``."""
    env = environment(environ)
    rows: list[dict[str, str | None]] = []
    for v in VARIABLES:
        value = read(v.name, env)
        rows.append({"area": v.area, "name": v.name, "value": ("***" if v.secret and value else value),
                     "default": v.default, "description": v.description})
    for prefix, (description, fields) in PREFIXES.items():
        for field in fields:
            value = read(prefix + field, env)
            rows.append({"area": prefix.rstrip("_").lower().removeprefix("lemmata_"), "name": prefix + field,
                         "value": ("***" if _secret(prefix + field) and value else value), "default": None,
                         "description": description})
    return rows
