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
the test. Screenshots of every tab go to ``test-output/readme-literal/``.

One test walks every control of every benchmark on that server (every track of
every benchmark on the Leaderboard with its sort, source, group and breakdown
menus; every benchmark's Submit guide; an Audit entry of every benchmark; the
matrix filters) and fails on a raw key where a label belongs, a column without a
glossary entry, a clipped table (wider than its box, which does not scroll) or
an error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browser_upload import set_upload

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
SHOTS = OUT / "readme-literal"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
FIRST_START_SECONDS = 900  # releases, artifact, reported rows and baselines, on a shared two-core machine
TABS = (("Benchmarks", "overview"), ("Leaderboard", "board"), ("Across benchmarks", "matrix"), ("Submit", "submit"),
        ("Status", "status"), ("Audit", "audit"),
        ("About & cite", "about"), ("Admin", "admin"))
README_PORT = 7860  # "serves on http://127.0.0.1:7860"
SERVER_FAILURES = ("Traceback (most recent call last)", "InvalidPathError", "Cannot move")

pytestmark = pytest.mark.browser


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _command() -> list[str]:
    """``lemmata serve`` from the environment running the tests (the console script when installed)."""
    script = Path(sys.executable).with_name("lemmata")
    return [str(script), "serve"] if script.is_file() else [sys.executable, "-m", "lemmata", "serve"]


def _home_outside_temp() -> Path:
    """A fresh home folder outside the temp folder Gradio serves: beside the checkout when the checkout is not itself
    under the temp folder (a CI clone may be), else under the user's cache or /var/tmp."""
    import tempfile
    import uuid

    temp = str(Path(tempfile.gettempdir()).resolve())
    for base in (OUT, Path.home() / ".cache" / "lemmata-readme-literal", Path("/var/tmp") / "lemmata-readme-literal"):
        if not str(base.resolve()).startswith(temp):
            home = base / ("readme-home" if base == OUT else f"home-{uuid.uuid4().hex[:12]}")
            shutil.rmtree(home, ignore_errors=True)
            try:
                home.mkdir(parents=True)
            except OSError:
                continue
            return home
    pytest.fail("no writable folder outside the temp folder for the README-literal home")


@pytest.fixture(scope="module")
def server():
    home = _home_outside_temp()
    import tempfile

    assert not str(home.resolve()).startswith(str(Path(tempfile.gettempdir()).resolve()))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEMMATA_", "GRADIO_")) and k != "XDG_DATA_HOME"}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), GRADIO_ANALYTICS_ENABLED="False",
               HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1"))
    assert f"http://127.0.0.1:{README_PORT}" in (ROOT / "README.md").read_text(encoding="utf-8")
    if _port_free(README_PORT):  # the README's own port, chosen by the command itself
        port = README_PORT
    else:  # another server holds 7860 on this machine: the one variable the README's command would need
        port = _free_port()
        env["GRADIO_SERVER_PORT"] = str(port)
        print(f"port {README_PORT} is taken on this machine; the README-literal server runs on {port}")
    OUT.mkdir(parents=True, exist_ok=True)  # run first, in a fresh clone: nothing has made it yet
    log_path = OUT / "readme-literal-server.log"
    log = log_path.open("w", encoding="utf-8")
    # The working folder is Gradio's other default served folder, so it must not hold the home either (a
    # README reader's ~ is not inside their checkout); the mirror is still found beside the checkout.
    cwd = OUT / "readme-cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(_command(), cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + FIRST_START_SECONDS
    try:
        while "[lemmata] ready" not in log_path.read_text(encoding="utf-8", errors="replace"):
            assert proc.poll() is None, "lemmata serve exited:\n" + log_path.read_text(encoding="utf-8")[-4000:]
            assert time.monotonic() < deadline, "first start did not finish:\n" + log_path.read_text()[-4000:]
            time.sleep(1)
        assert (home / ".local" / "share" / "lemmata" / "releases" / "re2math-1.0.0" / "croissant.json").is_file()
        yield {"url": f"http://127.0.0.1:{port}", "log": log_path, "home": home}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        if not home.is_relative_to(OUT):  # a home made under the user's cache or /var/tmp goes again
            shutil.rmtree(home, ignore_errors=True)


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


def _first_load(page) -> None:
    """Wait for the landing view (what each benchmark is, and whether it is scored here) as the page's load events
    leave it. The cards painted with the page date from the server's start; the second load step brings the
    current ones, and it runs after the first one (which selects the URL's tab) has answered: a tab clicked
    before that would be switched back under the visitor's (and the test's) feet on a loaded machine."""
    page.wait_for_selector("#lm-overview .lm-card", timeout=60_000)
    ready = page.locator("#lm-overview .lm-card", has_text="scored on this server now")
    ready.filter(has_text="research-level proof").first.wait_for(timeout=60_000)


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _download(page, control) -> str:
    """Click a download control as a visitor would and return the file it saved (a control without a file saves
    nothing, so this times out). A board download is an event through the server's queue: a first start on a
    loaded machine (the suite's other worker busy beside it) can take well over 30 s to answer it. On a timeout
    the control's markup and the page's last requests are in the failure, so the cause is on record."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    requests: list[str] = []

    def seen(request) -> None:
        requests.append(f"{request.method} {request.url[:160]}")

    page.on("request", seen)
    try:
        with page.expect_download(timeout=120_000) as info:
            control.click()
    except PlaywrightTimeout:
        markup = control.evaluate("e => e.outerHTML")[:1500]
        pytest.fail(f"no download after clicking {markup}\nlast requests: {requests[-30:]}")
    finally:
        page.remove_listener("request", seen)
    download = info.value
    assert download.failure() is None, download.failure()
    return Path(download.path()).read_text(encoding="utf-8")


def test_readme_literal_every_tab_loads_clean(server, browser):
    w = Watched(browser)
    page, base = w.page, server["url"]
    page.goto(base + "/")
    _first_load(page)
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
    page.wait_for_selector("#lm-audit-entry [role=option]", timeout=15_000)
    assert page.locator("#lm-audit-entry [role=option]").count() >= 1
    page.keyboard.press("Escape")
    _shot(page, "4-audit")

    page.get_by_role("tab", name="About & cite").click()
    page.get_by_text("Cite re2math-1.0.0").first.click()
    # the links come with the page's second load step, which a loaded first start may still be running
    link = page.locator("#lm-tab-about a.lm-dl:visible", has_text="Download croissant.json").first
    link.wait_for(timeout=90_000)
    release = server["home"] / ".local" / "share" / "lemmata" / "releases" / "re2math-1.0.0"
    assert link.get_attribute("href").endswith(f"file={(release / 'croissant.json').resolve()}")
    _shot(page, "5-about")
    # The page fetches what the link addresses (its own relative URL, resolved by the browser) and must get the
    # release's bytes. Clicking it is not the check: in loaded fresh-clone runs Chromium started no download for
    # this link (nor, before, for a download button here), on the page's third download and on a fresh page alike,
    # while the same address answered 200 with the file; run locally the click downloads it.
    fetched = page.evaluate("async h => { const r = await fetch(h); return [r.status, await r.text()]; }",
                            link.get_attribute("href"))
    assert fetched == [200, (release / "croissant.json").read_text(encoding="utf-8")]
    assert "re2math" in fetched[1][:20_000]

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


# -- the walk over every control of every benchmark ----------------------------------------------------------------

#: a raw key where a label belongs: a snake_case or dotted metric key, the sort menu's internal prefix, a raw "pm"
RAW_KEY = re.compile(r"[a-z]_[a-z]|\bm\.[a-z]|\b(?:micro|macro) pm\b")
#: every visible table whose content is wider than a box that cuts it off instead of scrolling (or that pushes the
#: whole page sideways): ``scrollWidth > clientWidth`` on the first ancestor that does not let it overflow visibly
CLIPPED_TABLES_JS = """() => {
  const out = [];
  for (const table of document.querySelectorAll('table')) {
    if (table.getClientRects().length === 0) continue;
    for (let el = table; el && el !== document.body; el = el.parentElement) {
      if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) continue;
      const overflow = getComputedStyle(el).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') break;
      if (overflow !== 'visible') {
        out.push(`${(table.closest('[id]') || {}).id}: a ${table.scrollWidth}px table cut to ${el.clientWidth}px`);
        break;
      }
    }
  }
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth + 1) out.push(`the page scrolls sideways (${page.scrollWidth}px)`);
  return out;
}"""
#: what the walk reads as labels: column headers and the options of the menus that name columns
LABELS = "#lm-board th, #lm-matrix th, #lm-mathrag th"
#: the elements matching a selector that are on screen (a hidden tab's are not)
VISIBLE_JS = "(sel) => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length > 0)"


class Walk(Watched):
    """A watched page that drives controls by their element ids and checks what each state shows."""

    def __init__(self, browser) -> None:
        super().__init__(browser)
        self.trail: list[str] = []
        self.found: list[str] = []

    def settle(self) -> None:
        """Wait until no event is running (no progress indicator), then a moment for a late toast."""
        from test_space_controls import settle

        settle(self.page, pause_ms=60, timeout_ms=30_000)

    def options(self, elem_id: str, *, may_be_empty: bool = False) -> list[str]:
        """The option labels of a dropdown (left open; the ✓ of the selected one dropped)."""
        self.page.mouse.click(2, 2)  # a dropdown still focused from the last pick does not open on a click
        self.page.locator(f"#{elem_id} input").first.click()
        # scoped to this menu: a menu closed a moment ago keeps its options in the page while it closes
        options = self.page.locator(f"#{elem_id} [role=option]")
        try:
            options.first.wait_for(timeout=2_000 if may_be_empty else 15_000)
        except Exception:
            if not may_be_empty:
                raise
            self.page.keyboard.press("Escape")
            return []
        return [t.split("\n")[-1].strip() for t in options.all_inner_texts()]

    def choose(self, elem_id: str, index: int) -> str:
        """Pick an option; one the menu already shows is not picked again (the page already shows its state: the
        first track a benchmark opens, say), which spares a server round trip and a re-render."""
        label = self.options(elem_id)[index]
        self.trail.append(f"{elem_id} = {label!r}")
        if label == self.page.locator(f"#{elem_id} input").first.input_value():
            self.page.keyboard.press("Escape")
            return label
        self.page.locator(f"#{elem_id} [role=option]").nth(index).click()
        self.settle()
        return label

    def click(self, locator, what: str) -> None:
        self.trail.append(f"click {what}")
        locator.click()
        self.settle()

    def check(self, menus: tuple[str, ...] = ()) -> None:
        """Labels, glossary and table widths of the current state; ``menus``: dropdowns whose options are labels."""
        where = " > ".join(self.trail[-3:])
        labels = self.page.evaluate(VISIBLE_JS + ".map(e => e.innerText.trim())", LABELS)
        for menu in menus:
            if self.page.locator(f"#{menu} input").first.is_visible():
                labels += self.options(menu)
                labels.append(self.page.locator(f"#{menu} input").first.input_value())
                self.page.keyboard.press("Escape")
        self.found += [f"{where}: raw key {t!r}" for t in labels if RAW_KEY.search(t)]
        undefined = [t for t in self.page.evaluate(VISIBLE_JS + ".map(e => e.title)", "[title]")
                     if "no glossary entry" in t]
        self.found += [f"{where}: undefined column ({t[:80]})" for t in undefined]
        self.found += [f"{where}: {c}" for c in self.page.evaluate(CLIPPED_TABLES_JS)]
        toasts = self.page.locator("[data-testid=toast-body].error")
        self.found += [f"{where}: error toast {t}" for t in (toasts.all_inner_texts() if toasts.count() else [])]
        self.found += [f"{where}: {p}" for p in self.problems]
        self.problems.clear()

    def tab(self, name: str) -> None:
        self.trail.append(f"tab {name}")
        self.page.get_by_role("tab", name=name, exact=True).click()
        self.settle()


def test_clipped_table_detector_sees_a_cut_off_table(server, browser):
    """The walk's width check is real: a table wider than a box with ``overflow: hidden`` is reported, the same
    table in a scrolling box is not."""
    w = Watched(browser)
    w.page.goto(server["url"] + "/?tab=about")
    w.page.locator("#lm-tab-about").wait_for(timeout=60_000)
    wide = "<table><tr>" + "<td>a_rather_long_cell_without_spaces_in_it</td>" * 40 + "</tr></table>"
    for overflow, reported in (("hidden", True), ("auto", False)):
        w.page.evaluate("""([html, overflow]) => { const box = document.createElement('div');
            box.id = 'lm-probe'; box.style.cssText = `width: 300px; overflow-x: ${overflow}`; box.innerHTML = html;
            document.body.prepend(box); }""", [wide, overflow])
        clipped = [c for c in w.page.evaluate(CLIPPED_TABLES_JS) if c.startswith("lm-probe")]
        assert bool(clipped) is reported, (overflow, clipped)
        w.page.evaluate("() => document.getElementById('lm-probe').remove()")
    w.page.close()


def test_readme_literal_walk_every_control_of_every_benchmark(server, browser):
    """Every track of every benchmark on the Leaderboard (with its sort, source, group and breakdown menus), every
    benchmark's Submit guide, an Audit entry of every benchmark with one of its items and every matrix filter:
    no raw key, no column without a glossary entry, no clipped table, no error."""
    w = Walk(browser)
    page = w.page
    page.goto(server["url"] + "/")
    _first_load(page)
    w.check()
    w.tab("Leaderboard")
    page.wait_for_selector("#lm-board .lm-board", timeout=60_000)
    benchmarks = w.options("lm-benchmark")
    page.keyboard.press("Escape")
    assert len(benchmarks) >= 10, benchmarks
    for b in range(len(benchmarks)):
        w.choose("lm-benchmark", b)
        for t in range(len(w.options("lm-track"))):
            w.choose("lm-track", t)
            w.check(menus=("lm-sort", "lm-dim"))
        if not page.locator("#lm-board tbody tr").count():
            continue  # a Hub-only benchmark with nothing on its board: no other control changes anything
        w.choose("lm-sort", -1)  # sorted by its last column, then the other menus under that sort
        w.check(menus=("lm-sort",))
        w.click(page.locator("#lm-kind [data-testid='Reported-radio-label']"), "source: reported")
        w.click(page.locator("#lm-kind [data-testid='All-radio-label']"), "source: all")
        if len(w.options("lm-group")) > 2:  # "all groups" and more than one group
            page.keyboard.press("Escape")
            w.choose("lm-group", -1)
        else:
            page.keyboard.press("Escape")
        if page.locator("#lm-dim input").first.is_visible():
            w.choose("lm-dim", -1)
        more = page.locator("#lm-board [data-rows]")
        if more.count():
            w.click(more.first, "show all/top")
        w.check(menus=("lm-sort", "lm-dim"))
    w.click(page.locator("#lm-open label"), "open weights only")
    w.choose("lm-size", -1)
    w.check()
    w.tab("Submit")
    for b in range(len(w.options("lm-submit-benchmark"))):
        name = w.choose("lm-submit-benchmark", b)
        # the guide's update shows no progress indicator, so a loaded page may still be drawing it: wait for it
        from playwright.sync_api import expect

        expect(page.locator("#lm-submit-guide")).to_contain_text(f'"benchmark": "{name}"', timeout=30_000)
        w.check()
    w.tab("Audit")
    entries = w.options("lm-audit-entry")
    page.keyboard.press("Escape")
    for bench in benchmarks:  # an entry of every benchmark that has one (labels read "model · benchmark/track · …")
        index = next((i for i, e in enumerate(entries) if f" · {bench}/" in e), None)
        if index is None:
            continue
        w.choose("lm-audit-entry", index)
        if page.locator("#lm-audit-item input").first.is_visible() and w.options("lm-audit-item", may_be_empty=True):
            page.keyboard.press("Escape")
            w.choose("lm-audit-item", 0)
        w.check()
    w.tab("Across benchmarks")
    page.wait_for_selector("#lm-matrix table", timeout=30_000)
    for label in page.locator("#lm-matrix-kinds label").all_inner_texts():
        w.click(page.locator("#lm-matrix-kinds label", has_text=label).first, f"type {label}")
        w.click(page.locator("#lm-matrix-kinds label", has_text=label).first, f"type {label} again")
    for label in page.locator("#lm-matrix-source label").all_inner_texts():
        w.click(page.locator("#lm-matrix-source label", has_text=label).first, f"source {label}")
    w.click(page.locator("#lm-matrix-open label"), "open weights only")
    w.choose("lm-matrix-size", -1)
    w.check()
    for name in ("Status", "About & cite", "Benchmarks"):
        w.tab(name)
        w.check()
    assert w.found == [], "\n".join(w.found)
    page.close()
    log = server["log"].read_text(encoding="utf-8", errors="replace")
    assert not [s for s in SERVER_FAILURES if s in log], log[-6000:]
