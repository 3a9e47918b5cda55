"""Pinned Hub downloads: the real ``snapshot_download`` against an in-process Hub on 127.0.0.1.

The server speaks the part of the Hub protocol a pinned snapshot uses: the
recursive tree listing of a commit (``/api/datasets/<repo>/tree/<rev>``) and
file resolution (``HEAD``/``GET /datasets/<repo>/resolve/<rev>/<path>`` with
``X-Repo-Commit`` and ``ETag``). Unknown revisions answer 404 with
``X-Error-Code: RevisionNotFound``, as the Hub does.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from lemmata.core.errors import LemmataError
from lemmata.core.meta import HubPin

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hub"
MATHNET_SNAPSHOT = FIXTURES / "MathNet-Retrieve"


class FakeHub:
    """Serves one local folder as one dataset repository at one commit (``more``: further repositories, by id, as
    ``(commit, folder)``); ``status`` forces an error for every request."""

    def __init__(self, repo_id: str, commit: str, folder: Path, status: int | None = None, *,
                 more: dict[str, tuple[str, Path]] | None = None) -> None:
        self.repos = {repo_id: (commit, folder), **(more or {})}
        self.status = status
        self.requests: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_HEAD(self):
                hub.handle(self, body=False)

            def do_GET(self):
                hub.handle(self, body=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeHub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def _files(folder: Path) -> list[Path]:
        return sorted(p for p in folder.rglob("*") if p.is_file())

    def _send(self, h: BaseHTTPRequestHandler, status: int, payload: bytes, headers: dict[str, str], body: bool):
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        if body:
            h.wfile.write(payload)

    def handle(self, h: BaseHTTPRequestHandler, *, body: bool) -> None:
        path = unquote(urlparse(h.path).path)
        self.requests.append(f"{h.command} {path}")
        if self.status is not None:
            self._send(h, self.status, b'{"error": "unavailable"}', {"Content-Type": "application/json"}, body)
            return
        for repo_id, (commit, folder) in self.repos.items():
            tree = f"/api/datasets/{repo_id}/tree/"
            resolve = f"/datasets/{repo_id}/resolve/"
            if path.startswith(tree) or path.startswith(resolve):
                self._serve(h, path, tree, resolve, commit, folder, body)
                return
        self._send(h, 404, b'{"error": "Repository not found"}',
                   {"Content-Type": "application/json", "X-Error-Code": "RepoNotFound"}, body)

    def _serve(self, h: BaseHTTPRequestHandler, path: str, tree: str, resolve: str, commit: str, folder: Path,
               body: bool) -> None:
        rest = path[len(tree):] if path.startswith(tree) else path[len(resolve):]
        rev, _, rel = rest.partition("/")
        if rev != commit:
            self._send(h, 404, b'{"error": "Invalid rev id"}',
                       {"Content-Type": "application/json", "X-Error-Code": "RevisionNotFound",
                        "X-Error-Message": "Invalid rev id"}, body)
            return
        if path.startswith(tree):
            listing = [{"type": "file", "oid": hashlib.sha1(p.read_bytes()).hexdigest(), "size": p.stat().st_size,
                        "path": p.relative_to(folder).as_posix()} for p in self._files(folder)]
            self._send(h, 200, json.dumps(listing).encode(), {"Content-Type": "application/json"}, body)
            return
        file = folder / rel
        if not file.is_file():
            self._send(h, 404, b'{"error": "Entry not found"}',
                       {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit}, body)
            return
        data = file.read_bytes()
        self._send(h, 200, data, {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                                  "Content-Type": "application/octet-stream"}, body)


@pytest.fixture
def online(monkeypatch, tmp_path):
    """Network allowed for huggingface_hub, with a private cache (the suite runs with HF_HUB_OFFLINE=1)."""
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    sleeps: list[float] = []
    monkeypatch.setattr("huggingface_hub.utils._http.time.sleep", sleeps.append)  # the client's retry backoff
    return sleeps


def _pin(revision: str) -> HubPin:
    return HubPin(repo_id="ShadenA/MathNet-Retrieve", revision=revision)


def _one_sentence(message: str, *needles: str) -> None:
    assert "\n" not in message and "Traceback" not in message
    assert message.count("; ") <= 1 and not message.rstrip(".").count(". ")
    for needle in needles:
        assert needle in message


def test_snapshot_downloads_only_the_allowed_files_at_the_pinned_commit(online):
    from lemmata.benchmarks.mathnet.meta import HUB_REVISION
    from lemmata.release.hub import snapshot

    with FakeHub("ShadenA/MathNet-Retrieve", HUB_REVISION, MATHNET_SNAPSHOT) as hub:
        root = snapshot(_pin(HUB_REVISION), allow_patterns=["README.md", "hard/*"], endpoint=hub.endpoint)
    got = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert got == ["README.md", "hard/corpus.jsonl", "hard/qrels/test.jsonl", "hard/qrels/test.tsv",
                   "hard/queries.jsonl"]
    assert (root / "hard" / "corpus.jsonl").read_bytes() == (MATHNET_SNAPSHOT / "hard" / "corpus.jsonl").read_bytes()
    assert HUB_REVISION in str(root)
    assert not any("easy" in r for r in hub.requests if "/resolve/" in r)


def test_builder_downloads_and_builds_the_same_release_as_from_a_local_snapshot(online, tmp_path):  # noqa: ARG001
    from lemmata.benchmarks.mathnet.meta import HUB_REVISION
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder

    local = MathNetRetrieveBuilder(source_dir=MATHNET_SNAPSHOT).build(tmp_path / "local", quiet=True)
    with FakeHub("ShadenA/MathNet-Retrieve", HUB_REVISION, MATHNET_SNAPSHOT) as hub:
        remote = MathNetRetrieveBuilder(endpoint=hub.endpoint).build(tmp_path / "remote", quiet=True)
    files = lambda root: {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}  # noqa: E731
    assert files(remote) == files(local)


def test_offline_hub_is_one_sentence_naming_dataset_and_revision(tmp_path):
    from lemmata.benchmarks.mathnet.meta import HUB_REVISION
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder

    with pytest.raises(LemmataError) as err:
        MathNetRetrieveBuilder().build(tmp_path, quiet=True)
    _one_sentence(str(err.value), "ShadenA/MathNet-Retrieve", HUB_REVISION, "offline", "--source-dir")
    assert not list(tmp_path.iterdir())


def test_hub_down_is_one_sentence(online):
    from lemmata.release.hub import snapshot

    rev = "a" * 40
    with FakeHub("ShadenA/MathNet-Retrieve", rev, MATHNET_SNAPSHOT, status=503) as hub, \
            pytest.raises(LemmataError) as err:
        snapshot(_pin(rev), allow_patterns=["*"], endpoint=hub.endpoint)
    _one_sentence(str(err.value), "ShadenA/MathNet-Retrieve", rev, "unreachable")
    assert len(hub.requests) > 1 and online, "the client should have retried before giving up"


def test_refused_connection_is_one_sentence(online):
    from lemmata.release.hub import snapshot

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rev = "b" * 40
    with pytest.raises(LemmataError) as err:
        snapshot(_pin(rev), allow_patterns=["*"], endpoint=f"http://127.0.0.1:{port}")
    _one_sentence(str(err.value), "ShadenA/MathNet-Retrieve", rev, "unreachable")


def test_unknown_revision_is_one_sentence(online):
    from lemmata.release.hub import snapshot

    with FakeHub("ShadenA/MathNet-Retrieve", "c" * 40, MATHNET_SNAPSHOT) as hub, pytest.raises(LemmataError) as err:
        snapshot(_pin("d" * 40), allow_patterns=["*"], endpoint=hub.endpoint)
    _one_sentence(str(err.value), "d" * 40, "does not know this revision")


def test_unpinned_dataset_is_never_downloaded(online):
    from lemmata.benchmarks.mathatlas.builder import MathAtlasBuilder

    with pytest.raises(LemmataError) as err:
        MathAtlasBuilder().fetch_sources()
    _one_sentence(str(err.value), "MathAtlas/MathAtlas", "no pinned revision", "--source-dir")


def test_cli_prints_the_sentence_and_exits_1(tmp_path, capsys):
    from lemmata.cli import main

    assert main(["build", "mathnet", "--out", str(tmp_path), "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: could not download the Hugging Face dataset ShadenA/MathNet-Retrieve")
    assert len(err.splitlines()) == 1


def test_unreachable_endpoint_answers_from_the_cache_without_retrying(online):
    """A Hub that does not accept connections is detected up front: no client retries, one sentence."""
    from lemmata.release.hub import snapshot

    closed = "http://127.0.0.1:9"  # the discard port: nothing listens there
    with pytest.raises(LemmataError) as err:
        snapshot(_pin("b" * 40), allow_patterns=["*"], endpoint=closed)
    _one_sentence(str(err.value), "ShadenA/MathNet-Retrieve", "b" * 40, "unreachable", "--source-dir")
    assert online == [], "the client retried an unreachable endpoint"


def test_cached_snapshot_is_used_when_the_hub_becomes_unreachable(online):
    from lemmata.release.hub import snapshot

    rev = "c" * 40
    with FakeHub("ShadenA/MathNet-Retrieve", rev, MATHNET_SNAPSHOT) as hub:
        first = snapshot(_pin(rev), allow_patterns=["*"], endpoint=hub.endpoint)
    again = snapshot(_pin(rev), allow_patterns=["*"], endpoint="http://127.0.0.1:9")
    assert again == first and any(again.rglob("*.jsonl"))
