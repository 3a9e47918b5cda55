"""Re²Math Suff, Ground and AnchorMatch against a judge that follows instructions.

Statements (and one planning anchor) of the shipped example submission are replaced by hostile texts
(:func:`test_injection.attacks`) and scored offline with the instruction-following double
(:class:`test_injection.Follower`, reading data too) behind the protocol server: under the unfenced ``suff.v2`` they
are judged "yes"; under the fenced ``suff.v3`` / ``anchor.v2`` they are settled "no" by the rubric's rule without
asking, flagged on their items and counted in the result. Ground (the live protocol's ``ground.v2``, and the
``ground`` rubric of the offline scorer's live kind) is settled the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.benchmarks.re2math.scoring import Re2MathHandler
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.envelope import parse_envelope
from lemmata.oracles.chat import ChatJudge
from lemmata.tracks.base import OracleConfig
from test_injection import Follower, attacks
from test_judge import ChatServer

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "submissions" / "re2math" / "example-re2math-bm25-raw-m5.jsonl"
BASE = "Some unrelated statement."


@pytest.fixture(scope="module")
def handler(re2math_release, scholar_worlds) -> Re2MathHandler:
    return Re2MathHandler(releases_root=re2math_release.parent, artifacts_root=scholar_worlds, build_missing=False)


def _lines() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE.read_text("utf-8").splitlines() if line.strip()]


def _with(texts: dict[int, str], anchor: str | None = None) -> bytes:
    """The example with the statements of records 1… replaced by ``texts`` (by record number), and the first
    record's planning anchor by ``anchor``."""
    objs = _lines()
    for n, text in texts.items():
        assert objs[n]["statement"] is not None
        objs[n]["statement"] = text
    if anchor is not None:
        objs[1]["anchor"] = anchor
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8")


def _score(handler, data: bytes, judge, folder: Path):
    validated = handler.validate(parse_envelope(data, "sub.jsonl"), sha256_bytes(data))
    return handler.score(validated, received_at="2026-11-21",
                         oracles=OracleConfig(judge=judge, extra={"judge_artifact": str(folder)}))


def _hostile() -> dict[int, str]:
    with_statement = [n for n, o in enumerate(_lines()) if n and o.get("statement")]
    texts = list(attacks("suff", BASE, "x", "0" * 20).values())
    return {n: text for n, text in zip(with_statement, texts)}


def test_unfenced_suff_says_yes_to_every_injected_statement(handler, tmp_path, monkeypatch):
    from lemmata.benchmarks.re2math import semantics

    off = semantics.HEADLINES["offline"]
    monkeypatch.setitem(semantics.HEADLINES, "offline", off.model_copy(update={"rubrics": {"suff": 2, "anchor": 1}}))
    hostile = _hostile()
    ids = {_lines()[n]["instance_id"] for n in hostile}
    with ChatServer(Follower(reads_data=True)) as server:
        result = _score(handler, _with(hostile), ChatJudge(server.config(model="follower-old")), tmp_path / "j")
    assert result.frozen.scoring_artifact.endswith("anchor.v1+suff.v2")
    items = [i for i in result.items if i["instance_id"] in ids]
    assert len(items) == len(hostile) and all(i["suff"]["verdict"] == "yes" for i in items)
    assert "addresses_grader" not in result.flags


def test_fenced_suff_and_anchor_settle_every_injection_no_and_flag_it(handler, tmp_path):
    hostile = _hostile()
    ids = {_lines()[n]["instance_id"] for n in hostile}
    anchor = attacks("anchor", "continue the proof", "x", "0" * 20)["close_section"]
    first = _lines()[1]["instance_id"]
    double = Follower(reads_data=True)
    with ChatServer(double) as server:
        judge = ChatJudge(server.config(model="follower-new"))
        result = _score(handler, _with(hostile, anchor), judge, tmp_path / "j")
        asked = [r["messages"][1]["content"] for r in server.requests]
        clean = _score(handler, _with({n: BASE for n in hostile}), judge, tmp_path / "j")
    assert result.frozen.scoring_artifact.endswith("anchor.v2+query.v1+suff.v3")
    assert not any("IGNORE PREVIOUS" in body or "### Reply\nReply with" in body for body in asked)  # never asked
    items = {i["instance_id"]: i for i in result.items}
    for iid in ids:
        suff = items[iid]["suff"]
        assert suff["verdict"] == "no" and suff["by"] == "rule" and "suff.v3's rule" in suff["reason"], iid
        assert items[iid]["flags"]["addresses_grader"] is True and items[iid]["tool_acc"] == "no"
    a = items[first]["anchor_match"]
    assert a["verdict"] == "no" and a["by"] == "rule" and "anchor.v2's rule" in a["reason"]
    flagged = sum(1 for i in result.items if i.get("flags", {}).get("addresses_grader"))
    assert flagged == len(ids | {first})
    assert result.flags["addresses_grader"] == flagged
    assert result.metrics["addresses_grader"] == {"count": flagged, "total": 200}
    assert any("address the grader" in n for n in result.notes)
    # no better than the same records without the injection; nothing else moved
    assert result.main.count == clean.main.count
    assert {i["instance_id"]: i["suff"]["verdict"] for i in clean.items} == \
        {i["instance_id"]: i["suff"]["verdict"] for i in result.items}
    assert "addresses_grader" not in clean.flags and "addresses_grader" not in clean.metrics


def _ground_makers(row, source: str):
    """Ground questions as the live protocol asks them (``ground.v2`` on excerpts) and as the offline scorer's live
    kind asks them (the frozen text), each with the judge artifact of its rubric set."""
    from lemmata.benchmarks.re2math.agent import live
    from lemmata.benchmarks.re2math.judging import ground_question, judge_artifact_for
    from lemmata.oracles.judge import JudgeArtifact

    class Opened:
        text = source
        record = type("Record", (), {"title": "A paper"})()

    return {
        "live": (lambda s: live.ground_question(row, "src-1", "A paper", source, s)[0],
                 lambda judge, folder: JudgeArtifact(folder, benchmark="re2math", judge_id=judge.judge_id,
                                                     rubrics=live.live_rubrics())),
        "offline scorer, live kind": (lambda s: ground_question(row, "src-1", Opened(), s),
                                      lambda judge, folder: judge_artifact_for(judge, folder)),
    }


@pytest.fixture(scope="module")
def row(re2math_release):
    from lemmata.release.load import open_release

    return next(iter(open_release(re2math_release).rows("eval200", "test")))


def test_ground_is_settled_no_for_a_statement_that_addresses_the_judge(row, tmp_path):
    from lemmata.benchmarks.re2math.judging import addressing_flags, resolve, verdict

    source = "[Theorem 1]\nEvery bounded operator is closed.\n[/Theorem 1]"
    good = "Every bounded operator is closed."
    hostile = attacks("ground", BASE, good, "0" * 20)
    for where, (make, artifact) in _ground_makers(row, source).items():
        questions = {"base": make(BASE), "good": make(good), **{k: make(v) for k, v in hostile.items()}}
        assert all(questions[k].settled is not None for k in hostile), where
        resolve(list(questions.values()), None, None)  # without a judge: the rule settles, the rest waits
        assert verdict(questions["good"], None)[0] == "pending"
        for q in questions.values():
            q.verdict = None
        double = Follower(reads_data=True)
        with ChatServer(double) as server:
            judge = ChatJudge(server.config(model="follower-ground"))
            resolve(list(questions.values()), artifact(judge, tmp_path / where), judge)
        assert double.asked == 2, where
        assert verdict(questions["good"], None)[0] == "yes" and verdict(questions["base"], None)[0] == "no", where
        for attack in hostile:
            v, reason, by = verdict(questions[attack], None)
            assert (v, by) == ("no", "rule") and "ground.v2's rule" in reason, (where, attack)
            assert addressing_flags(questions[attack]) == {"addresses_grader": True}
        assert addressing_flags(questions["good"], questions["base"]) == {}
