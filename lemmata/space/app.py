"""The Gradio Blocks app: leaderboard, submit, status, audit, about and admin tabs over one SpaceContext.

Every view is rendered on the server from the store (escaped HTML, no client
templating of untrusted data). The page reads its view from URL query
parameters on load (``benchmark``, ``track``, ``group``, ``kind``, ``search``,
``sort``, plus ``tab``, ``entry`` and ``item`` for the audit viewer) and writes
them back after each change (``history.replaceState``, and the Hub's
``postMessage`` so an embedding Space page keeps the same URL). A timer polls a
change token (the store's event counter) and re-renders only when something
changed; after an upload it polls faster until that submission is scored.

Annotations here are evaluated eagerly (no ``from __future__ import
annotations``): Gradio injects ``gr.Request``, ``gr.EventData`` and
``gr.OAuthProfile`` by inspecting the handlers' annotations.
"""

from typing import Any

from lemmata.core.settings import read as setting
from lemmata.space.board import DEFAULT_SORT, to_json
from lemmata.space.context import SpaceContext
from lemmata.space.views import (  # noqa: F401
    ALL_GROUPS,
    FAST_POLL_SECONDS,
    KIND_CHOICES,
    MAX_SEARCH,
    TABS,
    URL_SYNC_JS,
    BoardControls,
    availability_html,
    banner_html,
    compose_qs,
    entry_choices,
    group_label,
    overview_html,
    tab_from_params,
    tick_renders,
    query_from_params,
    render_events,
    sort_choices,
    status_html,
    sync_kwargs,
    write_exports,
)


# -- the app -----------------------------------------------------------------------------------------
def build_app(ctx: SpaceContext):
    """The Blocks app over a context (not launched; see :func:`launch_kwargs`): one module per tab under
    ``lemmata.space.tabs``, and here the events that cross tabs (first load, timer, board clicks, tab changes)."""
    import gradio as gr
    import pandas  # noqa: F401  (the plots need it; importing it here keeps the first page load fast)

    from lemmata.space.audit import render_audit
    from lemmata.space.drawn import session_of
    from lemmata.space.tabs import about, admin, audit, leaderboard, matrix, overview, status, submit
    from lemmata.space.tabs.matrix import matrix_html, panels_html
    from lemmata.space.tabs.leaderboard import core_values, extra_values, extras_event, filter_values
    from lemmata.space.tabs.shell import Shell

    from lemmata.space.templates import code_link_md

    config = ctx.config

    with gr.Blocks(title="Lemmata leaderboard", analytics_enabled=False) as demo:
        gr.Markdown("# Lemmata leaderboard\nMathematical tool retrieval and formalization benchmarks — every "
                    "score tied to the exact release, split and artifacts it was computed against. "
                    f"Code, schemas and examples: {code_link_md(config.repo_url)}.",
                    elem_id="lm-title")
        shell = Shell(banner=gr.HTML(banner_html(ctx), elem_id="lm-banner"), change_token=gr.State(""),
                      rest_token=gr.State(""),
                      show_all=gr.State(False), watch=gr.State([]),
                      url_qs=gr.Textbox(visible=False, elem_id="lm-url"), timer=gr.Timer(config.refresh_seconds))

        with gr.Tabs(selected="overview", elem_id="lm-tabs") as tabs:
            overview_tab = overview.layout(overview_html(ctx))  # painted before any event: never blank
            board_tab = leaderboard.layout(shell)
            matrix_tab = matrix.layout()
            submit_tab = submit.layout(ctx)
            status_tab = status.layout()
            audit_tab = audit.layout()
            about_tab = about.layout(ctx)
            admin_tab = admin.layout(ctx)
        shell.tabs = tabs

        leaderboard.wire(ctx, board_tab, shell)
        matrix.wire(ctx, matrix_tab)
        audit.wire(ctx, audit_tab, board_tab, shell)
        submit.wire(ctx, submit_tab, shell, status_tab.search, status_tab.view)
        status.wire(ctx, status_tab)
        admin.wire(ctx, admin_tab)

        core_outputs, extra_outputs = board_tab.core_outputs, board_tab.extra_outputs
        audit_outputs = audit_tab.outputs
        sync = sync_kwargs(shell.url_qs)
        # every handler below takes the board's controls first (``board_tab.controls``), which
        # ``BoardControls.read`` turns into one value, then its own inputs; an ``EventData`` parameter comes before
        # them (Gradio inserts it at its place among the positional parameters)
        extras_after_open = extras_event(ctx, board_tab)

        # -- clicks inside rendered HTML (sort headers, show all, entry ids) -------------------------------
        def on_board_click(evt: gr.EventData, request: gr.Request, *inputs):
            controls, _ = BoardControls.read(inputs)
            data = getattr(evt, "_data", None) or {}
            if data.get("sort") or data.get("rows") in ("all", "top"):
                shown = (controls.with_params(sort=str(data["sort"])[:100]) if data.get("sort") else
                         controls.with_params(all="1" if data["rows"] == "all" else ""))
                ticket = ctx.drawn.begin(session_of(request), shown.query)
                return core_values(ctx, shown.view(ctx), dim=shown.dim, ticket=ticket) + \
                    [gr.skip()] * (1 + len(audit_outputs))
            if data.get("audit"):
                view = controls.view(ctx)
                entry = str(data["audit"])[:64]
                audit_vals = audit.open_audit(ctx, entry, None)
                values = [gr.skip()] * len(core_outputs)
                values[core_outputs.index(shell.url_qs)] = compose_qs(view.query, "audit", entry, audit_vals[3])
                return values + [gr.Tabs(selected="audit")] + audit_vals[:3]
            return [gr.skip()] * (len(core_outputs) + 1 + len(audit_outputs))

        for source in (board_tab.board, submit_tab.outcome_html, status_tab.view):
            source.click(on_board_click, board_tab.controls, core_outputs + [tabs] + audit_outputs,
                         show_progress="hidden", api_visibility="private", preprocess=False).then(**sync)

        # -- links on the overview: a benchmark's board, or its submission form ----------------------------
        def on_open(evt: gr.EventData, request: gr.Request, *inputs):
            controls, _ = BoardControls.read(inputs)
            data = getattr(evt, "_data", None) or {}
            if data.get("submit"):
                values = [gr.skip()] * len(core_outputs)
                values[core_outputs.index(shell.url_qs)] = "?tab=submit"
                return values + [gr.Tabs(selected="submit"), gr.Dropdown(value=str(data["submit"])[:100])]
            if data.get("open"):  # the link's board, every source and row, keeping the sort and model filters
                shown = controls.with_params(benchmark=str(data["open"])[:100],
                                             track=str(data.get("track") or "")[:100],
                                             group=str(data.get("group") or "")[:500], kind="", search="", all="")
                ticket = ctx.drawn.begin(session_of(request), shown.query)
                return core_values(ctx, shown.view(ctx), dim=shown.dim, ticket=ticket) + [
                    gr.Tabs(selected="board"), gr.skip()]
            return [gr.skip()] * (len(core_outputs) + 2)

        open_outputs = core_outputs + [tabs, submit_tab.chooser]
        for source in (overview_tab.view, matrix_tab.view):
            source.click(on_open, board_tab.controls, open_outputs, show_progress="hidden",
                         api_visibility="private", preprocess=False).then(**sync).then(**extras_after_open)

        # -- tab changes keep the URL in step ---------------------------------------------------------
        for tab_id, tab in (("overview", overview_tab.tab), ("board", board_tab.tab), ("matrix", matrix_tab.tab),
                            ("submit", submit_tab.tab),
                            ("status", status_tab.tab),
                            ("audit", audit_tab.tab), ("about", about_tab.tab), ("admin", admin_tab.tab)):
            def on_tab(*inputs, _tab=tab_id):
                controls, (entry, item) = BoardControls.read(inputs)
                return compose_qs(controls.view(ctx).query, _tab, entry, item)

            tab.select(on_tab, board_tab.controls + [audit_tab.entry, audit_tab.item], [shell.url_qs],
                       show_progress="hidden", api_visibility="private", preprocess=False).then(**sync)

        # -- periodic refresh ---------------------------------------------------------------------------
        # In two steps, as a control change is: the table, the status list and the banner first (a new row or a
        # submission's state is on screen as soon as they are rendered), then the downloads, plots and the other
        # tabs' panels, which the follow-up renders only when the first step has rendered a new token.
        tick_outputs = core_outputs + [status_tab.view, shell.banner, shell.watch, shell.timer]
        rest_outputs = extra_outputs + [submit_tab.availability, overview_tab.view, matrix_tab.view,
                                        matrix_tab.panels, shell.rest_token]

        def latest_draw(request: Any, controls: BoardControls) -> tuple[Any, BoardControls]:
            """A tick's ticket and the controls of its page's latest draw: the controls read when the tick fired
            may be older (a control change or a sort click drawn since). The tick answers nothing if a draw
            begins while it builds (``ctx.drawn.still``)."""
            ticket, drawn = ctx.drawn.current(session_of(request))
            return ticket, controls if drawn is None else BoardControls(query=drawn, dim=controls.dim)

        def on_tick(request: gr.Request, *inputs):
            controls, (token, watching, status_filter) = BoardControls.read(inputs)
            current = ctx.change_token()
            if not tick_renders(token, current):
                return [gr.skip()] * len(tick_outputs)
            ticket, controls = latest_draw(request, controls)
            values = core_values(ctx, controls.view(ctx), dim=controls.dim, ticket=ticket)
            values[core_outputs.index(shell.url_qs)] = gr.skip()
            still = [sha for sha in (watching or [])
                     if (rec := ctx.store.get_submission(sha)) is not None and rec.status in ("queued", "scoring")]
            pace = gr.Timer(FAST_POLL_SECONDS if still else config.refresh_seconds, active=True)
            rest = [status_html(ctx, status_filter), banner_html(ctx), still, pace]
            if not ctx.drawn.still(ticket):  # a newer draw began: it answers after this, with the newer view
                return [gr.skip()] * len(tick_outputs)
            return values + rest

        def on_tick_rest(request: gr.Request, *inputs):
            controls, (token, rendered, *filters) = BoardControls.read(inputs)
            if token == rendered:  # the tick rendered nothing new
                return [gr.skip()] * len(rest_outputs)
            ticket, controls = latest_draw(request, controls)
            view = controls.view(ctx)  # the view the tick built (kept per token), not built again
            values = extra_values(ctx, view, controls.dim) + [availability_html(ctx), overview_html(ctx),
                                                              matrix_html(ctx, *filters), panels_html(ctx), token]
            return values if ctx.drawn.still(ticket) else [gr.skip()] * len(rest_outputs)

        shell.timer.tick(on_tick, board_tab.controls + [shell.change_token, shell.watch, status_tab.search],
                         tick_outputs, show_progress="hidden", api_visibility="private", concurrency_limit=8,
                         preprocess=False).then(
            on_tick_rest, board_tab.controls + [shell.change_token, shell.rest_token] + matrix_tab.filters,
            rest_outputs, show_progress="hidden", api_visibility="private", concurrency_limit=8, preprocess=False)

        # -- first paint from the URL ---------------------------------------------------------------------
        def on_load(request: gr.Request):
            params = dict(request.query_params) if request is not None else {}
            query = query_from_params(params)
            ticket = ctx.drawn.begin(session_of(request), query)
            view = BoardControls(query).view(ctx)
            tab = tab_from_params(params)
            entry = (params.get("entry") or "")[:64] or None
            audit_vals = audit.open_audit(ctx, entry, (params.get("item") or "")[:200] or None) if entry else \
                [gr.skip()] * 3 + [None]
            return core_values(ctx, view, tab, entry, audit_vals[3], ticket=ticket) + [
                gr.Tabs(selected=tab)] + audit_vals[:3] + [
                banner_html(ctx), view.query.kind, view.query.search] + filter_values(view.query)

        def on_load_rest(*inputs):
            controls, (entry,) = BoardControls.read(inputs)
            choices = gr.skip() if entry else gr.Dropdown(choices=entry_choices(ctx))
            token = ctx.change_token()  # read first: what is rendered below is at least this new
            return extra_values(ctx, controls.view(ctx), controls.dim) + [
                status_html(ctx), choices, overview_html(ctx), matrix_html(ctx), panels_html(ctx), token] + \
                about.load_values(about_tab, ctx)

        loaded = demo.load(on_load, None, core_outputs + [tabs] + audit_outputs
                           + [shell.banner, board_tab.kind, board_tab.search, board_tab.open_only, board_tab.size],
                           api_visibility="private")
        loaded.then(**sync)
        loaded.then(on_load_rest, board_tab.controls + [audit_tab.entry],
                    extra_outputs + [status_tab.view, audit_tab.entry, overview_tab.view, matrix_tab.view,
                                     matrix_tab.panels, shell.rest_token]
                    + about_tab.outputs,
                    api_visibility="private", show_progress="hidden", preprocess=False)

        # -- programmatic API (gradio_client) -----------------------------------------------------------
        def leaderboard_api(benchmark: str = "", track: str = "", group: str = "", kind: str = "all",
                            search: str = "", sort: str = DEFAULT_SORT, open_weights: bool = False,
                            max_params: str = "") -> dict:
            """The leaderboard view as JSON: groups (frozen tuples) with their ranked rows (optionally only models
            declaring open weights, or at most ``max_params`` parameters, e.g. "1e9")."""
            import json

            controls = BoardControls.of(benchmark, track, group, kind, search, sort,
                                        open_weights=bool(open_weights), max_params=str(max_params or ""))
            return json.loads(to_json(controls.view(ctx)))

        def submission_status(sha256: str) -> dict:
            """State of one submission by content hash, with its result ids."""
            rec = ctx.store.get_submission((sha256 or "").strip().lower())
            if rec is None:
                return {"sha256": sha256, "status": None}
            return {"sha256": rec.sha256, "status": rec.status,
                    "reason": rec.status_reason or ctx.worker.pending_reasons().get(rec.sha256),
                    "benchmark": rec.benchmark, "track": rec.track, "model": rec.model_name,
                    "received_at": rec.received_at, "result_ids": ctx.store.result_ids_for_submission(rec.sha256)}

        def audit_api(entry: str, item: str = "") -> str:
            """The audit view (markdown) of one item of one entry."""
            return render_audit(ctx.store, ctx.submissions, entry, item or None)

        gr.api(leaderboard_api, api_name="leaderboard", concurrency_limit=8)
        gr.api(submission_status, api_name="submission_status", concurrency_limit=8)
        gr.api(audit_api, api_name="audit", concurrency_limit=4)
    return demo


#: Gradio rebuilds its monitoring summary (a pandas table of up to 10,000 past events, grouped, with percentiles)
#: after every event unless told otherwise; only its monitoring dashboard reads it, and this app does not enable that.
#: Rebuilt after each event it took a quarter of the server's CPU in a walk over every control, and a long-running
#: server's events make each rebuild slower. Once per this many events instead (an operator's own setting wins).
MONITORING_SUMMARY_EVERY = 1000


def queued(demo: Any) -> Any:
    """``demo`` with its event queue on, as ``lemmata serve`` runs it: four events at a time, Gradio's monitoring
    summary rebuilt once per :data:`MONITORING_SUMMARY_EVERY` events. Returns ``demo``."""
    import os

    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", str(MONITORING_SUMMARY_EVERY))
    demo.queue(default_concurrency_limit=4)
    return demo


def launch_kwargs(ctx: SpaceContext) -> dict[str, Any]:
    """Arguments for ``demo.launch`` that belong to the app (styles, upload limit, served folders)."""
    import gradio as gr

    from lemmata.space.about import ABOUT_CSS, download_paths
    from lemmata.space.tabs.matrix import panels_css
    from lemmata.space.matrix import MATRIX_CSS
    from lemmata.space.overview import OVERVIEW_CSS
    from lemmata.space.tables import BOARD_CSS

    return {
        "css": BOARD_CSS + OVERVIEW_CSS + MATRIX_CSS + ABOUT_CSS + panels_css(),
        "theme": gr.themes.Default(primary_hue="blue"),
        "max_file_size": ctx.config.max_submission_bytes,
        "show_error": True,
        "run_history": False,
        "footer_links": ["api", "gradio"],
        # the About tab's release files live under LEMMATA_HOME, outside Gradio's default served folders
        "allowed_paths": [str(p) for p in download_paths(ctx.config.releases_root)] + local_paths(ctx),
    }


def local_paths(ctx: SpaceContext) -> list[str]:
    """With no repository configured, the checkout's files that the page links to (schemas, examples, README)."""
    if ctx.config.repo_url:
        return []
    from lemmata.core.paths import repo_root
    from lemmata.space.templates import LOCAL_SERVED

    return [str((repo_root() / name).resolve()) for name in LOCAL_SERVED if (repo_root() / name).exists()]


def persistent_home(environ=None) -> str | None:
    """On a hosted Space with persistent storage (``/data``) and no ``LEMMATA_HOME``, keep everything there."""
    import os

    from lemmata.core.settings import environment

    env = environment(environ)
    if env.get("SPACE_ID") and not setting("LEMMATA_HOME", env) and os.path.isdir("/data") \
            and os.access("/data", os.W_OK):
        return "/data/lemmata"
    return None


def serve(config=None, *, host: str | None = None, port: int | None = None, quiet: bool = False,
          block: bool = True):
    """Build the context, start preparing it in the background, and launch the app.

    This is the whole of ``lemmata serve`` and of the Space's ``app.py``.
    """
    import logging
    import os

    from lemmata.space.config import SpaceConfig
    from lemmata.space.context import create_context

    log = logging.getLogger("lemmata")
    if not log.handlers:  # the scorer's lines in the terminal, without other libraries' request logs
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[lemmata] %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    from lemmata.core.settings import unknown

    for line in unknown():  # a misspelt variable would otherwise be silently ignored
        log.warning("%s", line)
    home = persistent_home()
    if home is not None:  # handlers read releases and artifacts from LEMMATA_HOME too
        os.environ["LEMMATA_HOME"] = home
    ctx = create_context(config or SpaceConfig.from_env())
    ctx.start(background=True)
    demo = queued(build_app(ctx))
    kwargs = launch_kwargs(ctx)
    demo.launch(server_name=host or ctx.config.host, server_port=port if port is not None else ctx.config.port,
                quiet=quiet, prevent_thread_lock=not block, **kwargs)
    return ctx, demo
