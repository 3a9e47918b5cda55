"""An LLM run's tokens reach its result and the board: `lemmata run` against the in-process OpenAI-compatible
endpoint (its replies carry ``usage`` as the API does), the request log's per-answer usage summed into
``Result.usage``, the board's usage columns and the cost-versus-score plot; a result without usage keeps its bytes
and its id."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result
from lemmata.space.board import BoardQuery, build_view, export_records, row_from_index
from lemmata.space.plots import cost_svg
from lemmata.space.rows import summary_of
from lemmata.space.tables import render_board


def _prover(body: dict) -> str:
    name = re.search(r"Complete the proof of `([^`]+)`", body["messages"][-1]["content"]).group(1)
    return f"```lean\ntheorem {name.split('.')[-1]} : True := by\n  simp\n```\n"


@pytest.fixture(scope="module")
def run(releases_root, tmp_path_factory):
    from lemmata.benchmarks.taobench.release import open_taobench
    from test_taobench_runner_log import run_taobench

    open_taobench("taobench-150-1.1.0", releases_root)
    out = tmp_path_factory.mktemp("usage")
    run_taobench(releases_root, out, _prover, ["--n", "1", "--out", str(out)])
    return next(out.glob("*.result.json")), next(out.glob("*.runner-log.jsonl"))


def test_the_logged_usage_is_summed_into_the_result(run):
    result_path, log_path = run
    answers = [json.loads(line)["answer"] for line in log_path.read_text("utf-8").splitlines()[1:]]
    doc = json.loads(result_path.read_text("utf-8"))
    assert doc["usage"] == {"answers": 2, "reporting": 2,
                            "prompt_tokens": sum(a["prompt_tokens"] for a in answers),
                            "completion_tokens": sum(a["completion_tokens"] for a in answers),
                            "cost": None}  # the endpoint reports no price: none, never 0
    assert doc["usage"]["prompt_tokens"] > 0
    result = Result.model_validate(doc)
    assert result.content_id() == doc["result_id"] and result.seal() == doc["sealed_sha256"]


def test_the_board_shows_usage_columns_and_the_cost_plot(run):
    doc = json.loads(run[0].read_text("utf-8"))
    row = row_from_index({"result_id": doc["result_id"], "submission_sha256": doc["submission_sha256"],
                          "kind": "scored", "benchmark": doc["benchmark"], "track": doc["track"], "group_key": "g",
                          "model_name": doc["model"]["name"], "main_value": doc["main"]["value"], "pending": 0,
                          "status": doc["status"], "scored_at": doc["scored_at"], "version": 1,
                          "summary_json": json.dumps(summary_of(doc))})
    assert row.usage == doc["usage"]
    priced = replace(row, result_id="b" * 64, model_name="priced", model={**row.model, "name": "priced"},
                     usage={**doc["usage"], "cost": 0.25})
    view = build_view([row, priced], BoardQuery(benchmark=doc["benchmark"], track=doc["track"]))
    html = render_board(view)
    assert ">Tokens in</button></th>" in html and ">Tokens out</button></th>" in html and ">Cost</button></th>" in html
    assert 'data-sort="u.prompt_tokens:desc"' in html  # sortable like every numeric column
    assert f"<td>{doc['usage']['prompt_tokens']:,}</td>" in html and "<td>0.2500</td>" in html
    assert {r["model"]: r["usage.cost"] for r in export_records(view)} == {doc["model"]["name"]: None, "priced": 0.25}
    # one run without a price: the plot places every run by its tokens, and says so
    # (no Lean server here: the runs' items are pending, so they are given a score to be placed by)
    svg = cost_svg([replace(r, value=0.5) for r in view.groups[0].rows], doc["main"]["metric"])
    assert svg.count("<circle") == 2 and "tokens are plotted" in svg
    assert "Cost" not in render_board(build_view([replace(row, usage={})],
                                                 BoardQuery(benchmark=doc["benchmark"], track=doc["track"])))
    assert cost_svg([replace(row, value=0.5, usage={})], "x") == "" and cost_svg([row], "x") == ""


def test_a_result_without_usage_keeps_its_bytes_and_id():
    result = make_result(kind="scored", benchmark="b", track="t", submission_sha256="0" * 64,
                         frozen=FrozenTuple(dataset_release="b-1.0.0", split="test", retrieval_artifact=None,
                                            scoring_artifact="s/1", date="2026-11-20"),
                         model=ModelInfo(name="m"), main=Score(metric="x", value=0.5, count=5, total=10))
    doc = json.loads(result.to_json())
    assert "usage" not in doc and Result.model_validate(doc).model_dump(mode="json") == doc
    assert Result.model_validate(doc).content_id() == doc["result_id"]
