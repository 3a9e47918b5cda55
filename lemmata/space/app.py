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


import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError

from lemmata.space.board import DEFAULT_SORT, BoardQuery, BoardView, build_view, parse_sort, to_csv, to_json
from lemmata.space.board import export_records
from lemmata.space.context import SpaceContext
from lemmata.space.safety import esc

TABS = ("board", "submit", "status", "audit", "about", "admin")
ALL_GROUPS = "all"
FAST_POLL_SECONDS = 0.5
MAX_SEARCH = 200
KIND_CHOICES = [("All", "all"), ("Scored here", "scored"), ("Reported", "reported")]
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

SUBMIT_HELP = """
Upload one **JSONL** file: the first line is a header, every further line one prediction record.

```json
{"format": "lemmata-submission/1", "benchmark": "re2math", "track": "raw", "model": {"name": "my-system", "url": "https://…"}}
```

The benchmark's handler checks the whole file before anything is stored and lists **every** problem with
its line and field. Schemas and example files live in the repository under `submissions/<benchmark>/`.
Uploading the same bytes twice points to the existing entry. Your contact is kept for the maintainers and
never shown.
"""


# -- pure helpers (tested without a browser) -------------------------------------------------------
def query_from_params(params: dict[str, str]) -> BoardQuery:
    """A BoardQuery from URL parameters; malformed values fall back to defaults."""
    fields = {k: str(params[k])[:MAX_SEARCH] for k in ("benchmark", "track", "group", "search", "sort", "kind")
              if params.get(k)}
    if params.get("all") == "1":
        fields["show_all"] = True
    if fields.get("group") == ALL_GROUPS:
        fields.pop("group")
    try:
        return BoardQuery(**fields)
    except ValidationError:
        fields.pop("kind", None)
        return BoardQuery(**fields)


def compose_qs(query: BoardQuery, tab: str | None = None, entry: str | None = None, item: str | None = None) -> str:
    """The URL query string for a view (board parameters, then the open tab and audit target).

    >>> compose_qs(BoardQuery(benchmark="re2math", track="raw"), "audit", "ab" * 32, "i1")[:48]
    '?benchmark=re2math&track=raw&tab=audit&entry=aba'
    """
    params = query.to_params()
    if tab and tab != "board" and tab in TABS:
        params["tab"] = tab
    if tab == "audit" and entry:
        params["entry"] = entry
        if item:
            params["item"] = item
    return "?" + urlencode(params) if params else ""


def sort_choices(diagnostics: tuple[str, ...], current: str) -> list[tuple[str, str]]:
    out = []
    for column, (asc, desc) in _SORT_LABELS.items():
        out += [(asc, f"{column}:asc"), (desc, f"{column}:desc")]
    for d in diagnostics:
        out += [(f"{d}, highest first", f"m.{d}:desc"), (f"{d}, lowest first", f"m.{d}:asc")]
    if current not in {v for _, v in out}:
        col, desc = parse_sort(current)
        out.append((f"{col} ({'descending' if desc else 'ascending'})", current))
    return out


def group_label(key: str) -> str:
    return key.replace(" | - | ", " | no retrieval artifact | ")


def entry_choices(ctx: SpaceContext) -> list[tuple[str, str]]:
    rows = sorted(ctx.rows(), key=lambda r: (r.benchmark, r.track, r.model_name.casefold(), r.result_id))
    return [(f"{r.model_name[:60]} · {r.benchmark}/{r.track} · "
             f"{'reported' if r.kind == 'reported' else 'scored'} · {r.short_id}", r.result_id) for r in rows]


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
    problems = "".join(f'<div class="lm-banner" role="note">{esc(p)}</div>' for p in ctx.config.problems())
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

    step = next((s for s in ctx.bootstrap.steps if s.key == "releases"), None)
    settled = step is None or step.status in ("done", "skipped", "failed")
    return render_availability(benchmark_availability(ctx.config.releases_root, releases_settled=settled))


def status_html(ctx: SpaceContext, search: str = "") -> str:
    from lemmata.space.status import filter_records, render_status

    records = filter_records(ctx.store.list_submissions(limit=2000), search or "")
    results = {r.sha256: ctx.store.result_ids_for_submission(r.sha256) for r in records[:200]}
    return render_status(records, results, ctx.store.status_counts(), worker_alive=ctx.worker.alive)


# -- the app -----------------------------------------------------------------------------------------
def build_app(ctx: SpaceContext):
    """The Blocks app over a context (not launched; see :func:`launch_kwargs`)."""
    import gradio as gr
    import pandas  # noqa: F401  (the plots need it; importing it here keeps the first page load fast)

    from lemmata.space.about import POLICY_MD, release_citations
    from lemmata.space.admin import moderate
    from lemmata.space.audit import item_choices, render_audit
    from lemmata.space.plots import dimensions, forest_svg, strata_frame
    from lemmata.space.submit import SubmissionForm, client_key, render_outcome, submit_upload
    from lemmata.space.tables import BOARD_JS, render_board

    config = ctx.config

    def make_view(benchmark, track, group, kind, search, sort, show_all=False) -> BoardView:
        query = query_from_params({"benchmark": benchmark or "", "track": track or "", "group": group or "",
                                   "kind": kind or "", "search": (search or "")[:MAX_SEARCH], "sort": sort or "",
                                   "all": "1" if show_all else ""})
        return build_view(ctx.rows(), query, ctx.catalog())

    def core_values(view: BoardView, tab: str = "board", entry=None, item=None) -> list:
        """What a view change must show at once: the controls and the table (see ``core_outputs``)."""
        q = view.query
        first = view.groups[0] if view.groups else None
        return [
            gr.Dropdown(choices=list(view.benchmarks), value=q.benchmark),
            gr.Dropdown(choices=list(view.tracks), value=q.track),
            gr.Dropdown(choices=[("All groups", ALL_GROUPS)] + [(group_label(k), k) for k in view.group_keys],
                        value=q.group or ALL_GROUPS),
            gr.Dropdown(choices=sort_choices(first.diagnostics if first else (), q.sort), value=q.sort),
            render_board(view),
            compose_qs(q, tab, entry, item),
            ctx.change_token(),
            q.show_all,
        ]

    def extra_values(view: BoardView, dim: str | None) -> list:
        """What may follow a moment later: downloads and plots (see ``extra_outputs``)."""
        first = view.groups[0] if view.groups else None
        dims = dimensions(first)
        dim = dim if dim in dims else (dims[0] if dims else None)
        frame = strata_frame(first, dim)
        csv_path, json_path = write_exports(ctx, view)
        plot_note = ""
        if first is not None:
            plot_note = (f'<p class="lm-summary">Plots show the group <b>{esc(group_label(first.key))}</b>'
                         + (" (the first listed; choose a group above to plot another).</p>"
                            if len(view.groups) > 1 else ".</p>"))
        metric = (first.metric if first else "") or "score"
        return [
            gr.DownloadButton(value=str(csv_path)),
            gr.DownloadButton(value=str(json_path)),
            gr.Dropdown(choices=dims, value=dim, visible=bool(dims)),
            gr.ScatterPlot(value=frame, visible=not frame.empty,
                           title=f"{metric} per {dim}" if dim else None),
            forest_svg(list(first.rows) if first else [], metric,
                       title=f"{metric} with interval") if first else "",
            plot_note,
        ]

    with gr.Blocks(title="Lemmata leaderboard", analytics_enabled=False) as demo:
        gr.Markdown("# Lemmata leaderboard\nMathematical tool retrieval and formalization benchmarks — every "
                    "score tied to the exact release, split and artifacts it was computed against.",
                    elem_id="lm-title")
        banner = gr.HTML(banner_html(ctx), elem_id="lm-banner")
        change_token = gr.State("")
        show_all = gr.State(False)  # every row of each group instead of the first ROW_LIMIT
        watch = gr.State([])
        url_qs = gr.Textbox(visible=False, elem_id="lm-url")
        timer = gr.Timer(config.refresh_seconds)

        with gr.Tabs(selected="board", elem_id="lm-tabs") as tabs:
            with gr.Tab("Leaderboard", id="board", elem_id="lm-tab-board") as tab_board:
                with gr.Row(equal_height=True):
                    benchmark = gr.Dropdown(label="Benchmark", choices=[], interactive=True, scale=2,
                                            elem_id="lm-benchmark")
                    track = gr.Dropdown(label="Track", choices=[], interactive=True, scale=1, elem_id="lm-track")
                    group = gr.Dropdown(label="Frozen-tuple group", choices=[("All groups", ALL_GROUPS)],
                                        value=ALL_GROUPS, interactive=True, scale=4, elem_id="lm-group")
                    kind = gr.Radio(KIND_CHOICES, value="all", label="Source", scale=2, elem_id="lm-kind")
                with gr.Row(equal_height=True):
                    search = gr.Textbox(label="Search", placeholder="model name, URL or entry id", scale=4,
                                        max_length=MAX_SEARCH, elem_id="lm-search")
                    sort = gr.Dropdown(label="Sort", choices=sort_choices((), DEFAULT_SORT), value=DEFAULT_SORT,
                                       interactive=True, scale=2, elem_id="lm-sort")
                    with gr.Column(scale=1, min_width=170):
                        csv_btn = gr.DownloadButton("Download CSV", size="sm", elem_id="lm-csv")
                        json_btn = gr.DownloadButton("Download JSON", size="sm", elem_id="lm-json")
                board = gr.HTML("", js_on_load=BOARD_JS, elem_id="lm-board")
                with gr.Accordion("Plots", open=True, elem_id="lm-plots"):
                    plot_note = gr.HTML("")
                    dim = gr.Dropdown(label="Breakdown", choices=[], interactive=True, visible=False)
                    strata = gr.ScatterPlot(x="stratum", y="score", color="model", height=320, visible=False,
                                            x_title="stratum", y_title="score", tooltip="all",
                                            elem_id="lm-strata")
                    forest = gr.HTML("", elem_id="lm-forest")

            with gr.Tab("Submit", id="submit", elem_id="lm-tab-submit") as tab_submit:
                gr.Markdown(SUBMIT_HELP + f"\nLimits: {config.max_submission_bytes / 1_048_576:g} MiB per file; "
                            f"{config.rate_limit.describe()} per submitter.")
                with gr.Row():
                    with gr.Column(scale=3):
                        upload = gr.File(label="Predictions (.jsonl)", file_types=[".jsonl", ".json", ".txt"],
                                         type="filepath", elem_id="lm-upload")
                    with gr.Column(scale=2):
                        submitter = gr.Textbox(label="Submitter (person or team, shown publicly)",
                                               max_length=100, elem_id="lm-submitter")
                        contact = gr.Textbox(label="Contact (e-mail or Hub user; never shown)", max_length=200,
                                             elem_id="lm-contact")
                        notes = gr.Textbox(label="Notes (optional)", lines=3, max_length=2000, elem_id="lm-notes")
                availability_view = gr.HTML(lambda: availability_html(ctx), elem_id="lm-availability-view")  # per page load
                submit_btn = gr.Button("Validate and submit", variant="primary", elem_id="lm-submit")
                outcome_html = gr.HTML("", js_on_load=BOARD_JS, elem_id="lm-outcome")
                outcome_json = gr.JSON(visible=False)

            with gr.Tab("Status", id="status", elem_id="lm-tab-status") as tab_status:
                status_search = gr.Textbox(label="Filter", placeholder="model, submitter, content hash or status",
                                           elem_id="lm-status-search")
                status_view = gr.HTML("", js_on_load=BOARD_JS, elem_id="lm-status")

            with gr.Tab("Audit", id="audit", elem_id="lm-tab-audit") as tab_audit:
                with gr.Row():
                    audit_entry = gr.Dropdown(label="Entry", choices=[], allow_custom_value=True, scale=3,
                                              interactive=True, elem_id="lm-audit-entry")
                    audit_item = gr.Dropdown(label="Item", choices=[], allow_custom_value=True, scale=2,
                                             interactive=True, elem_id="lm-audit-item")
                audit_view = gr.Markdown("Choose an entry (click an entry id on the leaderboard, or pick one above).",
                                         latex_delimiters=[{"left": "$$", "right": "$$", "display": True},
                                                           {"left": "$", "right": "$", "display": False}],
                                         elem_id="lm-audit")

            with gr.Tab("About & cite", id="about", elem_id="lm-tab-about") as tab_about:
                gr.Markdown(POLICY_MD)
                about_outputs = []
                for cit in release_citations(config.releases_root):
                    with gr.Accordion(f"Cite {cit.meta.release_id}", open=False):
                        header = gr.Markdown(cit.header_md())
                        gr.Code(cit.meta.citation, label="BibTeX (the paper)", language=None, interactive=False)
                        cff = gr.Code(cit.citation_cff(), label="CITATION.cff (this release)", language="yaml",
                                      interactive=False)
                        with gr.Row():
                            croissant = gr.DownloadButton("Download croissant.json",
                                                          value=_path(cit.file("croissant.json")),
                                                          interactive=cit.built)
                            card = gr.DownloadButton("Download dataset card (README.md)",
                                                     value=_path(cit.file("README.md")), interactive=cit.built)
                    about_outputs.append((cit, header, cff, croissant, card))

            with gr.Tab("Admin", id="admin", elem_id="lm-tab-admin") as tab_admin:
                gr.Markdown(config.admin_note() + " Hiding takes an entry off the board and its exports; its "
                            "result file stays stored, and every action is logged with its reason.")
                if config.hosted:
                    gr.LoginButton()
                    admin_token = gr.Textbox(visible=False)
                else:
                    admin_token = gr.Textbox(label="Admin token", type="password", elem_id="lm-admin-token")
                with gr.Row():
                    admin_entry = gr.Textbox(label="Entry id (64 hex characters)", scale=3,
                                             elem_id="lm-admin-entry")
                    admin_reason = gr.Textbox(label="Reason (logged)", scale=2, elem_id="lm-admin-reason")
                with gr.Row():
                    hide_btn = gr.Button("Hide", variant="stop")
                    unhide_btn = gr.Button("Unhide")
                    rescore_btn = gr.Button("Rescore")
                admin_out = gr.Markdown("")
                events_view = gr.HTML("")

        controls = [benchmark, track, group, kind, search, sort, show_all]
        core_outputs = [benchmark, track, group, sort, board, url_qs, change_token, show_all]
        extra_outputs = [csv_btn, json_btn, dim, strata, forest, plot_note]
        audit_outputs = [audit_entry, audit_item, audit_view]

        # -- leaderboard events: the table first, then (in parallel) the URL and the downloads and plots -------
        def on_controls(b, t, g, k, s, o, a):
            return core_values(make_view(b, t, g, k, s, o, a))

        def on_benchmark(b, k, s, o):
            return core_values(make_view(b, None, None, k, s, o))

        def on_track(b, t, k, s, o):
            return core_values(make_view(b, t, None, k, s, o))

        def on_extras(b, t, g, k, s, o, a, d):
            return extra_values(make_view(b, t, g, k, s, o, a), d)

        sync = dict(fn=None, inputs=[url_qs], js=URL_SYNC_JS, api_visibility="private")
        extras = dict(fn=on_extras, inputs=controls + [dim], outputs=extra_outputs, show_progress="hidden",
                      api_visibility="private")
        common = dict(outputs=core_outputs, show_progress="minimal", api_visibility="private")

        def chain(event) -> None:
            event.then(**sync)
            event.then(**extras)

        chain(benchmark.input(on_benchmark, [benchmark, kind, search, sort], **common))
        chain(track.input(on_track, [benchmark, track, kind, search, sort], **common))
        for comp in (group, kind, sort):
            chain(comp.input(on_controls, controls, **common))
        chain(search.input(on_controls, controls, trigger_mode="always_last", **common))
        chain(search.submit(on_controls, controls, trigger_mode="always_last", **common))
        dim.input(**extras)

        def on_board_click(b, t, g, k, s, o, a, evt: gr.EventData):
            data = getattr(evt, "_data", None) or {}
            if data.get("sort"):
                return core_values(make_view(b, t, g, k, s, str(data["sort"])[:100], a)) + \
                    [gr.skip()] * (1 + len(audit_outputs))
            if data.get("rows") in ("all", "top"):
                return core_values(make_view(b, t, g, k, s, o, data["rows"] == "all")) + \
                    [gr.skip()] * (1 + len(audit_outputs))
            if data.get("audit"):
                view = make_view(b, t, g, k, s, o, a)
                entry = str(data["audit"])[:64]
                audit_vals = open_audit(entry, None)
                values = [gr.skip()] * len(core_outputs)
                values[core_outputs.index(url_qs)] = compose_qs(view.query, "audit", entry, audit_vals[3])
                return values + [gr.Tabs(selected="audit")] + audit_vals[:3]
            return [gr.skip()] * (len(core_outputs) + 1 + len(audit_outputs))

        for source in (board, outcome_html, status_view):
            source.click(on_board_click, controls, core_outputs + [tabs] + audit_outputs,
                         show_progress="hidden", api_visibility="private").then(**sync)

        # -- audit ----------------------------------------------------------------------------------
        def open_audit(entry: str | None, item: str | None) -> list:
            """[entry dropdown, item dropdown, markdown, chosen item]."""
            result = ctx.store.get_result(entry) if entry else None
            choices = item_choices(result) if result is not None else []
            ids = [v for _, v in choices]
            if item not in ids:
                item = ids[0] if ids else None
            return [gr.Dropdown(choices=entry_choices(ctx), value=entry),
                    gr.Dropdown(choices=choices, value=item),
                    render_audit(ctx.store, ctx.submissions, entry, item), item]

        def on_audit_entry(entry, b, t, g, k, s, o, a):
            vals = open_audit(entry, None)
            return vals[:3] + [compose_qs(make_view(b, t, g, k, s, o, a).query, "audit", entry, vals[3])]

        def on_audit_item(entry, item, b, t, g, k, s, o, a):
            return [render_audit(ctx.store, ctx.submissions, entry, item),
                    compose_qs(make_view(b, t, g, k, s, o, a).query, "audit", entry, item)]

        audit_entry.input(on_audit_entry, [audit_entry] + controls, audit_outputs + [url_qs],
                          api_visibility="private").then(**sync)
        audit_item.input(on_audit_item, [audit_entry, audit_item] + controls, [audit_view, url_qs],
                         api_visibility="private").then(**sync)

        # -- tab changes keep the URL in step ---------------------------------------------------------
        for tab_id, tab in (("board", tab_board), ("submit", tab_submit), ("status", tab_status),
                            ("audit", tab_audit), ("about", tab_about), ("admin", tab_admin)):
            def on_tab(b, t, g, k, s, o, a, entry, item, _tab=tab_id):
                return compose_qs(make_view(b, t, g, k, s, o, a).query, _tab, entry, item)

            tab.select(on_tab, controls + [audit_entry, audit_item], [url_qs], show_progress="hidden",
                       api_visibility="private").then(**sync)

        # -- submit -----------------------------------------------------------------------------------
        def submit(file_path: str | None, submitter_name: str, contact_text: str, notes_text: str,
                   request: gr.Request):
            blocked = ctx.bootstrap.submissions_blocked()
            if blocked:
                html = f'<div class="lm-errors" role="alert">Nothing was stored: {esc(blocked)}.</div>'
                return html, {"outcome": "unavailable", "message": blocked, "problems": []}
            from lemmata.core.errors import LemmataError
            from lemmata.space.availability import header_benchmark, unavailable_outcome

            data = Path(file_path).read_bytes() if file_path else None
            host = _client_host(request, config.hosted)
            name = Path(file_path).name if file_path else None
            try:
                outcome = submit_upload(
                    ctx.store, config, data, name,
                    SubmissionForm(submitter_name or "", contact_text or "", notes_text or ""),
                    client=client_key(host), user=_request_user(request))
            except LemmataError as exc:  # the release this file needs cannot be built or read on this server
                return unavailable_outcome(name or "upload.jsonl", header_benchmark(data or b""), str(exc))
            if outcome.kind == "created":
                ctx.worker.wake()
            return render_outcome(outcome), outcome.as_dict()

        def after_submit(outcome: dict | None, watching: list, search_text: str):
            watching = list(watching or [])
            if outcome and outcome.get("outcome") == "created" and outcome.get("sha256"):
                watching.append(outcome["sha256"])
            fast = gr.Timer(FAST_POLL_SECONDS if watching else config.refresh_seconds, active=True)
            return fast, watching, status_html(ctx, search_text), availability_html(ctx)

        submit_btn.click(submit, [upload, submitter, contact, notes], [outcome_html, outcome_json],
                         api_name="submit", concurrency_limit=4, show_progress="minimal").then(
            after_submit, [outcome_json, watch, status_search], [timer, watch, status_view, availability_view],
            api_visibility="private", show_progress="hidden")

        status_search.input(lambda s: status_html(ctx, s), [status_search], [status_view],
                            trigger_mode="always_last", show_progress="hidden", api_visibility="private")

        # -- periodic refresh ---------------------------------------------------------------------------
        def on_tick(b, t, g, k, s, o, a, d, token, watching, status_filter):
            current = ctx.change_token()
            if current == token:
                return [gr.skip()] * (len(core_outputs) + len(extra_outputs) + 5)
            view = make_view(b, t, g, k, s, o, a)
            values = core_values(view) + extra_values(view, d)
            values[core_outputs.index(url_qs)] = gr.skip()
            still = [sha for sha in (watching or [])
                     if (rec := ctx.store.get_submission(sha)) is not None and rec.status in ("queued", "scoring")]
            pace = gr.Timer(FAST_POLL_SECONDS if still else config.refresh_seconds, active=True)
            return values + [status_html(ctx, status_filter), banner_html(ctx), still, pace, availability_html(ctx)]

        timer.tick(on_tick, controls + [dim, change_token, watch, status_search],
                   core_outputs + extra_outputs + [status_view, banner, watch, timer, availability_view],
                   show_progress="hidden",
                   api_visibility="private", concurrency_limit=8)

        # -- admin --------------------------------------------------------------------------------------
        def admin_action(action: str):
            def run_local(token, entry, reason):
                return _moderate(action, entry, reason, token=token, username=None)

            def run_hosted(token, entry, reason, profile: gr.OAuthProfile | None):
                return _moderate(action, entry, reason, token=None,
                                 username=profile.username if profile is not None else None)

            return run_hosted if config.hosted else run_local

        def _moderate(action, entry, reason, *, token, username):
            from lemmata.core.errors import LemmataError
            from lemmata.space.admin import NotAuthorized

            try:
                message = moderate(ctx.store, config, action, entry, reason or "", token=token, username=username,
                                   wake=ctx.worker.wake)
            except NotAuthorized as exc:  # the moderation log is for admins only
                return esc(f"Not done: {exc}"), ""
            except (LemmataError, ValueError) as exc:
                message = f"Not done: {exc}"
            return esc(message), render_events(ctx)

        for btn, action in ((hide_btn, "hide"), (unhide_btn, "unhide"), (rescore_btn, "rescore")):
            btn.click(admin_action(action), [admin_token, admin_entry, admin_reason], [admin_out, events_view],
                      api_visibility="private")

        # -- first paint from the URL ---------------------------------------------------------------------
        def on_load(request: gr.Request):
            params = dict(request.query_params) if request is not None else {}
            view = build_view(ctx.rows(), query_from_params(params), ctx.catalog())
            tab = params.get("tab") if params.get("tab") in TABS else "board"
            entry = (params.get("entry") or "")[:64] or None
            audit_vals = open_audit(entry, (params.get("item") or "")[:200] or None) if entry else \
                [gr.skip()] * 3 + [None]
            return core_values(view, tab, entry, audit_vals[3]) + [gr.Tabs(selected=tab)] + audit_vals[:3] + [
                banner_html(ctx), view.query.kind, view.query.search]

        def on_load_rest(b, t, g, k, s, o, a, d, entry):
            about_vals = []
            for cit, *_ in about_outputs:
                about_vals += [cit.header_md(), cit.citation_cff(),
                               gr.DownloadButton(value=_path(cit.file("croissant.json")), interactive=cit.built),
                               gr.DownloadButton(value=_path(cit.file("README.md")), interactive=cit.built)]
            choices = gr.skip() if entry else gr.Dropdown(choices=entry_choices(ctx))
            return extra_values(make_view(b, t, g, k, s, o, a), d) + [status_html(ctx), choices] + about_vals

        about_comps = [c for _, *comps in about_outputs for c in comps]
        loaded = demo.load(on_load, None, core_outputs + [tabs] + audit_outputs + [banner, kind, search],
                           api_visibility="private")
        loaded.then(**sync)
        loaded.then(on_load_rest, controls + [dim, audit_entry], extra_outputs + [status_view, audit_entry]
                    + about_comps, api_visibility="private", show_progress="hidden")

        # -- programmatic API (gradio_client) -----------------------------------------------------------
        def leaderboard(benchmark: str = "", track: str = "", group: str = "", kind: str = "all",
                        search: str = "", sort: str = DEFAULT_SORT) -> dict:
            """The leaderboard view as JSON: groups (frozen tuples) with their ranked rows."""
            import json

            return json.loads(to_json(make_view(benchmark, track, group, kind, search, sort)))

        def submission_status(sha256: str) -> dict:
            """State of one submission by content hash, with its result ids."""
            rec = ctx.store.get_submission((sha256 or "").strip().lower())
            if rec is None:
                return {"sha256": sha256, "status": None}
            return {"sha256": rec.sha256, "status": rec.status, "reason": rec.status_reason,
                    "benchmark": rec.benchmark, "track": rec.track, "model": rec.model_name,
                    "received_at": rec.received_at, "result_ids": ctx.store.result_ids_for_submission(rec.sha256)}

        def audit(entry: str, item: str = "") -> str:
            """The audit view (markdown) of one item of one entry."""
            return render_audit(ctx.store, ctx.submissions, entry, item or None)

        gr.api(leaderboard, api_name="leaderboard", concurrency_limit=8)
        gr.api(submission_status, api_name="submission_status", concurrency_limit=8)
        gr.api(audit, api_name="audit", concurrency_limit=4)
    return demo


def _path(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def _client_host(request: Any, hosted: bool) -> str | None:
    """The client address for rate limiting (the first forwarded address behind the Hub's proxy)."""
    if request is None:
        return None
    if hosted:
        forwarded = request.headers.get("x-forwarded-for", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    client = getattr(request, "client", None)
    return getattr(client, "host", None)


def _request_user(request: Any) -> str | None:
    return getattr(request, "username", None) if request is not None else None


def launch_kwargs(ctx: SpaceContext) -> dict[str, Any]:
    """Arguments for ``demo.launch`` that belong to the app (styles, upload limit, served folders)."""
    import gradio as gr

    from lemmata.space.about import download_paths
    from lemmata.space.tables import BOARD_CSS

    return {
        "css": BOARD_CSS,
        "theme": gr.themes.Default(primary_hue="blue"),
        "max_file_size": ctx.config.max_submission_bytes,
        "show_error": True,
        "run_history": False,
        "footer_links": ["api", "gradio"],
        # the About tab's release files live under LEMMATA_HOME, outside Gradio's default served folders
        "allowed_paths": [str(p) for p in download_paths(ctx.config.releases_root)],
    }


def persistent_home(environ=None) -> str | None:
    """On a hosted Space with persistent storage (``/data``) and no ``LEMMATA_HOME``, keep everything there."""
    import os

    env = os.environ if environ is None else environ
    if env.get("SPACE_ID") and not env.get("LEMMATA_HOME") and os.path.isdir("/data") \
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
    home = persistent_home()
    if home is not None:  # handlers read releases and artifacts from LEMMATA_HOME too
        os.environ["LEMMATA_HOME"] = home
    ctx = create_context(config or SpaceConfig.from_env())
    ctx.start(background=True)
    demo = build_app(ctx)
    demo.queue(default_concurrency_limit=4)
    kwargs = launch_kwargs(ctx)
    demo.launch(server_name=host or ctx.config.host, server_port=port if port is not None else ctx.config.port,
                quiet=quiet, prevent_thread_lock=not block, **kwargs)
    return ctx, demo
