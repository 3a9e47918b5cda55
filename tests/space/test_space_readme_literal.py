"""The space as a README reader meets it: ``lemmata serve`` with the default home, in a real Chromium.

The rest of the suite keeps ``LEMMATA_HOME`` under a temp folder, which Gradio
serves by default; a README reader's home is ``~/.local/share/lemmata``, which it
does not. So this module starts the command exactly as the README says, as a
subprocess whose ``HOME`` is a fresh folder *outside* every temp directory
(``test-output/readme-home``, git-ignored) and outside its working folder,
with no ``LEMMATA_*`` variables:
the first start builds the releases from the mirror beside the checkout, the
retrieval artifact, the reported rows and the baselines. One server serves every
check. Any error toast, failed request, console error or server traceback fails
the test. Screenshots of every tab go to ``test-output/readme-literal/``. How the server is started, and why
the run's controller starts it early, is in :mod:`readme_server`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import readme_server
from browser_upload import set_upload

ROOT = readme_server.ROOT
OUT = readme_server.OUT
SHOTS = OUT / "readme-literal"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
FIRST_START_SECONDS = 900  # releases, artifact, reported rows and baselines, on a shared two-core machine
TABS = (("Benchmarks", "overview"), ("Leaderboard", "board"), ("Across benchmarks", "matrix"), ("Submit", "submit"),
        ("Status", "status"), ("Audit", "audit"),
        ("About & cite", "about"), ("Admin", "admin"))
SERVER_FAILURES = ("Traceback (most recent call last)", "InvalidPathError", "Cannot move")

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    """The server as the README starts it: already started by the run's controller (under pytest-xdist, so its
    first start ran beside the other tests), else started here; the fixture waits for ``[lemmata] ready``."""
    state = readme_server.read_state()
    owned = state is None
    if owned:
        try:
            state = readme_server.start()
        except RuntimeError as exc:
            pytest.fail(str(exc))
    if state["note"]:
        print(state["note"])
    try:
        readme_server.wait_ready(state, FIRST_START_SECONDS)
        home = Path(state["home"])
        assert (home / ".local" / "share" / "lemmata" / "releases" / "re2math-1.0.0" / "croissant.json").is_file()
        yield {"url": state["url"], "log": Path(state["log"]), "home": home}
    finally:
        if owned:
            readme_server.stop(state)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Watched:
    """A page that records every console error, page error, failed request and error toast."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1360, "height": 900})
        self.problems: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("requestfailed", lambda r: "ERR_ABORTED" not in (r.failure or "")  # cancelled by the page
                     and self.problems.append(f"request failed: {r.url} {r.failure}"))
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))

    def check(self) -> None:
        toasts = self.page.locator("[data-testid=toast-body].error")
        if toasts.count():
            self.problems += [f"error toast: {t}" for t in toasts.all_inner_texts()]
        assert self.problems == []


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _download(page, button) -> str:
    """Click a DownloadButton as a visitor would and return the file it saved (a button without a file saves
    nothing, so this times out)."""
    with page.expect_download(timeout=30_000) as info:
        button.click()
    download = info.value
    assert download.failure() is None, download.failure()
    return Path(download.path()).read_text(encoding="utf-8")


def test_readme_literal_every_tab_loads_clean(server, browser):
    w = Watched(browser)
    page, base = w.page, server["url"]
    page.goto(base + "/")
    # the landing view: what each benchmark is, and whether it is scored here
    page.wait_for_selector("#lm-overview .lm-card", timeout=60_000)
    ready = page.locator("#lm-overview .lm-card", has_text="scored on this server now")
    assert ready.filter(has_text="research-level proof").count() >= 1
    _shot(page, "0-overview")
    page.get_by_role("tab", name="Leaderboard").click()
    page.wait_for_selector("#lm-board .lm-board", timeout=60_000)

    # first load, no control touched: plots drawn, both downloads answer
    page.wait_for_selector("#lm-forest svg", timeout=30_000)
    csv = _download(page, page.locator("#lm-csv"))
    assert csv.splitlines()[0].count(",") >= 3 and len(csv.splitlines()) > 1
    exported = json.loads(_download(page, page.locator("#lm-json")))
    assert exported["groups"]
    _shot(page, "1-board")

    page.get_by_role("tab", name="Across benchmarks").click()
    page.wait_for_selector("#lm-matrix table", timeout=30_000)
    _shot(page, "1b-matrix")

    page.get_by_role("tab", name="Submit").click()
    page.locator("#lm-upload").wait_for(timeout=10_000)
    _shot(page, "2-submit")

    page.get_by_role("tab", name="Status").click()
    page.wait_for_selector("#lm-status table tbody tr", timeout=30_000)
    assert page.locator("#lm-status table tbody tr").count() >= 1
    _shot(page, "3-status")

    page.get_by_role("tab", name="Audit").click()
    page.locator("#lm-audit-entry input").first.click()
    page.wait_for_selector("[role=option]", timeout=15_000)
    assert page.locator("[role=option]").count() >= 1
    page.keyboard.press("Escape")
    _shot(page, "4-audit")

    page.get_by_role("tab", name="About & cite").click()
    page.get_by_text("Cite re2math-1.0.0").first.click()
    button = page.locator("#lm-tab-about button", has_text="Download croissant.json").first
    croissant = json.loads(_download(page, button))
    assert "re2math" in json.dumps(croissant)[:20_000]
    _shot(page, "5-about")

    page.get_by_role("tab", name="Admin").click()
    page.locator("#lm-admin-entry").wait_for(timeout=10_000)
    _shot(page, "6-admin")

    page.wait_for_timeout(1000)  # a late failing event would show its toast now
    w.check()
    page.close()
    log = server["log"].read_text(encoding="utf-8", errors="replace")
    assert not [s for s in SERVER_FAILURES if s in log], log[-6000:]


def test_readme_literal_upload_for_a_hub_only_release_says_why_in_the_panel(server, browser):
    """Offline, MathNet/MIRB/MathAtlas releases cannot be built: their shipped examples get the validation
    panel with the reason, never an exception, a bare Error badge or a server path."""
    w = Watched(browser)
    page = w.page
    page.goto(server["url"] + "/?tab=submit")
    listing = page.locator("#lm-availability")
    listing.wait_for(timeout=30_000)
    assert "re2math" in listing.inner_text() and "mathnet-retrieve" in listing.inner_text()
    scored_now = listing.inner_text().split(".", 1)[0]
    assert "re2math" in scored_now and "mathnet-retrieve" not in scored_now
    assert "Hub is unreachable" in listing.inner_text()
    examples = [ROOT / "submissions" / "mathnet" / "example-mathnet-retrieve-hard.jsonl",
                ROOT / "submissions" / "mirb" / "example-mirb.jsonl",
                ROOT / "submissions" / "mathatlas" / "example-ma-align.jsonl"]
    for n, example in enumerate(examples):
        if n:  # a fresh page per file: a cleared upload box re-renders its input under the test's feet
            page.goto(server["url"] + "/?tab=submit")
            listing.wait_for(timeout=30_000)  # the page's load events have rendered the tab
        page.locator("#lm-upload input[type=file]").wait_for(state="attached", timeout=30_000)
        page.locator("#lm-submitter textarea, #lm-submitter input").first.fill("README reader")
        set_upload(page, example)
        page.locator("#lm-submit").click()
        panel = page.locator("#lm-outcome .lm-errors", has_text=example.name)
        panel.wait_for(timeout=60_000)
        text = panel.inner_text()
        assert "the Hub is unreachable from this server" in text and "Nothing was stored" in text, text
        assert str(server["home"]) not in text and "/" not in text, text
        _shot(page, f"7-unavailable-{n}")
    w.check()
    assert page.locator(".error, [data-testid=toast-body]").filter(has_text="Error").count() == 0
    page.close()
    log = server["log"].read_text(encoding="utf-8", errors="replace")
    assert not [s for s in SERVER_FAILURES if s in log], log[-6000:]
