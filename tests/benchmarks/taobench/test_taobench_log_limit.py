"""The runner never writes a request log its scorer refuses: one limit (``MAX_LOG_BYTES``), read by both.

With the limit patched small, a run whose answers would pass it drops the longest completion as a ``log-limit``
abstention (its attempt is the official file), writes a log within the limit, and that log scores *consistent*;
the log the run would otherwise have written is refused by the scorer under the same limit. A run whose log could
not fit even without completion text, or that asks for more answers than a log holds, ends in one clear error
before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from lemmata.benchmarks.taobench.release import open_taobench
from lemmata.cli import main
from lemmata.core.errors import InputError
from lemmata.formats import runner_log
from lemmata.formats.runner_log import LOG_LIMIT, LogEntry, LogHeader, log_bytes, read_log
from lemmata.oracles.chat_double import ChatDouble
from lemmata.scoring import validate_upload

RELEASE = "taobench-150-1.1.0"
PAD = 30_000  # bytes of comment in an even-seed reply: two of them pass the patched limit, one does not
LIMIT = 45_000


def prover(body: dict) -> str:
    """Even seeds: a proof with a long comment; odd seeds: a short proof."""
    name = re.search(r"Complete the proof of `([^`]+)`", body["messages"][-1]["content"]).group(1).split(".")[-1]
    pad = f"-- {'x' * PAD}\n" if body.get("seed", 0) % 2 == 0 else ""
    return f"```lean\ntheorem {name} : True := by\n  {pad}simp\n```\n"


def run(tmp_path, releases_root, monkeypatch, *extra: str) -> tuple[int, ChatDouble]:
    open_taobench(RELEASE, releases_root)
    for var in ("LEMMATA_LEAN_URL", "LEMMATA_JUDGE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with ChatDouble(prover, model_id="prover-x") as server:
        monkeypatch.setenv("LEMMATA_LLM_BASE_URL", server.base_url)
        code = main(["run", "taobench", "--model", "prover-x", "--n", "2", "--limit", "2", "--formulation", "tao",
                     "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache.jsonl"),
                     "--releases", str(releases_root), "--quiet", *extra])
    return code, server


def test_the_longest_completion_becomes_an_abstention_and_the_log_scores(tmp_path, releases_root, monkeypatch):
    monkeypatch.setattr(runner_log, "MAX_LOG_BYTES", LIMIT)
    code, _ = run(tmp_path, releases_root, monkeypatch)
    assert code == 0
    log_path = next((tmp_path / "out").glob("*.runner-log.jsonl"))
    sub_path = next((tmp_path / "out").glob("*.n2.jsonl"))
    data = log_path.read_bytes()
    assert len(data) <= LIMIT
    header, entries = read_log(data, log_path.name)
    dropped = [e for _, e in entries if e.answer.abstention is not None]
    assert len(dropped) == 1 and dropped[0].answer.abstention.startswith(f"{LOG_LIMIT}: the completion's ")
    assert dropped[0].sample == 0 and dropped[0].answer.finish_reason == "stop"  # the answer's other fields stay
    kept = [e for _, e in entries if e.answer.text is not None]
    assert len(kept) == 3 and sum(len(e.answer.text) > PAD for e in kept) == 1
    # the dropped answer's attempt is the official file, as for any abstention; the run's own scoring passed
    records = [json.loads(x) for x in sub_path.read_text("utf-8").splitlines()[1:]]
    item = dropped[0].item.rpartition("@")[0]
    attempt = next(r for r in records if r["fqn"] == item)["attempts"][0]
    assert f"no proof extracted ({LOG_LIMIT}:" in attempt
    result = json.loads(sub_path.with_suffix(".result.json").read_text("utf-8"))
    assert result["flags"]["runner_log"] == "consistent"
    run_meta = json.loads(sub_path.with_suffix(".run.json").read_text("utf-8"))
    assert run_meta["unusable_samples"] == {LOG_LIMIT: 1}

    # the log the run would have written without dropping passes the same limit, and the scorer refuses it
    whole = [LogEntry.model_validate(dict(e.model_dump(), answer={**e.answer.model_dump(), "abstention": None,
                                                                 "text": "x" * PAD})) if e in dropped else e
             for _, e in entries]
    unfit = log_bytes(LogHeader.model_validate(header.model_dump()), whole)
    assert len(unfit) > LIMIT
    lines = sub_path.read_text("utf-8").splitlines()
    head = json.loads(lines[0])
    head["runner"]["log_sha256"] = hashlib.sha256(unfit).hexdigest()  # the submission naming that log
    rebound = "\n".join([json.dumps(head), *lines[1:]]).encode("utf-8") + b"\n"
    with pytest.raises(InputError) as exc:
        validate_upload(rebound, sub_path.name, runner_log=unfit, runner_log_name=log_path.name)
    assert f"the limit is {LIMIT:,}" in str(exc.value)


def test_a_log_that_cannot_fit_ends_the_run_before_writing(tmp_path, releases_root, monkeypatch, capsys):
    monkeypatch.setattr(runner_log, "MAX_LOG_BYTES", 2_000)  # not even the header and four abstentions
    code, server = run(tmp_path, releases_root, monkeypatch, "--no-score")
    err = capsys.readouterr().err
    assert code == 1 and "even without any completion text; the scorer reads at most 2,000" in err
    assert "Traceback" not in err and len(server.requests) == 4
    assert not list((tmp_path / "out").glob("*.jsonl"))  # neither a log nor a submission naming one


def test_more_answers_than_a_log_holds_is_refused_before_a_request(tmp_path, releases_root, monkeypatch, capsys):
    monkeypatch.setattr(runner_log, "MAX_LOG_LINES", 4)  # a header and 4 answers are 5 lines
    code, server = run(tmp_path, releases_root, monkeypatch, "--no-score")
    err = capsys.readouterr().err
    assert code == 2 and "4 answers and a header make 5 log lines; the scorer reads at most 4" in err
    assert server.requests == []
