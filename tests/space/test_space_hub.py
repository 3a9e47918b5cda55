"""Hosted persistence against an in-process Hub: the real ``snapshot_download`` restores a store, then reindexes.

The server on 127.0.0.1 speaks the part of the Hub protocol a restore uses:
repository info (``/api/datasets/<repo>[/revision/<rev>]`` → the commit sha and files),
the recursive tree of that commit (``/api/datasets/<repo>/tree/<sha>``) and
file resolution (``HEAD``/``GET /datasets/<repo>/resolve/<sha>/<path>`` with
``X-Repo-Commit`` and ``ETag``). An unknown repository answers 404 with
``X-Error-Code: RepoNotFound``, as the Hub does.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.config import HubSyncConfig
from lemmata.space.hub_sync import restore
from lemmata.store import Store

COMMIT = "c0ffee" + "0" * 34


class LocalHub:
    """One dataset repository (a local folder at one commit) served over HTTP."""

    def __init__(self, repo_id: str, folder: Path) -> None:
        self.repo_id, self.folder, self.requests = repo_id, folder, []
        self.broken: set[str] = set()  # paths listed in the tree but answered with a server error
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_HEAD(self):
                hub.answer(self, body=False)

            def do_GET(self):
                hub.answer(self, body=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _send(self, h, status: int, payload: bytes, headers: dict[str, str], body: bool) -> None:
        h.send_response(status)
        for key, value in {**headers, "Content-Length": str(len(payload))}.items():
            h.send_header(key, value)
        h.end_headers()
        if body:
            h.wfile.write(payload)

    def files(self) -> list[Path]:
        return sorted(p for p in self.folder.rglob("*") if p.is_file())

    def answer(self, h, *, body: bool) -> None:
        path = unquote(urlparse(h.path).path)
        self.requests.append(f"{h.command} {path}")
        api, resolve = f"/api/datasets/{self.repo_id}/", f"/datasets/{self.repo_id}/resolve/{COMMIT}/"
        if path == api.rstrip("/") or path.startswith(api + "revision/"):
            info = {"id": self.repo_id, "sha": COMMIT, "private": True,
                    "siblings": [{"rfilename": p.relative_to(self.folder).as_posix()} for p in self.files()]}
            return self._send(h, 200, json.dumps(info).encode(), {"Content-Type": "application/json"}, body)
        if path.startswith(api + f"tree/{COMMIT}"):
            listing = [{"type": "file", "oid": hashlib.sha1(p.read_bytes()).hexdigest(), "size": p.stat().st_size,
                        "path": p.relative_to(self.folder).as_posix()} for p in self.files()]
            return self._send(h, 200, json.dumps(listing).encode(), {"Content-Type": "application/json"}, body)
        if path.startswith(resolve) and path[len(resolve):] in self.broken:
            return self._send(h, 500, b'{"error": "internal"}', {"Content-Type": "application/json"}, body)
        if path.startswith(resolve) and (self.folder / path[len(resolve):]).is_file():
            data = (self.folder / path[len(resolve):]).read_bytes()
            return self._send(h, 200, data, {"X-Repo-Commit": COMMIT, "ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                                             "Content-Type": "application/octet-stream"}, body)
        self._send(h, 404, b'{"error": "Repository not found"}',
                   {"Content-Type": "application/json", "X-Error-Code": "RepoNotFound",
                    "X-Error-Message": "Repository not found"}, body)


@pytest.fixture
def online(monkeypatch, tmp_path):
    """huggingface_hub allowed to reach 127.0.0.1 (the suite runs with HF_HUB_OFFLINE=1), private cache."""
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.setattr("huggingface_hub.utils._http.time.sleep", lambda s: None)


def _populated(root: Path) -> tuple[Store, list[str]]:
    store = Store(root)
    ids = []
    for i, kind in enumerate(("scored", "reported", "scored")):
        sha = store.add_submission(f"run {i}\n".encode(), filename=f"run{i}.jsonl", benchmark="b", track="t",
                                   model_name=f"m{i}", submitter="ada", header={})[0].sha256 \
            if kind == "scored" else sha256_bytes(b"paper")
        r = make_result(kind=kind, benchmark="b", track="t",
                        frozen=FrozenTuple(dataset_release="b-1.0.0", split="c/test", retrieval_artifact=None,
                                           scoring_artifact="s", date="2026-11-21"),
                        submission_sha256=sha, model=ModelInfo(name=f"m{i}"), main=Score(metric="acc", value=i / 4))
        ids.append(store.add_result(r)[0].result_id)
    store.set_hidden(ids[1], True, actor="hub:owner", reason="spam")
    return store, ids


def test_restart_restores_everything_through_the_hub_protocol(online, tmp_path):
    remote, ids = _populated(tmp_path / "remote")
    (remote.root / "results" / "b" / ".tmp-partial").write_text("half")  # never part of a mirror
    hub = LocalHub("lemmata/results", remote.root)
    try:
        fresh = Store(tmp_path / "restarted")
        report = restore(fresh, HubSyncConfig(repo_id="lemmata/results"), endpoint=hub.endpoint)
    finally:
        hub.close()
    assert report.existed and report.results_added == 3 and report.submissions == 2 and report.skipped == 0
    assert {r["result_id"] for r in fresh.result_rows()} == {ids[0], ids[2]} and fresh.is_hidden(ids[1])
    assert {s.submitter for s in fresh.list_submissions()} == {"ada"}
    for folder in ("results", "submissions", "moderation"):
        for path in (remote.root / folder).rglob("*.json*"):
            if not path.name.startswith("."):
                assert (fresh.root / path.relative_to(remote.root)).read_bytes() == path.read_bytes()
    downloaded = {r.split(f"/resolve/{COMMIT}/")[1] for r in hub.requests if r.startswith("GET /datasets/")}
    assert "leaderboard.sqlite3" not in downloaded and all(d.split("/")[0] in
                                                           ("results", "submissions", "moderation")
                                                           for d in downloaded)


def test_a_repository_that_does_not_exist_yet_starts_empty(online, tmp_path):
    hub = LocalHub("someone/else", tmp_path / "other")
    try:
        report = restore(Store(tmp_path / "store"), HubSyncConfig(repo_id="lemmata/new-results"),
                         endpoint=hub.endpoint)
    finally:
        hub.close()
    assert not report.existed and report.results_added == 0 and "will be created" in report.describe()


def test_an_unreachable_hub_fails_instead_of_starting_empty(online, tmp_path):
    """snapshot_download alone would quietly return the (empty) local folder here."""
    import socket

    from lemmata.core.errors import LemmataError

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    store = Store(tmp_path / "store")
    with pytest.raises(LemmataError, match="could not reach the Hub dataset lemmata/results"):
        restore(store, HubSyncConfig(repo_id="lemmata/results"), endpoint=f"http://127.0.0.1:{port}")


def test_files_listed_but_not_served_are_a_failed_restore(online, tmp_path):
    from lemmata.core.errors import LemmataError

    remote, _ = _populated(tmp_path / "remote")
    hub = LocalHub("lemmata/results", remote.root)
    hub.broken = {p.relative_to(remote.root).as_posix() for p in (remote.root / "results").rglob("*.json")}
    try:
        with pytest.raises(LemmataError):
            restore(Store(tmp_path / "fresh"), HubSyncConfig(repo_id="lemmata/results"), endpoint=hub.endpoint)
    finally:
        hub.close()


def test_a_damaged_mirror_file_is_skipped_and_reported(online, tmp_path):
    remote, ids = _populated(tmp_path / "remote")
    damaged = next((remote.root / "results").rglob(f"{ids[0]}.json"))
    doc = json.loads(damaged.read_text())
    doc["main"]["value"] = 0.99  # edited after the fact: the content no longer matches its id
    damaged.write_text(json.dumps(doc))
    hub = LocalHub("lemmata/results", remote.root)
    try:
        fresh = Store(tmp_path / "fresh")
        report = restore(fresh, HubSyncConfig(repo_id="lemmata/results"), endpoint=hub.endpoint)
    finally:
        hub.close()
    assert report.results_added == 2 and report.skipped == 1 and "unreadable" in report.describe()
    assert ids[0] not in {r["result_id"] for r in fresh.result_rows(include_hidden=True)}
    assert any(e["action"] == "reindex_skip" for e in fresh.events())
