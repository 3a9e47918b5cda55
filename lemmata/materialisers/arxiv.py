"""The arXiv endpoints a materialiser uses: the export API (versions, DOI twins) and ``/e-print/``.

Requests go through the oracles' HTTP layer (:mod:`lemmata.oracles.http`):
429, 5xx, timeouts and dropped connections are retried with exponential
backoff that honours ``Retry-After``; when the retries are spent the work is
*pending* (:class:`~lemmata.oracles.judge.OracleUnavailable`). Requests are
also spaced ``min_interval_s`` apart (arXiv asks automated clients for one
request every three seconds). 404 and 410 mean the thing does not exist
(:class:`NotOnArxiv`, a definitive *unavailable*). Bodies are size-bounded
before they are read.

Atom replies are parsed with the standard library's expat after refusing any
``<!DOCTYPE`` (Atom has none, so entity tricks have nowhere to hide).
"""

from __future__ import annotations

import re
import threading
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass

from lemmata import __version__
from lemmata.core.errors import LemmataError
from lemmata.materialisers.settings import BASE_URL_ENV, MaterialiserSettings
from lemmata.oracles.http import OracleAuthError, OracleRequestError, send, with_retries
from lemmata.core.identifiers import normalize_arxiv_id, normalize_doi

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_ABS_ID = re.compile(r"/abs/(?P<id>.+?)(?:v(?P<v>\d+))?$")


class NotOnArxiv(LemmataError):
    """arXiv answered 404/410: no such e-print (withdrawn without source, or never existed)."""

    def __init__(self, status: int, url: str) -> None:
        super().__init__(f"arXiv answered HTTP {status} for {url}")
        self.status = status


class ArxivError(LemmataError):
    """arXiv refused or garbled a request in a way no retry fixes (one sentence)."""


class ArxivAccessRefused(ArxivError):
    """arXiv refuses this client (401/403): every request would fail, so materialisation stops."""


@dataclass(frozen=True)
class ApiEntry:
    """One entry of an export-API feed: version-free id, latest version, and the DOI the authors gave."""

    arxiv_id: str
    version: int | None
    doi: str | None


def parse_feed(raw: bytes) -> list[ApiEntry]:
    """Entries of an arXiv export-API Atom feed; ArxivError for an error feed or anything that is not one.

    >>> feed = (b'<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">'
    ...         b'<entry><id>http://arxiv.org/abs/math/0601001v3</id>'
    ...         b'<arxiv:doi>10.1000/X.1</arxiv:doi></entry></feed>')
    >>> parse_feed(feed)
    [ApiEntry(arxiv_id='math/0601001', version=3, doi='10.1000/x.1')]
    """
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise ArxivError("the arXiv API reply declares a DOCTYPE or entities; refused")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        raise ArxivError(f"the arXiv API reply is not XML ({exc})") from None
    if root.tag != f"{_ATOM}feed":
        raise ArxivError(f"the arXiv API reply is not an Atom feed (root {root.tag!r})")
    entries: list[ApiEntry] = []
    for entry in root.findall(f"{_ATOM}entry"):
        ident = (entry.findtext(f"{_ATOM}id") or "").strip()
        if "/api/errors" in ident:
            summary = (entry.findtext(f"{_ATOM}summary") or "").strip()
            raise ArxivError(f"the arXiv API reported an error: {summary or ident}")
        m = _ABS_ID.search(ident)
        aid = normalize_arxiv_id(m.group("id")) if m else None
        if aid is None:
            continue
        doi = normalize_doi(entry.findtext(f"{_ARXIV}doi") or "")
        entries.append(ApiEntry(arxiv_id=aid, version=int(m.group("v")) if m.group("v") else None, doi=doi))
    return entries


class ArxivClient:
    """arXiv over HTTP, politely paced; ``calls`` counts the requests actually sent (retries included)."""

    def __init__(self, settings: MaterialiserSettings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._last: float | None = None
        self.calls = 0
        contact = f"; mailto:{settings.contact}" if settings.contact else ""
        self.user_agent = f"lemmata/{__version__} (source materialisation{contact})"

    def describe(self) -> dict[str, str]:
        return {"arxiv_base_url": self.settings.arxiv_base_url, "arxiv_api_url": self.settings.arxiv_api_url}

    # -- requests -------------------------------------------------------------------------------------------
    def _pace(self) -> None:
        with self._lock:
            if self._last is not None and self.settings.min_interval_s > 0:
                wait = self._last + self.settings.min_interval_s - self._clock()
                if wait > 0:
                    self._sleep(wait)
            self._last = self._clock()
            self.calls += 1

    def _get(self, url: str, *, accept: str, max_bytes: int) -> bytes:
        s = self.settings

        def once() -> bytes:
            self._pace()
            req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": self.user_agent})

            def missing(status: int, _detail: str) -> BaseException | None:
                return NotOnArxiv(status, url) if status in (404, 410) else None

            try:
                return send(req, timeout=s.timeout_s, who=f"arXiv at {url}", key_env=BASE_URL_ENV,
                            on_status=missing, max_bytes=max_bytes)
            except OracleAuthError:
                raise ArxivAccessRefused(f"arXiv refused access to {url} (HTTP 401/403): arXiv blocks clients that "
                                 "exceed its rate limits; raise LEMMATA_MATERIALISER_MIN_INTERVAL_S and set "
                                 "LEMMATA_MATERIALISER_CONTACT") from None
            except OracleRequestError as exc:
                raise ArxivError(str(exc)) from None

        return with_retries(once, max_retries=s.max_retries, backoff_s=s.backoff_s, max_backoff_s=s.max_backoff_s,
                            sleep=self._sleep,
                            unavailable=lambda n, why: f"arXiv did not answer {url} after {n} attempt(s): {why}")

    # -- endpoints ------------------------------------------------------------------------------------------
    def api_url(self, **params: str) -> str:
        return f"{self.settings.arxiv_api_url}?{urllib.parse.urlencode(params)}"

    def eprint_url(self, arxiv_id: str, version: int) -> str:
        return f"{self.settings.arxiv_base_url.rstrip('/')}/e-print/{arxiv_id}v{version}"

    def latest_version(self, arxiv_id: str) -> tuple[int | None, str]:
        """(the latest version of ``arxiv_id``, the URL asked); version None when arXiv has no such paper."""
        url = self.api_url(id_list=arxiv_id, max_results="1")
        entries = parse_feed(self._get(url, accept="application/atom+xml", max_bytes=self.settings.max_api_bytes))
        for entry in entries:
            if entry.arxiv_id == arxiv_id:
                return entry.version, url
        return None, url

    def search_doi(self, doi: str) -> tuple[list[ApiEntry], str]:
        """(entries whose ``arxiv:doi`` *is* ``doi``, the URL asked): the query's hits are checked, not trusted."""
        url = self.api_url(search_query=f'doi:"{doi}"', max_results="10")
        entries = parse_feed(self._get(url, accept="application/atom+xml", max_bytes=self.settings.max_api_bytes))
        return [e for e in entries if e.doi == doi], url

    def eprint(self, arxiv_id: str, version: int) -> bytes:
        """The e-print bytes of ``arxiv_id`` version ``version`` (:meth:`eprint_url`)."""
        return self._get(self.eprint_url(arxiv_id, version), accept="*/*", max_bytes=self.settings.max_download_bytes)
