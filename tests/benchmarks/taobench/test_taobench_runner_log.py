"""Runner request logs: `lemmata run taobench` → submission + log → score → consistent; then every attack refused.

A log is submitter-controlled, so each attack is first reproduced (the forged file is otherwise valid) and then
refused with the file, line and field: a dropped attempt replaced by a passing one, attempts reordered, a log
edited after hashing, a log made under another prompt, a log of n + k samples of which the passing n were kept,
and duplicate keys.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from lemmata.benchmarks.taobench.release import open_taobench
from lemmata.cli import main
from lemmata.core.errors import InputError
from lemmata.scoring import validate_upload
from lemmata.oracles.chat_double import ChatDouble

RELEASE = "taobench-150-1.1.0"


def prover(body: dict) -> str:
    """Even seeds: a proof block; odd seeds: prose (an unusable sample, submitted as the official file)."""
    name = re.search(r"Complete the proof of `([^`]+)`", body["messages"][-1]["content"]).group(1)
    if body.get("seed", 0) % 2 == 0:
        return f"Here it is:\n```lean\ntheorem {name.split('.')[-1]} : True := by\n  simp\n```\n"
    return "I think this follows by induction."


def run_taobench(releases_root, out: Path, answer, *runs: list[str]) -> None:
    """`lemmata run taobench` (two Tao exercises) against the in-process chat double answering with ``answer``, once
    per argument list in ``runs`` (each names its own --n and --out), no oracle configured, one request cache."""
    mp = pytest.MonkeyPatch()
    for var in ("LEMMATA_LEAN_URL", "LEMMATA_JUDGE_BASE_URL"):
        mp.delenv(var, raising=False)
    try:
        with ChatDouble(answer, model_id="prover-x-2026") as server:
            mp.setenv("LEMMATA_LLM_BASE_URL", server.base_url)
            for extra in runs:
                assert main(["run", "taobench", "--model", "prover-x", "--limit", "2", "--formulation", "tao",
                             "--cache", str(out / "cache.jsonl"), "--releases", str(releases_root), "--quiet",
                             *extra]) == 0
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def runs(releases_root, tmp_path_factory):
    """Two runs against the in-process endpoint: n = 2 (scored) and n = 4 (for the filtering attack)."""
    open_taobench(RELEASE, releases_root)
    out = tmp_path_factory.mktemp("runner-log")
    run_taobench(releases_root, out, prover, ["--n", "2", "--out", str(out / "n2")],
                 ["--n", "4", "--out", str(out / "n4"), "--no-score"])
    return {n: (next((out / f"n{n}").glob(f"*.n{n}.jsonl")), next((out / f"n{n}").glob("*.runner-log.jsonl")))
            for n in (2, 4)}


def lines_of(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.decode("utf-8").splitlines() if x.strip()]


def dumps(lines: list[dict]) -> bytes:
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode("utf-8")


def rebound(sub: list[dict], log: bytes) -> bytes:
    """The submission with its header's runner.log_sha256 set to ``log``'s hash (what a forger does)."""
    sub = [dict(sub[0], runner={**sub[0]["runner"], "log_sha256": hashlib.sha256(log).hexdigest()}), *sub[1:]]
    return dumps(sub)


def refused(sub: bytes, log: bytes | None) -> list:
    with pytest.raises(InputError) as exc:
        validate_upload(sub, "sub.jsonl", runner_log=log, runner_log_name="run.runner-log.jsonl")
    return exc.value.problems


def not_scored(sub: bytes, log: bytes) -> list:
    """The problems scoring finds: the upload's structure passes, its attempts are re-extracted when scored."""
    from lemmata.families import handler_for
    from lemmata.tracks.base import OracleConfig

    validated = validate_upload(sub, "sub.jsonl", runner_log=log, runner_log_name="run.runner-log.jsonl")
    with pytest.raises(InputError) as exc:
        handler_for("taobench").score(validated, received_at="2026-11-25", oracles=OracleConfig())
    return exc.value.problems


def test_run_writes_the_log_and_the_score_says_consistent(runs, tmp_path):
    sub_path, log_path = runs[2]
    sub, log = lines_of(sub_path.read_bytes()), log_path.read_bytes()
    header = sub[0]
    assert header["runner"] == {"name": "lemmata", "version": header["runner"]["version"],
                                "prompt_version": "taobench-prove.v1",
                                "log_sha256": hashlib.sha256(log).hexdigest()}
    entries = lines_of(log)
    assert entries[0]["format"] == "lemmata-runner-log/1" and entries[0]["n"] == 2
    assert [(e["item"].rpartition("@")[2], e["sample"], e["seed"]) for e in entries[1:]] == [("tao", 0, 0),
                                                                                          ("tao", 1, 1)] * 2
    assert "```lean" in entries[1]["answer"]["text"] and entries[2]["answer"]["text"].startswith("I think")
    result = json.loads(sub_path.with_suffix(".result.json").read_text("utf-8"))
    assert result["flags"]["runner_log"] == "consistent"
    assert result["provenance"]["runner_log"]["log_sha256"] == header["runner"]["log_sha256"]
    # `lemmata score --runner-log` gives the same result id
    assert main(["score", str(sub_path), "--runner-log", str(log_path), "--out", str(tmp_path / "r.json"),
                 "--no-live-judge", "--quiet"]) == 0
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["result_id"] == result["result_id"]

    # the same file without its log is refused, and a log beside a header that names none too
    assert refused(sub_path.read_bytes(), None)[0].field == "runner.log_sha256"
    plain = dict(header)
    del plain["runner"]
    assert refused(dumps([plain, *sub[1:]]), log)[0].field == "runner"
    flagged = dict(header, flags={**header["flags"], "filtered_attempts": True})
    assert [p.field for p in refused(dumps([flagged, *sub[1:]]), log)] == ["header.flags.filtered_attempts"]
    # ... while that header alone is a self-reported entry, scored with no runner_log flag
    assert validate_upload(dumps([plain, *sub[1:]]), "sub.jsonl").runner_log is None

    from lemmata.space.conditions import badges

    assert "runner log" in [b for b, _ in badges(result["flags"])]
    assert "runner log" not in [b for b, _ in badges({**result["flags"], "runner_log": True})]


def test_a_dropped_attempt_replaced_by_a_passing_one_is_refused(runs):
    sub_path, log_path = runs[2]
    sub, log = lines_of(sub_path.read_bytes()), log_path.read_bytes()
    forged = [sub[0]] + [dict(r, attempts=[r["attempts"][0], r["attempts"][0]]) for r in sub[1:]]
    validate_upload(dumps([{k: v for k, v in forged[0].items() if k != "runner"}, *forged[1:]]), "f.jsonl")
    problems = not_scored(dumps(forged), log)
    assert {(p.file, p.line, p.field) for p in problems} == {("sub.jsonl", 2, "attempts.1"),
                                                             ("sub.jsonl", 3, "attempts.1")}
    assert "not the Lean file the runner extracts" in problems[0].reason


def test_reordered_attempts_are_refused(runs):
    sub_path, log_path = runs[2]
    sub, log = lines_of(sub_path.read_bytes()), log_path.read_bytes()
    forged = [sub[0], dict(sub[1], attempts=sub[1]["attempts"][::-1]), *sub[2:]]
    assert {(p.line, p.field) for p in not_scored(dumps(forged), log)} == {(2, "attempts.0"), (2, "attempts.1")}


def test_a_log_edited_after_hashing_is_refused(runs):
    sub_path, log_path = runs[2]
    entries = lines_of(log_path.read_bytes())
    entries[2]["answer"]["text"] = entries[1]["answer"]["text"]  # make the failed sample a proof
    (problem,) = refused(sub_path.read_bytes(), dumps(entries))
    assert problem.file == "run.runner-log.jsonl" and problem.field == "runner.log_sha256"
    assert "edited after the run hashed it" in problem.reason


def test_a_log_made_under_another_prompt_is_refused(runs):
    from lemmata.oracles.chat_runner import Sampling, request_key

    sub_path, log_path = runs[2]
    sub, entries = lines_of(sub_path.read_bytes()), lines_of(log_path.read_bytes())
    # a consistent log of a run whose prompt carried a hint: its own keys agree, its messages are not the release's
    for e in entries[1:]:
        e["messages_sha256"] = hashlib.sha256(e["messages_sha256"].encode() + b" + a hint").hexdigest()
        e["key"] = request_key(e["model"], e["messages_sha256"], Sampling(**e["sampling"]), e["sample"])
    log = dumps(entries)
    problems = refused(rebound(sub, log), log)
    assert {(p.line, p.field) for p in problems} == {(n, "messages_sha256") for n in (2, 3, 4, 5)}
    # a log that names a prompt version the scorer cannot recompute
    entries[0]["prompt_version"] = "taobench-prove.v2"
    log = dumps(entries)
    header = dict(sub[0], runner={**sub[0]["runner"], "prompt_version": "taobench-prove.v2"},
                  model={**sub[0]["model"], "prompt_version": "taobench-prove.v2"})
    problems = refused(rebound([header, *sub[1:]], log), log)
    assert [(p.line, p.field) for p in problems] == [(1, "prompt_version")]
    assert "recomputes the prompts of taobench-prove-without-context.v1, taobench-prove.v1 only" in problems[0].reason


def test_n_plus_k_samples_with_only_the_passing_n_kept_are_refused(runs):
    sub_path, log_path = runs[4]
    sub, entries = lines_of(sub_path.read_bytes()), lines_of(log_path.read_bytes())
    header = dict(sub[0], n=2, model={**sub[0]["model"], "sampling": {**sub[0]["model"]["sampling"], "n": 2}})
    kept = [header] + [dict(r, attempts=[r["attempts"][0], r["attempts"][2]]) for r in sub[1:]]  # samples 0, 2 pass
    # the whole log of four samples: its header says n = 4, and samples 2 and 3 were never submitted
    log = log_path.read_bytes()
    problems = refused(rebound(kept, log), log)
    assert (1, "n") in {(p.line, p.field) for p in problems}
    assert {p.line for p in problems if p.field == "sample"} == {4, 5, 8, 9}
    # only the kept answers, renumbered 0 and 1, the log's n edited: keys and seeds give them away
    trimmed = [dict(entries[0], n=2)]
    for e in entries[1:]:
        if e["sample"] in (0, 2):
            trimmed.append(dict(e, sample=e["sample"] // 2))
    log = dumps(trimmed)
    problems = refused(rebound(kept, log), log)
    assert {(p.line, p.field) for p in problems} == {(3, "seed"), (3, "key"), (5, "seed"), (5, "key")}


def test_duplicate_keys_in_a_log_are_refused(runs):
    sub_path, log_path = runs[2]
    text = log_path.read_bytes().decode("utf-8").splitlines()
    text[2] = text[2][:-1] + ', "answer": {"text": "```lean\\nby simp\\n```"}}'
    log = ("\n".join(text) + "\n").encode("utf-8")
    sub = lines_of(sub_path.read_bytes())
    problem, *rest = refused(rebound(sub, log), log)
    assert (problem.file, problem.line, problem.field) == ("run.runner-log.jsonl", 3, "answer")
    assert "duplicate key 'answer'" in problem.reason
    assert [(p.field, p.reason.split(":")[0]) for p in rest] == [("entries", f"no answer to sample 1 of {sub[1]['fqn']}@tao")]


def test_the_space_stores_the_log_beside_the_upload_and_scores_it_consistent(runs, releases_root, tmp_path,
                                                                              monkeypatch):
    from lemmata.space.config import SpaceConfig
    from lemmata.space.submit import SubmissionForm, submit_upload
    from lemmata.space.worker import ScoringWorker
    from lemmata.store import RateLimit, Store, SubmissionIntegrityError

    monkeypatch.setenv("LEMMATA_RELEASES", str(releases_root))
    for var in ("LEMMATA_LEAN_URL", "LEMMATA_LEAN_ARTIFACT"):
        monkeypatch.delenv(var, raising=False)
    sub_path, log_path = runs[2]
    data, log = sub_path.read_bytes(), log_path.read_bytes()
    config = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, rate_limit=RateLimit(5, 3600))
    store = Store(config.store_root)
    form = SubmissionForm(submitter="Ada")
    missing = submit_upload(store, config, data, sub_path.name, form)
    assert missing.kind == "invalid" and missing.problems[0].field == "runner.log_sha256"
    edited = log.replace(b"I think", b"We know", 1)
    bad = submit_upload(store, config, data, sub_path.name, form, runner_log=edited, runner_log_name=log_path.name)
    assert bad.kind == "invalid" and (bad.problems[0].file, bad.problems[0].field) == (log_path.name,
                                                                                       "runner.log_sha256")
    assert not list(store.submissions_dir.glob("*")) if store.submissions_dir.is_dir() else True
    ok = submit_upload(store, config, data, sub_path.name, form, runner_log=log, runner_log_name=log_path.name)
    assert ok.kind == "created" and "runner request log" in ok.message
    log_sha = hashlib.sha256(log).hexdigest()
    assert store.runner_log_bytes(log_sha) == log
    assert ScoringWorker(store).run_once() is True
    (result,) = store.results(benchmark="taobench")
    assert result.flags["runner_log"] == "consistent"
    assert store.verify_files() == []
    # `lemmata score FILE` finds the log the run wrote beside the file (no --runner-log) and agrees with the space
    assert main(["score", str(sub_path), "--out", str(tmp_path / "cli.json"), "--no-live-judge", "--quiet",
                 "--received-at", store.get_submission(ok.record.sha256).received_at]) == 0
    cli = json.loads((tmp_path / "cli.json").read_text("utf-8"))
    assert cli["flags"]["runner_log"] == "consistent" and cli["result_id"] == result.result_id
    # attempts that do not match the log pass the upload's structural check and fail when scored, with the line
    lines = lines_of(data)
    swapped = dumps([lines[0], dict(lines[1], attempts=lines[1]["attempts"][::-1]), *lines[2:]])
    created = submit_upload(store, config, swapped, "swapped.jsonl", form, runner_log=log,
                            runner_log_name=log_path.name)
    assert created.kind == "created"
    assert ScoringWorker(store).run_once() is True
    failed = store.get_submission(created.record.sha256)
    assert failed.status == "failed" and "swapped.jsonl, line 2, field 'attempts.0'" in failed.status_reason
    from lemmata.space.audit import SubmissionCache, item_ids, render_audit

    item = item_ids(result)[0]
    assert ":= by\n  simp" in render_audit(store, SubmissionCache(store), result.result_id, item)
    # a stored log edited afterwards is an integrity error wherever it is read
    store.runner_log_path(log_sha).write_bytes(edited)
    with pytest.raises(SubmissionIntegrityError):
        store.runner_log_for(data)
    assert [p.field for p in store.verify_files()] == ["sha256"]
    shown = render_audit(store, SubmissionCache(store), result.result_id, item)
    assert "Integrity error" in shown and ":= by\n  simp" not in shown


def test_a_hostile_log_costs_what_was_read_not_its_size(runs):
    from lemmata.formats.runner_log import STOP_AFTER, read_log

    sub_path, log_path = runs[2]
    entries = lines_of(log_path.read_bytes())
    junk = [entries[0]] + [dict(entries[1], item=f"X.y{i}@tao") for i in range(5 * STOP_AFTER)]
    log = dumps(junk)
    with pytest.raises(InputError) as exc:
        validate_upload(rebound(lines_of(sub_path.read_bytes()), log), "sub.jsonl", runner_log=log)
    assert len(exc.value.problems) <= STOP_AFTER + 1 and exc.value.problems[0].field == "item"
    assert "were not checked" in exc.value.skipped[0].reason
    with pytest.raises(InputError, match="the limit is 100"):
        read_log(log, "log.jsonl", max_bytes=100)


def helper_prover(body: dict) -> str:
    """A proof that states a helper lemma of its own first, then uses it."""
    name = re.search(r"Complete the proof of `([^`]+)`", body["messages"][-1]["content"]).group(1)
    return (f"A helper first.\n```lean\n/-- my own -/\ntheorem my_aux_fact : True := trivial\n\n"
            f"theorem {name.split('.')[-1]} : True := by\n  exact my_aux_fact\n```\n")


def test_helpers_are_submitted_and_logs_of_runs_that_dropped_them_still_check(releases_root, tmp_path, monkeypatch):
    from lemmata.benchmarks.taobench.sampler import attempt_from, split_item
    from lemmata.formats.runner_log import LogEntry

    open_taobench(RELEASE, releases_root)
    for var in ("LEMMATA_LEAN_URL", "LEMMATA_JUDGE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with ChatDouble(helper_prover, model_id="prover-h") as server:
        monkeypatch.setenv("LEMMATA_LLM_BASE_URL", server.base_url)
        assert main(["run", "taobench", "--model", "prover-h", "--n", "1", "--limit", "1", "--formulation", "tao",
                     "--out", str(tmp_path), "--cache", str(tmp_path / "cache.jsonl"), "--releases",
                     str(releases_root), "--quiet", "--no-score"]) == 0
    sub_path, log_path = next(tmp_path.glob("*.n1.jsonl")), next(tmp_path.glob("*.runner-log.jsonl"))
    sub, log = lines_of(sub_path.read_bytes()), log_path.read_bytes()
    [attempt] = sub[1]["attempts"]
    assert "/-- my own -/\ntheorem my_aux_fact : True := trivial\n\n" in attempt
    validate_upload(sub_path.read_bytes(), "sub.jsonl", runner_log=log, runner_log_name="run.runner-log.jsonl")
    # the attempt a run made before helpers were carried over (the same answer, extracted without them) checks too
    release = open_taobench(RELEASE, releases_root, build=False)
    entry = LogEntry.model_validate(lines_of(log)[1])
    legacy, _ = attempt_from(entry.answer, release.exercise(*split_item(entry.item)), helpers=False)
    assert "my_aux_fact : True" not in legacy
    from lemmata.families import handler_for
    from lemmata.tracks.base import OracleConfig

    validated = validate_upload(dumps([sub[0], dict(sub[1], attempts=[legacy])]), "sub.jsonl", runner_log=log,
                                runner_log_name="run.runner-log.jsonl")
    handler_for("taobench").score(validated, received_at="2026-11-25", oracles=OracleConfig())
    # ... while a helper the answer never held is refused
    forged = attempt.replace("my_aux_fact : True := trivial", "my_aux_fact : True := by trivial")
    problems = not_scored(dumps([sub[0], dict(sub[1], attempts=[forged])]), log)
    assert [(p.line, p.field) for p in problems] == [(2, "attempts.0")]
