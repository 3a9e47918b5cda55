"""MathNet-Solve end to end: a chat model behind an in-process OpenAI-compatible server solves the fixture
release (scripted solutions, image parts accepted or refused, malformed output), a scripted grader grades,
math-verify checks answers; without a grader the result is pending and `lemmata judge` completes it as a new
version; retriever-RAG with the shipped static model lands in its own group and never shows the problem's
duplicates or equivalents."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lemmata.benchmarks.mathnet import solve_data
from lemmata.benchmarks.mathnet.solve_run import solve_submission, write_lines
from lemmata.core.errors import InputError
from lemmata.oracles.chat import ChatJudge
from lemmata.oracles.chat_double import ChatDouble, Reply
from lemmata.oracles.chat_runner import ChatRunner, Endpoint
from lemmata.scoring import validate_upload
from lemmata.tracks.base import OracleConfig
from test_judge import ChatServer

SUBSET = "lemmata_strat_70"
#: the static model the tokenlearn-static-model wheel ships, as the `lemmata evaluate` baseline spec
STATIC = "static"
#: scripted solutions by a word of the statement: right ones carry the marker the scripted grader rewards
SOLUTIONS = {
    "medians": "CORRECT. Each median is less than half the sum of the adjacent sides; add the three inequalities.",
    "1/2 + 1/4": "CORRECT. A geometric series: Final answer: \\boxed{1}",
    "frac{3}{6}": "CORRECT. Dividing by 3: Final answer: 0.5",  # math-verify: 0.5 equals \frac{1}{2}
    "diagonals": "WRONG. Each vertex has 3 diagonals, so 18. Final answer: \\boxed{18}",
    "5 elementos": "CORRECT. $2^5$. Final answer: \\boxed{32}",
    "sqrt{16}": "CORRECT. \\boxed{4}",
    "2^p - 2": "CORRECT. By Fermat's little theorem.",
}


def _statement(body: dict) -> str:
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    return text.split("### PROBLEM", 1)[1]


def solver(body: dict) -> str | Reply:
    text = _statement(body)
    for key, answer in SOLUTIONS.items():
        if key in text:
            return answer
    if "infinitely many primes" in text:
        return Reply(content="CORRECT. Euclid's argument, cut off", finish_reason="length")  # truncated
    if "ángulos" in text:
        return Reply(raw=b"<html>gateway hiccup</html>")  # malformed body: retried, then unavailable
    return "A partial idea without proof."


def refusing_images(body: dict) -> str | Reply:
    if any(isinstance(m["content"], list) for m in body["messages"]):
        return Reply(status=400, raw=b'{"error": {"message": "image input is not supported by this model"}}')
    return solver(body)


def grader_answer(request: dict) -> str:
    user = request["messages"][-1]["content"]
    candidate = user.split("### CANDIDATE SOLUTION", 1)[1]
    if "Fermat" in candidate:
        return "Score: 7"  # malformed grader output: recorded as 0 with the reply kept
    ok = "CORRECT" in candidate
    return json.dumps({"score": 7 if ok else 2, "reason": "complete" if ok else "no proof"})


def _runner(server: ChatDouble, model: str = "solver-m") -> ChatRunner:
    return ChatRunner(Endpoint(base_url=server.base_url, model=model, api_key="k", backoff_s=0, max_retries=1,
                               concurrency=4))


def _score(path: Path, judge=None, store=None):
    from lemmata.scoring import score_file

    oracles = OracleConfig(judge=judge)
    if store is not None:
        return score_file(path, store, oracles=oracles)
    validated = validate_upload(path.read_bytes(), path.name)
    from lemmata.families import handler_for

    return handler_for("mathnet-solve").score(validated, received_at="2026-11-25T10:00:00+00:00", oracles=oracles)


def test_zero_shot_run_scored_by_a_scripted_grader(solve_release, retrieve_release, tmp_path):
    release = solve_data.solve_release()
    with ChatDouble(solver, model_id="solver-m-2026") as server, _runner(server) as runner:
        lines, meta = solve_submission(release, runner, subset=SUBSET, modality="text+image", quiet=True)
        sent = list(server.requests)
    path = write_lines(tmp_path / "zero.jsonl", lines)
    header = lines[0]
    assert header["model"]["modality"] == "text+image" and header["model"]["endpoint_model"] == "solver-m-2026"
    assert header["model"]["prompt_version"].startswith("mathnet_solve.v1+")
    # figures went as image parts (data URLs), text-only problems as plain text
    with_parts = [b for b in sent if isinstance(b["messages"][-1]["content"], list)]
    assert len(with_parts) >= 3 and all(p["image_url"]["url"].startswith("data:image/png;base64,")
                                        for b in with_parts for p in b["messages"][-1]["content"][1:])
    records = {r["problem_id"]: r for r in lines[1:]}
    assert records["usa_2015_9a8b7c"]["abstained"].startswith("truncated")
    assert records["esp_2017_4d5e6f"]["abstained"].startswith("unavailable")
    assert records["usa_2015_9a8b7c"]["solution"] == ""

    with ChatServer(answer=grader_answer) as grader_server:
        judge = ChatJudge(grader_server.config(model="grader-a"))
        result = _score(path, judge)
    assert result.status == "complete" and result.pending == 0
    items = {i["item_id"]: i for i in result.items}
    assert items["usa_2013_f6a7b8"]["answer_check"] is True  # 0.5 agrees with \frac{1}{2}
    assert items["usa_2014_0c1d2e"]["answer_check"] is False and items["usa_2014_0c1d2e"]["grade"] == 2
    assert items["usa_2012_c3d4e5"]["correct"] is True and items["usa_2012_c3d4e5"]["graded_by"] == "grader"
    assert items["usa_2015_9a8b7c"]["grade"] == 0 and items["usa_2015_9a8b7c"]["graded_by"] == "rule"
    assert items["bra_2013_6f7a8b"]["grade"] == 0 and "unparsable grader reply" in items["bra_2013_6f7a8b"]["grade_reason"]
    correct = {i for i, v in items.items() if v["correct"]}
    assert correct == {"usa_2008_0b41c2", "usa_2010_aa11bb", "usa_2012_c3d4e5", "usa_2013_f6a7b8",
                       "esp_2018_7a8b9c", "esp_2020_3a4b5c"}
    assert result.main.metric == "proof_grade" and result.main.value == pytest.approx(6 / 17)
    assert result.metrics["answer_check"]["total"] == sum(1 for i in items.values() if i["answer_check"] is not None)
    assert set(result.breakdowns) == {"by_domain", "by_language", "by_images", "by_problem_type"}
    assert result.breakdowns["by_images"]["with images"]["proof_grade"]["count"] == 1
    assert result.metrics["proof_grade"]["macro_bootstrap95"][0] <= result.metrics["proof_grade"]["macro"]
    assert result.frozen.retrieval_artifact == "mathrag:zero-shot"
    assert result.frozen.scoring_artifact.startswith("mathnet-solve-judge:chat:grader-a:mathnet_grade.v2+math-verify-")
    assert result.frozen.split == "problems/lemmata_strat_70"


def test_image_parts_refused_and_text_modality(solve_release, tmp_path):
    release = solve_data.solve_release()
    with ChatDouble(refusing_images) as server, _runner(server, "text-only-m") as runner:
        lines, meta = solve_submission(release, runner, subset=SUBSET, modality="text+image", quiet=True)
    assert meta["image_requests_refused"] == 4 and "--modality text" in meta["advice"]
    refused = [r for r in lines[1:] if r["abstained"] and r["abstained"].startswith("rejected: HTTP 400")]
    assert {r["problem_id"] for r in refused} == {"usa_2008_0b41c2", "usa_2014_0c1d2e", "esp_2017_4d5e6f",
                                                  "bra_2014_9c0d1e"}
    with ChatDouble(refusing_images) as server, _runner(server, "text-only-m") as runner:
        lines, meta = solve_submission(release, runner, subset=SUBSET, modality="text", quiet=True)
        sent = list(server.requests)
    assert meta["image_requests_refused"] == 0 and lines[0]["model"]["modality"] == "text"
    described = [b for b in sent if "Figure description:" in b["messages"][-1]["content"]]
    assert len({b["messages"][-1]["content"] for b in described}) == 4 and not any("attached_image" in b["messages"][-1]["content"] for b in sent)


def test_pending_without_grader_then_judge_fills_a_new_version(solve_release, tmp_path, capsys):
    from lemmata.cli.judge import fill_pending
    from lemmata.store import Store

    release = solve_data.solve_release()
    with ChatDouble(solver) as server, _runner(server, "solver-p") as runner:
        lines, _ = solve_submission(release, runner, subset=SUBSET, modality="text", quiet=True)
    path = write_lines(tmp_path / "pending.jsonl", lines)
    store = Store(tmp_path / "store")
    first = _score(path, None, store)
    assert first.status == "pending_oracle" and first.pending == 15  # every written solution, none settled
    assert first.main.value == 0.0 and first.metrics["proof_grade"]["bounds"][1] > 0.5  # never counted as success
    assert all(i["graded_by"] in ("pending", "rule") for i in first.items)
    with ChatServer(answer=grader_answer) as grader_server:
        lines_out = fill_pending(store, OracleConfig(judge=ChatJudge(grader_server.config(model="grader-p"))))
    assert len(lines_out) == 1 and "version 2" in lines_out[0]
    latest = [r for r in store.results_for_submission(first.submission_sha256) if r.version == 2][0]
    assert latest.supersedes == first.result_id and latest.status == "complete" and latest.pending == 0
    assert latest.main.value == pytest.approx(6 / 17)
    assert store.results_for_submission(first.submission_sha256)[0].result_id in {first.result_id, latest.result_id}
    from lemmata.cli import main

    assert main(["mathrag", "--store", str(tmp_path / "store")]) == 0  # the latest version only
    table = capsys.readouterr().out
    assert "| solver-p | zero-shot | — | — | 0.353 | — | — |" in table and table.count("solver-p") == 1


def test_retriever_rag_with_the_static_model_lands_in_its_own_group_and_never_leaks(solve_release, retrieve_release,
                                                                                    tmp_path):
    release = solve_data.solve_release()
    groups = solve_data.groups(release)
    # duplicates and the MathNet-Retrieve equivalence set are one exclusion group each
    assert groups["bra_2019_dup001"] == groups["rus_2019_d99efd"]
    assert groups["usa_2010_aa11bb"] == groups["usa_2008_0b41c2"]
    with ChatDouble(solver) as server, _runner(server, "solver-r") as runner:
        lines, meta = solve_submission(release, runner, subset=SUBSET, modality="text", condition="retriever-rag",
                                       retriever_spec=STATIC, k=3, quiet=True)
        prompts = {b["messages"][-1]["content"] for b in server.requests}
    records = {r["problem_id"]: r for r in lines[1:]}
    known = solve_data.problems(release)
    for pid, rec in records.items():
        assert len(rec["context_ids"]) == 3
        assert all(groups[c] != groups[pid] for c in rec["context_ids"]), pid
    # no prompt shows the problem's own statement or an equivalent's as context
    for text in prompts:
        context, problem = text.split("### PROBLEM", 1)
        own = {pid for pid in known if re.sub(r"\s+", " ", known[pid]["problem"]).strip()
               == re.sub(r"\s+", " ", problem.split("If the problem asks")[0]).strip()}
        for pid in own:
            for member in (m for m in known if groups[m] == groups[pid]):
                assert known[member]["problem"] not in context
    path = write_lines(tmp_path / "rag.jsonl", lines)
    with ChatServer(answer=grader_answer) as grader_server:
        rag = _score(path, ChatJudge(grader_server.config(model="grader-a")))
    assert rag.frozen.retrieval_artifact.startswith(f"mathrag:retriever-rag:{rag.provenance['retrieval']['retriever']['name']}@")
    assert ":k3:pool-" in rag.frozen.retrieval_artifact
    with ChatDouble(solver) as server, _runner(server, "solver-r") as runner:
        zero_lines, _ = solve_submission(release, runner, subset=SUBSET, modality="text", quiet=True)
    with ChatServer(answer=grader_answer) as grader_server:
        zero = _score(write_lines(tmp_path / "zero.jsonl", zero_lines),
                      ChatJudge(grader_server.config(model="grader-a")))
    assert rag.frozen.group_key() != zero.frozen.group_key() and rag.model.identity() == zero.model.identity()

    # the matrix: the retriever's own MathNet-Retrieve recall beside the gain over zero-shot, paired
    from lemmata.benchmarks.mathnet.matrix import markdown, mathrag_matrix

    rows = {r["condition"]: r for r in mathrag_matrix([rag, zero], _static_retrieve_results(tmp_path), n_resamples=200)}
    row = rows["retriever-rag"]
    assert row["retriever"] == rag.provenance["retrieval"]["retriever"]["name"] and row["k"] == 3
    assert "tokenlearn-static-model" in row["retriever"] and rag.provenance["retrieval"]["spec"] == STATIC
    assert set(row["retrieve_recall"]) == {"easy", "medium", "hard"}
    assert 0 <= row["retrieve_recall"]["hard"]["recall@5"] <= 1
    assert row["gain"] == pytest.approx(rag.main.value - zero.main.value)
    assert row["gain_interval"][0] <= row["gain"] <= row["gain_interval"][1] and row["paired_problems"] == 17
    assert rows["zero-shot"]["gain"] is None
    assert f"| solver-r | retriever-rag | {row['retriever']} | 3 |" in markdown(list(rows.values()))

    # a submission that shows the duplicate as context is refused, naming line and field
    leaked = [dict(lines[0])] + [dict(r) for r in lines[1:]]
    for r in leaked[1:]:
        if r["problem_id"] == "rus_2019_d99efd":
            r["context_ids"] = ["bra_2019_dup001"]
        if r["problem_id"] == "usa_2008_0b41c2":
            r["context_ids"] = ["usa_2010_aa11bb"]
    data = "".join(json.dumps(x) + "\n" for x in leaked).encode()
    with pytest.raises(InputError) as err:
        validate_upload(data, "leak.jsonl")
    leaks = [p for p in err.value.problems if "its solution is the answer" in p.reason]
    assert {p.field for p in leaks} == {"context_ids[0]"} and len(leaks) == 2


def _static_retrieve_results(tmp_path):
    """The static baseline's scored MathNet-Retrieve runs (every tier), ranked by the same ranker over the
    fixture corpus texts."""
    RETRIEVE_FIXTURE = Path(__file__).parents[2] / "fixtures" / "hub" / "MathNet-Retrieve"
    from lemmata.core.jsonl import read_jsonl
    from lemmata.families import handler_for
    from lemmata.tracks.model_runs import BaselineRanker, Part

    ranker = BaselineRanker(STATIC, depth=10)
    corpus = [obj for _, obj in read_jsonl(RETRIEVE_FIXTURE / "hard" / "corpus.jsonl")]
    queries = {obj["_id"]: obj["text"] for _, obj in read_jsonl(RETRIEVE_FIXTURE / "hard" / "queries.jsonl")}
    run = ranker.rank(Part(doc_ids=[d["_id"] for d in corpus], doc_texts=[d["text"] for d in corpus],
                           queries=queries))
    out = []
    for tier in ("easy", "medium", "hard"):
        header = {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve",
                  "release": "mathnet-retrieve-1.0.0", "track": tier, "model": ranker.model().model_dump(mode="json")}
        records = [{"query_id": q, "ranking": [{"doc_id": d, "score": float(s)} for d, s in run.rankings[q]]}
                   for q in queries]
        data = "".join(json.dumps(x) + "\n" for x in [header, *records]).encode()
        out.append(handler_for("mathnet-retrieve").score(validate_upload(data, f"{tier}.jsonl"),
                                                         received_at="2026-11-25T10:00:00+00:00",
                                                         oracles=OracleConfig()))
    return out


def test_bad_submissions_name_line_and_field(solve_release):
    header = {"format": "lemmata-submission/1", "benchmark": "mathnet-solve", "release": "mathnet-solve-1.1.0",
              "track": "zero-shot", "subset": SUBSET, "model": {"name": "m"}}
    recs = [{"problem_id": "usa_2012_c3d4e5", "solution": "x", "context_ids": ["usa_2013_f6a7b8"]},
            {"problem_id": "nope", "solution": "x"},
            {"problem_id": "usa_2012_c3d4e5", "solution": "y"},
            {"problem_id": "usa_2013_f6a7b8", "solution": 3}]
    data = "".join(json.dumps(x) + "\n" for x in [header, *recs]).encode()
    with pytest.raises(InputError) as err:
        validate_upload(data, "bad.jsonl")
    where = {(p.line, p.field): p.reason for p in err.value.problems}
    assert "required" in where[1, "header.model.modality"]  # the schema says what it means (text or text+image)
    header["model"]["modality"] = "text"  # with a valid header, the records' problems against the condition too
    data = "".join(json.dumps(x) + "\n" for x in [header, *recs]).encode()
    with pytest.raises(InputError) as err:
        validate_upload(data, "bad.jsonl")
    where = {(p.line, p.field): p.reason for p in err.value.problems}
    assert where[2, "context_ids"] == "zero-shot shows no context"
    assert "is not a problem id" in where[3, "problem_id"]
    assert "first on line 2" in where[4, "problem_id"]
    assert (5, "solution") in where


def test_the_command_line_writes_a_submission_and_scores_it(solve_release, tmp_path, monkeypatch, capsys):
    from lemmata.cli import main

    monkeypatch.delenv("LEMMATA_JUDGE_BASE_URL", raising=False)
    with ChatDouble(solver) as server:
        code = main(["run", "mathnet", "--model", "cli-m", "--base-url", server.base_url, "--modality", "text",
                     "--out", str(tmp_path), "--limit", "4", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    submission = next(tmp_path.glob("mathnet.lemmata_strat_70.zero-shot.cli-m.jsonl"))
    assert f"submission: {submission}" in out
    result = json.loads(submission.with_suffix(".result.json").read_text())
    assert result["status"] == "pending_oracle" and result["main"]["total"] == 17  # the 13 not run count as unsolved
    # the run's request log is beside it, and the result carries the runner-log badge
    assert submission.with_name(submission.stem + ".runner-log.jsonl").is_file()
    assert result["flags"]["runner_log"] == "consistent"
    with pytest.raises(SystemExit):
        main(["run", "mathnet", "--model", "m", "--out", str(tmp_path)])  # --modality must be declared


def test_a_request_log_backs_every_solution_and_an_edited_one_is_named(solve_release, tmp_path):
    """Image parts hashed as sent: the log checks; a solution edited after the run, or an abstention turned into a
    solution, is refused with the submission's line and field and the log line of its answer."""
    from lemmata.benchmarks.mathnet.solve_run import solve_logged
    from lemmata.harness.runs import write_logged
    from lemmata.scoring import score_upload
    from lemmata.space.conditions import badges

    release = solve_data.solve_release()
    with ChatDouble(solver) as server, _runner(server) as runner:
        lines, _, log = solve_logged(release, runner, subset=SUBSET, modality="text+image", quiet=True)
    sub = tmp_path / "solve.jsonl"
    log_path = write_logged(sub, lines, log)
    assert log_path.name == "solve.runner-log.jsonl" and log_path.read_bytes() == log
    validated, _, result = score_upload(sub.read_bytes(), sub.name, runner_log=log, runner_log_name=log_path.name,
                                        quiet=True)
    assert validated.runner_log.entries == len(lines) - 1 and result.flags["runner_log"] == "consistent"
    assert "runner log" in [b for b, _ in badges(result.flags)]
    entries = [json.loads(x) for x in log.decode("utf-8").splitlines()]

    def refused(records: list[dict]) -> list:
        data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [lines[0], *records]).encode("utf-8")
        with pytest.raises(InputError) as exc:
            validate_upload(data, sub.name, runner_log=log, runner_log_name=log_path.name)
        return exc.value.problems

    solved = next(i for i, r in enumerate(lines[1:]) if r["abstained"] is None)
    edited = [dict(r) for r in lines[1:]]
    edited[solved]["solution"] = "CORRECT. A better proof."
    (problem,) = refused(edited)
    log_line = next(n for n, e in enumerate(entries, 1) if e.get("item") == edited[solved]["problem_id"])
    assert (problem.line, problem.field) == (solved + 2, "solution") and f"line {log_line} of" in problem.reason
    abstained = next(i for i, r in enumerate(lines[1:]) if r["abstained"] is not None)
    edited = [dict(r) for r in lines[1:]]
    edited[abstained].update(solution="CORRECT. Finished it by hand.", abstained=None)
    assert {(p.line, p.field) for p in refused(edited)} == {(abstained + 2, "solution"), (abstained + 2, "abstained")}
    # without its runner field the same file is a self-reported entry
    plain = {k: v for k, v in lines[0].items() if k != "runner"}
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [plain, *lines[1:]]).encode("utf-8")
    assert validate_upload(data, sub.name).runner_log is None


def test_expert_rag_uses_the_pairs_file_and_drops_a_pair_that_would_leak(solve_release, retrieve_release, tmp_path):
    from lemmata.core.hashing import sha256_file

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in [
        {"problem_id": "usa_2012_c3d4e5", "similar_id": "usa_2013_f6a7b8"},
        {"problem_id": "rus_2019_d99efd", "similar_id": "bra_2019_dup001"},  # its duplicate: the answer itself
        {"problem_id": "usa_2008_0b41c2", "similar_id": "usa_2010_aa11bb"}]))  # its equivalent
    release = solve_data.solve_release()
    with ChatDouble(solver) as server, _runner(server, "solver-x") as runner:
        lines, _ = solve_submission(release, runner, subset=SUBSET, modality="text", condition="expert-rag",
                                    expert_pairs=pairs, quiet=True)
        prompts = [b["messages"][-1]["content"] for b in server.requests]
    assert lines[0]["expert_pairs_sha256"] == sha256_file(pairs)
    contexts = {r["problem_id"]: r["context_ids"] for r in lines[1:]}
    assert contexts["usa_2012_c3d4e5"] == ["usa_2013_f6a7b8"]
    assert contexts["rus_2019_d99efd"] == [] and contexts["usa_2008_0b41c2"] == []
    assert sum("SIMILAR PROBLEM 1" in p for p in prompts) == 1
    result = _score(write_lines(tmp_path / "expert.jsonl", lines))
    assert result.frozen.retrieval_artifact == f"mathrag:expert-rag:pairs-{sha256_file(pairs)[:16]}"
    with pytest.raises(InputError) as err:
        solve_submission(release, None, subset=SUBSET, modality="text", condition="expert-rag", quiet=True)
    assert err.value.problems[0].field == "expert-pairs"
