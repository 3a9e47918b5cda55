"""A benchmark family installed from outside Lemmata: release, `lemmata run`, track, CLI verb, overview and board.

The family is ``tests/fixtures/toy_qa`` (a package, its pinned upstream file and its installation record,
``installed/toy_qa-0.1.dist-info``, whose ``lemmata.families`` entry point names it). Nothing in ``lemmata/``
names it: putting the package and its record on the path is the whole installation, and every surface finds it
through the registry. The module fixture installs it for these tests only and removes it after them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lemmata import families
from lemmata.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "toy_qa"
INSTALLED = FIXTURE / "installed"
UPSTREAM = FIXTURE / "upstream"

#: what the scripted model replies to each question, and whether that reply is scored right
REPLIES = {
    "What is 2 + 3?": ('{"answer": " 5 "}', True),  # trimmed
    "What is 7 times 6?": ('{"answer": 42}', True),  # a JSON number is read as its text
    "What is 10 - 4?": ('{"answer": "7"}', False),  # wrong
    "What is 81 divided by 9?": ('```json\n{"answer": "9"}\n```', True),  # fenced
    "What is 3 squared?": ("nine, I think", False),  # no JSON object: abstains
}


@pytest.fixture(scope="module")
def toy_qa(tmp_path_factory):
    """The family installed (package and installation record on the path), its release built by `lemmata build`
    into a releases folder of its own; afterwards nothing of it is left in the registry."""
    releases = tmp_path_factory.mktemp("toy-qa-releases")
    mp = pytest.MonkeyPatch()
    mp.setenv("LEMMATA_RELEASES", str(releases))
    mp.syspath_prepend(str(FIXTURE))
    mp.syspath_prepend(str(INSTALLED))
    families.refresh()
    try:
        assert "toy-qa" in families.families() and "toy-qa" not in families.FAMILIES  # found by its entry point
        assert main(["build", "toy-qa", "--source-dir", str(UPSTREAM), "--out", str(releases), "--quiet"]) == 0
        yield releases
    finally:
        mp.undo()
        families.refresh()
        assert "toy-qa" not in families.families()


@pytest.fixture(scope="module")
def ran(toy_qa, tmp_path_factory):
    """`lemmata run toy-qa` against a scripted chat endpoint, its submission and result stored in a fresh store:
    ``(submission, result document, store folder, requests the endpoint saw)``."""
    from lemmata.oracles.chat_double import ChatDouble

    out = tmp_path_factory.mktemp("toy-qa-run")
    seen: list[str] = []

    def answer(body: dict) -> str:
        text = body["messages"][-1]["content"]
        seen.append(text)
        return next(reply for question, (reply, _) in REPLIES.items() if question in text)

    with ChatDouble(answer, model_id="toy-model-0101") as server:
        assert main(["run", "toy-qa", "--model", "toy-model", "--out", str(out / "run"), "--base-url",
                     server.base_url, "--cache", str(out / "cache.jsonl"), "--store", str(out / "store"),
                     "--quiet"]) == 0
    (sub,) = (out / "run").glob("toy-qa.*.jsonl")
    return sub, json.loads(sub.with_suffix(".result.json").read_text("utf-8")), out / "store", seen


def test_the_release_is_built_from_the_pinned_file(toy_qa):
    from lemmata.release.load import open_release

    release = open_release(toy_qa / "toy-qa-1.0.0")
    assert release.release_id == "toy-qa-1.0.0"
    rows = release.rows("questions", "test")
    assert [r["question"] for r in rows] == list(REPLIES) and rows[1]["answer"] == "42"
    manifest = json.loads((toy_qa / "toy-qa-1.0.0" / "MANIFEST.json").read_text())
    assert manifest["builder"] == "toy_qa.ToyQaBuilder" and [s["name"] for s in manifest["sources"]] == [
        "questions.jsonl"]


def test_a_run_writes_a_submission_that_scores_as_counted_by_hand(ran):
    sub, result, _, seen = ran
    header, *records = [json.loads(x) for x in sub.read_text("utf-8").splitlines()]
    assert header["benchmark"] == "toy-qa" and header["release"] == "toy-qa-1.0.0" and header["track"] == "answer"
    assert header["model"]["endpoint_model"] == "toy-model-0101"
    assert header["model"]["prompt_version"] == "toy-qa-answer.v1"
    assert len(seen) == 5 and all("### Reply" in text for text in seen)
    assert [r["answer"] for r in records] == ["5", "42", "7", "9", None]
    right = sum(ok for _, ok in REPLIES.values())
    assert right == 3
    assert result["main"]["metric"] == "accuracy" and result["main"]["value"] == pytest.approx(right / 5)
    assert (result["main"]["count"], result["main"]["total"]) == (3, 5) and result["main"]["interval_kind"] == "wilson95"
    assert [i["right"] for i in result["items"]] == [ok for _, ok in REPLIES.values()]
    assert result["frozen"]["dataset_release"] == "toy-qa-1.0.0" and result["status"] == "complete"
    assert json.loads(sub.with_suffix(".run.json").read_text("utf-8"))["abstentions"] == {
        "no 'answer' in the reply": 1}


def test_the_familys_own_verb(toy_qa, capsys):
    assert main(["toy-qa", "show", "q3"]) == 0
    assert capsys.readouterr().out == "q3: What is 10 - 4?\nanswer: 6\n"
    assert main(["toy-qa", "show", "q9"]) == 2
    assert "unknown question 'q9'" in capsys.readouterr().err


def _run_help(*paths: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(map(str, paths))
    done = subprocess.run([sys.executable, "-m", "lemmata", "run", "--help"], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout


def test_run_help_lists_the_protocol_only_where_the_family_is_installed():
    assert "toy-qa    answer every Toy-QA arithmetic question" in _run_help(FIXTURE, INSTALLED)
    assert "toy-qa" not in _run_help()


def test_the_overview_shows_the_family_with_its_brief(toy_qa):
    from lemmata.space.availability import benchmark_availability
    from lemmata.space.overview import benchmark_overviews, render_overview

    available = benchmark_availability(toy_qa, releases_settled=True, offline=True)
    assert [(a.benchmark, a.releases, a.state) for a in available if a.benchmark == "toy-qa"] == [
        ("toy-qa", ("toy-qa-1.0.0",), "ready")]
    (card,) = [o for o in benchmark_overviews(available, toy_qa, {"toy-qa": 1}) if o.benchmark == "toy-qa"]
    assert card.brief == families.briefs()["toy-qa"] and card.brief.task == "Answer short arithmetic questions."
    assert card.metric == "accuracy" and card.title == "Toy-QA: five arithmetic questions"
    assert card.size == "questions: 5 rows" and card.licence == "CC0 1.0"
    assert "Answer short arithmetic questions." in render_overview([card])


def test_the_board_shows_the_stored_result(ran):
    from lemmata.space.board import BoardQuery, build_view, load_rows
    from lemmata.space.context import submission_catalog
    from lemmata.space.tables import render_board
    from lemmata.store import Store

    _, result, store, _ = ran
    catalog = submission_catalog()
    assert catalog["toy-qa"] == ("answer",)
    view = build_view(load_rows(Store(store)), BoardQuery(benchmark="toy-qa"), catalog)
    assert view.query.track == "answer" and "toy-qa" in view.benchmarks
    (row,) = view.rows
    assert (row.result_id, row.model_name, row.metric, row.rank) == (result["result_id"], "toy-model", "accuracy", 1)
    assert row.value == pytest.approx(0.6)
    html = render_board(view)
    assert "toy-model" in html and "1 of 1 entry in 1 group" in html
