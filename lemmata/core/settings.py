"""Every environment variable Lemmata reads, declared once: name, meaning, default, and whether it is a secret.

Configuration is read at the edges (the CLI, the space, an oracle's ``from_env``)
through :func:`read`, which refuses a name that is not declared here — so this
table (``settings.toml``) is the whole configuration surface, ``lemmata env`` prints it, and a
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


def _load() -> tuple[Variable, ...]:
    """The table, kept as data in ``settings.toml`` beside this module: area -> variable -> description, default."""
    from lemmata.core.package_data import read_toml

    return tuple(Variable(name, row["description"], row.get("default"), secret=_secret(name), area=area)
                 for area, rows in read_toml("lemmata.core", "settings.toml").items() for name, row in rows.items())


#: every declared variable, area by area (``settings.toml``)
VARIABLES: tuple[Variable, ...] = _load()

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
