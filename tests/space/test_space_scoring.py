"""Submit and score at handler level: synchronous validation, dedup, rate limits, the worker and versioning.

Real submissions for a real handler: MathNet-Retrieve runs against its release
built from the upstream-layout fixture (no oracle involved), so a stored file
goes queued → scoring → scored with an actual Recall@5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.core.hashing import sha256_bytes
from lemmata.space.config import SpaceConfig
from lemmata.space.submit import SubmissionForm, render_outcome, submit_upload
from lemmata.scoring import chain_version
from lemmata.space.worker import ScoringWorker
from lemmata.store import RateLimit, Store

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hub"
RELEASE = "mathnet-retrieve-1.0.0"


@pytest.fixture(scope="module", autouse=True)
def mathnet_release():
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.core.paths import releases_dir

    if not (releases_dir() / RELEASE).is_dir():
        MathNetRetrieveBuilder(source_dir=FIXTURES / "MathNet-Retrieve").build(releases_dir(), quiet=True)


def mathnet_file(model: str, *, hits: int = 3, tier: str = "hard") -> bytes:
    """A valid run: the relevant document first for the first ``hits`` queries, last for the others."""
    from lemmata.benchmarks.mathnet.track import tier_collection

    coll = tier_collection(RELEASE, tier)
    docs = sorted(coll.corpus)
    lines = [{"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": RELEASE, "track": tier,
              "model": {"name": model, "url": "https://example.org/" + model}}]
    for i, qid in enumerate(sorted(coll.queries)):
        relevant = next(iter(coll.qrels[qid]))
        others = [d for d in docs if d != relevant][:9]
        ranked = [relevant] + others if i < hits else others + [relevant]
        lines.append({"query_id": qid, "ranking": [{"doc_id": d, "score": 10.0 - j} for j, d in enumerate(ranked)]})
    return "".join(json.dumps(x) + "\n" for x in lines).encode()


@pytest.fixture
def config(tmp_path) -> SpaceConfig:
    return SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, rate_limit=RateLimit(3, 3600))


@pytest.fixture
def store(config) -> Store:
    return Store(config.store_root)


FORM = SubmissionForm(submitter="Ada Lovelace", contact="ada@example.org", notes="first run")


def test_a_broken_file_lists_every_problem_and_stores_nothing(store, config):
    good = mathnet_file("m").decode().splitlines()
    qid = json.loads(good[1])["query_id"]
    syntax = [good[0], "{not json", good[1], "[1, 2]"]
    outcome = submit_upload(store, config, "\n".join(syntax).encode(), "broken.jsonl", FORM)
    assert outcome.kind == "invalid" and [p.line for p in outcome.problems] == [2, 4]
    semantic = [good[0], json.dumps({"query_id": "nope", "ranking": []}),
                json.dumps({"query_id": qid, "ranking": [{"doc_id": "missing", "score": 1}]}),
                json.dumps({"query_id": json.loads(good[2])["query_id"], "ranking": [{"doc_id": "x", "score": "high"}]})]
    outcome = submit_upload(store, config, "\n".join(semantic).encode(), "broken.jsonl", SubmissionForm(submitter=""))
    lines = {p.line for p in outcome.problems}
    assert outcome.kind == "invalid" and {2, 3, 4} <= lines
    assert any(p.field and "ranking[0]" in p.field for p in outcome.problems)
    assert outcome.problems[-1].field == "submitter"  # the form's problems are listed with the file's
    assert store.list_submissions() == [] and not store.submissions_dir.exists()
    html = render_outcome(outcome)
    assert "<th>Line</th>" in html and html.count("<tr>") == len(outcome.problems) + 1


def test_file_and_form_problems_are_reported_together(store, config):
    outcome = submit_upload(store, config, b'{"format": "lemmata-submission/1", "benchmark": "nope"}\n', "x.jsonl",
                            SubmissionForm(submitter="", notes="n" * 3000))
    fields = {p.field for p in outcome.problems}
    assert outcome.kind == "invalid" and {"benchmark", "submitter", "notes"} <= fields


def test_a_valid_file_is_stored_once_and_a_duplicate_points_to_it(store, config):
    data = mathnet_file("dedup-model")
    first = submit_upload(store, config, data, "run.jsonl", FORM, client="client:1")
    assert first.kind == "created" and first.record.sha256 == sha256_bytes(data)
    assert first.record.model_name == "dedup-model" and first.record.status == "queued"
    assert first.record.contact == "ada@example.org"
    again = submit_upload(store, config, data, "renamed.jsonl", SubmissionForm(submitter="Someone else"))
    assert again.kind == "duplicate" and again.record.sha256 == first.record.sha256
    assert again.record.submitter == "Ada Lovelace" and len(store.list_submissions()) == 1
    assert "ada@example.org" not in render_outcome(again)


def test_rate_limit_counts_new_entries_per_submitter(store, config):
    for i in range(3):
        assert submit_upload(store, config, mathnet_file(f"rl-{i}"), "r.jsonl", FORM).kind == "created"
    limited = submit_upload(store, config, mathnet_file("rl-3"), "r.jsonl", FORM)
    assert limited.kind == "rate_limited" and "3 submissions per 1 h" in limited.message
    other = submit_upload(store, config, mathnet_file("rl-4"), "r.jsonl", SubmissionForm(submitter="Grace"))
    assert other.kind == "created" and len(store.list_submissions()) == 4


def test_size_limit_is_enforced_before_parsing(store, tmp_path):
    small = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, max_submission_bytes=100)
    outcome = submit_upload(store, small, mathnet_file("big"), "big.jsonl", FORM)
    assert outcome.kind == "invalid" and "limit is 100 bytes" in outcome.problems[0].reason


def test_the_worker_scores_queued_files_and_survives_failures(store, config):
    data = mathnet_file("worker-model", hits=3)
    created = submit_upload(store, config, data, "run.jsonl", FORM)
    # a stored file that no longer validates (its release is not served) fails with the reason
    bad = data.replace(RELEASE.encode(), b"mathnet-retrieve-9.9.9")
    store.add_submission(bad, filename="old.jsonl", benchmark="mathnet-retrieve", track="hard", model_name="old",
                         submitter="x", header={})
    worker = ScoringWorker(store)
    assert worker.run_once() and worker.run_once() and not worker.run_once()
    rec = store.get_submission(created.record.sha256)
    assert rec.status == "scored" and rec.attempts == 1
    [result] = store.results_for_submission(rec.sha256)
    assert result.main.metric == "recall@5" and result.main.value == pytest.approx(3 / 5)
    assert result.frozen.date == rec.received_at[:10]
    failed = store.get_submission(sha256_bytes(bad))
    assert failed.status == "failed" and "9.9.9" in failed.status_reason


def test_rescoring_stores_nothing_new_unless_the_result_changes(store, config):
    created = submit_upload(store, config, mathnet_file("rescore-model"), "run.jsonl", FORM)
    worker = ScoringWorker(store)
    worker.run_once()
    [first] = store.results_for_submission(created.record.sha256)
    store.requeue(created.record.sha256, actor="admin-token")
    worker.run_once()
    assert store.result_ids_for_submission(created.record.sha256) == [first.result_id]
    corrected = first.model_copy(update={"notes": first.notes + ["scorer fix"]})
    second = chain_version(store, corrected)
    assert second.version == 2 and second.supersedes == first.result_id
    store.add_result(second)
    assert [r["result_id"] for r in store.result_rows(benchmark="mathnet-retrieve")] == [second.result_id]


def test_worker_thread_wakes_on_upload_and_requeues_after_a_restart(store, config):
    import time

    created = submit_upload(store, config, mathnet_file("thread-model"), "run.jsonl", FORM)
    store.claim_next()  # a previous process died while scoring this one
    worker = ScoringWorker(store, poll_seconds=30)
    assert worker.start() == 1
    try:
        deadline = time.monotonic() + 20
        while store.get_submission(created.record.sha256).status != "scored" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.get_submission(created.record.sha256).status == "scored"
        late = submit_upload(store, config, mathnet_file("late-model"), "run.jsonl", SubmissionForm(submitter="G"))
        worker.wake()
        t0 = time.monotonic()
        while store.get_submission(late.record.sha256).status != "scored" and time.monotonic() - t0 < 20:
            time.sleep(0.05)
        assert store.get_submission(late.record.sha256).status == "scored" and time.monotonic() - t0 < 10
    finally:
        worker.stop()
    assert not worker.alive
