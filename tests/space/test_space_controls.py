"""Every control of every tab, driven in seeded random orders in a real Chromium: no state may end in an error.

The store holds the papers' reported rows and scored-here rows of every benchmark
and track a submission can name (two frozen-tuple groups where a benchmark has a
newer release, one of them pending), so controls whose choices depend on each
other (benchmark → track → group, the plotted group → its breakdowns, the first
group → its sort keys) really change under each other. From several starting
URLs, a seeded random walk picks options, types and clears search text key by
key, toggles the model-metadata filters (open weights, parameter ceiling), clicks
sort headers, "show all" and entry ids, switches tabs and drives the audit pickers. Any error toast, console error, failed request or server
traceback fails the test, with the seed and the actions that led there.
"""

from __future__ import annotations

import random
import socket
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.store import RateLimit

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "controls"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
SERVER_FAILURES = ("Traceback (most recent call last)", "is not in the list of choices")
STEPS = 7
STARTS = ("/", "/?benchmark=re2math&track=raw&search=bm25", "/?benchmark=mirb&track=zero-shot&sort=model:desc",
          "/?tab=audit", "/?benchmark=mathnet-retrieve&open=1&max_params=5e8",
          "/?benchmark=re2math-theorem-retrieval&track=raw&max_params=1e9")

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rate(count: int, total: int, pending: int = 0) -> dict:
    from lemmata.metrics.intervals import wilson_interval

    return {"count": count, "total": total, "rate": count / total, "pending": pending,
            "wilson95": list(wilson_interval(count, total))}


def scored_row(benchmark: str, track: str, model: ModelInfo, value: float, *, release: str, date: str,
               strata: tuple[str, ...], pending: int = 0, total: int = 20, metric: str = "score") -> object:
    """A scored-here result shaped like the handlers' own: the main metric's object holds per-stratum rates,
    per-item records carry their status, and a pending result has no score yet."""
    confirmed = round(value * total)
    per = {s: _rate(max(confirmed - i, 0), total) for i, s in enumerate(strata)}
    items = [{"item_id": f"{benchmark}-{i:03d}", "status": "pending" if i < pending else
              ("correct" if i < pending + confirmed else "wrong"), "pending": i < pending} for i in range(total)]
    complete = pending == 0
    return make_result(
        kind="scored", benchmark=benchmark, track=track,
        frozen=FrozenTuple(dataset_release=release, split=f"{track}/test", retrieval_artifact=None,
                           scoring_artifact=f"{benchmark}-scorer/1", date=date),
        submission_sha256=sha256_bytes(f"{benchmark}/{track}/{model.name}/{release}".encode()), model=model,
        main=Score(metric=metric, value=value if complete else None, count=confirmed, total=total),
        metrics={metric: {**_rate(confirmed, total, pending), "per_domain": per}},
        items=items, pending=pending, status="complete" if complete else "pending_oracle")


MODELS = (ModelInfo(name="bm25-baseline", kind="retriever", parameters=0, open_weights=True, licence="MIT"),
          ModelInfo(name="tiny-encoder", kind="retriever", parameters=22_000_000, dimension=384,
                    open_weights=True, licence="Apache-2.0"),
          ModelInfo(name="chat-model", kind="llm", open_weights=False))


def seed(store, catalog: dict) -> int:
    """Reported rows from the papers, and scored-here rows of every benchmark and track."""
    from lemmata.space.bootstrap import reported_step

    reported_step(store)(lambda _: None)
    n = 0
    for b, tracks in catalog.items():
        for t in tracks:
            for i, m in enumerate(MODELS):
                store.add_result(scored_row(b, t, m, 0.2 + 0.1 * i, release=f"{b}-1.0.0", date="2026-11-20",
                                            strata=("algebra", "geometry")))
                n += 1
            # a newer release, whose first entry still waits for an oracle: listed first, nothing to plot
            store.add_result(scored_row(b, t, MODELS[0], 0.1, release=f"{b}-2.0.0", date="2026-11-24",
                                        strata=("combinatorics",), pending=18))
            n += 1
    return n


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    from lemmata.space.app import build_app, launch_kwargs, queued
    from lemmata.space.config import SpaceConfig
    from lemmata.space.context import create_context

    home = tmp_path_factory.mktemp("controls-home")
    config = SpaceConfig.from_env({"LEMMATA_HOME": str(home)}, releases_root=home / "releases", bootstrap=False,
                                  rate_limit=RateLimit(1000, 3600), refresh_seconds=2.0, worker_poll_seconds=0.5)
    ctx = create_context(config, stream=open(home / "bootstrap.log", "w"))
    ctx.start(background=False)
    seed(ctx.store, ctx.catalog())
    # one real scored run whose audit lists statements: BM25 over the Re²Math theorem-retrieval corpus
    from lemmata.benchmarks.re2math.baselines import theorem_retrieval_run
    from lemmata.scoring import score_file

    theorem = score_file(theorem_retrieval_run("bm25", "raw", home / "runs", depth=10), ctx.store)
    demo = queued(build_app(ctx))
    _, url, _ = demo.launch(server_name="127.0.0.1", server_port=_free_port(), prevent_thread_lock=True, quiet=True,
                            **launch_kwargs(ctx))
    yield SimpleNamespace(ctx=ctx, url=url.rstrip("/"), demo=demo, theorem=theorem)
    demo.close()
    ctx.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def settle(page, *, pause_ms: int, timeout_ms: int) -> None:
    """A moment for a late toast, then wait until no Gradio event is running (no progress indicator). A slow render
    is no error in itself: what the page then shows is what the callers check."""
    page.wait_for_timeout(pause_ms)
    try:
        page.wait_for_function(
            "() => !document.querySelector('.progress-text, .eta-bar, .wrap.default.full:not(.hide)')",
            timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - see above
        pass


class Walker:
    """One page and a seeded random walk over its controls; records every problem the page shows."""

    def __init__(self, browser, rng: random.Random) -> None:
        self.page = browser.new_page(viewport={"width": 1360, "height": 900})
        self.rng = rng
        self.log: list[str] = []
        self.problems: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("requestfailed", lambda r: "ERR_ABORTED" not in (r.failure or "")
                     and self.problems.append(f"request failed: {r.url} {r.failure}"))
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))

    # -- what the page shows ------------------------------------------------------------------
    def toasts(self) -> list[str]:
        toasts = self.page.locator("[data-testid=toast-body].error")
        return [t for t in toasts.all_inner_texts()] if toasts.count() else []

    def settle(self) -> None:
        """Wait for every queued event to finish (no progress indicator left), then a moment for late toasts."""
        settle(self.page, pause_ms=80, timeout_ms=8_000)
        self.page.wait_for_timeout(100)

    def fail_if_problems(self, server_text: str) -> None:
        found = self.problems + [f"error toast: {t}" for t in self.toasts()]
        found += [f"server: {s}" for s in SERVER_FAILURES if s in server_text]
        assert not found, "\n".join(found) + "\nafter:\n  " + "\n  ".join(self.log)

    # -- controls -------------------------------------------------------------------------------
    def _tab(self, name: str) -> None:
        self.page.get_by_role("tab", name=name).click()

    def pick(self, elem_id: str) -> None:
        """Open a dropdown and choose one of its options at random (skip one that is hidden or has none)."""
        box = self.page.locator(f"#{elem_id} input").first
        if not box.is_visible():
            return
        box.click()
        options = self.page.locator(f"#{elem_id} [role=option]")  # not a just-closed menu's lingering options
        try:
            options.first.wait_for(timeout=2_000)
        except Exception:
            self.page.keyboard.press("Escape")
            return
        labels = options.all_inner_texts()
        k = self.rng.randrange(len(labels))
        self.log.append(f"pick {elem_id}: {labels[k][:60]!r}")
        options.nth(k).click()

    def type_search(self) -> None:
        box = self.page.locator("#lm-search textarea, #lm-search input").first
        if not box.is_visible():
            return
        text = self.rng.choice(["bm25", "gpt", "tiny", "chat", "zzz-no-match", "", "e", "model"])
        self.log.append(f"type search {text!r}")
        box.fill("")
        box.press_sequentially(text, delay=self.rng.choice([0, 15, 60]))
        if self.rng.random() < 0.3:
            box.press("Enter")

    def radio(self, selector: str) -> None:
        labels = self.page.locator(f"{selector} label")
        if not labels.first.is_visible():
            return
        k = self.rng.randrange(labels.count())
        self.log.append(f"{selector} {labels.nth(k).inner_text()!r}")
        labels.nth(k).click()

    def model_filter(self) -> None:
        """Toggle "Open weights only" or pick a "Parameters" ceiling."""
        if self.rng.random() < 0.5:
            self.click_in("#lm-open label", "open weights only")
        else:
            self.pick("lm-size")

    def click_in(self, selector: str, what: str) -> None:
        cells = self.page.locator(selector)
        n = cells.count()
        if not n:
            return
        k = self.rng.randrange(n)
        if not cells.nth(k).is_visible():
            return
        self.log.append(f"click {what} {k}")
        cells.nth(k).click()

    def step(self) -> None:
        """One random action on the visible tab, or (sometimes) a switch to another tab."""
        visible = lambda sel: self.page.locator(sel).first.is_visible()  # noqa: E731
        actions: list = []
        if visible("#lm-benchmark"):
            actions = [lambda: self.pick("lm-benchmark"), lambda: self.pick("lm-track"), lambda: self.pick("lm-group"),
                       lambda: self.radio("#lm-kind"), self.type_search, self.type_search, lambda: self.pick("lm-sort"),
                       # the model filters weigh more: they narrow every other control's rows, so walks meet them
                       self.model_filter, self.model_filter, self.model_filter,
                       lambda: self.pick("lm-dim"), lambda: self.click_in("#lm-board [data-sort]", "sort header"),
                       lambda: self.click_in("#lm-board [data-rows]", "show all/top"),
                       lambda: self.click_in("#lm-board [data-audit]", "entry id")]
        elif visible("#lm-audit-entry"):
            actions = [lambda: self.pick("lm-audit-entry"), lambda: self.pick("lm-audit-item")]
        elif visible("#lm-matrix-filters"):
            actions = [lambda: self.click_in("#lm-matrix-kinds label", "type filter"),
                       lambda: self.pick("lm-matrix-size"), lambda: self.click_in("#lm-matrix-open label", "open"),
                       lambda: self.radio("#lm-matrix-source"),
                       lambda: self.click_in("#lm-matrix [data-open]", "matrix cell")]
        elif visible("#lm-overview .lm-overview"):
            actions = [lambda: self.click_in("#lm-overview [data-open]", "overview board link"),
                       lambda: self.click_in("#lm-overview [data-submit]", "overview submit link")]
        elif visible("#lm-submit-benchmark"):
            actions = [lambda: self.pick("lm-submit-benchmark")]
        if not actions or self.rng.random() < 0.15:
            names = [t for t in TAB_NAMES if self.page.get_by_role("tab", name=t).count()]
            name = self.rng.choice(names)
            self.log.append(f"tab {name}")
            self._tab(name)
            return
        self.rng.choice(actions)()


TAB_NAMES = ("Benchmarks", "Leaderboard", "Across benchmarks", "Submit", "Status", "Audit", "About & cite")


def _server_text(capfd) -> str:
    out, err = capfd.readouterr()
    return out + err


@pytest.mark.parametrize("start", range(len(STARTS)))
def test_every_control_in_random_orders_stays_clean(space, browser, capfd, start):
    rng = random.Random(1000 + start)
    w = Walker(browser, rng)
    w.log.append(f"open {STARTS[start]} (seed {1000 + start})")
    w.page.goto(space.url + STARTS[start])
    w.page.wait_for_selector("#lm-board .lm-board, #lm-audit, #lm-overview .lm-overview", state="attached",
                             timeout=60_000)
    w.settle()
    server = _server_text(capfd)
    w.fail_if_problems(server)
    for _ in range(STEPS):
        w.step()
        w.settle()
        server += _server_text(capfd)
        w.fail_if_problems(server)
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.page.screenshot(path=str(SHOTS / f"walk-{start}.png"), full_page=True)
    w.page.close()


def test_search_typing_over_groups_with_different_breakdowns(space, browser, capfd):
    """The visitor's report: type in the search box while the plotted group's breakdowns change under it."""
    w = Walker(browser, random.Random(7))
    w.page.goto(space.url + "/?benchmark=re2math&track=raw")
    w.page.wait_for_selector("#lm-forest svg", timeout=60_000)
    box = w.page.locator("#lm-search textarea, #lm-search input").first
    server = ""
    for text in ("gpt", "", "bm25", "claude", "", "tiny"):
        w.log.append(f"type {text!r}")
        box.fill("")
        box.press_sequentially(text, delay=20)
        w.settle()
        server += _server_text(capfd)
        w.fail_if_problems(server)
    w.page.close()


def test_retrieval_audit_lists_documents_with_text_and_no_math_errors(space, browser, capfd):
    """A retrieval audit: ranked and relevant statements with their text; math KaTeX cannot draw is shown as
    source, never as a red error."""
    w = Walker(browser, random.Random(0))
    result = space.theorem
    item = next(it["item_id"] for it in result.items if it.get("ndcg@10", 1) < 1)  # one whose relevant ranked low
    w.page.goto(f"{space.url}/?tab=audit&entry={result.result_id}&item={item}")
    table = w.page.locator("#lm-audit table").filter(has=w.page.locator("th", has_text="text")).first
    table.wait_for(timeout=60_000)
    w.settle()
    texts = [t.strip() for t in table.locator("tbody tr td:nth-child(5)").all_inner_texts()]
    assert texts and all(len(t) > 20 for t in texts), texts
    relevant = w.page.locator("#lm-audit li", has_text="grade")
    assert relevant.count() == 0 or all(" — " in t for t in relevant.all_inner_texts())
    assert w.page.locator("#lm-audit .katex-error").count() == 0
    assert w.page.locator("#lm-audit .katex").count() > 0  # math that KaTeX knows is still drawn
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.page.screenshot(path=str(SHOTS / "audit-retrieval.png"), full_page=True)
    w.fail_if_problems(_server_text(capfd))
    w.page.close()


def test_landing_overview_and_cross_benchmark_matrix(space, browser, capfd):
    """The page opens on the Benchmarks overview; the matrix lists model identities across benchmarks, never
    averaged, and a cell opens its frozen-tuple group on the board."""
    w = Walker(browser, random.Random(0))
    w.page.goto(space.url + "/")
    cards = w.page.locator("#lm-overview .lm-card")
    cards.first.wait_for(timeout=60_000)
    assert cards.count() == len(space.ctx.catalog())
    re2math = w.page.locator("#lm-overview .lm-card", has_text="research-level proof").first
    text = re2math.inner_text()
    assert "Given" in text and "Returns" in text and "ToolAcc" in text and "Licence" in text
    assert re2math.locator("a", has_text="paper").count() and re2math.locator("[data-open]").count()
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.page.screenshot(path=str(SHOTS / "overview.png"), full_page=True)

    w.page.get_by_role("tab", name="Across benchmarks").click()
    table = w.page.locator("#lm-matrix table")
    table.wait_for(timeout=30_000)
    assert "No row is averaged" in w.page.locator("#lm-matrix").inner_text()
    header = table.locator("thead th").all_inner_texts()
    assert header[:6] == ["Model", "Type", "Params", "Dim", "Open", "Licence"]
    assert all(" / " in h for h in header[6:])  # benchmark/track columns only: no row mean
    tiny = table.locator("tbody tr", has_text="tiny-encoder")
    assert tiny.count() == 1 and "22M" in tiny.inner_text() and "384" in tiny.inner_text()
    assert table.locator(".lm-other").count() > 0  # entries only in another frozen tuple are marked
    # below it, the MathRAG matrix of the scored-here MathNet-Solve entries (every seeded solver and condition)
    mathrag = w.page.locator("#lm-mathrag")
    assert "MathRAG: solver × retrieval condition" in mathrag.locator("h3").inner_text()
    assert mathrag.locator("tbody tr").count() == len(MODELS) * len(space.ctx.catalog()["mathnet-solve"]) + \
        len(space.ctx.catalog()["mathnet-solve"])
    w.page.screenshot(path=str(SHOTS / "matrix.png"), full_page=True)
    before = table.locator("tbody tr").count()
    w.page.locator("#lm-matrix-kinds label", has_text="llm").click()
    # the matrix's update shows no progress indicator for settle() to wait on: wait for the encoder's row to go
    from playwright.sync_api import expect

    expect(table.locator("tbody tr", has_text="tiny-encoder")).to_have_count(0, timeout=30_000)
    w.settle()
    assert 0 < table.locator("tbody tr").count() < before

    cell = table.locator("tbody tr", has_text="chat-model").locator("a[data-group]").first
    group = cell.get_attribute("data-group")
    cell.click()
    w.page.locator("#lm-benchmark").wait_for(timeout=10_000)
    w.settle()
    assert group in w.page.locator("#lm-group input").first.input_value() or \
        w.page.locator("#lm-board .lm-board").count()
    w.fail_if_problems(_server_text(capfd))
    w.page.close()


def test_model_filters_narrow_the_board_and_travel_in_the_url(space, browser, capfd):
    """The Leaderboard's "Open weights only" and "Parameters" controls filter rows by declared metadata, write
    ``open`` and ``max_params`` into the URL, and a URL with them opens the board with the controls set."""
    w = Walker(browser, random.Random(11))
    w.page.goto(space.url + "/?benchmark=re2math&track=raw&kind=scored")
    w.page.wait_for_selector("#lm-board .lm-board", timeout=60_000)
    w.settle()
    names = lambda: " ".join(w.page.locator("#lm-board td.lm-model").all_inner_texts())  # noqa: E731
    assert "chat-model" in names() and "tiny-encoder" in names()
    w.page.locator("#lm-open label").click()
    w.page.wait_for_function("() => window.location.search.includes('open=1')", timeout=10_000)
    w.settle()
    assert "chat-model" not in names() and "tiny-encoder" in names()  # chat-model declares closed weights
    w.page.locator("#lm-size input").first.click()
    w.page.locator("#lm-size [role=option]", has_text="≤ 100M").first.click()
    w.page.wait_for_function("() => window.location.search.includes('max_params=1e8')", timeout=10_000)
    w.settle()
    assert "tiny-encoder" in names() and "bm25-baseline" in names()
    w.page.locator("#lm-size input").first.click()
    w.page.locator("#lm-size [role=option]", has_text="≤ 1B").first.click()
    w.page.wait_for_function("() => window.location.search.includes('max_params=1e9')", timeout=10_000)
    w.settle()
    url = w.page.url
    w.fail_if_problems(_server_text(capfd))
    w.page.close()

    again = Walker(browser, random.Random(12))
    again.page.goto(url)
    again.page.wait_for_selector("#lm-board .lm-board", timeout=60_000)
    again.settle()
    assert again.page.locator("#lm-open input").first.is_checked()
    assert again.page.locator("#lm-size input").first.input_value() == "≤ 1B"
    assert "chat-model" not in " ".join(again.page.locator("#lm-board td.lm-model").all_inner_texts())
    again.fail_if_problems(_server_text(capfd))
    again.page.close()
