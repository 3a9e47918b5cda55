"""`lemmata run taobench` against an in-process chat endpoint and the Kimina double: sample, submit, score, judge."""

from __future__ import annotations

import json
import re

import pytest

from lemmata.benchmarks.taobench.release import open_taobench
from lemmata.benchmarks.taobench.sampler import extract_proof, last_code_block
from lemmata.cli import main
from lemmata.oracles.chat_double import ChatDouble, Reply

RELEASE = "taobench-150-1.1.0"


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb-releases")
    open_taobench(RELEASE, root)
    return root


def prover(body: dict) -> str | Reply:
    """Seed 0: a proof block; seed 1: a refusal, a truncated reply or prose, by exercise."""
    prompt = body["messages"][-1]["content"]
    name = re.search(r"Complete the proof of `([^`]+)`", prompt).group(1)
    if body.get("seed", 0) % 2 == 0:
        return f"Here it is:\n```lean\ntheorem {name.split('.')[-1]} : True := by\n  simp\n```\n"
    kind = len(name) % 3
    if kind == 0:
        return Reply(content=None, refusal="no")
    if kind == 1:
        return Reply(content="```lean\nby\n  induc", finish_reason="length")
    return "I think this follows by induction."


def _run(releases, out, cache, *extra):
    return main(["run", "taobench", "--model", "prover-x", "--n", "2", "--limit", "3", "--out", str(out),
                 "--cache", str(cache), "--releases", str(releases), "--quiet", *extra])


def test_extraction_forms(releases):
    ex = open_taobench(RELEASE, releases, build=False)
    fqn = ex.fqns()[0]
    e = ex.exercise(fqn, "tao")
    short = e.decl_name.split(".")[-1]
    full, _ = extract_proof(f"```lean\ntheorem {short} {{n:Nat}} : n = n := by\n  rfl\n```", e)
    bare, _ = extract_proof("```lean4\nby\n  rfl\n```", e)
    assert full == bare == e.complete(":= by\n  rfl")
    assert extract_proof("no code", e) == (None, "no Lean code block in the reply")
    whole = e.file.source.replace("sorry", "rfl")
    assert extract_proof(f"```lean\n{whole}```", e) == (whole, None)
    assert extract_proof("```lean\nexample : True := trivial\n```", e)[0] is None
    assert last_code_block("```python\nx\n```") is None


def test_run_scores_resumes_byte_identically_and_judge_fills_pending(releases, tmp_path, monkeypatch):
    from lemmata.cli.judge import fill_pending
    from lemmata.oracles.kimina_double import KiminaDouble
    from lemmata.oracles.lean import LeanConfig, LeanVerifier
    from lemmata.store import Store
    from lemmata.tracks.base import OracleConfig

    for var in ("LEMMATA_LEAN_URL", "LEMMATA_JUDGE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with ChatDouble(prover, model_id="prover-x-2026") as server:
        monkeypatch.setenv("LEMMATA_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LEMMATA_LLM_MAX_RETRIES", "0")
        assert _run(releases, tmp_path / "a", tmp_path / "a.cache", "--store", str(tmp_path / "store")) == 0
        sub_a = next((tmp_path / "a").glob("*.n2.jsonl"))
        lines = [json.loads(x) for x in sub_a.read_text("utf-8").splitlines()]
        header, records = lines[0], lines[1:]
        assert header["n"] == 2 and header["sampling"]["seed"] == 0 and header["sampling"]["temperature"] == 1.0
        assert header["model"]["endpoint_model"] == "prover-x-2026"
        assert header["model"]["prompt_version"] == "taobench-prove.v1"
        assert len(records) == 6 and all(len(r["attempts"]) == 2 for r in records)
        assert all(":= by\n  simp" in r["attempts"][0] and "no proof extracted" not in r["attempts"][0]
                   for r in records)  # seed 0: the proofs spliced into the official files
        assert all("-- lemmata: no proof extracted" in r["attempts"][1] for r in records)  # seed 1 unusable
        result = json.loads(sub_a.with_suffix(".result.json").read_text("utf-8"))
        assert result["status"] == "pending_oracle" and result["pending"] > 0
        meta = json.loads(sub_a.with_suffix(".run.json").read_text("utf-8"))
        assert meta["requests"]["requests_sent"] == 12 and meta["proofs_extracted"] == 6

        # an interrupted run, resumed, writes the same bytes
        from lemmata.oracles import chat_runner

        original = chat_runner.ChatRunner.run

        def interrupted(self, jobs, **kw):
            count, handle = [], kw["on_answer"]

            def stop(job, c):
                handle(job, c)
                count.append(job)
                if len(count) == 5:
                    raise KeyboardInterrupt

            return original(self, jobs, **{**kw, "on_answer": stop})

        monkeypatch.setattr(chat_runner.ChatRunner, "run", interrupted)
        assert _run(releases, tmp_path / "b", tmp_path / "b.cache", "--no-score") == 130  # stopped, resumable
        assert not list((tmp_path / "b").glob("*.n2.jsonl"))
        monkeypatch.setattr(chat_runner.ChatRunner, "run", original)
        # requests already on the wire when the run stopped still reach the server: count from when they have
        import threading
        import time

        deadline = time.monotonic() + 30
        while any(t.name.startswith("lemmata-chat") for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.05)
        sent = len(server.requests)
        assert _run(releases, tmp_path / "b", tmp_path / "b.cache", "--no-score") == 0
        assert len(server.requests) - sent <= 12 - 5
        assert next((tmp_path / "b").glob("*.n2.jsonl")).read_bytes() == sub_a.read_bytes()

    # judge: the pending result becomes a complete new version; the old one stays as it was
    store = Store(tmp_path / "store")
    from lemmata.scoring import score_file

    (first,) = store.results(benchmark="taobench")  # stored by `lemmata run --store`
    assert first.status == "pending_oracle" and first.version == 1 and first.result_id == result["result_id"]
    old_bytes = store.result_path(first).read_bytes()
    with KiminaDouble() as lean:
        verifier = LeanVerifier(LeanConfig(url=lean.url, mathlib_version="v4.23.0", backoff_s=0))
        lines = fill_pending(store, OracleConfig(lean=verifier, extra={
            "allow_double": True, "lean_artifact": str(tmp_path / "lean-artifact")}))
    assert len(lines) == 1 and "version 2" in lines[0] and "0 item(s) pending" in lines[0]
    (latest,) = store.results(benchmark="taobench")
    assert latest.version == 2 and latest.supersedes == first.result_id and latest.status == "complete"
    assert store.result_path(first).read_bytes() == old_bytes
    assert store.get_submission(first.submission_sha256).status == "scored"

    # the space's worker does the same once an oracle is configured, and leaves pending work alone without one
    from lemmata.space.worker import ScoringWorker

    other = Store(tmp_path / "store2")
    v1 = score_file(sub_a, other, runner_log=sub_a.with_name(sub_a.name.replace(".jsonl", ".runner-log.jsonl")))
    idle = ScoringWorker(other)
    assert idle.run_once() is False and other.get_submission(v1.submission_sha256).status == "pending_oracle"
    with KiminaDouble() as lean:
        verifier = LeanVerifier(LeanConfig(url=lean.url, mathlib_version="v4.23.0", backoff_s=0))
        worker = ScoringWorker(other, oracles=lambda: OracleConfig(lean=verifier, extra={
            "allow_double": True, "lean_artifact": str(tmp_path / "lean-artifact")}))
        assert worker.run_once() is True and worker.run_once() is True  # queued again, then scored
        assert worker.run_once() is False  # nothing left, and no second revisit before the interval
    (latest,) = other.results(benchmark="taobench")
    assert latest.version == 2 and latest.supersedes == v1.result_id


def test_the_without_context_condition_hides_the_local_definitions_and_ranks_apart(releases, tmp_path, monkeypatch):
    """The paper's ablation: the model sees the exercise's statement alone; the attempt is still the official file
    (its local definitions included), the result carries the condition, its own board group, and a log made under
    another prompt than the condition's is refused."""
    from lemmata.benchmarks.taobench.submission import parse_submission
    from lemmata.core.errors import InputError
    from lemmata.formats.envelope import parse_envelope
    from lemmata.scoring import score_file
    from lemmata.space.conditions import badges, comparability_suffix
    from lemmata.store import Store

    seen: list[str] = []

    def statement_prover(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        seen.append(prompt)
        name = re.search(r"Prove `([^`]+)`", prompt).group(1)
        return f"```lean\ntheorem {name.split('.')[-1]} : True := by\n  simp\n```\n"

    monkeypatch.delenv("LEMMATA_LEAN_URL", raising=False)
    with ChatDouble(statement_prover, model_id="prover-x") as server:
        monkeypatch.setenv("LEMMATA_LLM_BASE_URL", server.base_url)
        assert main(["run", "taobench", "--model", "prover-x", "--n", "1", "--limit", "2", "--out", str(tmp_path),
                     "--releases", str(releases), "--quiet", "--no-score", "--condition", "without-context"]) == 0
        assert main(["run", "taobench", "--model", "prover-x", "--out", str(tmp_path), "--releases", str(releases),
                     "--quiet", "--condition", "without-context", "--formulation", "mathlib"]) == 2
    release = open_taobench(RELEASE, releases, build=False)
    first = release.fqns()[0]  # Chapter2.Nat.backwards_induction: its file defines Nat, recurse, add, two instances
    assert len(seen) == 2 and release.local_definitions(first) == 5
    (prompt,) = [p for p in seen if f"Prove `{first}`" in p]
    assert release.item(first, "tao").statement in prompt
    for definition in ("inductive Nat", "abbrev recurse", "abbrev add", "instance instAdd", "instance instLE"):
        assert definition in release.item(first, "tao").lean and definition not in prompt
    sub = next(tmp_path.glob("*.n1.without-context.jsonl"))
    lines = [json.loads(x) for x in sub.read_text("utf-8").splitlines()]
    header, records = lines[0], lines[1:]
    assert header["condition"] == "without-context" and header["formulations"] == ["tao"]
    assert header["runner"]["prompt_version"] == header["model"]["prompt_version"] \
        == "taobench-prove-without-context.v1"
    assert [r["formulation"] for r in records] == ["tao", "tao"]
    assert "inductive Nat" in records[0]["attempts"][0] and ":= by\n  simp" in records[0]["attempts"][0]

    log = sub.with_name(sub.name.replace(".jsonl", ".runner-log.jsonl"))
    result = score_file(sub, Store(tmp_path / "store"), runner_log=log)
    assert result.flags["condition"] == "without-context" and result.flags["runner_log"] == "consistent"
    assert "no local context" in [badge for badge, _ in badges(result.flags)]
    assert comparability_suffix(result.flags) == "with no local context"
    assert comparability_suffix({k: v for k, v in result.flags.items() if k != "condition"}) == ""

    # the same file declaring the paper's protocol is refused: its log was made under the condition's prompt
    plain = tmp_path / "plain.jsonl"
    plain.write_text("\n".join(json.dumps(x) for x in [{k: v for k, v in header.items() if k != "condition"},
                                                      *records]) + "\n", "utf-8")
    with pytest.raises(InputError, match="condition .*taobench-prove.v1"):
        score_file(plain, Store(tmp_path / "store2"), runner_log=log)
    # and a header declaring the condition for the Mathlib twin is refused with its field
    both = json.dumps({**header, "formulations": ["tao", "mathlib"]}) + "\n" + json.dumps(records[0]) + "\n"
    with pytest.raises(InputError, match="formulations must be \\['tao'\\]"):
        parse_submission(parse_envelope(both.encode(), "both.jsonl"))
