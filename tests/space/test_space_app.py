"""The space launched on 127.0.0.1: its API through gradio_client, and the page in a real headless Chromium.

One app serves every test in this module (it starts once; the machine has two
cores). Submissions are real MathNet-Retrieve runs scored against the release
built from the upstream-layout fixture, so nothing here needs an oracle or the
network. Screenshots go to ``test-output/space/`` (git-ignored).
"""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
from browser_upload import set_upload

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.store import RateLimit

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hub"
RELEASE = "mathnet-retrieve-1.0.0"
SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "space"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
EVIL = '<img src=x onerror="window.__pwned=1">'
ADMIN_TOKEN = "test-admin-token"


def mathnet_file(model: str, *, hits: int = 3, tier: str = "hard") -> bytes:
    """A valid run: the relevant document first for the first ``hits`` queries, last for the others."""
    from lemmata.benchmarks.mathnet.track import tier_collection

    coll = tier_collection(RELEASE, tier)
    docs = sorted(coll.corpus)
    lines = [{"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": RELEASE, "track": tier,
              "model": {"name": model}}]
    for i, qid in enumerate(sorted(coll.queries)):
        relevant = next(iter(coll.qrels[qid]))
        others = [d for d in docs if d != relevant][:9]
        ranked = [relevant] + others if i < hits else others + [relevant]
        lines.append({"query_id": qid, "ranking": [{"doc_id": d, "score": 10.0 - j} for j, d in enumerate(ranked)]})
    return "".join(json.dumps(x) + "\n" for x in lines).encode()


def broken_file() -> bytes:
    good = mathnet_file("broken").decode().splitlines()
    rows = [good[0], json.dumps({"query_id": "no-such-query", "ranking": []}),
            json.dumps({"query_id": json.loads(good[1])["query_id"], "ranking": [{"doc_id": "no-such-doc", "score": 1}]})]
    return ("\n".join(rows) + "\n").encode()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.core.paths import releases_dir
    from lemmata.space.app import build_app, launch_kwargs, queued
    from lemmata.space.config import SpaceConfig
    from lemmata.space.context import create_context

    if not (releases_dir() / RELEASE).is_dir():
        MathNetRetrieveBuilder(source_dir=FIXTURES / "MathNet-Retrieve").build(releases_dir(), quiet=True)
    home = tmp_path_factory.mktemp("space-home")
    config = SpaceConfig.from_env({"LEMMATA_HOME": str(home)}, releases_root=releases_dir(), bootstrap=False,
                                  rate_limit=RateLimit(1000, 3600), refresh_seconds=1.0, worker_poll_seconds=0.5,
                                  admin_token=ADMIN_TOKEN)
    log = io.StringIO()
    ctx = create_context(config, stream=log)
    ctx.start(background=False)
    # the last step, reading results reported on the Hub, is skipped: the suite runs with HF_HUB_OFFLINE=1
    assert [s.status for s in ctx.bootstrap.steps] == ["skipped", "done", "done", "skipped", "skipped", "done",
                                                       "done", "skipped", "skipped", "skipped"], log.getvalue()
    demo = queued(build_app(ctx))
    _, url, _ = demo.launch(server_name="127.0.0.1", server_port=_free_port(), prevent_thread_lock=True, quiet=True,
                            **launch_kwargs(ctx))
    yield SimpleNamespace(ctx=ctx, url=url.rstrip("/"), demo=demo, home=home)
    demo.close()
    ctx.stop()


@pytest.fixture(scope="module")
def client(space):
    from gradio_client import Client

    return Client(space.url, verbose=False)


def _upload(client, tmp_path: Path, data: bytes, name: str = "run.jsonl", submitter: str = "Ada Lovelace"):
    from gradio_client import handle_file

    path = tmp_path / name
    path.write_bytes(data)
    html, outcome = client.predict(handle_file(str(path)), submitter, "ada@example.org", "notes", api_name="/submit")
    return html, outcome


def _wait_scored(client, sha: str, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status = client.predict(sha, api_name="/submission_status")
        if status["status"] in ("scored", "pending_oracle", "failed") or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


# -- through gradio_client ------------------------------------------------------------------------
def test_broken_upload_lists_every_problem_and_stores_nothing(space, client, tmp_path):
    before = len(space.ctx.store.list_submissions())
    html, outcome = _upload(client, tmp_path, broken_file(), "broken.jsonl")
    assert outcome["outcome"] == "invalid" and outcome["sha256"] is None
    lines = {(p["line"], p["field"]) for p in outcome["problems"]}
    assert {2, 3} <= {line for line, _ in lines} and all(p["file"] == "broken.jsonl" for p in outcome["problems"])
    assert "no-such-query" in html and "<th>Line</th>" in html
    assert len(space.ctx.store.list_submissions()) == before


def test_missing_submitter_is_a_form_problem(space, client, tmp_path):
    _, outcome = _upload(client, tmp_path, mathnet_file("anonymous-model"), submitter="  ")
    assert outcome["outcome"] == "invalid" and [p["field"] for p in outcome["problems"]] == ["submitter"]
    assert space.ctx.store.get_submission(sha256_bytes(mathnet_file("anonymous-model"))) is None


def test_valid_upload_is_scored_ranked_and_auditable(space, client, tmp_path):
    data = mathnet_file("api-model", hits=4)
    html, outcome = _upload(client, tmp_path, data)
    assert outcome["outcome"] == "created" and outcome["sha256"] == sha256_bytes(data)
    assert "queued for scoring" in html
    status = _wait_scored(client, outcome["sha256"])
    assert status["status"] == "scored" and len(status["result_ids"]) == 1
    board = client.predict("mathnet-retrieve", "hard", "", "all", "api-model", "rank:asc", api_name="/leaderboard")
    [group] = board["groups"]
    [row] = group["rows"]
    assert row["model"] == "api-model" and row["kind"] == "scored" and row["score"] == pytest.approx(4 / 5)
    assert group["frozen"]["dataset_release"] == RELEASE and row["result_id"] == status["result_ids"][0]
    result = space.ctx.store.get_result(row["result_id"])
    item = result.items[0]["item_id"]
    audit = client.predict(row["result_id"], item, api_name="/audit")
    assert "api\\-model" in audit and item in audit and RELEASE in audit  # markdown-escaped name


def test_duplicate_upload_points_to_the_existing_entry(space, client, tmp_path):
    data = mathnet_file("dup-model")
    _, first = _upload(client, tmp_path, data, "first.jsonl")
    _wait_scored(client, first["sha256"])
    count = len(space.ctx.store.list_submissions())
    html, again = _upload(client, tmp_path, data, "second-name.jsonl", submitter="Someone Else")
    assert again["outcome"] == "duplicate" and again["sha256"] == first["sha256"] and again["result_ids"]
    assert "already submitted" in html and len(space.ctx.store.list_submissions()) == count


def test_parallel_submissions_are_each_stored_exactly_once(space, tmp_path):
    """24 distinct files, each uploaded twice at the same moment: 24 entries, no more, no fewer."""
    from gradio_client import Client, handle_file

    files = {}
    for i in range(24):
        path = tmp_path / f"parallel-{i}.jsonl"
        path.write_bytes(mathnet_file(f"parallel-model-{i}", hits=i % 6))
        files[i] = path
    before = {s.sha256 for s in space.ctx.store.list_submissions(limit=10_000)}
    local = threading.local()
    start = threading.Barrier(16)

    def send(i: int) -> dict:
        if not hasattr(local, "client"):
            local.client = Client(space.url, verbose=False)
            start.wait(timeout=60)
        _, outcome = local.client.predict(handle_file(str(files[i])), f"team-{i}", "", "", api_name="/submit")
        return outcome

    with ThreadPoolExecutor(max_workers=16) as pool:
        outcomes = list(pool.map(send, [i for i in range(24) for _ in range(2)]))
    by_sha: dict[str, list[str]] = {}
    for o in outcomes:
        by_sha.setdefault(o["sha256"], []).append(o["outcome"])
    assert len(by_sha) == 24 and all(sorted(v) == ["created", "duplicate"] for v in by_sha.values())
    store = space.ctx.store
    after = {s.sha256 for s in store.list_submissions(limit=10_000)}
    assert after - before == set(by_sha)
    assert all(store.submission_path(sha).read_bytes() == files[i].read_bytes()
               for i, sha in ((i, sha256_bytes(files[i].read_bytes())) for i in files))
    assert len(list(store.submissions_dir.glob("*.meta.json"))) == len(after)
    from gradio_client import Client as Fresh

    _, dup = Fresh(space.url, verbose=False).predict(handle_file(str(files[0])), "late", "", "", api_name="/submit")
    assert dup["outcome"] == "duplicate" and {s.sha256 for s in store.list_submissions(limit=10_000)} == after


# -- in a real browser ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _page(browser):
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("dialog", lambda dialog: (page.errors.append("dialog: " + dialog.message), dialog.dismiss()))
    return page


def _shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.mark.browser
def test_browser_submit_see_errors_then_row_then_audit(space, browser, tmp_path):
    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=hard")
    page.wait_for_selector("#lm-board .lm-board", timeout=30_000)

    page.get_by_role("tab", name="Submit").click()
    page.wait_for_function("() => window.location.search.includes('tab=submit')", timeout=10_000)
    bad = tmp_path / "broken-run.jsonl"
    bad.write_bytes(broken_file())
    set_upload(page, bad)
    page.locator("#lm-submitter textarea, #lm-submitter input").first.fill("Browser Team")
    page.locator("#lm-submit").click()
    errors = page.locator("#lm-outcome .lm-errors")
    errors.wait_for(timeout=15_000)
    text = errors.inner_text()
    assert "no-such-query" in text and "broken-run.jsonl" in text and "2" in text
    _shot(page, "1-broken-upload-errors")

    assert page.errors == []
    page.close()

    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=hard&tab=submit")
    page.locator("#lm-upload input[type=file]").wait_for(state="attached", timeout=30_000)
    good = tmp_path / "browser-run.jsonl"
    good.write_bytes(mathnet_file("browser-model", hits=5))
    set_upload(page, good)
    page.locator("#lm-submitter textarea, #lm-submitter input").first.fill("Browser Team")
    page.locator("#lm-submit").click()
    page.locator("#lm-outcome .lm-ok").wait_for(timeout=15_000)
    page.get_by_role("tab", name="Leaderboard").click()
    row = page.locator("#lm-board tr", has_text="browser-model")
    row.wait_for(timeout=20_000)
    assert "scored here" in row.inner_text() and "1.000" in row.inner_text()
    _shot(page, "2-new-row-on-the-leaderboard")

    row.locator("[data-audit]").click()
    page.locator("#lm-audit").get_by_text("Item").first.wait_for(timeout=15_000)
    audit = page.locator("#lm-audit").inner_text()
    assert "browser-model" in audit and RELEASE in audit
    page.wait_for_function("() => /tab=audit&entry=[0-9a-f]{64}/.test(window.location.search)", timeout=10_000)
    _shot(page, "3-audit-view")
    assert page.errors == []
    page.close()


def _add_reported(space, tier: str, date: str, names: tuple[str, ...]) -> None:
    """Reported MathNet-Retrieve rows of ``tier``, one per model name, scored 0.1, 0.2, … in that order."""
    for i, name in enumerate(names):
        space.ctx.store.add_result(make_result(
            kind="reported", benchmark="mathnet-retrieve", track=tier,
            frozen=FrozenTuple(dataset_release=RELEASE, split=f"qrels/{tier}", retrieval_artifact=None,
                               scoring_artifact="paper", date=date),
            submission_sha256=sha256_bytes(name.encode()), model=ModelInfo(name=name),
            main=Score(metric="recall@5", value=0.1 * (i + 1))))


@pytest.mark.browser
def test_browser_url_reopens_the_same_view_and_stays_in_sync(space, browser):
    _add_reported(space, "hard", "2026-01-02", ("url-model-b", "url-model-a", "url-model-c", "other-model"))
    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=hard")
    page.wait_for_selector("#lm-board .lm-board", timeout=30_000)
    search = page.locator("#lm-search textarea, #lm-search input").first
    search.press_sequentially("url-model", delay=20)
    page.wait_for_function("() => window.location.search.includes('search=url-model')", timeout=10_000)
    page.locator("#lm-board button[data-sort^='model']").first.click()
    page.wait_for_function("() => window.location.search.includes('sort=model')", timeout=10_000)
    url = page.url
    page.close()

    again = _page(browser)
    again.goto(url)
    again.wait_for_selector("#lm-board .lm-board", timeout=30_000)
    assert again.locator("#lm-search textarea, #lm-search input").first.input_value() == "url-model"
    # the page is painted with the default view and its load event draws the URL's: wait for that draw. (A refresh
    # tick that fired before the load event had drawn once put the default view back for good; ticks now wait for
    # that first draw: lemmata.space.views.tick_renders)
    again.wait_for_function("() => { const c = [...document.querySelectorAll('#lm-board td.lm-model')];"
                            " return c.length > 0 && c.every(td => td.innerText.includes('url-model')); }",
                            timeout=30_000)
    names = again.locator("#lm-board td.lm-model").all_inner_texts()
    assert len(names) == 3 and all("url-model" in n for n in names)
    assert names == sorted(names)  # model A→Z, as the URL says
    assert again.errors == []
    again.close()


@pytest.mark.browser
def test_browser_url_view_survives_ticks_that_fire_before_the_load_draws(space, browser, monkeypatch):
    """A refresh tick (every 1 s here) that fires while the load event still runs reads the default controls; when
    it answers after the load event has drawn the URL's view, it must not draw the default view over it (it did, and
    stored a current token, so no later tick corrected it). Here the load event takes 1.5 s and each tick 5 s."""
    import traceback

    import lemmata.space.app as app_module

    _add_reported(space, "easy", "2026-01-03", ("slow-model-b", "slow-model-a", "unsearched-model"))
    real_tab, real_token = app_module.tab_from_params, space.ctx.change_token

    def slow_tab(params):  # the load event's first step
        time.sleep(1.5)
        return real_tab(params)

    def slow_token():  # a tick's first step
        if traceback.extract_stack(limit=2)[0].name == "on_tick":
            time.sleep(5.0)
        return real_token()

    monkeypatch.setattr(app_module, "tab_from_params", slow_tab)
    monkeypatch.setattr(space.ctx, "change_token", slow_token)
    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=easy&search=slow-model")
    page.wait_for_function("() => { const c = [...document.querySelectorAll('#lm-board td.lm-model')];"
                           " return c.length > 0 && c.every(td => td.innerText.includes('slow-model')); }",
                           timeout=30_000)
    page.wait_for_timeout(7_000)  # the ticks fired during the load event have answered by now
    monkeypatch.setattr(app_module, "tab_from_params", real_tab)
    monkeypatch.setattr(space.ctx, "change_token", real_token)
    names = page.locator("#lm-board td.lm-model").all_inner_texts()
    assert len(names) == 2 and all("slow-model" in n for n in names), names
    assert page.errors == []
    page.close()


@pytest.mark.browser
def test_browser_a_tick_answering_after_a_control_change_draws_the_new_view(space, browser, monkeypatch):
    """A refresh tick fires (the store changed, so it will draw), the visitor picks another track while it runs,
    and the tick answers after that pick: it draws the view the page was last drawn with (the new track), not the
    one its controls showed when it fired. Each tick takes 2.5 s here, a pick a fraction of a second."""
    import traceback

    _add_reported(space, "medium", "2026-01-04", ("tick-model-m",))
    _add_reported(space, "hard", "2026-01-04", ("tick-model-h",))
    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=medium&search=tick-model")
    page.locator("#lm-board td.lm-model", has_text="tick-model-m").wait_for(timeout=30_000)
    real_token = space.ctx.change_token

    def slow_token():  # a tick's first step
        if traceback.extract_stack(limit=2)[0].name == "on_tick":
            time.sleep(2.5)
        return real_token()

    monkeypatch.setattr(space.ctx, "change_token", slow_token)
    _add_reported(space, "easy", "2026-01-04", ("tick-model-store-change",))  # the next ticks draw
    page.wait_for_timeout(1_500)  # a tick has fired and sleeps
    page.locator("#lm-track input").first.click()
    page.locator("#lm-track [role=option]", has_text="hard").first.click()
    page.locator("#lm-board td.lm-model", has_text="tick-model-h").wait_for(timeout=10_000)
    page.wait_for_timeout(4_000)  # every tick fired before the pick has answered
    monkeypatch.setattr(space.ctx, "change_token", real_token)
    assert page.locator("#lm-track input").first.input_value() == "hard"
    names = page.locator("#lm-board td.lm-model").all_inner_texts()
    assert names and all("tick-model-h" in n for n in names), names
    assert page.errors == []
    page.close()


@pytest.mark.browser
def test_browser_renders_injected_names_as_text(space, browser):
    result = make_result(
        kind="reported", benchmark="mathnet-retrieve", track="medium",
        frozen=FrozenTuple(dataset_release=RELEASE, split="qrels/medium", retrieval_artifact=None,
                           scoring_artifact="paper", date="2026-01-01"),
        submission_sha256=sha256_bytes(b"injection"),
        model=ModelInfo(name=EVIL + "[x](javascript:alert(1))", url="https://example.org/?q=a&b=c"),
        main=Score(metric="recall@5", value=0.5), notes=[EVIL])
    space.ctx.store.add_result(result)
    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=medium")
    page.locator("#lm-board td.lm-model", has_text="onerror").wait_for(timeout=30_000)
    assert page.locator("#lm-board img").count() == 0
    assert page.locator("#lm-board a[href='https://example.org/?q=a&b=c']").count() == 1
    page.goto(f"{space.url}/?tab=audit&entry={result.result_id}")
    page.locator("#lm-audit").get_by_text("onerror", exact=False).first.wait_for(timeout=30_000)
    assert page.locator("#lm-audit img").count() == 0 and page.locator("#lm-audit a[href^='javascript']").count() == 0
    assert page.evaluate("() => window.__pwned") is None and page.errors == []
    _shot(page, "4-injected-name-as-text")
    page.close()


@pytest.mark.browser
def test_browser_admin_hides_an_entry_only_with_the_token(space, client, browser, tmp_path):
    _, outcome = _upload(client, tmp_path, mathnet_file("to-be-hidden", hits=2))
    [result_id] = _wait_scored(client, outcome["sha256"])["result_ids"]
    page = _page(browser)
    page.goto(f"{space.url}/?benchmark=mathnet-retrieve&track=hard&search=to-be-hidden&tab=admin")
    page.locator("#lm-admin-entry textarea, #lm-admin-entry input").first.wait_for(timeout=30_000)
    page.locator("#lm-admin-entry textarea, #lm-admin-entry input").first.fill(result_id)
    page.locator("#lm-admin-reason textarea, #lm-admin-reason input").first.fill("duplicate of another entry")
    page.locator("#lm-admin-token input, #lm-admin-token textarea").first.fill("wrong-token")
    page.get_by_role("button", name="Hide", exact=True).click()
    page.get_by_text("the admin token is not correct").wait_for(timeout=15_000)
    assert not space.ctx.store.is_hidden(result_id)
    assert page.locator("#lm-tab-admin table").count() == 0  # no moderation log for a wrong token

    page.locator("#lm-admin-token input, #lm-admin-token textarea").first.fill(ADMIN_TOKEN)
    page.get_by_role("button", name="Hide", exact=True).click()
    page.get_by_text("is now hidden from the leaderboard").wait_for(timeout=15_000)
    assert space.ctx.store.is_hidden(result_id)
    assert result_id in page.locator("#lm-tab-admin table").inner_text()  # the log names the full id to unhide
    page.get_by_role("tab", name="Leaderboard").click()
    # the hidden row leaves the board (other groups of the view may be empty already, so wait for the row itself)
    page.locator("#lm-board tr", has_text="to-be-hidden").first.wait_for(state="detached", timeout=15_000)
    assert page.locator("#lm-board tr", has_text="to-be-hidden").count() == 0
    _shot(page, "5-hidden-by-admin")
    events = space.ctx.store.events(20)
    assert any(e["action"] == "hide" and e["actor"] == "admin-token" and e["target"] == result_id for e in events)
    page.close()


def test_a_submission_needing_the_judge_is_pending_never_scored(space, client, worlds_in_home):
    """The Re²Math example (no judge configured): stored, scored as far as possible, listed as pending (over the
    run's built release and world, linked into the home: the scorer builds nothing)."""
    from gradio_client import handle_file

    example = Path(__file__).resolve().parents[2] / "submissions" / "re2math" / "example-re2math-bm25-raw-m5.jsonl"
    _, outcome = client.predict(handle_file(str(example)), "Example team", "", "", api_name="/submit")
    assert outcome["outcome"] == "created" and outcome["benchmark"] == "re2math"
    status = _wait_scored(client, outcome["sha256"], timeout=240)
    assert status["status"] == "pending_oracle" and "wait for an oracle" in status["reason"]
    board = client.predict("re2math", status["track"], "", "scored", "", "rank:asc", api_name="/leaderboard")
    [row] = [r for g in board["groups"] for r in g["rows"] if r["result_id"] == status["result_ids"][0]]
    assert row["score"] is None and row["rank"] is None and row["pending"] > 0 and row["status"] == "pending_oracle"
    result = space.ctx.store.get_result(row["result_id"])
    audit = client.predict(row["result_id"], result.items[0]["instance_id"], api_name="/audit")
    assert "Verdicts" in audit and "pending" in audit.lower()


def test_the_landing_overview_is_in_the_page_before_any_event(space):
    """The Benchmarks tab's cards are part of the page itself, not only of the load step: during a first start
    that step waits behind the build, and the landing view must not be blank meanwhile."""
    import httpx

    config = httpx.get(f"{space.url}/config", timeout=30).json()
    (overview,) = [c for c in config["components"] if c.get("props", {}).get("elem_id") == "lm-overview"]
    assert 'class="lm-card' in overview["props"]["value"]
