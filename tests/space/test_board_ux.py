"""The board as visitors read it: column labels from the glossary, ranking rules, plots that follow the view,
the retrieval audit (no server; the reported rows come from the papers' pinned transcriptions)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.metrics.glossary import TERMS, describe, glossary_markdown
from lemmata.space.board import BoardQuery, build_view, export_records, load_rows
from lemmata.space.tables import render_board
from lemmata.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reported_store(tmp_path_factory) -> Store:
    from lemmata.space.bootstrap import reported_step

    st = Store(tmp_path_factory.mktemp("reported"))
    reported_step(st)(lambda _: None)
    return st


def _headers(board_html: str) -> list[tuple[str, str]]:
    """``(text, tooltip)`` of every header cell."""
    out = []
    for m in re.finditer(r"<th([^>]*)>(.*?)</th>", board_html):
        text = re.sub(r"<[^>]+>", "", m.group(2)).replace("&#9660;", "").replace("&#9650;", "").strip()
        title = re.search(r' title="([^"]*)"', m.group(1))
        out.append((html.unescape(text), html.unescape(title.group(1) if title else "")))
    return out


def test_every_carded_term_appears_in_its_metric_card():
    for term in TERMS:
        if term.card:
            card = (ROOT / "metrics" / term.card / "README.md").read_text(encoding="utf-8")
            assert f"`{term.as_in_card}`" in card, (term.key, term.card)
    assert len({t.key for t in TERMS}) == len(TERMS)


@pytest.mark.parametrize("benchmark,track", [("mirb", "zero-shot"), ("taobench", "proofs"), ("re2math", "raw"),
                                             ("mathatlas", "statements")])
def test_no_internal_key_is_a_header(reported_store, benchmark, track):
    view = build_view(load_rows(reported_store), BoardQuery(benchmark=benchmark, track=track))
    board = render_board(view)
    headers = _headers(board)
    texts = {t for t, _ in headers}
    for g in view.groups:
        for key in g.diagnostics:
            if key != describe(key).label:  # a key that already reads as English (ToolAcc) may stay
                assert key not in texts, key
            assert any(f"(key: {key})" in tip for _, tip in headers), key
    for raw in ("gap.relative_drop", "gap.difference", "mean_of_printed_cells", "per_dataset.stacks_qa"):
        assert raw not in texts
    assert all(tip for t, tip in headers if t not in ("Model", "#")), headers


def test_taobench_gap_sign_is_stated(reported_store):
    board = render_board(build_view(load_rows(reported_store), BoardQuery(benchmark="taobench", track="proofs")))
    labels = dict(_headers(board))
    assert "Gap (Tao − Mathlib)" in labels and "Relative drop" in labels
    assert "(Mathlib − Tao) / Mathlib" in labels["Relative drop"]
    assert "Tao − Mathlib" in glossary_markdown()


def test_mirb_ranks_by_the_recomputed_average_and_flags_the_printed_one(reported_store):
    view = build_view(load_rows(reported_store), BoardQuery(benchmark="mirb", track="zero-shot"))
    (group,) = view.groups
    flagged = [r for r in group.rows if r.printed is not None and r.printed.disagrees]
    assert flagged, "the transcription has at least one average its cells do not support"
    for r in group.rows:
        assert r.rank_value == pytest.approx(r.metrics["mean_of_printed_cells"])
        better = sum(1 for o in group.rows if o.rank_value > r.rank_value)
        assert r.rank == better + 1
    # a flagged row's printed average would have ranked it differently: the board does not use it
    board = render_board(view)
    assert board.count('class="lm-badge lm-flag"') == len(flagged)
    assert all(f"printed {r.value:.3f}" in board for r in flagged)
    rec = next(x for x in export_records(view) if x["result_id"] == flagged[0].result_id)
    assert rec["printed_disagrees"] is True and rec["ranked_by"] != rec["score"]


def _run(i: int, value: float, flags: dict) -> object:
    return make_result(
        kind="scored", benchmark="re2math", track="theorems",
        frozen=FrozenTuple(dataset_release="re2math-1.0.0", split="theorems/test", retrieval_artifact=None,
                           scoring_artifact="lemmata-retrieval/1", date="2026-11-20"),
        submission_sha256=sha256_bytes(f"run-{i}".encode()), model=ModelInfo(name=f"sys-{i}"), flags=flags,
        main=Score(metric="ndcg@10", value=value, total=10), metrics={"ndcg@10": {"mean": value}})


def test_conditions_show_as_badges_and_split_groups_only_where_they_change_comparability(tmp_path):
    st = Store(tmp_path)
    st.add_result(_run(1, 0.5, {"used_external_data": False, "tuned_on_track_data": False}))
    st.add_result(_run(2, 0.4, {"used_external_data": False, "tuned_on_track_data": True}))
    st.add_result(_run(3, 0.9, {"used_external_data": True, "tuned_on_track_data": False}))
    view = build_view(load_rows(st), BoardQuery(benchmark="re2math", track="theorems"))
    assert len(view.groups) == 2
    plain, external = sorted(view.groups, key=lambda g: g.conditions)
    assert [r.model_name for r in plain.rows] == ["sys-1", "sys-2"] and external.conditions == "with external data"
    assert [r.rank for r in external.rows] == [1]
    board = render_board(view)
    assert board.count(">tuned on track data</span>") == 1 and board.count(">external data</span>") == 1
    assert "declared conditions" in board
    # the split group is addressable like any other
    only = build_view(load_rows(st), BoardQuery(benchmark="re2math", track="theorems", group=external.key))
    assert [g.key for g in only.groups] == [external.key] and not only.notices


def test_entry_column_stays_on_screen(reported_store):
    board = render_board(build_view(load_rows(reported_store), BoardQuery(benchmark="mirb", track="zero-shot")))
    assert '<th class="t lm-entry"' in board and board.count('<td class="t lm-entry">') == 13
    from lemmata.space.tables import BOARD_CSS

    assert re.search(r"td\.lm-entry \{[^}]*position: sticky; right: 0", BOARD_CSS)


def test_about_page_has_the_glossary_and_the_ranking_rules():
    from lemmata.space.about import POLICY_MD, glossary_md

    text = glossary_md()
    for term in TERMS:
        assert f"`{term.key.replace('{k}', 'k')}`" in text
    assert "Declared conditions" in POLICY_MD and "recomputed value" in POLICY_MD


def test_plots_follow_the_view_past_a_pending_group(tmp_path):
    from lemmata.space.plots import forest_svg, plot_group, plot_title, strata_frame

    st = Store(tmp_path)
    pending = make_result(
        kind="scored", benchmark="re2math", track="raw",
        frozen=FrozenTuple(dataset_release="re2math-2.0.0", split="eval200/test", retrieval_artifact="w2",
                           scoring_artifact="judge@v2", date="2026-11-21"),
        submission_sha256=sha256_bytes(b"pending"), model=ModelInfo(name="new-system"),
        main=Score(metric="ToolAcc", value=None, total=200), pending=200, status="pending_oracle")
    st.add_result(pending)
    for i, v in enumerate((0.3, 0.5)):
        st.add_result(make_result(
            kind="reported", benchmark="re2math", track="raw",
            frozen=FrozenTuple(dataset_release="re2math-1.0.0", split="eval200/test", retrieval_artifact="paper",
                               scoring_artifact="paper-judge", date="2026-01-01"),
            submission_sha256=sha256_bytes(b"paper"), model=ModelInfo(name=f"paper-model-{i}"),
            main=Score(metric="ToolAcc", value=v, total=200), metrics={"ToolAcc": {"rate": v}},
            breakdowns={"domain": {"algebra": v, "analysis": v / 2}}))
    view = build_view(load_rows(st), BoardQuery(benchmark="re2math", track="raw"))
    assert view.groups[0].rows[0].model_name == "new-system"  # newest first …
    shown = plot_group(view)
    assert shown is view.groups[1] and len(strata_frame(shown, "domain")) == 4  # … but the plots show the scores
    assert "Nothing to plot" not in forest_svg(list(shown.rows), "ToolAcc")
    # the Source filter changes what is plotted
    scored_only = build_view(load_rows(st), BoardQuery(benchmark="re2math", track="raw", kind="scored"))
    assert "Nothing to plot" in forest_svg(list(plot_group(scored_only).rows), "ToolAcc")
    assert plot_title("ToolAcc", "domain") == "ToolAcc per domain"


def test_mirb_scatter_reads_as_english_and_keeps_every_model(reported_store):
    from lemmata.space.plots import dimensions, forest_svg, plot_group, plot_title, strata_frame

    view = build_view(load_rows(reported_store), BoardQuery(benchmark="mirb", track="zero-shot"))
    group = plot_group(view)
    (dim,) = dimensions(group)
    assert plot_title(group.metric, dim) == "nDCG@10 (MIRB average) per dataset"
    frame = strata_frame(group, dim)
    assert frame["model"].nunique() == 13 and frame["model"].str.len().max() <= 26
    from lemmata.space.plots import legend_html, model_colors

    colors = model_colors(frame)
    assert len(set(colors.values())) == 13 and legend_html(colors).count("<span>") == 13
    svg = forest_svg(list(group.rows), group.metric)
    assert "lines: interval" not in svg and "blue" not in svg and "amber: reported" in svg
    flagged = [r for r in group.rows if r.printed is not None and r.printed.disagrees]
    assert svg.count('fill="none"') == len(flagged) and "red ring" in svg


def test_sort_choices_use_the_labels():
    from lemmata.space.views import sort_choices

    labels = dict(sort_choices(("gap.relative_drop", "attempts.not_submitted"), "rank:asc"))
    assert "Relative drop, highest first" in labels and "Attempts missing, lowest first" in labels
    assert not any(k.startswith("gap.") or k.startswith("attempts.") for k in labels)


def test_every_column_a_board_can_show_has_a_glossary_entry(tmp_path):
    """Every metric key of every paper's reported rows and of the scored results the suite's examples produce is
    defined: no column reads "(no glossary entry)" or a raw key."""
    from lemmata.families import reported_importers
    from lemmata.metrics.glossary import describe
    from lemmata.space.rows import summary_of
    from lemmata.store import Store

    store = Store(tmp_path / "store")
    docs = [r.model_dump(mode="json") for _, importer in reported_importers() for r, _ in importer(store)]
    assert {d["benchmark"] for d in docs} >= {"re2math", "taobench", "mathnet-solve", "mirb", "mathatlas"}
    # the scored Re²Math headline and its companions, as the offline aggregate names them
    keys = {(k, d["main"]["metric"]) for d in docs for k in [d["main"]["metric"], *summary_of(d)["metrics"]]}
    keys |= {(k, "OfflineToolAcc") for k in ("OfflineToolAcc", "SourceAcc", "SuffRate", "AbstentionRate",
                                             "CiteRecall@20")}
    keys |= {(k, "proof_grade") for k in ("proof_grade.micro", "proof_grade.macro", "answer_check")}
    undefined = sorted(k for k, main in keys if "(no glossary entry)" in describe(k, main).definition)
    assert undefined == []


def _static_run(day: int, value: float, *, revision: str = "lemmata 0.1.0", kind: str = "scored") -> object:
    """The static baseline's identity as `lemmata evaluate --model static` declares it, received on ``day``."""
    return make_result(
        kind=kind, benchmark="mathnet-retrieve", track="hard",
        frozen=FrozenTuple(dataset_release="mathnet-retrieve-1.0.0", split="qrels/hard", retrieval_artifact=None,
                           scoring_artifact="lemmata-retrieval/1", date=f"2026-11-{day:02d}"),
        submission_sha256=sha256_bytes(f"static-{day}-{revision}-{kind}".encode()),
        model=ModelInfo(name="Static embeddings (tokenlearn-static-model)", revision=revision),
        main=Score(metric="recall@5", value=value, total=5), metrics={"recall@5": {"mean": value}})


def test_a_system_submitted_twice_is_one_row_its_newest(tmp_path):
    """The same declared system (one model identity) submitted twice in one group shows once — its newest entry,
    not its best — on the board, in the exports and in the cross-benchmark matrix; another revision is another
    system."""
    from lemmata.space.matrix import build_matrix

    st = Store(tmp_path)
    runs = [_static_run(20, 0.8), _static_run(21, 0.6), _static_run(19, 0.7, revision="lemmata 0.2.0")]
    for run in runs:
        st.add_result(run)
    _, newest, other = runs
    view = build_view(load_rows(st), BoardQuery(benchmark="mathnet-retrieve", track="hard"))
    (group,) = view.groups
    assert sorted((r.model_revision, r.value) for r in group.rows) == [("lemmata 0.1.0", 0.6), ("lemmata 0.2.0", 0.7)]
    assert {r.result_id for r in group.rows} == {newest.result_id, other.result_id}
    assert [r.rank for r in group.rows] == [1, 2] and group.total_rows == 2 and view.total == 2
    assert any("1 earlier entry of a system submitted again" in n for n in view.notices)
    assert len(export_records(view)) == 2
    _, models = build_matrix(load_rows(st))
    cells = sorted((m.model.get("revision"), c.value) for m in models for c in m.cells.values())
    assert cells == [("lemmata 0.1.0", 0.6), ("lemmata 0.2.0", 0.7)]


def test_a_reported_row_is_never_merged_with_a_submission_of_the_same_name(tmp_path):
    st = Store(tmp_path)
    st.add_result(_static_run(20, 0.8, kind="reported"))
    st.add_result(_static_run(21, 0.6))
    (group,) = build_view(load_rows(st), BoardQuery(benchmark="mathnet-retrieve", track="hard")).groups
    assert sorted((r.kind, r.value) for r in group.rows) == [("reported", 0.8), ("scored", 0.6)]
