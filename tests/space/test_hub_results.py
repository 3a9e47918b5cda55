"""Results reported on the Hub on the board: read from the in-process Hub's leaderboard path over real HTTP
(``GET /api/datasets/{id}/leaderboard``), listed in a group of their own beside the scored-here rows, and a hostile
reply bounded and escaped."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from hub_commits import CommitHub

from lemmata.core.hashing import sha256_bytes
from lemmata.space.board import BoardQuery, build_view, row_from_index, to_json
from lemmata.space.hub_results import MAX_ENTRIES, HubResults, hub_targets
from lemmata.space.tables import render_board

DATASET = "lemmata/re2math"  # the default LEMMATA_HUB_OWNER and the release's name (``lemmata publish``)

#: Entries in the Hub's reply format: the fields of the table "Response fields" on the Hub's page "Accessing
#: Benchmark Leaderboard Data" (https://huggingface.co/docs/hub/leaderboard-data-guide, ``docs/hub/
#: leaderboard-data-guide.md`` in huggingface/hub-docs) with the key spellings ``huggingface_hub`` 2.4 reads in
#: ``DatasetLeaderboardEntry`` (``modelId``, ``pullRequest``, ``source.isExternal``, ``author.type``); the
#: author's ``avatarUrl``/``fullname`` as the Hub sends them for a user or organisation.
ENTRIES = [
    {"rank": 1, "modelId": "Qwen/Qwen3-Embedding-8B", "value": 0.412, "filename": ".eval_results/re2math.yaml",
     "verified": True, "source": {"url": "https://huggingface.co/spaces/lemmata/leaderboard?tab=audit&entry=0123456789ab",
                                  "name": "Lemmata audit", "isExternal": False},
     "author": {"avatarUrl": "https://cdn-avatars.huggingface.co/qwen.png", "fullname": "Qwen", "name": "Qwen",
                "type": "org"},
     "notes": "Lemmata re2math/raw, ndcg@10"},
    {"rank": 2, "modelId": "someone/their-model", "value": 0.305, "filename": ".eval_results/re2math.yaml",
     "verified": False, "author": {"avatarUrl": "https://cdn-avatars.huggingface.co/u.png", "fullname": "Some One",
                                   "name": "someone", "type": "user"},
     "pullRequest": 1},
]


@pytest.fixture
def online(monkeypatch):
    """huggingface_hub allowed to reach 127.0.0.1 (the suite runs with HF_HUB_OFFLINE=1), the default owner."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("LEMMATA_HUB_OWNER", raising=False)


def _scored(name: str, value: float):
    return row_from_index({"result_id": sha256_bytes(name.encode()), "submission_sha256": "0" * 64,
                           "kind": "scored", "benchmark": "re2math", "track": "raw", "group_key": "g",
                           "model_name": name, "main_value": value, "pending": 0, "status": "complete",
                           "scored_at": "2026-11-20T10:00:00", "version": 1})


def _load(hub: CommitHub, tmp_path, body: bytes) -> HubResults:
    hub.leaderboards[DATASET] = body
    results = HubResults(tmp_path / "cache")
    results.load([DATASET, "lemmata/mirb"], endpoint=hub.endpoint)
    return results


def test_hub_results_are_a_group_of_their_own(online, tmp_path):
    rows = [_scored("bm25", 0.2), _scored("dense", 0.5)]
    body = json.dumps(ENTRIES).encode()
    with CommitHub() as hub:
        results = _load(hub, tmp_path, body)
        assert f"GET /api/datasets/{DATASET}/leaderboard" in hub.requests
    assert results.boards["lemmata/mirb"].state == "none"  # the Hub has no leaderboard for it: said, not failed

    view = build_view(rows, BoardQuery(benchmark="re2math", track="raw"), hub=results)
    assert [(r.model_name, r.rank) for r in view.rows] == [("dense", 1), ("bm25", 2)]  # ranks: scored rows only
    (group,) = [g for g in view.hub if g.dataset_id == DATASET]
    assert [e.model_id for e in group.entries] == ["Qwen/Qwen3-Embedding-8B", "someone/their-model"]
    assert group.task_id == "raw" and group.tasks == 2
    html = render_board(view)
    hub_part = html[html.index('data-group="hub | lemmata/re2math"'):]
    assert "Reported on the Hub" in hub_part and "reported on the Hub</span>" in hub_part
    assert 'href="https://huggingface.co/Qwen/Qwen3-Embedding-8B"' in hub_part
    assert 'href="https://huggingface.co/spaces/lemmata/leaderboard?tab=audit&amp;entry=0123456789ab"' in hub_part
    assert hub_part.count("verified on the Hub</span>") == 1 and "pull request #1" in hub_part
    assert "never ranked with the rows scored here" in hub_part and "<b>0.412</b>" in hub_part

    exported = json.loads(to_json(view))["reported_on_the_hub"]
    assert exported[0]["dataset"] == DATASET and exported[0]["reply_sha256"] == sha256_bytes(body)
    assert [e["modelId"] for e in exported[0]["entries"]] == ["Qwen/Qwen3-Embedding-8B", "someone/their-model"]

    # the Source filter: the Hub alone, or without it
    only_hub = build_view(rows, BoardQuery(benchmark="re2math", track="raw", kind="hub"), hub=results)
    assert not only_hub.groups and only_hub.hub and "Qwen3-Embedding-8B" in render_board(only_hub)
    scored = build_view(rows, BoardQuery(benchmark="re2math", track="raw", kind="scored"), hub=results)
    assert not scored.hub and "Reported on the Hub" not in render_board(scored)
    # a search narrows the Hub's entries too; a declared-metadata filter leaves none (they declare nothing)
    searched = build_view(rows, BoardQuery(benchmark="re2math", track="raw", search="someone"), hub=results)
    assert [e.model_id for g in searched.hub for e in g.entries] == ["someone/their-model"]
    opened = build_view(rows, BoardQuery(benchmark="re2math", track="raw", open_weights=True), hub=results)
    assert not [e for g in opened.hub for e in g.entries]

    # kept by content: the reply's bytes under their sha256, shown (with its date) when the Hub is unreachable
    assert (tmp_path / "cache" / "by-sha256" / f"{sha256_bytes(body)}.json").read_bytes() == body
    later = HubResults(tmp_path / "cache")
    later.load([DATASET], endpoint=hub.endpoint)  # the server is closed now
    board = later.boards[DATASET]
    assert board.state == "loaded" and len(board.entries) == 2 and "showing the copy fetched" in board.reason


def test_offline_says_hub_results_are_not_loaded(tmp_path):
    results = HubResults(tmp_path / "cache")
    assert "offline" in results.load([DATASET], offline=True)
    view = build_view([_scored("bm25", 0.2)], BoardQuery(benchmark="re2math", track="raw"), hub=results)
    assert not view.hub
    assert "Results reported on the Hub are not loaded: offline (HF_HUB_OFFLINE=1)." in render_board(view)
    assert not (tmp_path / "cache").exists()  # nothing fetched, nothing kept


def test_a_hostile_reply_is_bounded_and_escaped(online, tmp_path):
    hostile = [
        {**ENTRIES[0], "modelId": "<script>alert(1)</script>"},  # not a repository id: refused, named
        {**ENTRIES[0], "rank": "first"},  # wrong type: refused, named
        {**ENTRIES[0], "value": True},  # a boolean is not a score
        "an entry that is not an object",
        {**ENTRIES[1], "notes": "<img src=x onerror=alert(1)>",
         "source": {"url": "javascript:alert(1)", "name": "<b>bold</b>"}},  # shown, escaped, link dropped
    ] + [{**ENTRIES[1], "rank": 10 + i, "modelId": f"bulk/m{i}"} for i in range(MAX_ENTRIES + 50)]
    with CommitHub() as hub:
        results = _load(hub, tmp_path, json.dumps(hostile).encode())
    board = results.boards[DATASET]
    assert board.state == "loaded" and board.left_out == len(hostile) - MAX_ENTRIES
    assert board.refused_count == 4 and len(board.entries) == MAX_ENTRIES - 4
    assert [(p.line, p.field) for p in board.refused] == [(1, "modelId"), (2, "rank"), (3, "value"), (4, None)]
    view = build_view([], BoardQuery(benchmark="re2math", track="raw", show_all=True), {"re2math": ("raw",)},
                      hub=results)
    html = render_board(view)
    assert "<script>" not in html and "<img" not in html and "javascript:" not in html and "<b>bold" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "4 entries refused" in html and "line 1, field &#x27;modelId&#x27;" in html
    assert f"{len(hostile) - MAX_ENTRIES} further entries not read" in html


@pytest.mark.parametrize("body, said", [
    (b"<html>Service Unavailable</html>", "not JSON"),
    (json.dumps({"error": "x", "entries": ENTRIES}).encode(), "a JSON dict, not the documented list"),
    (b"[" + b" " * (3 * 1024 * 1024) + b"]", "larger than 2,097,152 bytes"),
])
def test_a_malformed_reply_is_refused_whole_with_a_reason(online, tmp_path, body, said):
    with CommitHub() as hub:
        results = _load(hub, tmp_path, body)
    board = results.boards[DATASET]
    assert board.state == "failed" and said in board.reason and not board.entries
    html = render_board(build_view([_scored("bm25", 0.2)], BoardQuery(benchmark="re2math", track="raw"), hub=results))
    assert "could not be read" in html and ">bm25<" not in html.split("could not be read")[1]


def test_targets_follow_the_releases_of_the_view():
    assert hub_targets("re2math", "raw", []) == [("lemmata/re2math", "raw", 2)]
    assert hub_targets("mirb", "zero-shot", ["mirb-1.0.0"]) == [("lemmata/mirb", "zero-shot", 1)]
    assert hub_targets(None, None, ["re2math-1.0.0"]) == []
    row = replace(_scored("x", 0.1), frozen={"dataset_release": "re2math-1.0.0"})
    assert build_view([row], BoardQuery(benchmark="re2math", track="raw")).hub == ()  # no holder: no Hub part


def test_a_running_space_reads_a_changed_leaderboard_without_a_restart(online, tmp_path):
    """The scorer's thread reads the Hub leaderboards again on a schedule: a changed reply shows on the board
    without a restart, and an unchanged one keeps its one cached copy."""
    from lemmata.space.hub_results import RefreshSchedule
    from lemmata.space.worker import ScoringWorker
    from lemmata.store import Store

    query = BoardQuery(benchmark="re2math", track="raw")
    with CommitHub() as hub:
        hub.leaderboards[DATASET] = json.dumps(ENTRIES[:1]).encode()
        results = HubResults(tmp_path / "cache")
        schedule = RefreshSchedule(every_s=0.2, max_backoff_s=1.0)
        assert results.refresh([DATASET], schedule, endpoint=hub.endpoint, now=0.0) is not None  # start-up's read
        assert results.refresh([DATASET], schedule, endpoint=hub.endpoint, now=0.1) is None  # not due: no request
        assert hub.requests.count(f"GET /api/datasets/{DATASET}/leaderboard") == 1
        worker = ScoringWorker(Store(tmp_path / "store"), poll_seconds=0.05)
        worker.chores.append(lambda: results.refresh([DATASET], schedule, endpoint=hub.endpoint))
        worker.start()
        try:
            hub.leaderboards[DATASET] = json.dumps(ENTRIES).encode()  # a second model's results reach the Hub
            deadline = time.monotonic() + 30
            while len(results.boards[DATASET].entries) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            worker.stop()
    (group,) = build_view([], query, {"re2math": ("raw",)}, hub=results).hub
    assert [e.model_id for e in group.entries] == ["Qwen/Qwen3-Embedding-8B", "someone/their-model"]
    assert len(list((tmp_path / "cache").rglob("by-sha256/*.json"))) == 2  # one file per distinct reply


def test_an_unreachable_hub_is_asked_less_and_less_often(online, tmp_path):
    from lemmata.space.hub_results import RefreshSchedule

    with CommitHub() as hub:
        endpoint = hub.endpoint
    results = HubResults(tmp_path / "cache")  # the server is closed now
    schedule = RefreshSchedule(every_s=10, max_backoff_s=35)
    waits = []
    for _ in range(4):
        now = schedule.next_at
        results.refresh([DATASET], schedule, endpoint=endpoint, now=now)
        waits.append(schedule.next_at - now)
    assert results.boards[DATASET].state == "failed" and waits == [20, 35, 35, 35]
