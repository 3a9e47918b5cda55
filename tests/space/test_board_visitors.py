"""What a visitor reads beyond the ranked table: pending bounds, one number format, the benchmarks overview and
the model × benchmark matrix (no server, no browser)."""

from __future__ import annotations

import json

import pytest

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.board import BoardQuery, build_view, export_records, load_rows, to_json
from lemmata.space.tables import render_board
from lemmata.store import Store


def _pending_re2math(n_open: int, n_settled: int, n_yes: int, total: int = 200):
    items = ([{"instance_id": f"i{k}", "tool_acc": "yes", "pending": False} for k in range(n_yes)]
             + [{"instance_id": f"o{k}", "tool_acc": "pending", "pending": True} for k in range(n_open)]
             + [{"instance_id": f"s{k}", "tool_acc": "no", "pending": True} for k in range(n_settled)])
    items += [{"instance_id": f"n{k}", "tool_acc": "no", "pending": False} for k in range(total - len(items))]
    return make_result(
        kind="scored", benchmark="re2math", track="raw",
        frozen=FrozenTuple(dataset_release="re2math-2.0.0", split="eval200/test", retrieval_artifact="w2",
                           scoring_artifact="judge@v2", date="2026-11-21"),
        submission_sha256=sha256_bytes(b"pending-run"), model=ModelInfo(name="new-system"),
        main=Score(metric="OfflineToolAcc", value=None, count=n_yes, total=total), items=items,
        pending=n_open + n_settled, status="pending_oracle")


def test_pending_row_says_what_is_confirmed_and_what_could_still_count(tmp_path):
    st = Store(tmp_path)
    st.add_result(_pending_re2math(n_open=2, n_settled=198, n_yes=0))
    view = build_view(load_rows(st), BoardQuery(benchmark="re2math", track="raw"))
    (row,) = view.rows
    assert (row.bounds.confirmed, row.bounds.open, row.bounds.total) == (0, 2, 200)
    board = render_board(view)
    assert "200 pending · 2 could count" in board and "pending: 0.000–0.010" in board
    (rec,) = export_records(view)
    assert rec["score"] is None and rec["pending_confirmed"] == 0 and rec["pending_could_still_count"] == 2
    assert rec["pending_max_rate"] == pytest.approx(0.01)
    api = json.loads(to_json(view))["groups"][0]["rows"][0]
    assert api["pending_max_rate"] == pytest.approx(0.01) and api["pending_confirmed_rate"] == 0


def test_board_audit_and_exports_print_a_score_alike(tmp_path):
    from lemmata.space.audit import entry_facts

    st = Store(tmp_path)
    res = make_result(
        kind="scored", benchmark="re2math", track="raw",
        frozen=FrozenTuple(dataset_release="re2math-2.0.0", split="eval200/test", retrieval_artifact="w2",
                           scoring_artifact="judge@v2", date="2026-11-21"),
        submission_sha256=sha256_bytes(b"done"), model=ModelInfo(name="done-system"),
        main=Score(metric="OfflineToolAcc", value=0.0701, interval=(0.04215, 0.1141), interval_kind="wilson95",
                   count=14, total=200))
    st.add_result(res)
    view = build_view(load_rows(st), BoardQuery(benchmark="re2math", track="raw"))
    assert "0.070" in render_board(view) and "[0.042, 0.114]" in render_board(view)
    assert "0.070 [0.042, 0.114] (wilson95)" in entry_facts(res)
    assert export_records(view)[0]["shown"] == "0.070 [0.042, 0.114]"
    assert "pending: 0.000–0.010" in entry_facts(_pending_re2math(n_open=2, n_settled=198, n_yes=0))


def test_an_upload_during_start_up_is_told_which_step_it_waits_for(tmp_path):
    from lemmata.space.availability import benchmark_availability
    from lemmata.space.bootstrap import Step
    from lemmata.space.config import SpaceConfig
    from lemmata.space.context import create_context
    from lemmata.space.tabs.submit import preparing_reason

    releases = tmp_path / "releases"
    (releases / "re2math-1.0.0").mkdir(parents=True)
    (releases / "re2math-1.0.0" / "MANIFEST.json").write_text("{}")
    states = {a.benchmark: a for a in benchmark_availability(
        releases, releases_settled=True, offline=True, running={"artifact": "building the offline world"})}
    assert states["re2math"].state == "preparing" and "building the offline world" in states["re2math"].reason
    assert states["re2math-theorem-retrieval"].state == "ready"  # needs the release only

    config = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, releases_root=releases, bootstrap=False)
    ctx = create_context(config, stream=open(tmp_path / "log", "w"), steps=lambda c: [
        Step("releases", "building missing releases", lambda r: "done", status="done"),
        Step("artifact", "building the offline retrieval world", lambda r: "built")])
    assert "“building the offline retrieval world”" in preparing_reason(ctx, "re2math")
    assert preparing_reason(ctx, "re2math-theorem-retrieval") is None and preparing_reason(ctx, None) is None


def test_the_eval_extra_holds_evaluate_and_the_readme_names_it():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    assert any(d.startswith("evaluate") for d in extras["eval"]) and "lemmata[space]" in extras["eval"]
    assert not any(d.startswith("evaluate") for d in extras["space"])  # the space alone stays lean
    assert "pip install -q -e '.[eval]'" in (root / "README.md").read_text("utf-8")


def test_ranking_board_shows_and_filters_declared_model_metadata(tmp_path):
    """A ranking track's table has parameters, dimension and open-weights columns, sortable, and the open-weights
    and size filters travel in the URL; an undeclared value shows '–' and never passes a filter on it."""
    from lemmata.space.views import query_from_params

    st = Store(tmp_path)
    frozen = FrozenTuple(dataset_release="re2math-1.0.0", split="retrieval_queries/test", retrieval_artifact=None,
                         scoring_artifact="qrels", date="2026-11-22")
    for name, model, value in (
            ("small-open", ModelInfo(name="small-open", kind="retriever", parameters=22_000_000, dimension=384,
                                     open_weights=True), 0.41),
            ("big-closed", ModelInfo(name="big-closed", kind="retriever", parameters=7_240_000_000, dimension=4096,
                                     open_weights=False), 0.52),
            ("bare", ModelInfo(name="bare"), 0.30)):
        st.add_result(make_result(kind="scored", benchmark="re2math-theorem-retrieval", track="raw", frozen=frozen,
                                  submission_sha256=sha256_bytes(name.encode()), model=model,
                                  main=Score(metric="ndcg@10", value=value, count=200, total=200)))
    rows = load_rows(st)
    view = build_view(rows, BoardQuery(benchmark="re2math-theorem-retrieval", track="raw"))
    html = render_board(view)
    assert all(h in html for h in (">Params", ">Dim", ">Open</th>", "<td>22M</td>", "<td>7.2B</td>", "<td>384</td>"))
    assert [r.model_name for r in build_view(rows, BoardQuery(benchmark="re2math-theorem-retrieval", track="raw",
                                                               sort="params:desc")).rows] == \
        ["big-closed", "small-open", "bare"]  # undeclared last
    opened = query_from_params({"benchmark": "re2math-theorem-retrieval", "track": "raw", "open": "1"})
    assert [r.model_name for r in build_view(rows, opened).rows] == ["small-open"]
    small = query_from_params({"benchmark": "re2math-theorem-retrieval", "track": "raw", "max_params": "1e9"})
    assert [r.model_name for r in build_view(rows, small).rows] == ["small-open"]
    assert query_from_params(small.to_params()) == small and "max_params=1e9" in small.query_string()
    assert query_from_params({"max_params": "1e9;drop"}).max_params == ""  # malformed: no filter
    # a non-ranking board keeps its columns
    assert ">Params" not in render_board(build_view(load_rows(Store(tmp_path / "empty")), BoardQuery()))
