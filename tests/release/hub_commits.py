"""An in-process Hub that takes commits: the write paths ``huggingface_hub`` (2.4) really calls, over HTTP.

Paths and payloads as ``huggingface_hub`` sends and reads them (``hf_api.py`` and ``_commit_api.py`` of the
installed 2.4.0):

- ``POST /api/repos/create`` ``{"name", "organization", "type", "visibility"}`` → ``{"url"}``; 409 when it exists
  (``create_repo(exist_ok=True)`` then goes on),
- ``POST /api/validate-yaml`` ``{"content", "repoType"}`` → ``{}`` (sent before a commit that adds a README.md),
- ``POST /api/{type}s/{repo}/preupload/{rev}`` ``{"files": [{"path", "sample", "size"}]}`` →
  ``{"files": [{"path", "uploadMode": "regular", "shouldIgnore": false}]}`` (every file inline, no LFS),
- ``POST /api/{type}s/{repo}/commit/{rev}[?create_pr=1]`` NDJSON lines ``{"key": "header"|"file"|"deletedFile",
  "value": …}`` (file content base64) → ``{"commitUrl", "commitOid", "pullRequestUrl"}``; a pull request's
  commit lands on ``refs/pr/<n>``, never on ``main``,
- ``GET /api/{type}s/{repo}/tree/{rev}`` (``list_repo_files``) → the files of that revision,
- ``POST /api/{type}s/{repo}/tag/{rev}`` ``{"tag", "message"}``,
- ``GET /api/datasets/{repo}/leaderboard`` (``HfApi.get_dataset_leaderboard``; the Hub's page "Accessing Benchmark
  Leaderboard Data") → the bytes a test put in :attr:`CommitHub.leaderboards` for that dataset, as JSON; 404 with
  ``X-Error-Code: RepoNotFound`` for a dataset without one.

Anything else answers 404, and every request is recorded, so a test can assert which paths were used.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


@dataclass
class Repo:
    kind: str
    private: bool
    branches: dict[str, dict[str, bytes]] = field(default_factory=lambda: {"main": {}})
    tags: dict[str, str] = field(default_factory=dict)
    commits: list[dict] = field(default_factory=list)
    pulls: list[dict] = field(default_factory=list)


class CommitHub:
    """Repositories in memory, keyed by ``(type, owner/name)``; use as a context manager."""

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str], Repo] = {}
        self.requests: list[str] = []
        #: the body each dataset's leaderboard answers with (bytes as given, so a test can send a hostile reply)
        self.leaderboards: dict[str, bytes] = {}
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                hub.handle(self)

            def do_POST(self):
                hub.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.lock = threading.Lock()

    def __enter__(self) -> CommitHub:  # noqa: PYI034 - a test helper, never subclassed
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def repo(self, kind: str, repo_id: str) -> Repo:
        return self.repos[(kind, repo_id)]

    # -- HTTP -----------------------------------------------------------------------------------------------
    def _send(self, h: BaseHTTPRequestHandler, status: int, doc: object, headers: dict[str, str] | None = None):
        payload = json.dumps(doc).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    def _body(self, h: BaseHTTPRequestHandler) -> bytes:
        return h.rfile.read(int(h.headers.get("Content-Length") or 0))

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        url = urlparse(h.path)
        path, query = unquote(url.path), parse_qs(url.query)
        self.requests.append(f"{h.command} {path}" + (f"?{url.query}" if url.query else ""))
        body = self._body(h) if h.command == "POST" else b""
        with self.lock:
            if path == "/api/repos/create":
                return self._create(h, json.loads(body))
            if path == "/api/validate-yaml":
                return self._send(h, 200, {})
            if h.command == "GET" and path.startswith("/api/datasets/") and path.endswith("/leaderboard"):
                return self._leaderboard(h, path[len("/api/datasets/"):-len("/leaderboard")])
            for kind in ("model", "dataset"):
                prefix = f"/api/{kind}s/"
                if not path.startswith(prefix):
                    continue
                for (k, repo_id), repo in self.repos.items():
                    if k != kind or not path.startswith(prefix + repo_id + "/"):
                        continue
                    verb, _, rev = path[len(prefix + repo_id) + 1:].partition("/")
                    if h.command == "POST" and verb == "preupload":
                        files = json.loads(body)["files"]
                        return self._send(h, 200, {"files": [{"path": f["path"], "uploadMode": "regular",
                                                              "shouldIgnore": False} for f in files]})
                    if h.command == "POST" and verb == "commit":
                        return self._commit(h, kind, repo_id, repo, rev, body, query.get("create_pr") == ["1"])
                    if h.command == "POST" and verb == "tag":
                        repo.tags[json.loads(body)["tag"]] = rev
                        return self._send(h, 200, {})
                    if h.command == "GET" and verb == "tree":
                        files = repo.branches.get(rev.split("/")[0] if not rev.startswith("refs") else rev, {})
                        return self._send(h, 200, [{"type": "file", "path": p, "size": len(d),
                                                    "oid": hashlib.sha1(d).hexdigest()} for p, d in sorted(files.items())])
            return self._send(h, 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})

    def _leaderboard(self, h: BaseHTTPRequestHandler, dataset_id: str) -> None:
        if dataset_id not in self.leaderboards:
            return self._send(h, 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        payload = self.leaderboards[dataset_id]
        h.send_response(200)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        try:
            h.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # a client that stops reading a reply over its cap
            pass

    def _create(self, h: BaseHTTPRequestHandler, doc: dict) -> None:
        kind = doc.get("type") or "model"
        repo_id = f"{doc['organization']}/{doc['name']}"
        if (kind, repo_id) in self.repos:
            return self._send(h, 409, {"error": "You already created this repo"})
        self.repos[(kind, repo_id)] = Repo(kind=kind, private=doc.get("visibility") == "private")
        prefix = "" if kind == "model" else f"{kind}s/"
        self._send(h, 200, {"url": f"{self.endpoint}/{prefix}{repo_id}"})

    def _commit(self, h, kind: str, repo_id: str, repo: Repo, rev: str, body: bytes, create_pr: bool) -> None:
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header = next(line["value"] for line in lines if line["key"] == "header")
        files = dict(repo.branches.get(rev, {}))
        for line in lines:
            value = line["value"]
            if line["key"] == "file":
                assert value["encoding"] == "base64", value
                files[value["path"]] = base64.b64decode(value["content"])
            elif line["key"] == "deletedFile":
                files.pop(value["path"], None)
            elif line["key"] != "header":
                return self._send(h, 400, {"error": f"unsupported operation {line['key']}"})
        oid = hashlib.sha1(json.dumps([header, sorted(files)], default=str).encode()
                           + str(len(repo.commits)).encode()).hexdigest()
        prefix = self.endpoint + ("/" if kind == "model" else f"/{kind}s/") + repo_id
        commit = {"oid": oid, "summary": header["summary"], "description": header.get("description", ""),
                  "files": files, "create_pr": create_pr}
        repo.commits.append(commit)
        pr_url = None
        if create_pr:
            number = len(repo.pulls) + 1
            repo.branches[f"refs/pr/{number}"] = files
            repo.pulls.append({"num": number, "title": header["summary"], "files": files, "oid": oid})
            pr_url = f"{prefix}/discussions/{number}"
        else:
            repo.branches[rev] = files
        self._send(h, 200, {"commitUrl": f"{prefix}/commit/{oid}", "commitOid": oid, "pullRequestUrl": pr_url})
