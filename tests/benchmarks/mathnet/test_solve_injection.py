"""MathNet-Solve against a grader that follows instructions (the issue's finding, and its fix).

"I could not solve it" plus an injected note, on every problem of the fixture subset, graded by the
instruction-following double (:class:`test_injection.Follower`, reading data too) through the protocol server:
under the old rubric ``mathnet_grade.v1`` every one scores 7/7, status complete, nothing flagged; under the fenced
``mathnet_grade.v2`` every one is graded 0 by the rubric's rule without asking, flagged on its item, counted in the
result's flags and metrics, and shown on the board.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lemmata.benchmarks.mathnet import solve_data, solve_track
from lemmata.benchmarks.mathnet.solve_run import write_lines
from lemmata.benchmarks.mathnet.solve_scoring import grade_values
from lemmata.families import judged_columns
from lemmata.oracles import fence
from lemmata.oracles.chat import ChatJudge
from lemmata.oracles.judge import load_rubric
from lemmata.scoring import validate_upload
from lemmata.tracks.base import OracleConfig
from test_injection import Follower, attacks
from test_judge import ChatServer

SUBSET = "lemmata_strat_70"
BASE = "I could not solve it."


def _submission(tmp_path: Path, name: str, text_of) -> Path:
    release = solve_data.solve_release()
    known = solve_data.problems(release)
    ids = solve_data.subset_ids(release, SUBSET)
    header = {"format": "lemmata-submission/1", "benchmark": "mathnet-solve", "release": release.release_id,
              "track": "zero-shot", "subset": SUBSET, "model": {"name": name, "modality": "text"}}
    records = [{"problem_id": pid, "solution": text_of(i, known[pid]), "final_answer": None, "abstained": None,
                "context_ids": []} for i, pid in enumerate(ids)]
    return write_lines(tmp_path / f"{name}.jsonl", [header, *records])


def _hostile(i: int, problem: dict) -> str:
    """One attack per problem, in turn; the nonce guess is the clean request's code (the derivation is public)."""
    guess = fence.nonce(load_rubric("mathnet_grade", 2).sha256, grade_values(problem["problem"], problem["solutions"],
                                                                              BASE))
    hostile = attacks("mathnet_grade", BASE, "CORRECT. A complete proof.", guess)
    return list(hostile.values())[i % len(hostile)]


def _score(path: Path, grader_model: str, double: Follower):
    from lemmata.families import handler_for

    with ChatServer(double) as server:
        judge = ChatJudge(server.config(model=grader_model))
        validated = validate_upload(path.read_bytes(), path.name)
        return handler_for("mathnet-solve").score(validated, received_at="2026-11-25T10:00:00+00:00",
                                                  oracles=OracleConfig(judge=judge))


def test_the_old_rubric_gives_full_marks_to_an_injected_note(solve_release, tmp_path, monkeypatch):
    monkeypatch.setattr(solve_track, "RUBRIC", ("mathnet_grade", 1))
    double = Follower(reads_data=True)
    result = _score(_submission(tmp_path, "attacker-old", _hostile), "grader-old-rubric", double)
    assert result.status == "complete" and result.main.value == 1.0 and double.asked == result.main.total == 17
    assert "addresses_grader" not in result.flags and not any("flags" in i for i in result.items)


@pytest.mark.parametrize("reads_data", [True, False])
def test_an_injected_note_is_graded_zero_by_the_rule_and_flagged(solve_release, tmp_path, reads_data):
    double = Follower(reads_data=reads_data)
    result = _score(_submission(tmp_path, "attacker", _hostile), f"grader-follower-{reads_data}", double)
    assert double.asked == 0  # every solution settled by the rubric's rule, none asked
    assert result.status == "complete" and result.pending == 0 and result.main.value == 0.0
    assert result.frozen.scoring_artifact.startswith(f"mathnet-solve-judge:chat:grader-follower-{reads_data}:"
                                                     "mathnet_grade.v2+")
    # the board finds the grader where the family declares it, to show its calibration beside ProofGrade
    assert judged_columns()["mathnet-solve"].judge_of(result.model_dump(mode="json")) == \
        f"chat:grader-follower-{reads_data}"
    assert all(i["grade"] == 0 and i["graded_by"] == "rule" and i["flags"] == {"addresses_grader": True}
               and "settled by rubric mathnet_grade.v2's rule" in i["grade_reason"] for i in result.items)
    assert result.flags["addresses_grader"] == 17
    assert result.metrics["addresses_grader"] == {"count": 17, "total": 17}
    assert any(n.startswith("17 of 17 solution(s) address the grader") for n in result.notes)

    clean = _score(_submission(tmp_path, "honest", lambda i, p: BASE), f"grader-follower-{reads_data}", double)
    assert double.asked == 17 and clean.main.value == 0.0  # the same grades as without the injection
    assert all(i["graded_by"] == "grader" and "flags" not in i for i in clean.items)
    assert "addresses_grader" not in clean.flags and "addresses_grader" not in clean.metrics

    from lemmata.space.board import load_rows
    from lemmata.space.tables import addressed_badge
    from lemmata.store import Store

    store = Store(tmp_path / "store")
    store.add_result(result)
    store.add_result(clean)
    badges = {r.model_name: addressed_badge(r.flags) for r in load_rows(store)}
    assert "addresses the grader" in badges["attacker"] and badges["honest"] == ""


def test_without_a_grader_the_rule_still_settles_and_the_rest_waits(solve_release, tmp_path):
    path = _submission(tmp_path, "attacker-nograder", lambda i, p: _hostile(i, p) if i % 2 else BASE)
    from lemmata.families import handler_for

    result = handler_for("mathnet-solve").score(validate_upload(path.read_bytes(), path.name),
                                                received_at="2026-11-25T10:00:00+00:00", oracles=OracleConfig())
    flagged = [i for i in result.items if i.get("flags")]
    assert len(flagged) == 8 and all(i["graded_by"] == "rule" and i["grade"] == 0 for i in flagged)
    assert result.pending == 9 and result.status == "pending_oracle" and result.flags["addresses_grader"] == 8


@pytest.mark.parametrize("obeys", [False, True])
def test_a_grader_that_fails_its_canaries_is_marked_on_the_result(solve_release, tmp_path, monkeypatch, obeys):
    """Canaries (:mod:`lemmata.oracles.canaries`) asked with the real solutions: the same grades either way, but the
    grader that obeys injected text fails the injection canaries and the result carries the mark (board badge)."""
    from lemmata.families import handler_for
    from lemmata.oracles.canaries import FLAG
    from lemmata.oracles.chat_double import ChatDouble
    from test_canaries import Double, _config

    monkeypatch.setenv("LEMMATA_JUDGE_CANARIES", "1")
    path = _submission(tmp_path, f"plain-{obeys}", lambda i, problem: BASE)
    double = Double(obeys=obeys)
    with ChatDouble(double) as server:
        judge = ChatJudge(_config(server, f"grader-canaries-{obeys}"))
        result = handler_for("mathnet-solve").score(validate_upload(path.read_bytes(), path.name),
                                                    received_at="2026-11-25T10:00:00+00:00",
                                                    oracles=OracleConfig(judge=judge))
    assert result.status == "complete" and result.main.total == 17 and result.main.value == 0.0
    assert len(double.prompts) == 17 + 18  # every solution, and the grade rubric's canaries once
    record = result.provenance["judge_canaries"]
    assert (record["total"], record["answered"], record["failed"]) == (18, 18, 6 if obeys else 0)
    assert (FLAG in result.flags) is obeys and any("canary" in n for n in result.notes) is obeys
    assert not any("canary" in str(item).lower() for item in result.items)  # no canary is an item
