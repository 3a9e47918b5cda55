"""Space logic without a server: grouping and ranking, escaping, exports, configuration, Hub restore, admin."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.board import BoardQuery, build_view, export_records, load_rows, to_csv, to_json
from lemmata.space.config import SpaceConfig, parse_rate
from lemmata.space.safety import csv_cell, esc, link, safe_markdown
from lemmata.space.tables import render_board
from lemmata.store import DURABLE_FOLDERS, Store

EVIL_NAME = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def _result(i: int, value, *, release="re2math-1.0.0", artifact="bm25-v1", scorer="judge-a@v1", kind="scored",
            name=None, url=None, track="raw", pending=0, metrics=None, benchmark="re2math", model=None):
    return make_result(
        kind=kind, benchmark=benchmark, track=track,
        frozen=FrozenTuple(dataset_release=release, split="eval200/test", retrieval_artifact=artifact,
                           scoring_artifact=scorer, date="2026-11-2%d" % (i % 9)),
        submission_sha256=sha256_bytes(f"sub-{i}".encode()),
        # model_construct: a URL the record would refuse, as a tampered mirror could carry; the page must cope
        model=model or ModelInfo.model_construct(name=name or f"model-{i}", url=url, revision=None),
        main=Score(metric="ToolAcc", value=value, interval=(max(0, value - 0.05), value + 0.05) if value else None,
                   interval_kind="wilson95", count=int((value or 0) * 200), total=200),
        metrics=metrics if metrics is not None else {"ground": (value or 0) + 0.1},
        breakdowns={"domain": {"algebra": {"value": 0.3}, "analysis": 0.2}},
        pending=pending, status="pending_oracle" if pending else "complete")


@pytest.fixture
def store(tmp_path) -> Store:
    st = Store(tmp_path / "store")
    rows = [
        _result(1, 0.40), _result(2, 0.55), _result(3, 0.40), _result(4, None, pending=200),
        _result(5, 0.70, release="re2math-0.9.0"),                      # older release: its own group
        _result(6, 0.90, artifact="paper-scholar", scorer="paper-judge", kind="reported"),
        _result(7, 0.99, track="assisted"),
        _result(8, 0.30, name=EVIL_NAME, url="javascript:alert(3)"),
        _result(9, 0.20, name="=HYPERLINK(\"http://x\")", url="https://example.org/a?b=1&c=<2>"),
    ]
    for r in rows:
        st.add_result(r)
    return st


def _view(store, **query):
    return build_view(load_rows(store), BoardQuery(**query), {"re2math": ("raw", "assisted")})


# -- grouping and ranking ------------------------------------------------------------------------
def test_rows_from_different_tuples_are_never_ranked_together(store):
    view = _view(store, benchmark="re2math", track="raw")
    keys = [g.key for g in view.groups]
    assert len(keys) == 3 and len(set(keys)) == 3
    for g in view.groups:
        assert len({r.group_key for r in g.rows}) == 1
        ranks = [r.rank for r in g.rows if r.rank is not None]
        assert ranks and ranks[0] == 1
    main = next(g for g in view.groups if g.frozen["dataset_release"] == "re2math-1.0.0"
                and g.frozen["retrieval_artifact"] == "bm25-v1")
    assert [(r.model_name, r.rank) for r in main.rows][:4] == [
        ("model-2", 1), ("model-1", 2), ("model-3", 2), (EVIL_NAME, 4)]
    assert main.rows[-1].model_name == "model-4" and main.rows[-1].rank is None and main.pending_total == 200
    assert all(r.track == "raw" for r in view.rows)


def test_search_and_filters_narrow_rows_but_never_change_ranks(store):
    view = _view(store, benchmark="re2math", track="raw", search="MODEL-3")
    [row] = view.rows
    assert row.model_name == "model-3" and row.rank == 2
    reported = _view(store, benchmark="re2math", track="raw", kind="reported")
    assert [r.kind for r in reported.rows] == ["reported"]
    one = _view(store, benchmark="re2math", track="raw", group=view.groups[0].key)
    assert len(one.groups) == 1


def test_sorting_by_columns_keeps_missing_values_last(store):
    by_model = _view(store, benchmark="re2math", track="raw", sort="model:desc")
    group = next(g for g in by_model.groups if len(g.rows) > 3)
    names = [r.model_name.casefold() for r in group.rows]
    assert names == sorted(names, reverse=True)
    worst = _view(store, benchmark="re2math", track="raw", sort="rank:desc")
    group = next(g for g in worst.groups if len(g.rows) > 3)
    assert group.rows[-1].rank is None and group.rows[0].rank == max(r.rank for r in group.rows if r.rank)
    diag = _view(store, benchmark="re2math", track="raw", sort="m.ground:desc")
    group = next(g for g in diag.groups if len(g.rows) > 3)
    assert [r.metrics["ground"] for r in group.rows][:2] == [0.65, 0.5]


def test_unknown_view_parameters_fall_back_with_a_notice(store):
    view = _view(store, benchmark="re2mth", track="nope", group="not-a-group", sort="x;drop table")
    assert view.query.benchmark == "re2math" and view.query.track == "assisted" or view.query.track == "raw"
    assert view.query.sort == "rank:asc" and view.query.group == ""
    assert any("re2mth" in n for n in view.notices)


def test_query_string_round_trip():
    from lemmata.space.app import compose_qs, query_from_params

    q = BoardQuery(benchmark="re2math", track="raw", group="a | b | - | c", search="gpt & co", sort="m.ground:desc",
                   kind="reported")
    qs = compose_qs(q, "audit", "e" * 64, "item 1")
    params = dict(re.findall(r"([^?&=]+)=([^&]*)", qs))
    from urllib.parse import unquote_plus

    parsed = {k: unquote_plus(v) for k, v in params.items()}
    assert query_from_params(parsed) == q and parsed["tab"] == "audit" and parsed["item"] == "item 1"
    assert query_from_params({"kind": "<bad>", "group": "all"}) == BoardQuery()


def test_model_filters_round_trip_through_the_url_and_the_controls(store):
    """The Leaderboard's "Open weights only" and "Parameters" controls write ``open`` and ``max_params``, and a URL
    with only those still reopens the board with them set."""
    from urllib.parse import parse_qsl

    from lemmata.space.matrix import SIZE_CHOICES
    from lemmata.space.views import compose_qs, query_from_params, size_choices, tab_from_params

    for open_weights in (False, True):
        for _, ceiling in SIZE_CHOICES:
            q = BoardQuery(benchmark="re2math", track="raw", open_weights=open_weights, max_params=ceiling)
            for tab in ("board", "matrix", "audit"):
                params = dict(parse_qsl(compose_qs(q, tab).lstrip("?")))
                assert query_from_params(params) == q and tab_from_params(params) == tab
                assert ("open" in params) == open_weights and params.get("max_params", "") == ceiling
    alone = compose_qs(BoardQuery(open_weights=True, max_params="1e9"), "board")
    assert alone == "?open=1&max_params=1e9" and tab_from_params(dict(parse_qsl(alone[1:]))) == "board"
    # a ceiling typed into the URL is offered by the menu, so the page can show it; a malformed one is dropped
    assert ("≤ 500M", "5e8") in size_choices("5e8") and size_choices("") == list(SIZE_CHOICES)
    assert query_from_params({"max_params": "<b>"}).max_params == "" and query_from_params({"open": "yes"}) \
        == BoardQuery()


def test_board_controls_read_the_model_filters_and_stale_values(tmp_path):
    """The controls' raw values (no preprocessing) reach the view; a value that is no longer valid filters
    nothing."""
    from types import SimpleNamespace

    from lemmata.space.views import BoardControls

    st = Store(tmp_path)
    models = (ModelInfo(name="small-open", parameters=22_000_000, open_weights=True),
              ModelInfo(name="big-open", parameters=7_000_000_000, open_weights=True),
              ModelInfo(name="closed", parameters=1_000_000, open_weights=False), ModelInfo(name="bare"))
    for i, m in enumerate(models):
        st.add_result(_result(i + 1, 0.1 * (i + 1), model=m))
    ctx = SimpleNamespace(rows=lambda: load_rows(st), catalog=lambda: {"re2math": ("raw",)})

    def view(*filters):
        controls, rest = BoardControls.read(("re2math", "raw", "", "all", "", "", False, *filters, None, "",
                                             "after"))
        assert rest == ("after",)
        return controls.view(ctx)

    def names(open_weights=False, max_params=""):
        return sorted(r.model_name for r in view(open_weights, max_params).rows)

    assert names() == ["bare", "big-open", "closed", "small-open"]
    assert names(True, "") == ["big-open", "small-open"]
    assert names(False, "1e9") == ["closed", "small-open"]
    assert names(True, "1e9") == ["small-open"]
    for stale in (None, ["1e9"], "1e9; drop", 5):
        assert names(False, stale) == names()
    assert view(True, "1e8").query.max_params == "1e8"


def test_a_view_is_built_once_per_query_and_change_token(tmp_path):
    """The timer's second step (plots, downloads) and a control's extras show the view the first step built; a
    stored result moves the change token, so the next view is built again and lists it."""
    from lemmata.space.context import create_context
    from lemmata.space.views import BoardControls

    config = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, releases_root=tmp_path / "releases",
                                  bootstrap=False)
    ctx = create_context(config, stream=io.StringIO())
    ctx.store.add_result(_result(1, 0.4))
    raw, assisted = BoardControls.of("re2math", "raw"), BoardControls.of("re2math", "assisted")
    first = raw.view(ctx)
    assert raw.view(ctx) is first and BoardControls.of("re2math", "raw").view(ctx) is first
    assert assisted.view(ctx) is not first and assisted.view(ctx).query.track == "assisted"
    ctx.store.add_result(_result(2, 0.6))
    again = raw.view(ctx)
    assert again is not first and sorted(r.model_name for r in again.rows) == ["model-1", "model-2"]


# -- escaping ---------------------------------------------------------------------------------------
def test_model_names_and_urls_are_escaped_in_the_board(store):
    html = render_board(_view(store, benchmark="re2math", track="raw"))
    assert "<img" not in html and "<script" not in html and "javascript:" not in html
    assert esc(EVIL_NAME) in html
    assert 'href="https://example.org/a?b=1&amp;c=&lt;2&gt;"' not in html  # '<' in a URL: not linked at all
    assert "=HYPERLINK(&quot;http://x&quot;)" in html


def test_link_and_markdown_neutralisation():
    assert link("x", "https://ok.example/p?a=1&b=2") == (
        '<a href="https://ok.example/p?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">x</a>')
    assert link('"><b>', "data:text/html,<script>") == "&quot;&gt;&lt;b&gt;"
    md = safe_markdown('<iframe src="javascript:alert(1)"></iframe> [x](javascript:alert(1)) '
                       "[y](JaVaScRiPt:alert(1)) `<b>code</b>` <a href=x onclick=y>z</a>\n> quote <b>")
    assert "<iframe" not in md and "<a " not in md and "(javascript:" not in md.lower()
    assert "`<b>code</b>`" in md and md.splitlines()[1].startswith("> quote &lt;b&gt;")


def test_audit_view_escapes_handler_markdown(tmp_path):
    from lemmata.space.audit import SubmissionCache, render_audit

    st = Store(tmp_path)
    r = _result(1, 0.5, name="**bold** <script>x</script>", benchmark="mathnet-retrieve")
    r = r.model_copy(update={"items": [{"item_id": "i<1>", "reason": "<img src=x onerror=alert(1)>"}]}).finalized()
    st.add_result(r)
    md = render_audit(st, SubmissionCache(st), r.result_id, "i<1>")
    fenced = md.split("```")[1]  # the default audit shows the item record as a JSON code block
    outside = md.replace(fenced, "")
    assert '"reason": "<img src=x onerror=alert(1)>"' in fenced  # literal inside a code block
    assert "<img" not in outside and "<script" not in outside and "\\*\\*bold\\*\\*" in outside
    assert "no item" in render_audit(st, SubmissionCache(st), r.result_id, "missing")
    assert "No entry" in render_audit(st, SubmissionCache(st), "0" * 64, None)


# -- exports ------------------------------------------------------------------------------------------
def test_csv_export_neutralises_formulas_and_keeps_numbers(store):
    view = _view(store, benchmark="re2math", track="raw")
    text = to_csv(export_records(view))
    rows = list(csv.DictReader(io.StringIO(text)))
    names = {r["model"] for r in rows}
    assert "'=HYPERLINK(\"http://x\")" in names
    for r in rows:
        for value in r.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")) and not re.match(r"^-[^0-9.]", value)
    assert all(r["group"] and r["dataset_release"] for r in rows)
    assert [csv_cell(v) for v in ("-1", "+x", "@x", "\tx", "\rx")] == ["'-1", "'+x", "'@x", "'\tx", "'\rx"]


def test_json_export_keeps_groups_apart(store):
    doc = json.loads(to_json(_view(store, benchmark="re2math", track="raw")))
    assert len(doc["groups"]) == 3
    for g in doc["groups"]:
        assert {r["group"] for r in g["rows"]} == {g["group"]}


# -- plots ----------------------------------------------------------------------------------------------
def test_plots_read_breakdowns_and_escape_labels(store):
    from lemmata.space.plots import dimensions, forest_svg, strata_frame

    view = _view(store, benchmark="re2math", track="raw")
    group = next(g for g in view.groups if len(g.rows) > 3)
    assert dimensions(group) == ["domain"]
    frame = strata_frame(group, "domain")
    scored = sum(r.value is not None for r in group.rows)  # a row with no score yet is not plotted
    assert set(frame["stratum"]) == {"algebra", "analysis"} and len(frame) == 2 * scored == 10
    svg = forest_svg(list(group.rows), "ToolAcc")
    assert "<script" not in svg and "&lt;img" in svg and svg.count("<circle") == 5


# -- configuration ------------------------------------------------------------------------------------
def test_config_defaults_are_local_and_safe(tmp_path):
    cfg = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)})
    assert cfg.host == "127.0.0.1" and not cfg.hosted and cfg.hub_sync is None and cfg.admin_token is None
    assert cfg.store_root == tmp_path / "store" and cfg.releases_root == tmp_path / "releases"
    assert cfg.rate_limit == parse_rate("5/1d")
    assert cfg.problems() == [] and "LEMMATA_ADMIN_TOKEN" in cfg.admin_note()


def test_config_on_a_hosted_space(tmp_path):
    env = {"LEMMATA_HOME": str(tmp_path), "SPACE_ID": "lemmata/leaderboard", "SPACE_AUTHOR_NAME": "lemmata",
           "LEMMATA_RESULTS_REPO": "lemmata/leaderboard-results", "LEMMATA_SYNC_MINUTES": "2",
           "LEMMATA_ADMINS": "alice, bob", "LEMMATA_RATE_LIMIT": "3/1h"}
    cfg = SpaceConfig.from_env(env)
    assert cfg.hosted and cfg.hub_sync.repo_id == "lemmata/leaderboard-results" and cfg.hub_sync.every_minutes == 2
    assert not cfg.hub_sync.private and cfg.admin_users == ("lemmata", "alice", "bob") and cfg.problems() == []
    assert SpaceConfig.from_env({**env, "LEMMATA_RESULTS_PRIVATE": "1"}).hub_sync.private  # the documented opt-out
    assert cfg.rate_limit.max_count == 3 and cfg.rate_limit.window_s == 3600
    local = SpaceConfig.from_env({**env, "SPACE_ID": ""})
    assert local.hub_sync is None  # locally nothing is mirrored, even with a repository configured
    bare = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path), "SPACE_ID": "x/y"})
    assert any("LEMMATA_RESULTS_REPO" in p for p in bare.problems())


def test_config_errors_name_each_variable(tmp_path):
    with pytest.raises(InputError) as err:
        SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path), "SPACE_ID": "x/y", "LEMMATA_RESULTS_REPO": "no-owner",
                              "LEMMATA_RATE_LIMIT": "lots", "LEMMATA_MAX_SUBMISSION_BYTES": "1MB",
                              "LEMMATA_RESULTS_PRIVATE": "maybe"})
    fields = {p.field for p in err.value.problems}
    assert fields == {"LEMMATA_RESULTS_REPO", "LEMMATA_RATE_LIMIT", "LEMMATA_MAX_SUBMISSION_BYTES",
                      "LEMMATA_RESULTS_PRIVATE"}


# -- Hub mirror --------------------------------------------------------------------------------------------
def test_scheduler_mirrors_only_immutable_files(tmp_path):
    from fnmatch import fnmatch

    from lemmata.space.config import HubSyncConfig
    from lemmata.space.hub_sync import ALLOW_PATTERNS, IGNORE_PATTERNS, start_scheduler

    seen = {}

    class Recorder:
        def __init__(self, **kwargs):
            seen.update(kwargs)

    start_scheduler(Store(tmp_path), HubSyncConfig(repo_id="o/r", every_minutes=3), scheduler_cls=Recorder)
    assert seen["repo_type"] == "dataset" and seen["every"] == 3 and seen["private"] is False
    assert {p.split("/")[0] for p in seen["allow_patterns"]} == set(DURABLE_FOLDERS)

    def pushed(path: str) -> bool:
        return any(fnmatch(path, p) for p in ALLOW_PATTERNS) and not any(fnmatch(path, p) for p in IGNORE_PATTERNS)

    assert pushed("results/re2math/abc.json") and pushed("submissions/abc.meta.json")
    assert pushed("moderation/20261121T1-abc.json")
    assert not pushed("leaderboard.sqlite3") and not pushed("results/re2math/.tmp-x1")


# -- admin ----------------------------------------------------------------------------------------------
def test_admin_needs_the_token_locally_and_the_owner_when_hosted(tmp_path, store):
    from lemmata.space.admin import NotAuthorized, authorize, moderate

    local = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path), "LEMMATA_ADMIN_TOKEN": "s3cret"})
    assert authorize(local, token="s3cret") == "admin-token"
    for bad in ("", "s3cre", "s3cret ", None):
        with pytest.raises(NotAuthorized):
            authorize(local, token=bad)
    with pytest.raises(NotAuthorized, match="disabled"):
        authorize(SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}), token="anything")
    hosted = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path), "SPACE_ID": "o/s", "SPACE_AUTHOR_NAME": "owner",
                                   "LEMMATA_ADMIN_TOKEN": "s3cret"})
    assert authorize(hosted, username="owner") == "hub:owner"
    with pytest.raises(NotAuthorized, match="owns this Space"):
        authorize(hosted, token="s3cret", username="visitor")

    rid = store.result_rows()[0]["result_id"]
    assert "hidden" in moderate(store, local, "hide", rid, "spam", token="s3cret")
    assert store.is_hidden(rid) and rid not in {r["result_id"] for r in store.result_rows()}
    moderate(store, local, "unhide", rid, token="s3cret")
    assert not store.is_hidden(rid)
    with pytest.raises(NotAuthorized):
        moderate(store, local, "hide", rid, token="wrong")
    assert [e["action"] for e in store.events(3)][:2] == ["unhide", "hide"]


# -- bootstrap ------------------------------------------------------------------------------------------
def test_bootstrap_reports_every_step_and_keeps_going(tmp_path):
    from lemmata.space.bootstrap import Bootstrap, Skip, Step

    out = io.StringIO()

    def fails(report):
        report("half way")
        raise RuntimeError("source unavailable")

    def skips(report):
        raise Skip("nothing to do")

    boot = Bootstrap([Step("a", "first", lambda report: "ok"), Step("b", "second", fails),
                      Step("c", "third", skips), Step("d", "fourth", lambda report: None, blocks_submissions=True)],
                     stream=out)
    assert "Preparing" in boot.render_html() and boot.submissions_blocked()
    boot.run()
    assert [s.status for s in boot.steps] == ["done", "failed", "skipped", "done"]
    log = out.getvalue()
    assert "[2/4] second: failed — RuntimeError: source unavailable" in log and "[2/4]   half way" in log
    assert boot.submissions_blocked() is None and "1 step(s) had problems" in boot.render_html()


def test_release_step_skips_built_releases(tmp_path):
    from lemmata.families import builder_classes
    from lemmata.space.bootstrap import Skip, release_step

    for cls in builder_classes():
        folder = tmp_path / cls.meta.release_id
        folder.mkdir()
        (folder / "MANIFEST.json").write_text("{}")
    with pytest.raises(Skip, match="already built"):
        release_step(tmp_path)(lambda text: None)


def test_release_step_reports_unreachable_hub_releases_as_unavailable_not_failed(tmp_path, monkeypatch):
    """Offline, Hub-only releases cannot be fetched: the step completes and names them, without a failure."""
    from lemmata.families import builder_classes
    from lemmata.space.bootstrap import release_step

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub_only = []
    for family in [None]:
        for cls in builder_classes(family):
            if cls.meta.hub:
                hub_only.append(cls.meta.release_id)
                continue
            folder = tmp_path / cls.meta.release_id
            folder.mkdir()
            (folder / "MANIFEST.json").write_text("{}")
    assert hub_only
    reports: list[str] = []
    summary = release_step(tmp_path)(reports.append)
    # progress never lingers on "building" a release the step has moved past
    assert reports and not reports[-1].startswith("building")
    assert all(f"{r.split()[1]} not available here" in " ".join(reports[i + 1:i + 2])
               for i, r in enumerate(reports) if r.startswith("building"))
    assert f"{len(hub_only)} Hub-only release(s) not available here" in summary
    for release_id in hub_only:
        assert release_id in summary and not (tmp_path / release_id).exists()


def test_long_groups_list_their_first_rows_and_offer_the_rest(tmp_path):
    from lemmata.space.tables import ROW_LIMIT

    st = Store(tmp_path)
    for i in range(ROW_LIMIT + 5):
        st.add_result(_result(i, 0.001 * i, name=f"m{i:03d}"))
    rows = load_rows(st)
    short = render_board(build_view(rows, BoardQuery(benchmark="re2math", track="raw")))
    assert short.count('data-audit="') == ROW_LIMIT and 'data-rows="all"' in short
    assert f"The first {ROW_LIMIT} of {ROW_LIMIT + 5} rows" in short
    full = render_board(build_view(rows, BoardQuery(benchmark="re2math", track="raw", show_all=True)))
    assert full.count('data-audit="') == ROW_LIMIT + 5 and 'data-rows="top"' in full
    found = build_view(rows, BoardQuery(benchmark="re2math", track="raw", search="m000"))
    assert [r.rank for r in found.rows] == [ROW_LIMIT + 5]  # search reaches beyond the listed rows
    assert BoardQuery(show_all=True).query_string() == "?all=1"


def test_space_readme_front_matter_and_requirements():
    import yaml

    from lemmata.core.paths import repo_root

    text = (repo_root() / "space" / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---")[1])
    assert front["sdk"] == "gradio" and front["app_file"] == "space/app.py" and front["hf_oauth"] is True
    assert (repo_root() / front["app_file"]).is_file()
    import gradio

    assert front["sdk_version"].split(".")[0] == gradio.__version__.split(".")[0]
    requirements = (repo_root() / "space" / "requirements.txt").read_text(encoding="utf-8")
    assert any(line.startswith("lemmata[space]") for line in requirements.splitlines())
    entry = (repo_root() / "space" / "app.py").read_text(encoding="utf-8")
    assert "from lemmata.space.app import serve" in entry and len(entry.splitlines()) < 20  # thin


def test_hosted_app_moderates_by_hub_login_not_by_token(tmp_path, monkeypatch):
    import inspect

    import gradio as gr

    from lemmata.space.app import build_app
    from lemmata.space.context import create_context

    config = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path), "SPACE_ID": "o/s", "SPACE_AUTHOR_NAME": "o",
                                   "LEMMATA_RESULTS_REPO": "o/results", "LEMMATA_ADMIN_TOKEN": "leaked"})
    assert config.host == "0.0.0.0" and config.hub_sync is not None
    # Gradio's own OAuth routes need the Space's OAuth client (and gradio[oauth], which the Space's
    # requirements install); what is tested here is which controls and handlers this app wires up
    monkeypatch.setattr("gradio.routes.attach_oauth", lambda app: None)
    demo = build_app(create_context(config, stream=io.StringIO()))
    blocks = list(demo.blocks.values())
    assert any(isinstance(b, gr.LoginButton) for b in blocks)
    assert not any(isinstance(b, gr.Textbox) and b.label == "Admin token" for b in blocks)
    hide = next(fn for fn in demo.fns.values() if fn.fn is not None and fn.fn.__name__ == "run_hosted")
    assert any(p.annotation in (gr.OAuthProfile | None,) for p in inspect.signature(hide.fn).parameters.values())
    requirements = (Path(__file__).resolve().parents[2] / "space" / "requirements.txt").read_text()
    assert "gradio[oauth]" in requirements  # LoginButton needs Gradio's OAuth extra on a Space


def test_reported_rows_are_imported_once_as_reported(tmp_path):
    from lemmata.families import reported_importers
    from lemmata.space.bootstrap import Skip, reported_step

    st = Store(tmp_path)
    lines: list[str] = []
    detail = reported_step(st)(lines.append)
    rows = st.result_rows()
    assert detail == f"{len(rows)} reported row(s) added" and len(lines) == len(reported_importers())
    assert {r["kind"] for r in rows} == {"reported"}
    assert {"re2math", "taobench", "mirb", "mathnet-retrieve", "mathatlas"} <= {r["benchmark"] for r in rows}
    with pytest.raises(Skip, match="already present"):
        reported_step(st)(lines.append)
    assert len(st.result_rows()) == len(rows)


def test_matrix_keeps_tracks_that_share_a_frozen_tuple_apart():
    """Re²Math's raw and assisted renderings share one frozen tuple: each column ranks its own track's rows (the
    assisted column once showed the raw entries and lost its own)."""
    from lemmata.space.board import BoardRow
    from lemmata.space.matrix import build_matrix

    def row(model: str, track: str, value: float) -> BoardRow:
        return BoardRow(result_id=f"{model}-{track}", submission_sha256="0" * 64, kind="scored", benchmark="re2math",
                        track=track, group_key="re2math-1.0.0 | eval200/test | world | judge", frozen={},
                        model_name=model, model_url=None, model_revision=None, metric="offline_tool_acc",
                        value=value, interval=None, interval_kind=None, count=None, total=None, pending=0,
                        status="complete", scored_at="2026-11-01T00:00:00+00:00", version=1, metrics={},
                        breakdowns={}, notes=(), model={"name": model})

    columns, models = build_matrix([row("raw-a", "raw", 0.2), row("raw-b", "raw", 0.1),
                                    row("helped", "assisted", 0.3)])
    assert [(c.benchmark, c.track) for c in columns] == [("re2math", "assisted"), ("re2math", "raw")]
    cells = {m.name: m.cells for m in models}
    assert set(cells["helped"]) == {("re2math", "assisted")} and cells["helped"][("re2math", "assisted")].of == 1
    assert cells["raw-a"][("re2math", "raw")].rank == 1 and cells["raw-b"][("re2math", "raw")].of == 2
    assert ("re2math", "assisted") not in cells["raw-a"]


def test_usage_columns_sort_with_unreported_values_last():
    from dataclasses import replace

    from lemmata.space.board import parse_sort, row_from_index, sort_rows

    base = {"submission_sha256": "0" * 64, "kind": "scored", "benchmark": "b", "track": "t", "group_key": "g",
            "main_value": .5, "pending": 0, "status": "complete", "scored_at": "", "version": 1}
    rows = [replace(row_from_index({**base, "result_id": rid, "model_name": rid}), usage=usage) for rid, usage in
            (("a", {"cost": 0.5}), ("b", {}), ("c", {"cost": 2.0}), ("d", {"cost": True}))]
    assert parse_sort("u.cost:desc") == ("u.cost", True) and parse_sort("u.nothing:asc") == ("rank", False)
    assert [r.result_id for r in sort_rows(rows, "u.cost:desc")][:2] == ["c", "a"]
    assert [r.result_id for r in sort_rows(rows, "u.cost:asc")][:2] == ["a", "c"]  # b and d report no number


def test_the_queue_rebuilds_gradios_monitoring_summary_only_once_per_thousand_events(monkeypatch):
    """Gradio's default rebuilds its monitoring summary (a pandas table of every past event) after each event; the
    app's queue does it once per MONITORING_SUMMARY_EVERY events, and an operator's own setting still wins."""
    import gradio as gr

    from lemmata.space.app import MONITORING_SUMMARY_EVERY, queued

    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1")  # recorded, so the variable is restored after
    monkeypatch.delenv("GRADIO_ANALYTICS_CACHE_FREQUENCY")
    with gr.Blocks() as plain:
        gr.Markdown("plain")
    plain.queue()
    assert plain._queue.ANAYLTICS_CACHE_FREQUENCY == 1  # Gradio's default: the reason for the setting
    with gr.Blocks() as demo:
        gr.Markdown("app")
    assert queued(demo) is demo
    assert demo._queue.ANAYLTICS_CACHE_FREQUENCY == MONITORING_SUMMARY_EVERY == 1000
    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "7")
    with gr.Blocks() as operated:
        gr.Markdown("operator")
    assert queued(operated)._queue.ANAYLTICS_CACHE_FREQUENCY == 7
