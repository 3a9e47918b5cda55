"""The space's configuration, read once from the environment into a typed record.

Locally everything has a default (a store under ``$LEMMATA_HOME``, loopback,
no admin until ``LEMMATA_ADMIN_TOKEN`` is set). On a hosted Space (``SPACE_ID``
is set by the platform) the store is mirrored to the Hub dataset repository
named by ``LEMMATA_RESULTS_REPO``, and admin rights follow the Space owner's
login instead of a token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field, SecretStr, field_validator

from lemmata.core.models import Frozen
from lemmata.core.settings import read as setting
from lemmata.core.errors import InputError
from lemmata.store import RateLimit

_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}
DEFAULT_RATE = "5/1d"
#: the values an on/off variable takes
_SWITCH = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def parse_rate(text: str) -> RateLimit:
    """``<count>/<span>`` with span in s, m/min, h or d (a bare number is seconds).

    >>> parse_rate("5/1d"), parse_rate("10/30m"), parse_rate("2/90")
    (RateLimit(max_count=5, window_s=86400.0), RateLimit(max_count=10, window_s=1800.0), RateLimit(max_count=2, window_s=90.0))
    >>> parse_rate("five")
    Traceback (most recent call last):
    ...
    ValueError: rate limit must look like '5/1d' (count per span in s, m, h or d), got 'five'
    """
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)?\s*(s|m|min|h|d)?\s*", text or "")
    if not m or (m.group(2) is None and m.group(3) is None):
        raise ValueError(f"rate limit must look like '5/1d' (count per span in s, m, h or d), got {text!r}")
    count = int(m.group(1))
    span = float(m.group(2) or 1) * _UNITS[m.group(3) or "s"]
    if count < 1 or span <= 0:
        raise ValueError(f"rate limit needs a positive count and span, got {text!r}")
    return RateLimit(max_count=count, window_s=span)


#: the repository the Submit tab links schema and example files into (``<repo>/blob/main/<path>``)
DEFAULT_REPO_URL = "https://huggingface.co/spaces/lemmata/leaderboard"


class HubSyncConfig(Frozen):
    """Where a hosted Space keeps its durable files."""

    repo_id: str
    every_minutes: float = Field(default=5.0, gt=0)
    #: public by default: every stored result is open to audit by anyone (``LEMMATA_RESULTS_PRIVATE=1`` keeps it
    #: private; the flag applies when the scheduler creates the repository, an existing one keeps its visibility)
    private: bool = False

    @field_validator("repo_id")
    @classmethod
    def _repo(cls, v: str) -> str:
        if not _REPO_ID.match(v):
            raise ValueError(f"LEMMATA_RESULTS_REPO must be '<owner>/<name>', got {v!r}")
        return v


class SpaceConfig(Frozen):
    store_root: Path
    releases_root: Path
    host: str = "127.0.0.1"
    port: int | None = Field(default=None, ge=0, le=65535)
    space_id: str | None = Field(default=None, description="set by the Hub on a hosted Space")
    space_owner: str | None = Field(default=None, description="the Space's owner (SPACE_AUTHOR_NAME)")
    admins: tuple[str, ...] = Field(default=(), description="further Hub usernames with admin rights when hosted")
    admin_token: SecretStr | None = None
    hub_sync: HubSyncConfig | None = None
    rate_limit: RateLimit = Field(default_factory=lambda: parse_rate(DEFAULT_RATE))
    max_submission_bytes: int = Field(gt=0)
    refresh_seconds: float = Field(default=5.0, gt=0)
    worker_poll_seconds: float = Field(default=2.0, gt=0)
    bootstrap: bool = True
    repo_url: str | None = Field(default=None, pattern=r"^https?://[^\s<>\"']+$",
                                 description="where the code, schemas and examples live (LEMMATA_REPO_URL; on a "
                                             "hosted Space the Space itself); linked from the header, the Submit "
                                             "tab and the About page. None: the local checkout's files are linked")

    @property
    def hosted(self) -> bool:
        return bool(self.space_id)

    @property
    def admin_users(self) -> tuple[str, ...]:
        """Hub usernames allowed to moderate on a hosted Space (owner first)."""
        users = ([self.space_owner] if self.space_owner else []) + list(self.admins)
        return tuple(dict.fromkeys(u for u in users if u))

    def problems(self) -> list[str]:
        """Configuration that works but that visitors should know about (shown as a banner)."""
        out = []
        if self.hosted and self.hub_sync is None:
            out.append("LEMMATA_RESULTS_REPO is not set: submissions and results live only on this Space's disk "
                       "and are lost when it restarts.")
        return out

    def admin_note(self) -> str:
        """How moderation is enabled here (shown in the Admin tab)."""
        if self.hosted:
            who = ", ".join(self.admin_users) or "nobody (SPACE_AUTHOR_NAME is not set)"
            return f"Moderation is open to these Hugging Face accounts once signed in: {who}."
        if self.admin_token is None:
            return "Moderation is disabled: start the space with `LEMMATA_ADMIN_TOKEN` set to enable it."
        return "Moderation needs the token set in `LEMMATA_ADMIN_TOKEN` when the space started."

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> "SpaceConfig":
        """Read the configuration; malformed values raise one InputError naming each variable."""
        from lemmata.core.paths import lemmata_home, releases_dir
        from lemmata.formats.envelope import DEFAULT_MAX_BYTES

        from lemmata.core.settings import environment

        env = environment(env)
        problems: list[tuple[str, str]] = []

        def get(name: str) -> str | None:
            if name.startswith("LEMMATA_"):
                return setting(name, env)
            value = env.get(name)  # the hosting platform's own variables (SPACE_ID, GRADIO_*)
            return value.strip() if value and value.strip() else None

        home = Path(get("LEMMATA_HOME") or lemmata_home())
        values: dict = {
            # Spaces serve on 0.0.0.0:7860 (GRADIO_SERVER_NAME is set there); locally only this machine
            "host": get("GRADIO_SERVER_NAME") or ("0.0.0.0" if get("SPACE_ID") else "127.0.0.1"),
            "store_root": Path(get("LEMMATA_STORE") or home / "store"),
            "releases_root": Path(get("LEMMATA_RELEASES") or (home / "releases" if get("LEMMATA_HOME")
                                                             else releases_dir())),
            "space_id": get("SPACE_ID"),
            "space_owner": get("SPACE_AUTHOR_NAME"),
            "admins": tuple(a.strip() for a in (get("LEMMATA_ADMINS") or "").split(",") if a.strip()),
            "admin_token": get("LEMMATA_ADMIN_TOKEN"),
            "bootstrap": (get("LEMMATA_BOOTSTRAP") or "1") not in ("0", "false", "no"),
        }
        repo_url = get("LEMMATA_REPO_URL")
        if not repo_url and get("SPACE_ID"):
            values["repo_url"] = DEFAULT_REPO_URL
        if repo_url:
            if re.match(r"^https?://[^\s<>\"']+$", repo_url):
                values["repo_url"] = repo_url.rstrip("/")
            else:
                problems.append(("LEMMATA_REPO_URL", f"must be an http(s) URL, got {repo_url!r}"))
        if get("GRADIO_SERVER_PORT"):
            try:
                values["port"] = int(get("GRADIO_SERVER_PORT"))
            except ValueError:
                problems.append(("GRADIO_SERVER_PORT", "must be an integer port"))
        try:
            values["max_submission_bytes"] = int(get("LEMMATA_MAX_SUBMISSION_BYTES") or DEFAULT_MAX_BYTES)
        except ValueError:
            problems.append(("LEMMATA_MAX_SUBMISSION_BYTES", "must be an integer number of bytes"))
        try:
            values["rate_limit"] = parse_rate(get("LEMMATA_RATE_LIMIT") or DEFAULT_RATE)
        except ValueError as exc:
            problems.append(("LEMMATA_RATE_LIMIT", str(exc)))
        for name, key in (("LEMMATA_REFRESH_SECONDS", "refresh_seconds"),
                          ("LEMMATA_WORKER_POLL_SECONDS", "worker_poll_seconds")):
            if get(name):
                try:
                    values[key] = float(get(name))
                except ValueError:
                    problems.append((name, "must be a number of seconds"))
        repo = get("LEMMATA_RESULTS_REPO")
        if repo and values["space_id"]:
            minutes = 5.0
            try:
                minutes = float(get("LEMMATA_SYNC_MINUTES") or 5)
                if minutes <= 0:
                    raise ValueError
            except ValueError:
                problems.append(("LEMMATA_SYNC_MINUTES", "must be a positive number of minutes"))
            private = (get("LEMMATA_RESULTS_PRIVATE") or "0").strip().lower()
            if private not in _SWITCH:
                problems.append(("LEMMATA_RESULTS_PRIVATE", f"must be one of {', '.join(sorted(_SWITCH))}, got "
                                                            f"{private!r}"))
            if not _REPO_ID.match(repo):
                problems.append(("LEMMATA_RESULTS_REPO", f"must be '<owner>/<name>' of a Hub dataset, got {repo!r}"))
            elif minutes > 0 and private in _SWITCH:
                values["hub_sync"] = HubSyncConfig(repo_id=repo, every_minutes=minutes, private=_SWITCH[private])
        values.update(overrides)
        if problems:
            from lemmata.core.errors import Problem

            raise InputError([Problem("environment", reason, field=name) for name, reason in problems])
        return cls(**values)
