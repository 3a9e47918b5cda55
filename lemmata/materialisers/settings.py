"""Materialiser settings: one typed object, read from the environment in one place (:meth:`MaterialiserSettings.from_env`).

Two kinds of setting: *network* ones (where arXiv is, how long to wait, how
politely to pace requests) change how bytes are fetched, never which text is
produced; *text* ones (:meth:`MaterialiserSettings.text_settings`: archive
limits and the fixed-text budget, plus the fixed-text format) decide the text,
so a materialisation store records them and refuses to be extended under
different ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError

from lemmata.core.models import Frozen
from lemmata.core.settings import environment, read as setting
from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json
from lemmata.materialisers.eprint import ArchiveLimits
from lemmata.materialisers.fixedtext import FORMAT, TextLimits

BASE_URL_ENV = "LEMMATA_ARXIV_BASE_URL"
API_URL_ENV = "LEMMATA_ARXIV_API_URL"
DOI_TABLE_ENV = "LEMMATA_MATERIALISER_DOI_TABLE"
ENV_PREFIX = "LEMMATA_MATERIALISER_"

#: settings that may be given as LEMMATA_MATERIALISER_<NAME upper-case>
_ENV_FIELDS = ("timeout_s", "max_retries", "backoff_s", "max_backoff_s", "min_interval_s", "contact",
               "max_download_bytes", "max_unpacked_bytes", "max_members", "max_member_bytes",
               "prose_budget_chars", "max_statement_chars", "max_text_chars", "max_input_depth", "pdf_max_pages")


class MaterialiserSettings(Frozen):
    """Everything a materialiser is configured with (no credential: arXiv needs none)."""

    arxiv_base_url: str = "https://arxiv.org"
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0)
    backoff_s: float = Field(3.0, ge=0)
    max_backoff_s: float = Field(120.0, ge=0)
    #: arXiv asks automated clients for at most one request every three seconds
    min_interval_s: float = Field(3.0, ge=0)
    #: an e-mail address for the User-Agent, as arXiv asks of bulk clients
    contact: str | None = None
    max_api_bytes: int = Field(4 * 1024 * 1024, gt=0)
    max_download_bytes: int = Field(100 * 1024 * 1024, gt=0)
    max_unpacked_bytes: int = Field(200 * 1024 * 1024, gt=0)
    max_members: int = Field(5_000, gt=0)
    max_member_bytes: int = Field(64 * 1024 * 1024, gt=0)
    prose_budget_chars: int = Field(60_000, ge=0)
    max_statement_chars: int = Field(20_000, gt=0)
    max_text_chars: int = Field(1_000_000, gt=0)
    max_input_depth: int = Field(16, ge=0)
    pdf_max_pages: int = Field(500, gt=0)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "MaterialiserSettings":
        """Settings from ``LEMMATA_ARXIV_BASE_URL``, ``LEMMATA_ARXIV_API_URL`` and ``LEMMATA_MATERIALISER_*``.

        >>> MaterialiserSettings.from_env({"LEMMATA_ARXIV_BASE_URL": "http://127.0.0.1:9/",
        ...                                "LEMMATA_MATERIALISER_MIN_INTERVAL_S": "0"}).min_interval_s
        0.0
        """
        env = environment(environ)
        values: dict[str, Any] = {}
        if setting(BASE_URL_ENV, env):
            values["arxiv_base_url"] = setting(BASE_URL_ENV, env).rstrip("/")
        if setting(API_URL_ENV, env):
            values["arxiv_api_url"] = setting(API_URL_ENV, env)
        for name in _ENV_FIELDS:
            raw = setting(ENV_PREFIX + name.upper(), env)
            if raw is not None:
                values[name] = raw
        values.update(overrides)
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            name = str(err["loc"][0]) if err["loc"] else "?"
            var = {"arxiv_base_url": BASE_URL_ENV, "arxiv_api_url": API_URL_ENV}.get(name, ENV_PREFIX + name.upper())
            raise LemmataError(f"{var}: {err['msg']}") from None

    def archive_limits(self) -> ArchiveLimits:
        return ArchiveLimits(max_unpacked_bytes=self.max_unpacked_bytes, max_members=self.max_members,
                             max_member_bytes=self.max_member_bytes)

    def text_limits(self) -> TextLimits:
        return TextLimits(prose_budget_chars=self.prose_budget_chars, max_statement_chars=self.max_statement_chars,
                          max_text_chars=self.max_text_chars, max_input_depth=self.max_input_depth)

    def text_settings(self) -> dict[str, Any]:
        """The settings that decide the fixed text (recorded in, and checked against, a store)."""
        return {"format": FORMAT, "max_download_bytes": self.max_download_bytes,
                "max_unpacked_bytes": self.max_unpacked_bytes, "max_members": self.max_members,
                "max_member_bytes": self.max_member_bytes, "prose_budget_chars": self.prose_budget_chars,
                "max_statement_chars": self.max_statement_chars, "max_text_chars": self.max_text_chars,
                "max_input_depth": self.max_input_depth, "pdf_max_pages": self.pdf_max_pages}

    def text_settings_sha256(self) -> str:
        return sha256_json(self.text_settings())
