"""`lemmata run re2math` against an in-process chat endpoint on the offline world; `lemmata judge` completes it."""

from __future__ import annotations

import json
import re

import pytest

from lemmata.cli import main
from lemmata.oracles.chat_double import ChatDouble, Reply


def agent(body: dict) -> str | Reply:
    """E3: a query from the target theorem for a quarter of the instances, else a refusal, a malformed body or prose;
    E4: the first listed result (or prose), then the opened text's first sentence (or a truncated reply)."""
    text = body["messages"][-1]["content"]
    target = re.search(r"### TARGET THEOREM\n(.*?)\n\n###", text, re.S).group(1)
    n = len(target)
    if "## E3" in text:
        if n % 4 == 1:
            return Reply(content=None, refusal="I won't.")
        if n % 4 == 2:
            return Reply(raw=b'{"choices": [{"message": {"content": "x"}')
        if n % 4 == 3:
            return "Let me think about which result is needed here."
        return json.dumps({"query": " ".join(target.split()[:12]), "anchor": "apply the cited result"})
    if "### SEARCH RESULTS" in text:
        first = re.search(r"^\[([^\]]+)\]", text.split("### SEARCH RESULTS", 1)[1], re.M)
        return '{"source": "%s"}' % first.group(1) if n % 3 else "the second one, I think"
    excerpt = text.split("### SOURCE TEXT", 1)[1].split("\n", 2)[2]
    sentence = re.split(r"(?<=[.!?])\s", " ".join(excerpt.split()))[0]
    return json.dumps({"statement": sentence}) if n % 5 else Reply(content='{"statement": "Every', finish_reason="length")


@pytest.fixture
def world_home(tmp_path, monkeypatch, re2math_release, scholar_artifacts):
    home = tmp_path / "home"
    home.mkdir()
    (home / "artifacts").symlink_to(scholar_artifacts, target_is_directory=True)
    monkeypatch.setenv("LEMMATA_HOME", str(home))
    monkeypatch.setenv("LEMMATA_RELEASES", str(re2math_release.parent))
    for var in ("LEMMATA_JUDGE_BASE_URL", "LEMMATA_JUDGE_MODEL", "LEMMATA_LEAN_URL", "LEMMATA_JUDGE_ARTIFACT"):
        monkeypatch.delenv(var, raising=False)
    return home


def test_run_re2math_scores_pending_then_judge_completes_a_new_version(world_home, tmp_path, monkeypatch):
    from lemmata.cli.judge import fill_pending
    from lemmata.oracles.chat import ChatConfig, ChatJudge
    from lemmata.tracks.runner import score_file
    from lemmata.store import Store
    from lemmata.tracks.base import OracleConfig

    with ChatDouble(agent, model_id="agent-x-0125") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("LEMMATA_LLM_MAX_RETRIES", "1")
        monkeypatch.setenv("LEMMATA_LLM_CONCURRENCY", "8")
        code = main(["run", "re2math", "--model", "agent-x", "--out", str(tmp_path / "out"), "--cache",
                     str(tmp_path / "cache.jsonl"), "--window", "3", "--track", "raw", "--quiet", "--no-score"])
        assert code == 0
        sub = next((tmp_path / "out").glob("*.jsonl"))
        first_bytes = sub.read_bytes()
        sent = len(server.requests)
        assert main(["run", "re2math", "--model", "agent-x", "--out", str(tmp_path / "out"), "--cache",
                     str(tmp_path / "cache.jsonl"), "--window", "3", "--quiet", "--no-score"]) == 0
        resent = len(server.requests) - sent
    lines = [json.loads(x) for x in first_bytes.decode("utf-8").splitlines()]
    header, records = lines[0], lines[1:]
    assert header["retrieval_artifact"] == "re2math-scholar-offline-2.0.0" and header["window"] == 3
    assert (header["max_queries"], header["max_opens"]) == (1, 1)
    assert header["model"]["endpoint_model"] == "agent-x-0125"
    assert header["model"]["prompt_version"] == "re2math-e3.v1+e4.v1"
    assert len(records) == 200 and all(len(r["queries"]) <= 1 and len(r["opened"]) <= 1 for r in records)
    assert any(r["statement"] for r in records) and any(not r["queries"] for r in records)
    assert all(r["selected_source"] in (r["opened"] or [None]) for r in records)
    meta = json.loads(sub.with_suffix(".run.json").read_text("utf-8"))
    reasons = meta["abstentions"]
    assert {"e3: refused", "e3: unavailable", "e3: no query in the reply", "e4-choose: no listed source chosen"} \
        <= set(reasons) and reasons.get("e4-extract: truncated", 0) + reasons.get("e4-extract: no statement", 0) >= 1
    assert meta["abstention_reasons"] and all(v.startswith("e") for v in meta["abstention_reasons"].values())
    # malformed bodies are retried, never cached: the rerun asks again for them only
    assert resent == reasons["e3: unavailable"] * 2
    assert sub.read_bytes() == first_bytes

    store = Store(tmp_path / "store")
    v1 = score_file(sub, store)
    assert v1.status == "pending_oracle" and v1.pending > 0
    v1_bytes = store.result_path(v1).read_bytes()
    # what the board's "≥ a and ≤ b / n pending" needs: each item's own status, a final "no" never pending
    statuses = [item["tool_acc"] for item in v1.items]
    assert set(statuses) <= {"yes", "no", "pending"} and 0 < statuses.count("pending") <= v1.pending
    assert statuses.count("yes") == (v1.main.count or 0)
    from test_judge import ChatServer, rule_answer  # the judge protocol double

    with ChatServer(rule_answer) as judge_server:
        judge = ChatJudge(ChatConfig(base_url=judge_server.base_url, model="judge-m", api_key="sk-test-0123",
                                     backoff_s=0))
        (line,) = fill_pending(store, OracleConfig(judge=judge, extra={"judge_artifact": str(tmp_path / "judge")}))
    assert "version 2" in line and "status scored" in line
    latest = store.results(benchmark="re2math")[0]
    assert latest.version == 2 and latest.supersedes == v1.result_id and latest.pending == 0
    assert store.result_path(v1).read_bytes() == v1_bytes
