"""A selectable headline: TaoBench rows offer pass@k for every k ≤ n (``Family.headlines``), and the board ranks a
group by the one a visitor picks; the stored headline (pass@1) stays the default."""

from __future__ import annotations

import pytest

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.metrics.correctness import pass_at_k
from lemmata.space.board import BoardQuery, build_view, export_records, load_rows
from lemmata.space.rows import ROW_SUMMARY
from lemmata.space.tables import render_board
from lemmata.space.tabs.leaderboard import headline_choices
from lemmata.space.views import BoardControls, query_from_params
from lemmata.store import Store

FROZEN = FrozenTuple(dataset_release="taobench-150-1.1.0", split="pairs/test", retrieval_artifact=None,
                     scoring_artifact="taobench-lean:x+integrity.v1+probe.v1", date="2026-11-20")


def _proofs(name: str, n: int, passed: list[int]):
    """A TaoBench proofs result as its scorer stores it: per exercise ``n`` attempts of which ``c`` passed."""
    items = [{"item_id": f"E{i}@tao", "fqn": f"E{i}", "formulation": "tao", "chapter": 2, "n": n, "c": c,
              "pending": 0, "submitted": True, "attempts": []} for i, c in enumerate(passed)]
    p1 = sum(pass_at_k(n, c, 1) for c in passed) / len(passed)
    return make_result(kind="scored", benchmark="taobench", track="proofs", frozen=FROZEN,
                       submission_sha256=sha256_bytes(name.encode()), model=ModelInfo(name=name), flags={"n": n},
                       main=Score(metric="pass@1 (tao)", value=p1, count=sum(c > 0 for c in passed),
                                  total=len(passed)), items=items)


@pytest.fixture
def rows(tmp_path):
    store = Store(tmp_path / "store", row_summary=ROW_SUMMARY)
    # sharp: right or wrong every time; broad: rarely right but on many exercises; short: only 2 attempts drawn
    for r in (_proofs("sharp", 8, [8, 8, 0, 0]), _proofs("broad", 8, [2, 2, 2, 1]), _proofs("short", 2, [2, 1, 1, 0])):
        store.add_result(r)
    store.add_result(make_result(
        kind="reported", benchmark="taobench", track="proofs",
        frozen=FrozenTuple(dataset_release="taobench-150-1.1.0", split="pairs/test", retrieval_artifact=None,
                           scoring_artifact="taobench-paper-2603.12744:main_pass@128", date="2026-03-13"),
        submission_sha256="0" * 64, model=ModelInfo(name="paper-prover"),
        main=Score(metric="pass@128 (tao)", value=0.4, count=60, total=150)))
    return load_rows(store)


def _by_name(view):
    return {r.model_name: r for r in view.rows}


def test_the_stored_headline_is_the_default_and_every_k_is_offered(rows):
    view = build_view(rows, BoardQuery(benchmark="taobench", track="proofs"))
    assert view.headlines == tuple(f"pass@{k} (tao)" for k in range(1, 9))  # every k ≤ the largest n, in order
    by = _by_name(view)
    assert by["sharp"].rank == 1 and by["sharp"].metric == "pass@1 (tao)" and by["sharp"].value == 0.5
    assert headline_choices(view)[0] == ("As scored (pass@1 (tao))", "")


def test_ranking_by_pass_at_8_reorders_the_group_and_leaves_short_runs_unranked(rows):
    view = build_view(rows, BoardQuery(benchmark="taobench", track="proofs", headline="pass@8 (tao)"))
    by = _by_name(view)
    broad = sum(pass_at_k(8, c, 8) for c in (2, 2, 2, 1)) / 4
    assert by["broad"].value == pytest.approx(broad) == 1.0 and by["sharp"].value == pytest.approx(0.5)
    assert by["broad"].rank == 1 and by["sharp"].rank == 2
    assert by["broad"].interval is None and by["broad"].item_scores is None  # those describe the stored headline
    # n = 2 cannot estimate pass@8: no value, no rank, and the row says why
    assert by["short"].value is None and by["short"].rank is None
    assert any("pass@8 (tao) is not estimable" in note and "pass@2 (tao) at most" in note for note in by["short"].notes)
    # the paper's row is in a group of its own and keeps its printed headline
    assert by["paper-prover"].metric == "pass@128 (tao)" and by["paper-prover"].value == 0.4
    assert "pass@8 (tao)" in render_board(view)
    exported = {r["model"]: r for r in export_records(view)}
    assert exported["broad"]["metric"] == "pass@8 (tao)" and exported["broad"]["score"] == pytest.approx(1.0)
    # pass@2 is estimable for all three
    two = _by_name(build_view(rows, BoardQuery(benchmark="taobench", track="proofs", headline="pass@2 (tao)")))
    assert two["short"].value == pytest.approx(sum(pass_at_k(2, c, 2) for c in (2, 1, 1, 0)) / 4)


def test_the_headline_travels_in_the_url_and_the_controls(rows):
    query = BoardQuery(benchmark="taobench", track="proofs", headline="pass@8 (tao)")
    assert "headline=pass%408+%28tao%29" in query.query_string()
    assert query_from_params(query.to_params()) == query
    controls, rest = BoardControls.read(["taobench", "proofs", "all", "all", "", "", False, False, "", None,
                                         "pass@8 (tao)", "entry"])
    assert controls.query.headline == "pass@8 (tao)" and rest == ("entry",)
    assert controls.with_params(headline="").query.headline == ""


def test_an_unknown_headline_falls_back_with_a_notice(rows):
    view = build_view(rows, BoardQuery(benchmark="taobench", track="proofs", headline="pass@999 (tao)"))
    assert view.query.headline == "" and _by_name(view)["sharp"].rank == 1
    assert any("pass@999 (tao)" in n for n in view.notices)
