"""The query-cache format: recording the offline artifact, reading back, replay, freezing, bad files."""

from __future__ import annotations

import json

import pytest

from lemmata.core.errors import InputError
from lemmata.release.load import open_release
from lemmata.benchmarks.re2math.scholar.artifact import ScholarArtifact, artifact_id, open_artifact
from lemmata.benchmarks.re2math.scholar.backends import open_backend
from lemmata.benchmarks.re2math.scholar.querycache import (
    CacheHeader,
    Candidate,
    NotRecordedError,
    QueryCacheWriter,
    QuerySettings,
    RecordingBackend,
    ReplayBackend,
    SearchBackend,
    SearchResult,
    apply_year_cutoff,
    freeze_query_cache,
    read_query_cache,
    require_same_artifact,
)


@pytest.fixture(scope="session")
def artifact(scholar_artifacts):
    """The run's 1.0.0 artifact (built once for every worker by ``scholar_artifacts``)."""
    return open_artifact(scholar_artifacts / artifact_id())


@pytest.fixture(scope="session")
def queries(re2math_release):
    rows = open_release(re2math_release).rows("eval200", "test")
    return [(r["x"]["global_context"]["target_theorem"], r["publication_year"], r["instance_id"]) for r in rows[:40]]


def test_offline_artifact_records_and_replays(artifact, queries, tmp_path):
    assert isinstance(artifact, SearchBackend)
    cache = tmp_path / "offline.jsonl"
    recorder = RecordingBackend(artifact, cache, description="Eval-200 target theorems")
    live = [recorder.search(q, cutoff, 20, instance_id=iid) for q, cutoff, iid in queries]
    header, results = read_query_cache(cache)
    assert header.artifact_id == artifact.artifact_id and header.backend == "offline-bm25s"
    # a query asked again (two gaps of one theorem) is answered from the cache, not recorded twice
    first: dict[tuple, SearchResult] = {}
    for (q, cutoff, _), result in zip(queries, live):
        first.setdefault((q, cutoff), result)
    assert len(first) < len(queries) and results == list(first.values())
    assert [r.instance_id for r in results] == [next(i for q2, c2, i in queries if (q2, c2) == k) for k in first]
    # replayed: identical candidate ids; and identical to a fresh search of the frozen index
    replay = ReplayBackend.open(cache)
    assert len(replay) == len(first)
    for (q, cutoff, _), result in zip(queries, live):
        assert replay.search(q, cutoff, 20).ids() == result.ids() == artifact.search(q, cutoff, 20).ids()
        assert (q, cutoff, 20) in replay
    with pytest.raises(NotRecordedError, match="no recording"):
        replay.search(queries[0][0], queries[0][1], 10)
    # a second recorder on the same file appends, never rewrites; recorded queries are not searched again
    again = RecordingBackend(artifact, cache)
    again.search(queries[0][0], queries[0][1], 20)
    assert len(read_query_cache(cache)[1]) == len(first)
    again.search("Sobolev embedding on compact manifolds", 2015, 5)
    assert len(read_query_cache(cache)[1]) == len(first) + 1


def test_json_round_trip_is_exact(artifact, queries):
    result = artifact.search(queries[1][0], queries[1][1], 20, instance_id=queries[1][2])
    assert SearchResult.model_validate_json(result.model_dump_json()) == result
    assert result.candidates and all(isinstance(c, Candidate) for c in result.candidates)
    first = result.candidates[0]
    assert first.kind in ("source", "citing_paper") and first.score and first.score > 0


def test_frozen_cache_is_verified(artifact, queries, tmp_path):
    cache = tmp_path / "c.jsonl"
    recorder = RecordingBackend(artifact, cache)
    for q, cutoff, iid in queries[:5]:
        recorder.search(q, cutoff, 20, instance_id=iid)
    # a cache recorded from the offline artifact keeps that artifact's id
    frozen = freeze_query_cache(cache, tmp_path / "frozen")
    assert frozen.name == artifact.artifact_id
    info = json.loads((frozen / "ARTIFACT.json").read_text())
    assert info["queries"] == 5 and info["artifact_id"] == artifact.artifact_id
    assert ReplayBackend.open(frozen).search(*queries[0][:2]).ids() == artifact.search(*queries[0][:2]).ids()
    (frozen / "ARTIFACT.json").write_text(json.dumps({**info, "queries": 6}))
    with pytest.raises(InputError, match="modified|size differs from MANIFEST"):
        ReplayBackend.open(frozen)
    # never over the scholarly artifact it was recorded from
    with pytest.raises(InputError, match="not a query cache"):
        freeze_query_cache(cache, artifact.root.parent)
    assert open_artifact(artifact.root).info == artifact.info


def _result(artifact_id: str = "a-1", *, years=(2001, None), cutoff: int | None = 2005) -> SearchResult:
    cands = [Candidate(id=f"d{i}", rank=i + 1, kind="scholar_result", title=f"t{i}", year=y) for i, y in enumerate(years)]
    return SearchResult(artifact_id=artifact_id, query="q", settings=QuerySettings(backend="b", n=20, year_cutoff=cutoff),
                        timestamp="2026-01-01T00:00:00+00:00", candidates=cands)


def test_results_of_different_artifacts_never_mix(tmp_path):
    writer = QueryCacheWriter(tmp_path / "c.jsonl", CacheHeader(artifact_id="a-1", backend="b", created_at="now"))
    writer.append(_result("a-1"))
    with pytest.raises(ValueError, match="cannot go into"):
        writer.append(_result("a-2"))
    with pytest.raises(InputError, match="belongs to artifact 'a-1'"):
        QueryCacheWriter(tmp_path / "c.jsonl", CacheHeader(artifact_id="a-2", backend="b", created_at="now"))
    with open(tmp_path / "c.jsonl", "a") as fh:  # a hand-edited foreign line
        fh.write(_result("a-2").model_dump_json() + "\n")
    with pytest.raises(InputError) as err:
        read_query_cache(tmp_path / "c.jsonl")
    assert "line 3" in str(err.value) and "artifact_id" in str(err.value)
    assert require_same_artifact([_result("a-1"), _result("a-1")]) == "a-1"
    with pytest.raises(ValueError, match="2 retrieval artifacts"):
        require_same_artifact([_result("a-1"), _result("a-2")])


def test_bad_lines_name_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    header = CacheHeader(artifact_id="a-1", backend="b", created_at="now").model_dump(mode="json")
    good = json.loads(_result().model_dump_json())
    late = json.loads(_result().model_dump_json())
    late["candidates"][1]["year"] = 2010  # a candidate after the cutoff
    gap = json.loads(_result().model_dump_json())
    gap["candidates"][1]["rank"] = 3
    missing = {k: v for k, v in good.items() if k != "query"}
    path.write_text("\n".join(json.dumps(x) for x in (header, good, late, gap, missing)) + "\n{not json\n")
    with pytest.raises(InputError) as err:
        read_query_cache(path)
    text = str(err.value)
    assert "line 6" in text and "malformed JSON" in text
    path.write_text("\n".join(json.dumps(x) for x in (header, good, late, gap, missing)) + "\n")
    with pytest.raises(InputError) as err:
        read_query_cache(path)
    problems = err.value.problems
    assert [p.line for p in problems] == [3, 4, 5]
    assert "after the year cutoff 2005" in problems[0].reason and "ranks" in problems[1].reason
    assert problems[2].field == "query" and all(p.file == str(path) for p in problems)
    path.write_text(json.dumps(good) + "\n")
    with pytest.raises(InputError, match="header"):
        read_query_cache(path)
    with pytest.raises(ValueError, match="artifact_id"):
        CacheHeader(artifact_id="has spaces/and slashes", backend="b", created_at="now")


def test_apply_year_cutoff_keeps_unknown_years_and_renumbers():
    cands = _result(years=(1999, 2010, None, 2003), cutoff=None).candidates
    kept = apply_year_cutoff(cands, 2005, 20)
    assert [(c.id, c.rank) for c in kept] == [("d0", 1), ("d2", 2), ("d3", 3)]
    assert [c.id for c in apply_year_cutoff(cands, None, 2)] == ["d0", "d1"]


def test_open_backend_by_path_or_id(artifact, queries, tmp_path, monkeypatch):
    q, cutoff, _ = queries[2]
    live = artifact.search(q, cutoff, 20)
    # a cache of another artifact (e.g. a SerpAPI campaign), frozen under artifacts_dir()
    cache = tmp_path / "c.jsonl"
    campaign = "re2math-serpapi-scholar-2026-03"
    QueryCacheWriter(cache, CacheHeader(artifact_id=campaign, backend="serpapi-google-scholar", created_at="now")
                     ).append(live.model_copy(update={"artifact_id": campaign}))
    frozen = freeze_query_cache(cache, tmp_path / "home" / "artifacts")
    monkeypatch.setenv("LEMMATA_HOME", str(tmp_path / "home"))
    assert isinstance(open_backend(artifact.root), ScholarArtifact)
    for where in (cache, frozen, campaign):
        backend = open_backend(where)
        assert isinstance(backend, ReplayBackend) and backend.artifact_id == campaign
        assert backend.search(q, cutoff, 20).ids() == live.ids()
    with pytest.raises(InputError, match="unknown retrieval artifact"):
        open_backend("no-such-artifact-9")
