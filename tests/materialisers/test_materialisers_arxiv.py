"""Source materialisation against a local server that speaks arXiv's e-print endpoint and export API.

The sources are invented fixture papers (``tests/fixtures/arxiv/``) in real
arXiv layouts; tarballs, gzip files and the PDF are built from them at test
time, deterministically. Each fixed text is compared with an expected file.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from lemmata.core.errors import InputError, LemmataError
from lemmata.materialisers import (
    Materialiser,
    MaterialiserSettings,
    SourceRequest,
    coverage,
    read_doi_table,
)
from lemmata.materialisers.arxiv import ArxivAccessRefused, ArxivClient
from lemmata.materialisers.texsource import choose_main_file

FIXTURES = Path(__file__).parents[1] / "fixtures" / "arxiv"
EXPECTED = FIXTURES / "expected"
ATOM = "http://www.w3.org/2005/Atom"


# -- building real e-print bytes from the fixture folders ----------------------------------------------------


def tar_bytes(entries: list[tuple[str, bytes | None, dict]]) -> bytes:
    """A deterministic tar: (name, data or None, TarInfo overrides) in the given order, mtime 0, owner root."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, data, extra in entries:
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname, info.mode = 0, 0, 0, "", "", 0o644
            for k, v in extra.items():
                setattr(info, k, v)
            if data is not None:
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def folder_tarball(folder: Path) -> bytes:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return gz(tar_bytes([(p.relative_to(folder).as_posix(), p.read_bytes(), {}) for p in files]))


def pdf_bytes(pages: list[list[str]]) -> bytes:
    """A minimal valid PDF (Helvetica text, one content stream per page) with a correct xref table."""
    esc = lambda s: s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")  # noqa: E731
    n = len(pages)
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(f'{4 + 2 * i} 0 R' for i in range(n))}] /Count {n} >>".encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, lines in enumerate(pages):
        content = ("BT /F1 12 Tf 14 TL 72 720 Td " + " ".join(f"({esc(line)}) Tj T*" for line in lines) + " ET").encode()
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                    f"/Contents {5 + 2 * i} 0 R >>".encode())
        objs.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, obj in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{k} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def fixture_pdf() -> bytes:
    text = (FIXTURES / "1502.05240v1" / "pages.txt").read_text("utf-8")
    return pdf_bytes([[line for line in page.strip().splitlines()] for page in text.split("---")])


def traversal_tarball() -> bytes:
    main = (b"\\documentclass{article}\\newtheorem{theorem}{Theorem}\\begin{document}\n"
            b"\\begin{theorem}Safe members only.\\end{theorem}\n\\input{/etc/hostname}\n\\end{document}\n")
    return gz(tar_bytes([
        ("main.tex", main, {}),
        ("../evil.tex", b"\\documentclass{article}\\begin{document}evil\\end{document}", {}),
        ("/abs.tex", b"absolute", {}),
        ("link.tex", None, {"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"}),
        ("hard.tex", None, {"type": tarfile.LNKTYPE, "linkname": "main.tex"}),
        ("dev", None, {"type": tarfile.CHRTYPE}),
    ]))


# -- the arXiv stub -----------------------------------------------------------------------------------------


def feed(entries: list[tuple[str, int, str | None]]) -> bytes:
    parts = [f'<feed xmlns="{ATOM}" xmlns:arxiv="http://arxiv.org/schemas/atom"><title>ArXiv Query</title>']
    for aid, version, doi in entries:
        parts.append(f"<entry><id>http://arxiv.org/abs/{aid}v{version}</id><title>Invented</title>"
                     + (f"<arxiv:doi>{doi}</arxiv:doi>" if doi else "") + "</entry>")
    return ("".join(parts) + "</feed>").encode("utf-8")


class ArxivStub(ThreadingHTTPServer):
    """``/e-print/<id>vN`` and ``/api/query`` (id_list, search_query=doi:"…"); counts requests, injects failures."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[str] = []
        self.failures: list[tuple[int, dict]] = []
        self.lock = threading.Lock()
        self.eprints: dict[str, bytes] = {
            "2101.00001v2": folder_tarball(FIXTURES / "2101.00001v2"),
            "math/0601001v1": gz((FIXTURES / "math_0601001v1" / "source.tex").read_bytes()),
            "1502.05240v1": fixture_pdf(),
            "2203.00003v1": traversal_tarball(),
            "2204.00004v1": gz(b"\x00" * 300_000),
            "2205.00005v1": gz(tar_bytes([(f"f{i}.tex", b"x", {}) for i in range(60)])),
            "2206.00006v1": b"\x89PNG\r\n\x1a\n not an e-print",
        }
        #: latest versions the export API knows (2001.00002v2 is withdrawn: no e-print)
        self.latest = {"2101.00001": 2, "math/0601001": 1, "1502.05240": 1, "2001.00002": 2}
        self.dois = [("2101.00001", 2, "10.9999/fixture.2021.1"), ("1502.05240", 1, "10.9999/fixture.pdf")]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: ArxivStub

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        with self.server.lock:
            self.server.requests.append(self.path)
            failure = self.server.failures.pop(0) if self.server.failures else None
        if failure:
            return self._send(failure[0], b"Rate exceeded.", "text/plain", failure[1])
        if parts.path.startswith("/e-print/"):
            data = self.server.eprints.get(parts.path[len("/e-print/"):])
            if data is None:
                return self._send(404, b"<html>not found</html>", "text/html")
            # arXiv labels e-prints loosely; the client must not trust this
            return self._send(200, data, "application/x-eprint-tar")
        if parts.path == "/api/query":
            q = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if "id_list" in q:
                aid = q["id_list"]
                if aid not in self.server.latest:
                    return self._send(200, feed([]), "application/atom+xml")
                return self._send(200, feed([(aid, self.server.latest[aid], None)]), "application/atom+xml")
            query = q.get("search_query", "")
            if query.startswith("doi:"):
                wanted = query[4:].strip('"').lower()
                hits = [e for e in self.server.dois if e[2] == wanted]
                # a loose search also returns papers that merely mention the DOI: the client must check arxiv:doi
                decoy = ("1502.05240", 1, "10.9999/something.else")
                return self._send(200, feed(hits + [decoy]), "application/atom+xml")
            return self._send(400, b"bad query", "text/plain")
        return self._send(404, b"not found", "text/plain")


@pytest.fixture
def stub():
    server = ArxivStub()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def settings(stub: ArxivStub, **kw) -> MaterialiserSettings:
    base = {"arxiv_base_url": stub.base, "arxiv_api_url": stub.base + "/api/query", "min_interval_s": 0.0,
            "backoff_s": 0.01, "max_retries": 3, "timeout_s": 5.0, "max_unpacked_bytes": 200_000, "max_members": 50}
    return MaterialiserSettings(**{**base, **kw})


def materialiser(stub: ArxivStub, folder: Path, *, doi_table=None, **kw) -> tuple[Materialiser, list[float]]:
    slept: list[float] = []
    s = settings(stub, **kw)
    return Materialiser(folder, settings=s, client=ArxivClient(s, sleep=slept.append), doi_table=doi_table), slept


# -- fixed texts ----------------------------------------------------------------------------------------------


def test_multi_file_tarball_is_materialised_exactly(stub, tmp_path):
    m, _ = materialiser(stub, tmp_path / "store")
    got = m.materialise({"arxiv_id": "arXiv:2101.00001v2"})
    assert got.ok and not got.cached
    assert got.text == (EXPECTED / "2101.00001v2.txt").read_text("utf-8")
    rec = got.record
    assert (rec.path, rec.fetched_kind, rec.main_file) == ("source", "tar.gz", "main.tex")
    assert rec.resolved.model_dump() == {"arxiv_id": "2101.00001", "version": 2, "via": "arxiv_id"}
    assert rec.files_used == ["main.tex", "sections/intro.tex", "sections/results.tex", "paperdefs.sty", "main.bbl"]
    assert rec.statements == 11 and rec.bibliography_entries == 2
    assert rec.refused == ["\\input{../../outside}: path leaves the archive, refused"]
    assert rec.notes == ["macros with arguments left as written: \\norm"]
    assert rec.calls == 1 and stub.requests == ["/e-print/2101.00001v2"]  # pinned: no API call
    import hashlib
    assert rec.fetched_sha256 == hashlib.sha256(stub.eprints["2101.00001v2"]).hexdigest()
    assert rec.text_sha256 == hashlib.sha256(got.text.encode()).hexdigest()
    assert rec.urls == [f"{stub.base}/e-print/2101.00001v2"]


def test_single_gzipped_tex_file_unpinned_resolves_the_latest_version(stub, tmp_path):
    m, _ = materialiser(stub, tmp_path / "store")
    got = m.materialise(SourceRequest(arxiv_id="math.AG/0601001"))
    assert got.ok and got.text == (EXPECTED / "math_0601001v1.txt").read_text("utf-8")
    assert got.record.resolved.version == 1 and got.record.fetched_kind == "gzip-tex"
    assert got.record.main_file == "math_0601001v1.tex" and got.record.statements == 3
    assert [r.split("?")[0] for r in stub.requests] == ["/api/query", "/e-print/math/0601001v1"]
    assert got.record.calls == 2 and got.record.key == "arxiv:math/0601001"


def test_pdf_only_submission_falls_back_to_pdf_text(stub, tmp_path):
    m, _ = materialiser(stub, tmp_path / "store")
    got = m.materialise({"arxiv_id": "1502.05240v1"})
    assert got.ok and got.record.path == "pdf" and got.record.fetched_kind == "pdf"
    assert got.text == (EXPECTED / "1502.05240v1.txt").read_text("utf-8")
    assert got.record.statements is None and got.record.notes == ["2 of 2 pages read"]


def test_withdrawn_and_unknown_papers_are_unavailable_not_success(stub, tmp_path):
    m, _ = materialiser(stub, tmp_path / "store")
    withdrawn = m.materialise({"arxiv_id": "2001.00002"})
    assert withdrawn.record.status == "unavailable" and withdrawn.text is None
    assert withdrawn.record.resolved.version == 2 and "HTTP 404" in withdrawn.record.reason
    unknown = m.materialise({"arxiv_id": "2301.00009"})
    assert unknown.record.status == "unavailable" and "no record of 2301.00009" in unknown.record.reason
    png = m.materialise({"arxiv_id": "2206.00006v1"})
    assert (png.record.status, png.record.access_status, png.record.parse_status) == \
        ("unavailable", "downloaded", "failed")
    assert "unrecognised e-print format" in png.record.reason
    n = len(stub.requests)
    again, _ = materialiser(stub, tmp_path / "store")
    assert again.materialise({"arxiv_id": "2001.00002"}).cached and len(stub.requests) == n


# -- retries ----------------------------------------------------------------------------------------------------


def test_rate_limits_are_retried_honouring_retry_after(stub, tmp_path):
    stub.failures = [(429, {"Retry-After": "7"}), (503, {"Retry-After": "2"}), (503, {})]
    m, slept = materialiser(stub, tmp_path / "store")
    got = m.materialise({"arxiv_id": "2101.00001v2"})
    assert got.ok and got.record.calls == 4 and len(stub.requests) == 4
    assert slept[:2] == [7.0, 2.0] and 0.04 <= slept[2] <= 0.044  # Retry-After, then exponential backoff


def test_exhausted_retries_leave_the_source_pending_and_it_is_asked_again(stub, tmp_path):
    stub.failures = [(503, {"Retry-After": "1"})] * 4
    m, slept = materialiser(stub, tmp_path / "store")
    got = m.materialise({"arxiv_id": "2101.00001v2"})
    assert got.record.status == "pending" and got.text is None and "after 4 attempt(s)" in got.record.reason
    assert slept == [1.0, 1.0, 1.0] and m.store.lookup("arxiv:2101.00001v2") is None
    retry = m.materialise({"arxiv_id": "2101.00001v2"})
    assert retry.ok and not retry.cached
    assert [r.status for r in m.store.records()] == ["pending", "materialised"]
    assert coverage(m.store)["status"] == {"materialised": 1}


def test_min_interval_paces_requests(stub):
    now = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    client = ArxivClient(settings(stub, min_interval_s=3.0), sleep=sleep, clock=lambda: now[0])
    client.eprint("2101.00001", 2)
    now[0] += 1.0
    client.eprint("2101.00001", 2)
    assert slept == [2.0] and client.calls == 2


def test_refused_access_stops_instead_of_marking_sources(stub, tmp_path):
    stub.failures = [(403, {})]
    m, _ = materialiser(stub, tmp_path / "store")
    with pytest.raises(ArxivAccessRefused, match="refused access"):
        m.materialise({"arxiv_id": "2101.00001v2"})
    assert not (tmp_path / "store" / "log.jsonl").exists()


# -- DOIs -------------------------------------------------------------------------------------------------------


def test_doi_resolution_routes(stub, tmp_path):
    table_file = tmp_path / "doi.jsonl"
    table_file.write_text(json.dumps({"doi": "https://doi.org/10.9999/FIXTURE.pdf", "arxiv_id": "1502.05240"}) + "\n")
    m, _ = materialiser(stub, tmp_path / "store", doi_table=read_doi_table(table_file))

    by_table = m.materialise({"doi": "10.9999/fixture.pdf"})
    assert by_table.ok and by_table.record.resolved.via == "doi_table" and by_table.record.path == "pdf"
    assert not any("search_query" in r for r in stub.requests)

    by_api = m.materialise({"doi": "10.9999/fixture.2021.1"})
    assert by_api.ok and by_api.record.resolved.model_dump() == {"arxiv_id": "2101.00001", "version": 2,
                                                                  "via": "doi_arxiv_api"}
    assert by_api.text == (EXPECTED / "2101.00001v2.txt").read_text("utf-8")

    none = m.materialise({"doi": "10.9999/closed.access"})  # only the decoy comes back: not a twin
    assert none.record.status == "unavailable" and none.record.resolved is None
    assert none.record.reason == ("no open-access arXiv twin for DOI 10.9999/closed.access: not in the DOI table, "
                                  "and no arXiv entry carries this DOI")

    arxiv_doi = m.materialise({"doi": "10.48550/arXiv.2101.00001"})
    assert arxiv_doi.ok and arxiv_doi.record.resolved.via == "arxiv_doi"
    assert coverage(m.store)["via"] == {"arxiv_doi": 1, "doi_arxiv_api": 1, "doi_table": 1}


def test_doi_table_errors_name_line_and_field(tmp_path):
    path = tmp_path / "doi.jsonl"
    path.write_text('{"doi": "10.1000/a", "arxiv_id": "1502.05240"}\n{"doi": "nope", "arxiv_id": "1502.05240"}\n'
                    '{"doi": "10.1000/a", "arxiv_id": "1502.05241"}\n{"doi": "10.1000/b"}\n')
    with pytest.raises(InputError) as err:
        read_doi_table(path)
    assert [(p.line, p.field) for p in err.value.problems] == [(2, "doi"), (3, "arxiv_id"), (4, "arxiv_id")]


# -- the store: rescoring offline, tampering --------------------------------------------------------------------


def _fill(stub, folder: Path) -> Materialiser:
    m, _ = materialiser(stub, folder)
    for aid in ("2101.00001v2", "math/0601001", "1502.05240v1", "2001.00002"):
        m.materialise({"arxiv_id": aid})
    return m


def test_a_rescore_reads_the_store_and_makes_no_network_call(stub, tmp_path):
    first = _fill(stub, tmp_path / "store")
    texts = {r.key: first.store.read_text(r) for r in first.store if r.text_file}
    n = len(stub.requests)
    online, _ = materialiser(stub, tmp_path / "store")
    offline = Materialiser(tmp_path / "store", settings=settings(stub), client=None)
    for m in (online, offline):
        for key in ("2101.00001v2", "math/0601001", "1502.05240v1", "2001.00002"):
            got = m.materialise({"arxiv_id": key})
            assert got.cached
            if got.ok:
                assert got.text == texts[got.record.key]
    assert len(stub.requests) == n
    missing = offline.materialise({"arxiv_id": "2101.00001v1"})
    assert missing.record.status == "pending" and "offline" in missing.record.reason
    assert len(offline.store.records()) == 4 and len(stub.requests) == n
    assert coverage(offline.store) == {"sources": 4, "status": {"materialised": 3, "unavailable": 1},
                                       "access_status": {"downloaded": 3, "unavailable": 1},
                                       "parse_status": {"not_attempted": 1, "parsed": 3},
                                       "via": {"arxiv_id": 4}, "path": {"pdf": 1, "source": 2}}


def test_an_edited_text_is_refused_with_the_log_line(stub, tmp_path):
    m = _fill(stub, tmp_path / "store")
    rec = m.store.lookup("arxiv:math/0601001")
    text = tmp_path / "store" / rec.text_file
    text.write_text(text.read_text("utf-8").replace("least element", "largest element"), "utf-8")
    with pytest.raises(InputError) as err:
        Materialiser(tmp_path / "store", settings=settings(stub), client=None)
    (problem,) = err.value.problems
    assert problem.file.endswith("log.jsonl") and problem.line == 2 and problem.field == "text_sha256"
    assert "was modified" in problem.reason
    with pytest.raises(InputError, match="the text was modified"):
        m.store.read_text(rec)  # an open store hashes again on every read


def test_an_edited_log_line_is_refused_with_its_line(stub, tmp_path):
    _fill(stub, tmp_path / "store")
    log = tmp_path / "store" / "log.jsonl"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    row = json.loads(lines[3])
    row["status"], row["access_status"], row["reason"] = "unavailable", "unavailable", "edited"
    log.write_text("".join(lines[:3] + [json.dumps(row) + "\n"]), "utf-8")
    with pytest.raises(InputError) as err:
        Materialiser(tmp_path / "store", settings=settings(stub), client=None)
    assert [(p.line, p.field) for p in err.value.problems] == [(4, "record_sha256")]

    # re-sealing the edited line passes the line check, but the MANIFEST still sees the log changed
    from lemmata.materialisers.records import MaterialisationRecord

    resealed = MaterialisationRecord.model_validate(row).sealed()
    log.write_text("".join(lines[:3] + [json.dumps(resealed.model_dump(mode="json", by_alias=True)) + "\n"]), "utf-8")
    with pytest.raises(InputError, match=r"log.jsonl(: sha256|, field .bytes.: size) differs from MANIFEST.json"):
        Materialiser(tmp_path / "store", settings=settings(stub), client=None)


def test_unlisted_files_and_other_settings_are_refused(stub, tmp_path):
    _fill(stub, tmp_path / "store")
    (tmp_path / "store" / "texts" / "extra.txt").write_text("planted", "utf-8")
    with pytest.raises(InputError, match="not listed in MANIFEST.json"):
        Materialiser(tmp_path / "store", settings=settings(stub), client=None)
    (tmp_path / "store" / "texts" / "extra.txt").unlink()
    with pytest.raises(LemmataError, match="prose_budget_chars differ"):
        Materialiser(tmp_path / "store", settings=settings(stub, prose_budget_chars=10), client=None)


# -- hostile archives --------------------------------------------------------------------------------------------


def test_traversal_links_and_devices_are_refused_and_nothing_is_written(stub, tmp_path):
    m, _ = materialiser(stub, tmp_path / "work" / "store")
    got = m.materialise({"arxiv_id": "2203.00003v1"})
    assert got.ok and "[Theorem 1]\nSafe members only.\n[/Theorem 1]" in got.text
    assert got.record.refused == [
        "../evil.tex: path outside the archive, refused", "/abs.tex: path outside the archive, refused",
        "link.tex: link, refused", "hard.tex: link, refused", "dev: special file, refused",
        "\\input{/etc/hostname}: absolute path refused"]
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["store"]
    assert sorted(p.relative_to(tmp_path / "work" / "store").as_posix()
                  for p in (tmp_path / "work" / "store").rglob("*") if p.is_file() and p.name != ".lock") == \
        ["MANIFEST.json", "STORE.json", "log.jsonl", got.record.text_file]


def test_gzip_and_tar_bombs_and_oversized_downloads_are_refused(stub, tmp_path):
    m, _ = materialiser(stub, tmp_path / "store")
    bomb = m.materialise({"arxiv_id": "2204.00004v1"})
    assert (bomb.record.status, bomb.record.parse_status) == ("unavailable", "failed")
    assert bomb.record.reason == "the e-print decompresses to more than 200000 bytes (a gzip bomb?)"
    members = m.materialise({"arxiv_id": "2205.00005v1"})
    assert members.record.reason == "the e-print holds more than 50 members (a tar bomb?)"
    small, _ = materialiser(stub, tmp_path / "store2", max_download_bytes=1000)
    big = small.materialise({"arxiv_id": "2101.00001v2"})
    assert big.record.status == "unavailable" and "sent more than 1000 bytes" in big.record.reason


# -- pieces -----------------------------------------------------------------------------------------------------


def test_main_file_tie_rules():
    doc = b"\\documentclass{article}\\begin{document}x\\end{document}"
    assert choose_main_file({"a.tex": doc, "b.tex": doc + b" longer"}) == "b.tex"  # largest
    assert choose_main_file({"b.tex": doc, "a.tex": doc}) == "a.tex"  # then code-point order
    assert choose_main_file({"a.tex": doc, "sub/b.tex": doc + b"xx"}) == "a.tex"  # nearest the root first
    assert choose_main_file({"a.tex": b"\\documentclass{article}", "z.tex": doc}) == "z.tex"  # has a document
    assert choose_main_file({"a.tex": doc, "z.tex": doc,
                             "00README.json": b'{"sources": [{"filename": "z.tex", "usage": "toplevel"}]}'}) == "z.tex"
    assert choose_main_file({"m.tex": doc + b"\\input{part}", "part.tex": doc + b"longer text"}) == "m.tex"
    assert choose_main_file({"x.tex": b"% \\documentclass{article}\n" + doc[23:], "y.tex": doc}) == "y.tex"
    with pytest.raises(ValueError, match="no main file"):
        choose_main_file({"notes.txt": b"\\documentclass"})


def test_input_cycles_and_depth_are_refused():
    from lemmata.materialisers.fixedtext import TextLimits, source_text

    files = {"main.tex": b"\\documentclass{article}\\begin{document}A \\input{b} Z\\end{document}",
             "b.tex": b"B \\input{c}", "c.tex": b"C \\input{b} \\input{missing}"}
    fixed = source_text(files, TextLimits(), header=["% h"])
    assert "A B C [input b: cycle refused] [input missing: missing] Z" in fixed.text
    assert fixed.refused == ["\\input{b}: cycle (main.tex -> b.tex -> c.tex -> b.tex), refused"]
    shallow = source_text(files, TextLimits(max_input_depth=1), header=["% h"])
    assert "A B [input c: too deep, refused] Z" in shallow.text


def test_settings_come_from_the_environment(stub, tmp_path):
    env = {"LEMMATA_ARXIV_BASE_URL": stub.base + "/", "LEMMATA_ARXIV_API_URL": stub.base + "/api/query",
           "LEMMATA_MATERIALISER_MIN_INTERVAL_S": "0", "LEMMATA_MATERIALISER_CONTACT": "maintainers@example.org"}
    m = Materialiser.from_env(tmp_path / "store", environ=env, sleep=lambda s: None)
    assert m.client.settings.arxiv_base_url == stub.base and "mailto:maintainers@example.org" in m.client.user_agent
    assert m.materialise({"arxiv_id": "2101.00001v2"}).ok
    assert Materialiser.from_env(tmp_path / "store", environ=env, offline=True).client is None
    with pytest.raises(LemmataError, match="LEMMATA_MATERIALISER_MAX_RETRIES"):
        MaterialiserSettings.from_env({"LEMMATA_MATERIALISER_MAX_RETRIES": "-1"})
    with pytest.raises(ValueError, match="not an arXiv identifier"):
        SourceRequest(arxiv_id="0385.32016")
