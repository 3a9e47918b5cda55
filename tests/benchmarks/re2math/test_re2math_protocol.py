"""The scorer reaches a retrieval artifact only through the ScholarlyArtifact protocol.

An artifact that offers exactly the protocol's members (and nothing else) must
score a submission to the same result, verdict for verdict, as the offline
artifact itself; a replay-only backend is refused by type, not by probing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lemmata.benchmarks.re2math import resources
from lemmata.core.errors import LemmataError
from lemmata.benchmarks.re2math.scholar import artifact as art
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, is_citing_paper, match_candidate
from lemmata.benchmarks.re2math.scholar.protocol import ScholarlyArtifact, is_scholarly
from lemmata.benchmarks.re2math.scholar.querycache import CacheHeader, RecordingBackend, ReplayBackend
from lemmata.benchmarks.re2math.scoring import Re2MathHandler
from lemmata.formats.envelope import parse_envelope
from lemmata.core.hashing import sha256_bytes
from lemmata.oracles.chat import ChatJudge
from lemmata.tracks.base import OracleConfig
from test_judge import ChatServer

ROOT = Path(__file__).resolve().parents[3]


class OnlyProtocol:
    """An artifact with the protocol's members and nothing else (as another artifact version would offer)."""

    def __init__(self, inner: art.ScholarArtifact) -> None:
        self._inner = inner
        self.artifact_id = inner.artifact_id
        self.backend = inner.backend
        self.root = inner.root
        self.info = inner.info
        self.calls: list[str] = []

    def search(self, query, year_cutoff, n=20, *, instance_id=None):
        self.calls.append("search")
        return self._inner.search(query, year_cutoff, n, instance_id=instance_id)

    def record(self, record_id):
        self.calls.append("record")
        return self._inner.record(record_id)

    def attribution(self, instance_id):
        self.calls.append("attribution")
        return self._inner.attribution(instance_id)

    def materialise(self, record_id, *, instance_id=None, log=None):
        self.calls.append("materialise")
        return self._inner.materialise(record_id, instance_id=instance_id, log=log)


@pytest.fixture(scope="module")
def artifacts_root(scholar_artifacts) -> Path:
    """The run's artifacts folder holding the 1.0.0 artifact (built once for every worker; read-only)."""
    return scholar_artifacts


@pytest.fixture(scope="module")
def example(re2math_release, artifacts_root) -> bytes:
    """A 1.0.0 submission made as the example script made it before 2.0.0 (one query, the first admissible
    candidate with a frozen statement): 1.0.0 is superseded but still scores, through the protocol alone."""
    import json

    from lemmata.benchmarks.re2math.resources import Resources
    from lemmata.benchmarks.re2math.scholar.identity import year_cutoff

    resources = Resources(releases_root=re2math_release.parent, artifacts_root=artifacts_root, build_missing=False)
    artifact = resources.artifact(art.artifact_id())
    header = {"format": "lemmata-submission/1", "benchmark": "re2math", "release": "re2math-1.0.0",
              "split": "eval200/test", "track": "raw", "window": 5, "model": {"name": "protocol example"},
              "retrieval_artifact": artifact.artifact_id, "flags": {"tuned_on_pool": False,
                                                                     "used_external_tools": False}}
    lines = [header]
    for row in resources.rows("re2math-1.0.0", "eval200/test").values():
        query = " ".join(row["x"]["global_context"]["target_theorem"].split())[:2000]
        result = artifact.search(query, year_cutoff(artifact, row), 20, instance_id=row["instance_id"])
        selected, statement = None, None
        for c in result.candidates:
            if is_citing_paper(c, row):
                continue
            opened = artifact.materialise(c.id)
            if opened.statements:
                selected, statement = c.id, opened.statements[0].latex
                break
        lines.append({"instance_id": row["instance_id"], "queries": [{"text": query, "candidates": result.ids()}],
                      "opened": [selected] if selected else [], "selected_source": selected, "statement": statement})
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines).encode("utf-8")


def _handler(re2math_release, artifacts_root) -> Re2MathHandler:
    return Re2MathHandler(releases_root=re2math_release.parent, artifacts_root=artifacts_root, build_missing=False)


def _score(handler: Re2MathHandler, data: bytes, oracles: OracleConfig):
    validated = handler.validate(parse_envelope(data, "example.jsonl"), sha256_bytes(data))
    return handler.score(validated, received_at="2026-11-22", oracles=oracles)


def test_offline_artifact_is_scholarly_and_replay_backends_are_not(artifacts_root, tmp_path):
    opened = art.open_artifact(artifacts_root / art.artifact_id())
    assert isinstance(opened, ScholarlyArtifact) and is_scholarly(opened)
    assert is_scholarly(OnlyProtocol(opened))
    replay = ReplayBackend(CacheHeader(artifact_id="cache", backend="b", created_at="2026-01-01"),
                           [opened.search("harmonic maps", 2010)])
    assert not is_scholarly(replay)
    assert not is_scholarly(RecordingBackend(opened, tmp_path / "cache.jsonl"))


def test_scoring_through_the_protocol_alone_gives_the_same_result(re2math_release, artifacts_root, example,
                                                                  tmp_path, monkeypatch):
    judge_dir = tmp_path / "judge"
    with ChatServer() as server:
        expected = _score(_handler(re2math_release, artifacts_root), example,
                          OracleConfig(judge=ChatJudge(server.config()), extra={"judge_artifact": str(judge_dir)}))
    assert expected.pending == 0

    opened: list[OnlyProtocol] = []
    real_open = art.open_artifact

    def open_protocol_only(path, **kwargs):
        opened.append(OnlyProtocol(real_open(path, **kwargs)))
        return opened[-1]

    monkeypatch.setattr(art, "open_artifact", open_protocol_only)
    monkeypatch.setattr(resources, "_ARTIFACTS", {})  # opened artifacts are kept per process: open afresh here
    handler = _handler(re2math_release, artifacts_root)
    got = _score(handler, example, OracleConfig(judge=None, extra={"judge_artifact": str(judge_dir)}))
    assert len(opened) == 1 and {"search", "record", "attribution", "materialise"} <= set(opened[0].calls)
    # every question was asked identically (same prompt hashes): all answered from the cache
    assert handler.last_judge_stats == {"cached": handler.last_judge_stats["cached"], "asked": 0, "pending": 0,
                                        "unparsable": 0, "addressed": 0}
    assert got.result_id == expected.result_id and got.items == expected.items


def test_resources_refuse_an_artifact_without_records(re2math_release, artifacts_root, monkeypatch):
    replay = ReplayBackend(CacheHeader(artifact_id=art.artifact_id(), backend="b", created_at="2026-01-01"), [])
    monkeypatch.setattr(art, "open_artifact", lambda path, **kwargs: replay)
    monkeypatch.setattr(resources, "_ARTIFACTS", {})  # opened artifacts are kept per process: open afresh here
    handler = _handler(re2math_release, artifacts_root)
    with pytest.raises(LemmataError, match="cannot be scored against"):
        handler.resources.artifact(art.artifact_id())


def test_matcher_compares_only_typed_inputs(artifacts_root):
    opened = art.open_artifact(artifacts_root / art.artifact_id())
    record = next(r for r in opened.records if r.arxiv_id)
    hit = record.candidate(1, 1.0)
    assert match_candidate(hit, SourceRef(arxiv_id=record.arxiv_id)).rule == "arxiv"
    with pytest.raises(TypeError, match="ScholarRecord"):
        match_candidate(record, SourceRef(title=record.title))  # a record is not a search hit: make it one first
    with pytest.raises(TypeError):
        is_citing_paper(object(), {"paper_key": "2110.11087", "paper": {"title": "t"}})
