"""What is asked of a materialiser and what it records: the materialisation log's line schema.

The vocabulary follows the paper's own materialisation log
(``oracle_materialization_summary.json``): an access status (``downloaded``,
``unavailable``, and ``pending`` where the paper would retry), a parsing status,
the resolved identifier and the route that resolved it. ``cached`` is not a
recorded status: a record read back from a store is the record that was
written, and the reader is told it came from the store.

A record is self-hashed (``record_sha256`` over every other field), so an edited
log line is refused with its line number even before the store's MANIFEST is
compared.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from lemmata.core.hashing import sha256_json
from lemmata.core.identifiers import normalize_arxiv_id, normalize_doi
from lemmata.core.models import Frozen

RECORD_SCHEMA = "lemmata.materialisation/1"
Status = Literal["materialised", "unavailable", "pending"]
AccessStatus = Literal["downloaded", "unavailable", "pending"]
ParseStatus = Literal["parsed", "failed", "not_attempted"]
Path_ = Literal["source", "pdf"]
Via = Literal["arxiv_id", "arxiv_doi", "doi_table", "doi_arxiv_api"]
_VERSION = re.compile(r"v(\d+)$", re.IGNORECASE)
_SHA = r"^[0-9a-f]{64}$"


class SourceRequest(Frozen):
    """The source to materialise: an arXiv id (a ``vN`` suffix pins the version) and/or a DOI.

    >>> SourceRequest(arxiv_id="arXiv:1502.05240v2").key
    'arxiv:1502.05240v2'
    >>> SourceRequest(doi="https://doi.org/10.1000/ABC").key, SourceRequest(doi="10.48550/arXiv.2112.09334").arxiv_id
    ('doi:10.1000/abc', '2112.09334')
    """

    arxiv_id: str | None = None
    version: int | None = Field(None, ge=1)
    doi: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        raw_id = (data.get("arxiv_id") or "").strip()
        if raw_id:
            aid = normalize_arxiv_id(raw_id)
            if aid is None:
                raise ValueError(f"not an arXiv identifier: {raw_id!r}")
            m = _VERSION.search(raw_id.removesuffix(".pdf"))
            if m and data.get("version") is None:
                data["version"] = int(m.group(1))
            data["arxiv_id"] = aid
        else:
            data["arxiv_id"] = None
        raw_doi = (data.get("doi") or "").strip()
        if raw_doi:
            doi = normalize_doi(raw_doi)
            if doi is None:
                raise ValueError(f"not a DOI: {raw_doi!r}")
            data["doi"] = doi
            if data["arxiv_id"] is None and doi.startswith("10.48550/arxiv."):
                data["arxiv_id"] = normalize_arxiv_id(doi)
        else:
            data["doi"] = None
        return data

    @model_validator(mode="after")
    def _something(self) -> "SourceRequest":
        if self.arxiv_id is None and self.doi is None:
            raise ValueError("a source request needs an arxiv_id or a doi")
        if self.version is not None and self.arxiv_id is None:
            raise ValueError("a version needs an arxiv_id")
        return self

    @property
    def key(self) -> str:
        """The store key: the arXiv id (with its pinned version) when known, else the DOI."""
        if self.arxiv_id:
            return f"arxiv:{self.arxiv_id}" + (f"v{self.version}" if self.version else "")
        return f"doi:{self.doi}"


class Resolution(Frozen):
    """Which arXiv e-print the request resolved to, and by which route."""

    arxiv_id: str
    version: int | None = Field(None, ge=1)
    via: Via


class MaterialisationRecord(Frozen):
    """One line of the materialisation log."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["lemmata.materialisation/1"] = Field(RECORD_SCHEMA, alias="schema")
    key: str
    request: SourceRequest
    status: Status
    access_status: AccessStatus
    parse_status: ParseStatus
    path: Path_ | None = None
    reason: str = ""
    resolved: Resolution | None = None
    urls: list[str] = Field(default_factory=list)
    calls: int = Field(0, ge=0)
    fetched_kind: str | None = None
    fetched_bytes: int | None = Field(None, ge=0)
    fetched_sha256: str | None = Field(None, pattern=_SHA)
    main_file: str | None = None
    files_used: list[str] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    statements: int | None = Field(None, ge=0)
    bibliography_entries: int | None = Field(None, ge=0)
    text_file: str | None = None
    text_sha256: str | None = Field(None, pattern=_SHA)
    text_chars: int | None = Field(None, ge=0)
    text_settings_sha256: str = Field(pattern=_SHA)
    recorded_at: str
    record_sha256: str = Field("", pattern=r"^(?:[0-9a-f]{64})?$")

    @model_validator(mode="after")
    def _consistent(self) -> "MaterialisationRecord":
        if self.key != self.request.key:
            raise ValueError(f"key {self.key!r} is not the request's key {self.request.key!r}")
        has_text = self.text_sha256 is not None
        if self.status == "materialised":
            if not (self.access_status == "downloaded" and self.parse_status == "parsed" and self.path and has_text
                    and self.text_file and self.resolved and self.fetched_sha256):
                raise ValueError("a materialised record needs a download, a parse, a path, a resolution and a text")
            if self.text_file != text_file_name(self.text_sha256):
                raise ValueError("text_file is not named by the text's sha256")
        else:
            if has_text or self.text_file:
                raise ValueError(f"a {self.status} record carries no text")
            if not self.reason:
                raise ValueError(f"a {self.status} record needs a reason")
        if self.status == "pending" and self.access_status != "pending":
            raise ValueError("a pending record has access_status pending")
        return self

    def content_sha256(self) -> str:
        return sha256_json(self.model_dump(mode="json", by_alias=True, exclude={"record_sha256"}))

    def sealed(self) -> "MaterialisationRecord":
        return self.model_copy(update={"record_sha256": self.content_sha256()})

    @property
    def final(self) -> bool:
        """Materialised or definitively unavailable: a rescore reads it instead of asking arXiv again."""
        return self.status != "pending"


def now_iso() -> str:
    """UTC now, to the second (when a record was made; not part of any key)."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def text_file_name(sha256: str) -> str:
    """Where a text lives in a store: named by its own hash.

    >>> text_file_name("ab" * 32)
    'texts/abababababababababababababababababababababababababababababababab.txt'
    """
    return f"texts/{sha256}.txt"
