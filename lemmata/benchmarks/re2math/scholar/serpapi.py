"""Google Scholar through SerpAPI: the paper's retrieval backend, recorded into a new query-cache artifact.

The paper queried Google Scholar via SerpAPI (``engine=google_scholar``) with
``as_yhi`` set to the instance's year cutoff and kept the top 20 results.
SerpAPI returns at most :data:`MAX_PER_PAGE` (20) Scholar results per request,
so longer lists are fetched page by page with ``start``. A live engine's
answers change over time, so every client writes to its *own* artifact id,
and :class:`~lemmata.benchmarks.re2math.scholar.querycache.RecordingBackend` /
:func:`~lemmata.benchmarks.re2math.scholar.querycache.freeze_query_cache` turn a recording
into a frozen artifact that replays offline.

The key comes from ``SERPAPI_API_KEY`` (never written anywhere: recorded
request metadata and error messages omit it). Requests time out, and 429 /
5xx answers and network errors are retried with exponential backoff
(honouring ``Retry-After``). A result dated after the cutoff — Scholar's
filter is not airtight — is dropped client-side, so the year rule holds for
every backend; unknown years are kept, as in the offline artifact.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from lemmata import __version__
from lemmata.core.settings import read as setting
from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json
from lemmata.benchmarks.re2math.scholar.citations import find_doi
from lemmata.core.identifiers import normalize_arxiv_id
from lemmata.benchmarks.re2math.scholar.querycache import (
    DEFAULT_N,
    Candidate,
    QuerySettings,
    SearchResult,
    apply_year_cutoff,
    now_utc,
)

ENGINE = "google_scholar"
BACKEND = "serpapi-google-scholar"
DEFAULT_BASE_URL = "https://serpapi.com/search.json"
API_KEY_ENV = "SERPAPI_API_KEY"
BASE_URL_ENV = "SERPAPI_BASE_URL"
#: SerpAPI's Google Scholar ``num`` is limited to 20 results per request
MAX_PER_PAGE = 20
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_NO_RESULTS = re.compile(r"(?:hasn't|has not) returned any results", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[89]\d\d|20[0-3]\d)\b")
_ARXIV_LINK = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:\.pdf)?(?:[?#]|$)", re.IGNORECASE)


class SerpApiError(LemmataError):
    """SerpAPI refused or failed a request (its own message, never the key)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def summary_year(summary: str) -> int | None:
    """Year in a Scholar ``publication_info.summary`` (``authors - venue, year - host``).

    >>> summary_year("J Cheeger, TH Colding - Annals of Mathematics, 1996 - JSTOR")
    1996
    >>> summary_year("JL Harper - Population biology of plants., 1977 - cabdirect.org"), summary_year("M Gromov - books.google.com")
    (1977, None)
    """
    parts = [p.strip() for p in (summary or "").split(" - ")]
    venue = " - ".join(parts[1:-1]) if len(parts) >= 3 else (summary or "")
    years = _YEAR.findall(venue)
    return int(years[-1]) if years else None


def summary_authors(item: Mapping[str, Any]) -> list[str]:
    """Author names of a Scholar result: ``publication_info.authors`` when given, else the summary's first part.

    >>> summary_authors({"publication_info": {"summary": "J Cheeger, TH Colding - Annals of Mathematics, 1996 - JSTOR"}})
    ['J Cheeger', 'TH Colding']
    """
    info = item.get("publication_info") or {}
    named = [a.get("name", "") for a in info.get("authors") or [] if isinstance(a, Mapping) and a.get("name")]
    summary = info.get("summary") or ""
    parts = summary.split(" - ")
    listed = [a.strip(" …") for a in parts[0].split(",")] if len(parts) >= 2 else []
    names = list(dict.fromkeys(named + [a for a in listed if a and not _YEAR.search(a)]))
    return names


def _identifiers(item: Mapping[str, Any]) -> tuple[str | None, str | None]:
    links = [item.get("link") or ""] + [r.get("link") or "" for r in item.get("resources") or []
                                         if isinstance(r, Mapping)]
    doi = next((d for d in (find_doi(link) for link in links) if d), None)
    arxiv = None
    for link in links:
        m = _ARXIV_LINK.search(link)
        if m and (aid := normalize_arxiv_id(m.group(1))):
            arxiv = aid
            break
    return doi, arxiv


def to_candidate(item: Mapping[str, Any], rank: int) -> Candidate:
    """One SerpAPI ``organic_results`` entry as a candidate (everything else kept in ``extra``)."""
    result_id = item.get("result_id") or sha256_json([item.get("title"), item.get("link")])[:12]
    doi, arxiv = _identifiers(item)
    info = item.get("publication_info") or {}
    extra = {k: v for k, v in item.items() if k not in ("title", "snippet", "link")}
    return Candidate(id=f"gs-{result_id}", rank=rank, score=None, kind="scholar_result",
                     title=item.get("title") or "", text=item.get("snippet") or "",
                     authors=summary_authors(item), year=summary_year(info.get("summary") or ""), doi=doi,
                     arxiv_id=arxiv, link=item.get("link") or None, extra=extra)


class SerpApiScholar:
    """Google Scholar search through SerpAPI, stamped with ``artifact_id`` (one id per recording campaign)."""

    backend = BACKEND

    def __init__(self, artifact_id: str, *, api_key: str | None = None, base_url: str | None = None,
                 hl: str = "en", timeout_s: float = 30.0, max_retries: int = 4, backoff_s: float = 1.0,
                 max_backoff_s: float = 60.0, sleep: Callable[[float], None] = time.sleep) -> None:
        key = api_key if api_key is not None else (setting(API_KEY_ENV) or "")
        if not key.strip():
            raise LemmataError(f"no SerpAPI key: set {API_KEY_ENV} to search Google Scholar through SerpAPI")
        self.artifact_id = artifact_id
        self._key = key.strip()
        self.base_url = base_url or setting(BASE_URL_ENV) or DEFAULT_BASE_URL
        self.hl = hl
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._sleep = sleep

    def settings(self) -> dict[str, Any]:
        """Fixed request settings, for the query-cache header."""
        return {"engine": ENGINE, "hl": self.hl, "max_per_page": MAX_PER_PAGE, "base_url": self.base_url}

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        items: list[Mapping[str, Any]] = []
        pages: list[dict[str, Any]] = []
        for start in range(0, n, MAX_PER_PAGE):
            num = min(MAX_PER_PAGE, n - start)
            params: dict[str, Any] = {"engine": ENGINE, "q": query, "hl": self.hl, "num": num, "start": start}
            if year_cutoff is not None:
                params["as_yhi"] = year_cutoff
            payload = self._get(params)
            meta = payload.get("search_metadata") or {}
            organic = payload.get("organic_results") or []
            pages.append({"start": start, "num": num, "search_id": meta.get("id"), "status": meta.get("status"),
                          "results": len(organic)})
            error = payload.get("error")
            if error:
                if _NO_RESULTS.search(str(error)):
                    break
                raise SerpApiError(f"SerpAPI: {error}")
            items += organic
            if len(organic) < num:
                break
        seen: set[str] = set()
        candidates: list[Candidate] = []
        for item in items:
            cand = to_candidate(item, len(candidates) + 1)
            if cand.id not in seen:
                seen.add(cand.id)
                candidates.append(cand)
        kept = apply_year_cutoff(candidates, year_cutoff, n)
        request = {"engine": ENGINE, "hl": self.hl, "pages": pages, "returned": len(candidates),
                   "dropped_after_cutoff": sum(1 for c in candidates
                                               if year_cutoff is not None and c.year is not None
                                               and c.year > year_cutoff)}
        return SearchResult(artifact_id=self.artifact_id, query=query,
                            settings=QuerySettings(backend=BACKEND, n=n, year_cutoff=year_cutoff),
                            timestamp=now_utc(), candidates=kept, instance_id=instance_id, request=request)

    # -- HTTP ----------------------------------------------------------------
    def _get(self, params: Mapping[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}?{urllib.parse.urlencode({**params, 'api_key': self._key})}"
        shown = f"{self.base_url}?{urllib.parse.urlencode(params)}"
        request = urllib.request.Request(url, headers={"Accept": "application/json",
                                                       "User-Agent": f"lemmata/{__version__}"})
        attempt = 0
        while True:
            retry_after: float | None = None
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as resp:
                    return _json_body(resp.read(), shown)
            except urllib.error.HTTPError as exc:
                body = exc.read()
                message = _error_message(body) or exc.reason
                if exc.code not in RETRY_STATUSES or attempt >= self.max_retries:
                    raise SerpApiError(f"SerpAPI answered HTTP {exc.code} for {shown}: {message}",
                                       status=exc.code) from None
                retry_after = _retry_after(exc.headers.get("Retry-After"))
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                if attempt >= self.max_retries:
                    raise SerpApiError(f"could not reach SerpAPI at {self.base_url} ({exc}) after "
                                       f"{attempt + 1} attempt(s)") from None
            delay = retry_after if retry_after is not None else self.backoff_s * (2 ** attempt)
            self._sleep(min(delay, self.max_backoff_s))
            attempt += 1


def _json_body(raw: bytes, shown: str) -> dict[str, Any]:
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SerpApiError(f"SerpAPI sent a body that is not JSON for {shown} ({exc})") from None
    if not isinstance(payload, dict):
        raise SerpApiError(f"SerpAPI sent a JSON {type(payload).__name__}, not an object, for {shown}")
    return payload


def _error_message(body: bytes) -> str:
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return body.decode("utf-8", "replace")[:200]
    return str(payload.get("error", "")) if isinstance(payload, dict) else ""


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
