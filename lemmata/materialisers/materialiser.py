"""Materialise a cited source: resolve it to an arXiv e-print, fetch it, turn it into its fixed text, record all.

Routes, tried in order (the record's ``resolved.via`` names the one used):

* ``arxiv_id`` — the request names an arXiv id; a ``vN`` suffix pins the
  version, otherwise the export API's ``id_list`` gives the latest version so
  the record pins one;
* ``arxiv_doi`` — the DOI is arXiv's own (``10.48550/arXiv.…``);
* ``doi_table`` — a DOI → arXiv lookup table passed in (e.g. built from arXiv
  metadata: :func:`read_doi_table`);
* ``doi_arxiv_api`` — the export API queried with ``search_query=doi:"…"``;
  a hit counts only when its ``arxiv:doi`` element *is* the DOI, and two
  different papers with that DOI make it ambiguous (unavailable). Publisher
  sites are never contacted.

The e-print is then read as TeX source (:mod:`~lemmata.materialisers.fixedtext`)
or, only when arXiv holds no source and serves the PDF, as PDF text
(:mod:`~lemmata.materialisers.pdftext`); ``path`` records which.

Every outcome is one :class:`~lemmata.materialisers.records.MaterialisationRecord`
in the store: *materialised* (with its text), *unavailable* (definitive: no
arXiv twin, no e-print, an unreadable or over-limit one) or *pending* (arXiv
did not answer within the retry budget; asked again next time). A request
already answered in the store is served from it without any network call;
without a client (offline) an unanswered request is pending and nothing is
written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.models import Strict
from lemmata.core.settings import environment, read as setting
from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.datafiles import iter_valid
from lemmata.materialisers.arxiv import ArxivAccessRefused, ArxivClient, ArxivError, NotOnArxiv
from lemmata.materialisers.eprint import EprintError, unpack
from lemmata.materialisers.fixedtext import FORMAT, source_text
from lemmata.materialisers.pdftext import PdfError, pdf_text
from lemmata.materialisers.records import (
    MaterialisationRecord,
    Resolution,
    SourceRequest,
    now_iso,
    text_file_name,
)
from lemmata.materialisers.settings import DOI_TABLE_ENV, MaterialiserSettings
from lemmata.materialisers.store import MaterialisationStore
from lemmata.materialisers.texsource import TexError
from lemmata.oracles.http import OracleUnavailable, ResponseTooLarge
from lemmata.core.identifiers import normalize_arxiv_id, normalize_doi


@dataclass(frozen=True)
class Materialisation:
    """What :meth:`Materialiser.materialise` returns: the record, the text (when materialised), its provenance."""

    record: MaterialisationRecord
    text: str | None
    cached: bool

    @property
    def ok(self) -> bool:
        return self.record.status == "materialised"


class _DoiRow(Strict):
    doi: str
    arxiv_id: str


def read_doi_table(path: str | Path) -> dict[str, str]:
    """A DOI → arXiv table from JSONL lines ``{"doi": …, "arxiv_id": …}``; bad lines are named with their field.

    A DOI given twice with different arXiv ids is refused: the table must not choose.
    """
    table: dict[str, str] = {}
    first: dict[str, int] = {}
    problems: list[Problem] = []
    name = str(path)
    for lineno, row in iter_valid(path, _DoiRow, problems):
        doi, aid = normalize_doi(row.doi), normalize_arxiv_id(row.arxiv_id)
        if doi is None:
            problems.append(Problem(name, f"not a DOI: {row.doi!r}", lineno, "doi"))
        elif aid is None:
            problems.append(Problem(name, f"not an arXiv id: {row.arxiv_id!r}", lineno, "arxiv_id"))
        elif table.get(doi, aid) != aid:
            problems.append(Problem(name, f"DOI {doi} already maps to {table[doi]} (line {first[doi]})", lineno,
                                    "arxiv_id"))
        else:
            table[doi] = aid
            first.setdefault(doi, lineno)
    if problems:
        raise InputError(problems)
    return table


class Materialiser:
    """Materialises sources into one store; ``client=None`` is offline (store only, zero network)."""

    def __init__(self, store: MaterialisationStore | str | Path, *, settings: MaterialiserSettings | None = None,
                 client: ArxivClient | None = None, doi_table: Mapping[str, str] | None = None) -> None:
        self.settings = settings or (client.settings if client is not None else MaterialiserSettings())
        if not isinstance(store, MaterialisationStore):
            store = MaterialisationStore(store, text_settings=self.settings.text_settings(),
                                         text_settings_sha256=self.settings.text_settings_sha256())
        elif store.header.text_settings_sha256 != self.settings.text_settings_sha256():
            raise LemmataError(f"the store {store.folder} was opened under other text settings")
        self.store = store
        self.client = client
        self.doi_table = {normalize_doi(k) or k: v for k, v in (doi_table or {}).items()}

    @classmethod
    def from_env(cls, store: str | Path, *, offline: bool = False, environ: Mapping[str, str] | None = None,
                 sleep: Callable[[float], None] = time.sleep, **overrides: Any) -> "Materialiser":
        """The materialiser the environment configures (``LEMMATA_ARXIV_*``, ``LEMMATA_MATERIALISER_*``)."""
        env = environment(environ)
        settings = MaterialiserSettings.from_env(env, **overrides)
        table_path = setting(DOI_TABLE_ENV, env)
        table = read_doi_table(table_path) if table_path else None
        client = None if offline else ArxivClient(settings, sleep=sleep)
        return cls(store, settings=settings, client=client, doi_table=table)

    # -- the one entry point --------------------------------------------------------------------------------
    def materialise(self, request: SourceRequest | Mapping[str, Any]) -> Materialisation:
        if not isinstance(request, SourceRequest):
            request = SourceRequest.model_validate(dict(request))
        found = self.store.lookup(request.key)
        if found is not None:
            return Materialisation(found, self.store.read_text(found) if found.text_file else None, cached=True)
        if self.client is None:
            rec = self._record(request, status="pending", access="pending",
                               reason="not in the materialisation store, and no network client (offline)")
            return Materialisation(rec.sealed(), None, cached=False)
        calls_before = self.client.calls
        rec, text = self._fetch(request)
        rec = rec.model_copy(update={"calls": self.client.calls - calls_before})
        rec = self.store.append(rec, text)
        return Materialisation(rec, self.store.read_text(rec) if rec.text_file else None, cached=False)

    # -- steps ----------------------------------------------------------------------------------------------
    def _record(self, request: SourceRequest, **fields: Any) -> MaterialisationRecord:
        status = fields.pop("status")
        access = fields.pop("access")
        return MaterialisationRecord(key=request.key, request=request, status=status, access_status=access,
                                     parse_status=fields.pop("parse", "not_attempted"),
                                     text_settings_sha256=self.settings.text_settings_sha256(),
                                     recorded_at=now_iso(), **fields)

    def _fetch(self, request: SourceRequest) -> tuple[MaterialisationRecord, str | None]:
        urls: list[str] = []
        resolved: Resolution | None = None
        try:
            resolved, why = self._resolve(request, urls)
            if resolved is None:
                return self._record(request, status="unavailable", access="unavailable", reason=why, urls=urls), None
            if resolved.version is None:
                version, url = self.client.latest_version(resolved.arxiv_id)
                urls.append(url)
                if version is None:
                    return self._record(request, status="unavailable", access="unavailable", resolved=resolved,
                                        urls=urls, reason=f"arXiv has no record of {resolved.arxiv_id}"), None
                resolved = resolved.model_copy(update={"version": version})
            urls.append(self.client.eprint_url(resolved.arxiv_id, resolved.version))
            data = self.client.eprint(resolved.arxiv_id, resolved.version)
        except OracleUnavailable as exc:
            return self._record(request, status="pending", access="pending", reason=str(exc), urls=urls), None
        except NotOnArxiv as exc:
            return self._record(request, status="unavailable", access="unavailable", urls=urls,
                                resolved=resolved,
                                reason=f"{exc} (withdrawn without source, or no such version)"), None
        except ResponseTooLarge as exc:
            return self._record(request, status="unavailable", access="unavailable", urls=urls,
                                resolved=resolved, reason=str(exc)), None
        except ArxivAccessRefused:
            raise  # arXiv refuses this client altogether: a configuration problem, not one source's fate
        except ArxivError as exc:
            return self._record(request, status="pending", access="pending", urls=urls, reason=str(exc)), None
        return self._read(request, resolved, urls, data)

    def _resolve(self, request: SourceRequest, urls: list[str]) -> tuple[Resolution | None, str]:
        if request.arxiv_id:
            via = "arxiv_doi" if request.doi and request.doi.startswith("10.48550/arxiv.") else "arxiv_id"
            return Resolution(arxiv_id=request.arxiv_id, version=request.version, via=via), ""
        doi = request.doi or ""
        if doi in self.doi_table:
            return Resolution(arxiv_id=self.doi_table[doi], via="doi_table"), ""
        hits, url = self.client.search_doi(doi)
        urls.append(url)
        ids = sorted({h.arxiv_id for h in hits})
        if len(ids) > 1:
            return None, f"DOI {doi} is claimed by several arXiv papers ({', '.join(ids)}): ambiguous"
        if not ids:
            where = "not in the DOI table, and " if self.doi_table else ""
            return None, f"no open-access arXiv twin for DOI {doi}: {where}no arXiv entry carries this DOI"
        return Resolution(arxiv_id=ids[0], version=max((h.version or 0) for h in hits) or None,
                          via="doi_arxiv_api"), ""

    def _read(self, request: SourceRequest, resolved: Resolution, urls: list[str],
              data: bytes) -> tuple[MaterialisationRecord, str | None]:
        s = self.settings
        tag = f"arXiv:{resolved.arxiv_id}v{resolved.version}"
        fetched = {"resolved": resolved, "urls": urls, "fetched_bytes": len(data), "fetched_sha256": sha256_bytes(data)}
        lone = resolved.arxiv_id.replace("/", "_") + f"v{resolved.version}.tex"
        try:
            unpacked = unpack(data, s.archive_limits(), name=lone)
        except EprintError as exc:
            return self._record(request, status="unavailable", access="downloaded", parse="failed",
                                reason=str(exc), **fetched), None
        fetched["fetched_kind"] = unpacked.kind
        fetched["refused"] = unpacked.refused
        try:
            if unpacked.kind == "pdf":
                header = [f"% lemmata fixed text ({FORMAT})", f"% source: {tag}, PDF (arXiv holds no TeX source)"]
                pdf = pdf_text(unpacked.pdf or b"", header=header, max_pages=s.pdf_max_pages,
                               max_chars=s.max_text_chars)
                text, path, extra = pdf.text, "pdf", {"notes": [f"{pdf.pages_read} of {pdf.pages} pages read"]}
            elif unpacked.kind == "unknown":
                return self._record(request, status="unavailable", access="downloaded", parse="failed",
                                    reason=f"unrecognised e-print format (first bytes {data[:8]!r})", **fetched), None
            else:
                header = [f"% lemmata fixed text ({FORMAT})"]
                fixed = source_text(unpacked.files, s.text_limits(), header=header)
                fixed.text = fixed.text.replace(
                    header[0] + "\n", header[0] + f"\n% source: {tag}, TeX source, main file {fixed.main_file}\n", 1)
                text, path = fixed.text, "source"
                extra = {"main_file": fixed.main_file, "files_used": fixed.files_used,
                         "refused": unpacked.refused + fixed.refused,
                         "notes": [n for n in fixed.notes if n not in fixed.refused],
                         "statements": len(fixed.statements), "bibliography_entries": fixed.bibliography_entries}
        except (TexError, PdfError) as exc:
            return self._record(request, status="unavailable", access="downloaded", parse="failed",
                                reason=str(exc), **fetched), None
        fetched.update(extra)
        sha = sha256_bytes(text.encode("utf-8"))
        return self._record(request, status="materialised", access="downloaded", parse="parsed", path=path,
                            text_file=text_file_name(sha), text_sha256=sha, text_chars=len(text), **fetched), text


def coverage(records: list[MaterialisationRecord] | MaterialisationStore) -> dict[str, Any]:
    """Counts in the paper's vocabulary: per status, per access / parse status, per route and path.

    ``materialised / total`` over a benchmark's cited sources is its OracleCoverage.
    """
    final: dict[str, MaterialisationRecord] = {}
    latest: dict[str, MaterialisationRecord] = {}
    for rec in records:
        latest[rec.key] = rec
        if rec.final:
            final.setdefault(rec.key, rec)
    answer = {k: final.get(k, r) for k, r in latest.items()}

    def count(values) -> dict[str, int]:
        out: dict[str, int] = {}
        for v in values:
            out[str(v)] = out.get(str(v), 0) + 1
        return dict(sorted(out.items()))

    vals = list(answer.values())
    return {"sources": len(vals), "status": count(r.status for r in vals),
            "access_status": count(r.access_status for r in vals), "parse_status": count(r.parse_status for r in vals),
            "via": count(r.resolved.via for r in vals if r.resolved), "path": count(r.path for r in vals if r.path)}
