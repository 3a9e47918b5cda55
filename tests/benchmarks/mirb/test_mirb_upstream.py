"""MIRB against what upstream publishes: per-task licences as each Hub card states them, and upstream's averaging
set (the authors' MTEB fork averages nDCG@10 over every query of the qrels, grade-0-only ones included).

Evidence: the fork's task files (``j991222/mirb`` @ ``a2b2d600``, ``mteb/tasks/Retrieval/math/*.py``) all declare
``license=None``; its ``RetrievalEvaluator.evaluate`` averages trec_eval's per-query ``ndcg_cut_10`` over every
query pytrec_eval returns, i.e. every query of the qrels that was searched (all of them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lemmata.benchmarks.mirb.builder import MirbBuilder
from lemmata.benchmarks.mirb.meta import MIRB, TASK_NAMES, TASKS
from lemmata.release.card import parse_front_matter
from test_mirb_scoring import _perfect  # every fixture query's positives first, by grade

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub" / "mirb"
RECEIVED = "2026-11-22T08:30:00+00:00"


@pytest.fixture
def snapshots(tmp_path) -> Path:
    """A writable copy of the fixture snapshots (one folder per task)."""
    return Path(shutil.copytree(FIXTURES, tmp_path / "mirb"))


def _state_licence(card: Path, licence: str) -> None:
    """Put ``license:`` into a card's front matter, as a Hub card carries it."""
    card.write_text(card.read_text("utf-8").replace("---\n", f"---\nlicense: {licence}\n", 1), "utf-8")


def test_no_licence_record_is_a_guess():
    """None of the fifteen cards could be read at its pinned revision offline: every record says so, and the build
    compares none of them (``other``), so a card's licence never stops it."""
    assert MIRB.license_id == "other"
    for t in TASKS:
        assert not t.licence.verified and t.licence.evidence.startswith("not verified")
        assert MirbBuilder().expected_license(t.name) == "other"


def test_each_cards_licence_is_recorded_as_stated(snapshots, tmp_path):
    _state_licence(snapshots / "leanps" / "README.md", "mit")  # as the leanps card reportedly states it
    _state_licence(snapshots / "mseqa" / "README.md", "cc-by-sa-4.0")
    out = MirbBuilder(source_dir=snapshots).build(tmp_path / "out", quiet=True)
    card = (out / "README.md").read_text("utf-8")
    assert parse_front_matter(card)["license"] == "other"
    rows = {line.split(" | ")[0].strip("| `"): line.split(" | ")[2] for line in card.splitlines()
            if line.startswith("| `") and "hcju/" in line and "licence" not in line and line.count(" | ") == 3}
    assert set(rows) == set(TASK_NAMES)
    assert rows["leanps"] == "mit" and rows["mseqa"] == "cc-by-sa-4.0"
    assert rows["holps"] == "no card in the snapshot" and rows["modup"] == "none stated"


def _score_perfect(release_root: Path, monkeypatch):
    """A run ranking every positive first, scored against the release in ``release_root``."""
    from lemmata.families import handler_for
    from lemmata.scoring import validate_upload
    from lemmata.tracks.base import OracleConfig

    monkeypatch.setenv("LEMMATA_RELEASES", str(release_root))
    records = [r for t in TASK_NAMES for r in _perfect(t)]
    header = {"format": "lemmata-submission/1", "benchmark": "mirb", "release": MIRB.release_id,
              "track": "zero-shot", "model": {"name": "perfect"}}
    data = "".join(json.dumps(x) + "\n" for x in [header, *records]).encode()
    validated = validate_upload(data, "run.jsonl")
    return handler_for("mirb").score(validated, received_at=RECEIVED, oracles=OracleConfig())


def test_upstream_averaging_set_is_reported_where_it_differs(snapshots, tmp_path, monkeypatch):
    """One query of mathlibretrieval judged only with grade 0: Lemmata's nDCG@10 there stays 1.0 (3 queries with a
    positive grade), upstream's is 3/4 (the grade-0 query counts, and scores 0)."""
    task = snapshots / "mathlibretrieval"
    with (task / "queries.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"_id": "mathlibretrieval-q3", "text": "A query no document answers."}) + "\n")
    with (task / "qrels" / "test.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"query-id": "mathlibretrieval-q3", "corpus-id": "mathlibretrieval-d1", "score": 0}) + "\n")
    MirbBuilder(source_dir=snapshots).build(tmp_path / "releases", quiet=True)
    result = _score_perfect(tmp_path / "releases", monkeypatch)
    per_task = result.breakdowns["per_task"]
    assert per_task["mathlibretrieval"]["ndcg@10"]["mean"] == pytest.approx(1.0)
    assert per_task["mathlibretrieval"]["upstream_query_set"] == {"ndcg@10": pytest.approx(0.75), "queries": 4}
    assert all("upstream_query_set" not in v for n, v in per_task.items() if n != "mathlibretrieval")
    assert result.main.value == pytest.approx(1.0)  # Lemmata's figure stays the headline
    upstream = result.metrics["upstream_query_set"]
    assert upstream["per_dataset"]["informalized_mathlib4"] == pytest.approx(0.75)
    assert upstream["average"] == pytest.approx((11 + 0.75) / 12)
    assert any("upstream_query_set" in n and "mathlibretrieval" in n for n in result.notes)

