"""What the page's tabs share: URL parameters, the board's controls as one value, sort labels, the export files
and the small HTML panels.

Plain functions and values over a :class:`SpaceContext` (no Gradio), so the tab
modules under ``lemmata.space.tabs`` and the tests use them without a browser.
"""

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlencode

from pydantic import ValidationError

from lemmata.space.board import (
    BoardQuery,
    BoardView,
    build_view,
    export_records,
    parse_sort,
    to_csv,
    to_json,
)
from lemmata.space.context import SpaceContext
from lemmata.space.safety import esc

TABS = ("overview", "board", "matrix", "submit", "status", "audit", "about", "admin")
ALL_GROUPS = "all"
FAST_POLL_SECONDS = 0.5
MAX_SEARCH = 200
KIND_CHOICES = [("All", "all"), ("Scored here", "scored"), ("Reported", "reported"),
                ("Reported on the Hub", "hub")]
#: the URL parameters that describe a board view (a URL with any of them and no ``tab`` opens the board)
BOARD_PARAMS = ("benchmark", "track", "group", "search", "sort", "kind", "all", "open", "max_params", "headline")
_SORT_LABELS = {
    "rank": ("Rank, best first", "Rank, worst first"),
    "model": ("Model A→Z", "Model Z→A"),
    "kind": ("Source (reported first)", "Source (scored first)"),
    "date": ("Date, oldest first", "Date, newest first"),
    "pending": ("Pending, fewest first", "Pending, most first"),
    "n": ("Items, fewest first", "Items, most first"),
}

URL_SYNC_JS = """
(qs) => {
  try {
    const search = qs || "";
    if (window.location.search !== search) {
      window.history.replaceState(window.history.state, "", window.location.pathname + search + window.location.hash);
    }
    if (window.parent && window.parent !== window) {
      window.parent.postMessage({queryString: search}, "https://huggingface.co");
    }
  } catch (e) { console.warn("lemmata: could not update the URL", e); }
}
"""


# -- pure helpers (tested without a browser) -------------------------------------------------------
def query_from_params(params: dict[str, str]) -> BoardQuery:
    """A BoardQuery from URL parameters; malformed values fall back to defaults."""
    fields = {k: str(params[k])[:MAX_SEARCH] for k in ("benchmark", "track", "group", "search", "sort", "kind",
                                                       "headline") if params.get(k)}
    if params.get("all") == "1":
        fields["show_all"] = True
    if params.get("open") == "1":
        fields["open_weights"] = True
    if params.get("max_params") and re.fullmatch(r"\d+(\.\d+)?(e\d{1,2})?", str(params["max_params"])[:16]):
        fields["max_params"] = str(params["max_params"])
    if fields.get("group") == ALL_GROUPS:
        fields.pop("group")
    try:
        return BoardQuery(**fields)
    except ValidationError:
        fields.pop("kind", None)
        return BoardQuery(**fields)


@dataclass(frozen=True)
class BoardControls:
    """The Leaderboard's controls as one value: the view they ask for, and the plots' breakdown.

    Gradio hands an event's inputs to its handler as positional values. Every handler that reads the board's
    controls takes them first, in :attr:`FIELDS` order (``BoardTab.controls``), and :meth:`read` turns them into
    this object; everything after works on it. The handlers run without Gradio's preprocessing (a menu's choices
    may change between the browser's event and the handler), so the raw values are read as URL parameters are
    (:func:`query_from_params`): a value that is no longer valid falls back as a malformed URL's does.

    >>> controls, rest = BoardControls.read(["re2math", "raw", "all", "<bad>", "gpt", "", True, False, "1e9", None,
    ...                                      "", "entry"])
    >>> controls.query.query_string(), controls.dim, rest
    ('?all=1&benchmark=re2math&track=raw&search=gpt&max_params=1e9', None, ('entry',))
    >>> controls.with_params(track="", all="", sort="model:desc").query.query_string()
    '?benchmark=re2math&search=gpt&sort=model%3Adesc&max_params=1e9'
    """

    #: the controls' order in an event's inputs (``BoardTab.controls``), which is :meth:`of`'s arguments' order
    FIELDS: ClassVar[tuple[str, ...]] = ("benchmark", "track", "group", "kind", "search", "sort", "show_all",
                                         "open_weights", "max_params", "dim", "headline")

    query: BoardQuery = field(default_factory=BoardQuery)
    #: the plots' breakdown as the visitor picked it (None: the plotted group's most common one)
    dim: str | None = None

    @classmethod
    def of(cls, benchmark: Any = None, track: Any = None, group: Any = None, kind: Any = None, search: Any = None,
           sort: Any = None, show_all: Any = False, open_weights: Any = False, max_params: Any = "",
           dim: Any = None, headline: Any = "") -> "BoardControls":
        """The controls from their raw values (anything a browser may send)."""
        query = query_from_params({"benchmark": benchmark or "", "track": track or "", "group": group or "",
                                   "kind": kind or "", "search": (search or "")[:MAX_SEARCH], "sort": sort or "",
                                   "all": "1" if show_all else "", "open": "1" if open_weights is True else "",
                                   "max_params": max_params if isinstance(max_params, str) else "",
                                   "headline": headline if isinstance(headline, str) else ""})
        return cls(query=query, dim=dim if isinstance(dim, str) else None)

    @classmethod
    def read(cls, values: Sequence[Any]) -> tuple["BoardControls", tuple[Any, ...]]:
        """The controls from a handler's positional inputs, and the inputs that follow them."""
        n = len(cls.FIELDS)
        return cls.of(**dict(zip(cls.FIELDS, values[:n]))), tuple(values[n:])

    def with_params(self, **params: str) -> "BoardControls":
        """The controls with some URL parameters replaced ('' clears one), read as a URL's are: what a click on
        a sort header or an overview link changes."""
        return replace(self, query=query_from_params({**self.query.to_params(), **params}))

    def view(self, ctx: SpaceContext) -> BoardView:
        """The board these controls show (an unknown benchmark, track or group replaced by an available one).

        Kept per (query, change token) in the context's ``views``: the timer's two steps, and the extras that
        follow a control change, show the view the first step built instead of building it again. The token
        covers everything a view is built from (the rows' store generation, the rank ranges and the Hub
        results' revisions); it is read after :meth:`SpaceContext.rows`, which may move it (a file changed on
        disk)."""
        rows = ctx.rows()
        memo = getattr(ctx, "views", None)  # a test's stand-in context keeps none
        key = (self.query.model_dump_json(), ctx.change_token()) if memo is not None else None
        if key is not None and (kept := memo.get(key)) is not None:
            return kept
        # a context without its own cache (a test's stand-in) gets the ranges computed on this thread
        view = build_view(rows, self.query, ctx.catalog(), getattr(ctx, "rank_ranges", None),
                          getattr(ctx, "hub_results", None))
        if key is not None:
            if len(memo) >= 64:
                memo.clear()
            memo[key] = view
        return view


def compose_qs(query: BoardQuery, tab: str | None = None, entry: str | None = None, item: str | None = None) -> str:
    """The URL query string for a view (board parameters, then the open tab and audit target).

    The landing view (the Benchmarks overview) needs no ``tab``; a URL with board parameters and no ``tab``
    opens the board, as links written before the overview existed expect (see :func:`tab_from_params`).

    >>> compose_qs(BoardQuery(benchmark="re2math", track="raw"), "audit", "ab" * 32, "i1")[:48]
    '?benchmark=re2math&track=raw&tab=audit&entry=aba'
    >>> compose_qs(BoardQuery(), "overview"), compose_qs(BoardQuery(), "board"), compose_qs(BoardQuery(kind="scored"), "board")
    ('', '?tab=board', '?kind=scored')
    """
    params = query.to_params()
    if tab in TABS and not (tab == "overview" and not params) and not (tab == "board" and params):
        params["tab"] = tab
    if tab == "audit" and entry:
        params["entry"] = entry
        if item:
            params["item"] = item
    return "?" + urlencode(params) if params else ""


def tab_from_params(params: dict[str, str]) -> str:
    """The tab a URL opens: its ``tab``, else the board when it names a board view, else the overview.

    >>> tab_from_params({}), tab_from_params({"benchmark": "mirb"}), tab_from_params({"tab": "audit"})
    ('overview', 'board', 'audit')
    >>> tab_from_params({"open": "1"}), tab_from_params({"max_params": "1e9"})
    ('board', 'board')
    """
    if params.get("tab") in TABS:
        return params["tab"]
    return "board" if any(params.get(k) for k in BOARD_PARAMS) else "overview"


def sort_choices(diagnostics: tuple[str, ...], current: str) -> list[tuple[str, str]]:
    """The Sort menu: the board's columns, the view's diagnostics, and the current sort even when this view lacks
    its column (labelled, never a raw key).

    >>> sort_choices((), "m.unjudged_rankings:asc")[-1]
    ('Rankings for unjudged queries, lowest first', 'm.unjudged_rankings:asc')
    """
    out = []
    for column, (asc, desc) in _SORT_LABELS.items():
        out += [(asc, f"{column}:asc"), (desc, f"{column}:desc")]
    from lemmata.metrics.glossary import describe

    for d in diagnostics:
        label = describe(d).label
        out += [(f"{label}, highest first", f"m.{d}:desc"), (f"{label}, lowest first", f"m.{d}:asc")]
    if current not in {v for _, v in out}:  # a URL's sort on a column this view lacks: shown by its label
        col, desc = parse_sort(current)
        label = describe(col[2:]).label if col.startswith("m.") else col
        out.append((f"{label}, {'highest' if desc else 'lowest'} first", current))
    return out


def size_choices(current: str = "") -> list[tuple[str, str]]:
    """The Parameters menu: the Across-benchmarks tab's size ceilings, plus the current one when a URL named
    another ceiling (so the menu can show it and the view keeps it).

    >>> size_choices("1e9") == size_choices(), size_choices("5e8")[-1], size_choices("x") == size_choices()
    (True, ('≤ 500M', '5e8'), True)
    """
    from lemmata.space.matrix import SIZE_CHOICES, param_count

    out = list(SIZE_CHOICES)
    if current and current not in {v for _, v in out}:
        try:
            out.append((f"≤ {param_count(float(current))}", current))
        except ValueError:
            pass
    return out


def tick_renders(rendered: str, current: str) -> bool:
    """Whether a refresh tick redraws the board: only once the page's load event has drawn it (``rendered`` is the
    change token that draw stored, empty until then) and only when something changed since.

    A tick that fired while the load event still ran read the default controls: drawing then put the default view
    over the URL's view, and stored a current token, so no later tick corrected it.

    >>> tick_renders("", "3:1:0:0:0"), tick_renders("3:1:0:0:0", "3:1:0:0:0"), tick_renders("3:1:0:0:0", "4:1:0:0:0")
    (False, False, True)
    """
    return bool(rendered) and rendered != current


def group_label(key: str) -> str:
    return key.replace(" | - | ", " | no retrieval artifact | ")


def entry_state(kind: str, status: str, pending: int) -> str:
    """What an entry is, in a word or two: reported (from a paper), scored, or pending with its open items.

    >>> entry_state("reported", "complete", 0), entry_state("scored", "complete", 0)
    ('reported', 'scored')
    >>> entry_state("scored", "pending", 12)
    'pending (12 items)'
    """
    if kind == "reported":
        return "reported"
    if status == "pending" or pending:
        return f"pending ({pending} item{'' if pending == 1 else 's'})" if pending else "pending"
    return "scored"


def entry_choices(ctx: SpaceContext) -> list[tuple[str, str]]:
    rows = sorted(ctx.rows(), key=lambda r: (r.benchmark, r.track, r.model_name.casefold(), r.result_id))
    return [(f"{r.model_name[:60]} · {r.benchmark}/{r.track} · {entry_state(r.kind, r.status, r.pending)} · "
             f"{r.short_id}", r.result_id) for r in rows]


def write_exports(ctx: SpaceContext, view: BoardView) -> tuple[Path, Path]:
    """CSV and JSON of the view, named by content so repeated renders reuse the same files.

    Remembered per (view, store generation): re-rendering an unchanged view writes nothing.
    """
    key = (view.query.model_dump_json(), ctx.store.generation())
    cached = ctx.exports.get(key)
    if cached is not None and all(p.exists() for p in cached):
        return cached
    csv_text = to_csv(export_records(view))
    json_text = to_json(view)
    stem = f"lemmata-{view.query.benchmark or 'board'}-{view.query.track or 'all'}"
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)
    paths = []
    for text, ext in ((csv_text, "csv"), (json_text, "json")):
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
        path = ctx.export_dir / digest / f"{stem}.{ext}"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        paths.append(path)
    if len(ctx.exports) > 256:
        ctx.exports.clear()
    ctx.exports[key] = (paths[0], paths[1])
    return paths[0], paths[1]


def banner_html(ctx: SpaceContext) -> str:
    notes = [*ctx.config.problems(), *filter(None, [ctx.worker.notice()])]  # a scoring pause is shown on the board
    problems = "".join(f'<div class="lm-banner" role="note">{esc(p)}</div>' for p in notes)
    return problems + ctx.bootstrap.render_html()


def render_events(ctx: SpaceContext, limit: int = 30) -> str:
    rows = "".join(f"<tr><td>{esc(e['at'])}</td><td>{esc(e['actor'])}</td><td>{esc(e['action'])}</td>"
                   f"<td><code class='lm-id'>{esc(e['target'])}</code></td><td>{esc(e['detail'] or '')}</td></tr>"
                   for e in ctx.store.events(limit) if not str(e["action"]).startswith("status:"))
    return ('<table class="lm-status-table"><thead><tr><th>At</th><th>Actor</th><th>Action</th><th>Target</th>'
            f"<th>Detail</th></tr></thead><tbody>{rows}</tbody></table>")


def availability_html(ctx: SpaceContext) -> str:
    """The Submit tab's list of benchmarks scorable here now (releases settle when the start-up build step ends)."""
    from lemmata.space.availability import benchmark_availability, render_availability

    return render_availability(current_availability(ctx))


def current_availability(ctx: SpaceContext) -> list:
    """Every submission benchmark's state now (releases settle when the start-up build step ends; a benchmark
    waits for the start-up steps it needs, by name)."""
    from lemmata.space.availability import benchmark_availability

    step = next((s for s in ctx.bootstrap.steps if s.key == "releases"), None)
    settled = step is None or step.status in ("done", "skipped", "failed")
    running = {s.key: s.label for s in ctx.bootstrap.steps if s.status in ("waiting", "running")}
    return benchmark_availability(ctx.config.releases_root, releases_settled=settled, running=running)


def overview_html(ctx: SpaceContext) -> str:
    """The Benchmarks overview: every submission benchmark, what it asks, and whether it is scored here now."""
    from lemmata.space.overview import benchmark_overviews, render_overview
    from lemmata.space.templates import example_path, local_file_url, repo_link

    counts: dict[str, int] = {}
    for r in ctx.rows():
        counts[r.benchmark] = counts.get(r.benchmark, 0) + 1

    def guide(benchmark: str) -> str | None:
        example = example_path(benchmark)
        if example is None:
            return None
        readme = Path(example).parent / "README.md"
        return repo_link(ctx.config.repo_url, readme.as_posix())

    return render_overview(benchmark_overviews(
        current_availability(ctx), ctx.config.releases_root,
        counts, guide_url=guide, card_url=local_file_url))


def status_html(ctx: SpaceContext, search: str = "") -> str:
    from lemmata.space.status import filter_records, render_status

    records = filter_records(ctx.store.list_submissions(limit=2000), search or "")
    results = {r.sha256: ctx.store.result_ids_for_submission(r.sha256) for r in records[:200]}
    return render_status(records, results, ctx.store.status_counts(), worker_alive=ctx.worker.alive,
                         notice=ctx.worker.notice(), pending=ctx.worker.pending_reasons())


def sync_kwargs(url_qs) -> dict[str, Any]:
    """The follow-up event that copies the composed query string into the address bar."""
    return dict(fn=None, inputs=[url_qs], js=URL_SYNC_JS, api_visibility="private")
