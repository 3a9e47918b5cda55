"""`lemmata run ma-align` against an in-process chat endpoint, on the fixture release: predictions that score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.cli import main
from lemmata.oracles.chat_double import ChatDouble, Reply

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub" / "MathAtlas"


@pytest.fixture(scope="module", autouse=True)
def served_release():
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder
    from lemmata.core.paths import releases_dir

    if not (releases_dir() / "ma-align-2.0.0").is_dir():
        MaAlignBuilder(source_dir=FIXTURES).build(releases_dir(), quiet=True)


def test_run_ma_align_writes_predictions_and_abstentions_that_score(tmp_path, monkeypatch):
    seen: list[str] = []

    def judge(body: dict) -> str | Reply:
        text = body["messages"][-1]["content"]
        seen.append(text)
        if len(seen) == 1:
            return Reply(content=None, refusal="no")
        return '{"faithful": %s, "reason": "r"}' % ("true" if len(text) % 2 else "false")

    with ChatDouble(judge, model_id="judge-7b-0101") as server:
        monkeypatch.setenv("LEMMATA_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LEMMATA_LLM_CONCURRENCY", "1")
        assert main(["run", "ma-align", "--model", "judge-7b", "--out", str(tmp_path), "--cache",
                     str(tmp_path / "c.jsonl"), "--quiet"]) == 0
    sub = next(tmp_path.glob("ma-align.*.jsonl"))
    header, *records = [json.loads(x) for x in sub.read_text("utf-8").splitlines()]
    assert header["model"]["endpoint_model"] == "judge-7b-0101" and header["model"]["prompt_version"] == "ma-align-judge.v1"
    assert [r["faithful"] for r in records].count(None) == 1 and len(records) == len(seen)
    assert all('"faithful"' not in t.split("### Reply")[0] for t in seen)  # the gold label is never shown
    result = json.loads(sub.with_suffix(".result.json").read_text("utf-8"))
    assert result["main"]["metric"] == "accuracy" and result["main"]["total"] == len(records)
    assert set(result["metrics"]["label_sets"]) == {"published", "relabel"}  # scored against both, each named
    assert json.loads(sub.with_suffix(".run.json").read_text("utf-8"))["abstentions"] == {"refused": 1}
