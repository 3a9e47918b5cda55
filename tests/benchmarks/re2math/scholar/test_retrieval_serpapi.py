"""The SerpAPI Google Scholar client against a local server that speaks SerpAPI's JSON (fixtures in the real schema)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from lemmata.core.errors import InputError, LemmataError
from lemmata.benchmarks.re2math.scholar.matcher import match_candidate
from lemmata.benchmarks.re2math.scholar.querycache import (
    NotRecordedError,
    RecordingBackend,
    ReplayBackend,
    freeze_query_cache,
    read_query_cache,
)
from lemmata.benchmarks.re2math.scholar.serpapi import MAX_PER_PAGE, SerpApiError, SerpApiScholar

FIXTURES = Path(__file__).parents[3] / "fixtures" / "serpapi"
KEY = "test-key-0123456789abcdef"
QUERY = "almost rigidity warped products Ricci curvature"
NO_RESULTS_QUERY = "qwxz zzqv fnord"
ARTIFACT = "re2math-serpapi-scholar-test-1"


def _fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text("utf-8"))


class SerpApiStub(ThreadingHTTPServer):
    """Serves the fixtures like serpapi.com/search.json, records requests, can inject failures."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, str]] = []
        self.failures: list[tuple[int, dict, dict]] = []  # (status, body, headers) served before normal answers
        self.delays: list[float] = []  # seconds to stall the next requests (timeouts)
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/search.json"


class _Handler(BaseHTTPRequestHandler):
    server: SerpApiStub

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: dict, headers: dict | None = None) -> None:
        raw = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        parts = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self.server.lock:
            self.server.requests.append(params)
            delay = self.server.delays.pop(0) if self.server.delays else 0.0
            failure = self.server.failures.pop(0) if self.server.failures else None
        if delay:
            time.sleep(delay)
        if parts.path != "/search.json":
            return self._send(404, {"error": "Not found."})
        if failure:
            return self._send(*failure)
        if params.get("api_key") != KEY:
            return self._send(401, _fixture("invalid_key.json"))
        if params.get("engine") != "google_scholar":
            return self._send(400, {"error": f"Unsupported `{params.get('engine')}` search engine."})
        if not params.get("q"):
            return self._send(400, _fixture("missing_query.json"))
        num, start = int(params.get("num", "10")), int(params.get("start", "0"))
        if not 1 <= num <= MAX_PER_PAGE:
            return self._send(400, {"error": "`num` must be between 1 and 20."})
        if params["q"] == QUERY and params.get("as_yhi") == "1997" and params.get("hl") == "en":
            if (start, num) == (0, 20):
                return self._send(200, _fixture("ricci_page1.json"))
            if start == 20 and num == 2:
                return self._send(200, _fixture("ricci_page2.json"))
        return self._send(200, _fixture("no_results.json"))


@pytest.fixture
def stub():
    server = SerpApiStub()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _client(stub: SerpApiStub, **kwargs) -> tuple[SerpApiScholar, list[float]]:
    slept: list[float] = []
    options = {"api_key": KEY, "base_url": stub.url, "backoff_s": 0.01, "sleep": slept.append, **kwargs}
    return SerpApiScholar(ARTIFACT, **options), slept


def test_round_trip_pagination_cutoff_recording_and_replay(stub, tmp_path):
    client, _ = _client(stub)
    cache = tmp_path / "scholar.jsonl"
    backend = RecordingBackend(client, cache, description="fixture campaign", settings=client.settings())
    result = backend.search(QUERY, 1997, 22, instance_id="1208.0001_gap_0")

    # the query parameters SerpAPI received: two pages of at most 20, the year bound, the key
    assert [(r["num"], r["start"]) for r in stub.requests] == [("20", "0"), ("2", "20")]
    for r in stub.requests:
        assert (r["engine"], r["q"], r["as_yhi"], r["hl"], r["api_key"]) == ("google_scholar", QUERY, "1997", "en", KEY)

    page1 = [item["result_id"] for item in json.loads((FIXTURES / "ricci_page1.json").read_text())["organic_results"]]
    ids = result.ids()
    # the 2000 paper Scholar leaked past as_yhi is dropped; the duplicate on page 2 is kept once
    assert "gs-mN3cX8vB2qKJ" not in ids and ids.count("gs-Hk2sR4t0e3IJ") == 1
    assert ids == [f"gs-{rid}" for rid in page1 if rid != "mN3cX8vB2qKJ"] + ["gs-nB4vC6xZ8aAJ"]
    assert [c.rank for c in result.candidates] == list(range(1, 21))
    assert all(c.year is None or c.year <= 1997 for c in result.candidates)
    assert result.request["dropped_after_cutoff"] == 1 and result.request["returned"] == 21
    assert result.artifact_id == ARTIFACT and result.settings.backend == "serpapi-google-scholar"

    by_id = {c.id: c for c in result.candidates}
    first = by_id["gs-Qw3Hn2dYpVQJ"]
    assert (first.title, first.year, first.authors) == (
        "Lower bounds on Ricci curvature and the almost rigidity of warped products", 1996, ["J Cheeger", "TH Colding"])
    assert first.extra["position"] == 0 and first.extra["inline_links"]["cited_by"]["total"] == 1113
    assert by_id["gs-pV9dL2mQx6EJ"].doi == "10.1007/s002220050043"
    assert by_id["gs-aK0yqP7mX1sJ"].doi == "10.4310/jdg/1214459974"
    assert by_id["gs-cV8bN0mQ2wZJ"].arxiv_id == "dg-ga/9503002"
    assert by_id["gs-gH7jK9lZ1bYJ"].year is None  # a [CITATION] entry without a year is kept

    # recorded: header + one line, never the key; a repeated query is answered from the cache
    text = cache.read_text("utf-8")
    assert KEY not in text
    header, results = read_query_cache(cache)
    assert header.artifact_id == ARTIFACT and header.backend == "serpapi-google-scholar"
    assert header.settings["engine"] == "google_scholar" and results == [result]
    assert backend.search(QUERY, 1997, 22).ids() == ids and len(stub.requests) == 2

    # frozen and replayed offline, byte-verified
    frozen = freeze_query_cache(cache, tmp_path / "artifacts")
    assert frozen.name == ARTIFACT
    replay = ReplayBackend.open(frozen)
    assert replay.artifact_id == ARTIFACT and replay.search(QUERY, 1997, 22).ids() == ids
    with pytest.raises(NotRecordedError):
        replay.search(QUERY, 1998, 22)
    queries = frozen / "queries.jsonl"
    queries.chmod(0o644)
    raw = bytearray(queries.read_bytes())
    raw[-10] = ord("X") if raw[-10] != ord("X") else ord("Y")
    queries.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="modified"):
        ReplayBackend.open(frozen)


def test_candidate_matches_the_release_citation(stub, re2math_release):
    from lemmata.release.load import open_release

    rows = open_release(re2math_release).rows("full", "full")
    cited = next(r["z"] for r in rows if "almost rigidity of warped products" in r["z"]["citation_content"])
    client, _ = _client(stub)
    result = client.search(QUERY, 1997, 20)
    verdicts = {c.id: match_candidate(c, cited) for c in result.candidates}
    assert verdicts["gs-Qw3Hn2dYpVQJ"].matched and verdicts["gs-Qw3Hn2dYpVQJ"].rule == "title_author"
    # same authors, different paper (the CRAS note, the structure series) and same words, other authors: no match
    assert [cid for cid, m in verdicts.items() if m.matched] == ["gs-Qw3Hn2dYpVQJ"]


def test_invalid_key_is_reported_without_retry_or_leak(stub):
    client, slept = _client(stub, api_key="wrong-key-42")
    with pytest.raises(SerpApiError) as err:
        client.search(QUERY, 1997)
    assert err.value.status == 401
    assert "Invalid API key" in str(err.value) and "wrong-key-42" not in str(err.value)
    assert len(stub.requests) == 1 and slept == []


def test_429_and_5xx_are_retried_with_backoff(stub):
    stub.failures = [(503, {"error": "Service unavailable."}, {}),
                     (429, _fixture("rate_limited.json"), {"Retry-After": "2"}),
                     (500, {"error": "Internal error."}, {})]
    client, slept = _client(stub)
    result = client.search(QUERY, 1997, 20)
    assert len(result.candidates) == 19 and len(stub.requests) == 4
    assert slept == [0.01, 2.0, 0.04]  # exponential backoff, Retry-After honoured


def test_retries_are_bounded(stub):
    stub.failures = [(503, {"error": "Service unavailable."}, {})] * 5
    client, slept = _client(stub, max_retries=2)
    with pytest.raises(SerpApiError, match="HTTP 503") as err:
        client.search(QUERY, 1997)
    assert err.value.status == 503 and len(stub.requests) == 3 and len(slept) == 2


def test_timeouts_are_retried(stub):
    stub.delays = [1.0]
    client, slept = _client(stub, timeout_s=0.25)
    assert len(client.search(QUERY, 1997, 20).candidates) == 19
    assert len(stub.requests) == 2 and slept == [0.01]


def test_no_results_is_an_empty_list(stub):
    client, _ = _client(stub)
    result = client.search(NO_RESULTS_QUERY, 2020, 20)
    assert result.candidates == [] and result.request["pages"][0]["results"] == 0
    assert stub.requests[0]["as_yhi"] == "2020"


def test_key_and_base_url_from_the_environment(stub, monkeypatch):
    monkeypatch.delenv("SERPAPI_API_KEY", raising=False)
    with pytest.raises(LemmataError, match="SERPAPI_API_KEY"):
        SerpApiScholar(ARTIFACT)
    monkeypatch.setenv("SERPAPI_API_KEY", KEY)
    monkeypatch.setenv("SERPAPI_BASE_URL", stub.url)
    client = SerpApiScholar(ARTIFACT, sleep=lambda s: None)
    assert client.search(QUERY, 1997, 20).candidates[0].id == "gs-Qw3Hn2dYpVQJ"
    assert stub.requests[0]["api_key"] == KEY


def test_unreachable_server_is_one_sentence(stub):
    url = stub.url
    stub.shutdown()
    stub.server_close()
    client = SerpApiScholar(ARTIFACT, api_key=KEY, base_url=url, max_retries=1, backoff_s=0.0, sleep=lambda s: None)
    with pytest.raises(SerpApiError, match="could not reach SerpAPI"):
        client.search(QUERY, 1997)
