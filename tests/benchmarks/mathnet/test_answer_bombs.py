"""Answer bombs: final answers that make sympy compute for minutes or gigabytes (nested factorials, huge
binomials, Gamma of a large number, towers in parentheses, deep nesting, huge literals, fraction chains) are cut
off within the answer check's bound, from the main thread (the CLI) and from a worker thread (the space), count
as not equal with their reason in the result's items, and a file of them scores in bounded time; honest answers
get the verdicts they always had."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lemmata.benchmarks.mathnet import answer_check, solve_data
from lemmata.benchmarks.mathnet.answer_check import HOSTILE_ANSWERS
from lemmata.benchmarks.mathnet.solve_scoring import check_answers
from lemmata.tracks.base import OracleConfig
from test_bounded import in_thread  # the tests' one way to run a call in a non-main thread

BOMBS = HOSTILE_ANSWERS
#: what the bound costs at most beyond its seconds: killing, replacing, a loaded machine
SLACK_S = 1.5


def _cut_off(verdict) -> bool:
    ok, why = verdict
    return ok is False and why is not None and (why.startswith("answer check exceeded its bound (")
                                                or why.startswith("answer not checked: too large"))


def test_each_bomb_family_is_cut_off_within_the_bound():
    """In a non-main thread, as the space's scoring worker runs (the main thread, the CLI's, is covered by the
    whole-file tests below: every family is in those files)."""
    run = in_thread
    lim = answer_check.Limits(seconds=1.0)
    assert run(lambda: check_answers([(r"\frac12", "0.5")], lim)) == [(True, None)]  # warm
    slow = {}
    for family, bomb in BOMBS.items():
        t0 = time.monotonic()
        [verdict] = run(lambda: check_answers([("2", bomb)], lim))
        spent = time.monotonic() - t0
        assert verdict[0] is False, family
        assert verdict[1] is None or _cut_off(verdict), (family, verdict)
        assert verdict[1] is None or "(1 s / 400 MB)" in verdict[1] or "too large" in verdict[1]
        if spent > lim.seconds + SLACK_S:
            slow[family] = spent
    assert slow == {}, f"past {lim.seconds} s + {SLACK_S} s: {slow}"


def test_a_memory_bomb_is_cut_off_by_the_memory_cap():
    lim = answer_check.Limits(seconds=30, memory_mb=160)
    t0 = time.monotonic()
    [(ok, why)] = in_thread(lambda: check_answers([("2", BOMBS["tower of braced parentheses"])], lim))
    assert ok is False and why == "answer check exceeded its bound (30 s / 160 MB): out of memory"
    assert time.monotonic() - t0 < 30
    answer_check.pool(lim).close()


@pytest.mark.parametrize("where", ["main", "thread"])
def test_a_file_of_bombs_scores_within_the_file_budget(where):
    run = (lambda f: f()) if where == "main" else in_thread
    lim = answer_check.Limits(file_s=6)
    bombs = [b for b in BOMBS.values()] * 30  # 510 answers
    t0 = time.monotonic()
    verdicts = run(lambda: check_answers([("2", b) for b in bombs], lim))
    spent = time.monotonic() - t0
    # at most file_s lost to the bound, across the workers, plus one round of comparisons in flight
    assert spent < lim.file_s + lim.workers * lim.seconds + 2 * SLACK_S, spent
    assert all(ok is False for ok, _ in verdicts)
    unrun = [why for _, why in verdicts if why and why.startswith("answer check not run")]
    assert len(unrun) > 300
    assert unrun[0] == ("answer check not run: the file's answer check lost 6 s to calls cut off by the bound "
                        "(1.5 s / 400 MB)")
    assert check_answers([("144", "144.0")], lim) == [(True, None)]  # the next file is checked as usual


HONEST = [
    (r"\frac12", "0.5", True), (r"\frac{1}{2}", r"$\frac{2}{4}$", True), ("144", "144.0", True),
    (r"\{1, 2\}", r"\{2, 1\}", True), (r"2\sqrt{2}", r"\sqrt{8}", True), ("9", "18", False),
    (r"\frac12", "0.51", False), ("x^2 + 1", "1 + x^2", True), (r"\pi/4", r"\frac{\pi}{4}", True),
    ("(1, 2)", "(1,2)", True), (r"2^{2017} - 1", r"2^{2017}-1", True), (r"\binom{10}{3}", "120", True),
    ("5!", "120", True), (r"\dfrac{3}{4}", "0.75", True), ("n = 3", "3", True), (r"[1, 3)", r"[1, 3)", True),
    (r"\text{yes}", "yes", True), (r"3\pi", r"3 \pi", True), ("2^{10}", "1024", True), ("2^{10}", "1025", False),
]


def test_honest_answers_keep_their_verdicts_in_one_batch():
    verdicts = in_thread(lambda: check_answers([(r, c) for r, c, _ in HONEST]))
    assert [ok for ok, _ in verdicts] == [agree for _, _, agree in HONEST]
    assert all(why is None for _, why in verdicts)
    # the same as math-verify in this process, without any bound
    assert [answer_check.agree(r, c) for r, c, _ in HONEST] == [agree for _, _, agree in HONEST]


def test_the_bound_is_read_from_the_settings_and_refuses_nonsense():
    lim = answer_check.limits({"LEMMATA_ANSWER_CHECK_TIMEOUT_S": "0.5", "LEMMATA_ANSWER_CHECK_FILE_S": "10"})
    assert (lim.seconds, lim.memory_mb, lim.workers, lim.file_s) == (0.5, 400, 2, 10.0)
    assert lim.budget_s(5500) == pytest.approx(10 + 550)
    from lemmata.core.errors import LemmataError

    for bad in ("0", "-1", "nan", "inf", "x"):
        with pytest.raises(LemmataError, match="LEMMATA_ANSWER_CHECK_TIMEOUT_S"):
            answer_check.limits({"LEMMATA_ANSWER_CHECK_TIMEOUT_S": bad})


# -- whole files, as the CLI and the space's worker score them ---------------------------------------------------

def _bomb_file(tmp_path: Path, name: str) -> tuple[Path, dict[str, str]]:
    release = solve_data.solve_release()
    known = solve_data.problems(release)
    ids = solve_data.subset_ids(release, "lemmata_strat_70")
    bombs = list(BOMBS.values())
    answers = {pid: bombs[i % len(bombs)] for i, pid in enumerate(p for p in ids if known[p]["final_answer"])}
    header = {"format": "lemmata-submission/1", "benchmark": "mathnet-solve", "release": release.release_id,
              "track": "zero-shot", "subset": "lemmata_strat_70", "model": {"name": name, "modality": "text"}}
    lines = [header] + [{"problem_id": pid, "solution": f"By a short computation the answer is {a}.",
                         "final_answer": a, "abstained": None, "context_ids": []} for pid, a in answers.items()]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path, answers


def _assert_bombs_recorded(items: list[dict], answers: dict[str, str]) -> None:
    by_id = {i["item_id"]: i for i in items}
    for pid, bomb in answers.items():
        item = by_id[pid]
        assert item["answer_check"] is False and item["candidate_answer"] == bomb
        reason = item.get("answer_check_reason")  # present only where the check did not run to the end
        assert reason is None or _cut_off((False, reason)) or reason.startswith("answer check not run"), reason
    assert sum(1 for pid in answers if by_id[pid].get("answer_check_reason")) >= len(answers) // 2
    assert all("answer_check_reason" not in i for i in items if i["item_id"] not in answers)


def test_the_cli_scores_a_file_of_bombs_in_bounded_time(solve_release, tmp_path):
    from lemmata.cli import main

    path, answers = _bomb_file(tmp_path, "bomber-cli")
    out = tmp_path / "result.json"
    t0 = time.monotonic()
    assert main(["score", str(path), "--out", str(out), "--no-live-judge"]) == 0
    lim = answer_check.limits()
    assert time.monotonic() - t0 < lim.file_s + lim.workers * lim.seconds + 10
    result = json.loads(out.read_text("utf-8"))
    _assert_bombs_recorded(result["items"], answers)
    assert any("answer_check_reason says which bound" in n for n in result["notes"])


def test_the_space_worker_thread_scores_a_file_of_bombs_in_bounded_time(solve_release, tmp_path):
    from lemmata.space.worker import ScoringWorker
    from lemmata.store import Store

    path, answers = _bomb_file(tmp_path, "bomber-space")
    store = Store(tmp_path / "store")
    data = path.read_bytes()
    record, _ = store.add_submission(data, filename=path.name, benchmark="mathnet-solve", track="zero-shot",
                                     model_name="bomber-space", submitter="x", header=json.loads(data.splitlines()[0]))
    worker = ScoringWorker(store, oracles=OracleConfig, poll_seconds=30)
    lim = answer_check.limits()
    t0 = time.monotonic()
    worker.start()
    try:
        while store.get_submission(record.sha256).status in ("queued", "scoring") and time.monotonic() - t0 < 120:
            time.sleep(0.05)
    finally:
        worker.stop()
    assert time.monotonic() - t0 < lim.file_s + lim.workers * lim.seconds + 10
    assert store.get_submission(record.sha256).status in ("scored", "pending_oracle")
    [result] = store.results_for_submission(record.sha256)
    _assert_bombs_recorded(result.items, answers)


def test_a_killed_answer_check_worker_is_an_item_reason_not_a_traceback(solve_release, tmp_path, capsys,
                                                                        monkeypatch):
    """SIGKILL (the out-of-memory killer's signal) on answer-check workers while ``lemmata score`` runs: the
    comparison each was making counts as not equal with that reason, the command ends normally, no traceback."""
    import os
    import signal
    import threading

    from lemmata.cli import main

    assert check_answers([(r"\frac12", "0.5")]) == [(True, None)]  # the workers started and warm
    monkeypatch.setenv("LEMMATA_ANSWER_CHECK_FILE_S", "3")  # a few bombs cut off, the rest not run: seconds
    path, answers = _bomb_file(tmp_path, "killed-workers")
    pool = answer_check.pool(answer_check.limits())
    killed: list[int] = []
    stop = threading.Event()

    def killer() -> None:
        while not stop.is_set() and len(killed) < 2:
            for w in list(pool._pool):
                if w.job is not None and w.pid not in killed and time.monotonic() - w.dispatched > 0.2:
                    os.kill(w.pid, signal.SIGKILL)
                    killed.append(w.pid)
            time.sleep(0.01)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    out = tmp_path / "result.json"
    try:
        assert main(["score", str(path), "--out", str(out), "--no-live-judge", "--quiet"]) == 0
    finally:
        stop.set()
        thread.join()
    assert killed and "Traceback" not in capsys.readouterr().err
    items = json.loads(out.read_text("utf-8"))["items"]
    died = [i for i in items if (i.get("answer_check_reason") or "").endswith("its worker process died")]
    assert died and all(i["answer_check"] is False for i in died)
    _assert_bombs_recorded(items, answers)
