"""The Leaderboard tab: benchmark, track, group, source, model-metadata, search and sort controls, the ranked table,
CSV/JSON downloads and the plots, and the events that re-render them (the table first, then the rest)."""

from dataclasses import dataclass
from typing import Any

from lemmata.space.board import DEFAULT_SORT, BoardView
from lemmata.space.context import SpaceContext
from lemmata.space.safety import esc
from lemmata.space.tabs.shell import Shell
from lemmata.space.views import (
    ALL_GROUPS,
    KIND_CHOICES,
    MAX_SEARCH,
    BoardControls,
    compose_qs,
    group_label,
    size_choices,
    sort_choices,
    sync_kwargs,
    write_exports,
)


@dataclass
class BoardTab:
    tab: Any
    benchmark: Any
    track: Any
    group: Any
    kind: Any
    search: Any
    sort: Any
    #: rank by another headline the entries offer (TaoBench's pass@k for k ≤ n); hidden when none is offered
    headline: Any
    open_only: Any
    size: Any
    csv_btn: Any
    json_btn: Any
    board: Any
    plot_note: Any
    dim: Any
    strata: Any
    forest: Any
    #: the inputs every handler reading the controls takes first (``BoardControls.FIELDS`` order)
    controls: list
    core_outputs: list
    extra_outputs: list


def filter_values(query) -> list:
    """The model-metadata filters (Open weights only, Parameters) as a query sets them: the page's first paint
    from a URL."""
    import gradio as gr

    return [query.open_weights, gr.Dropdown(choices=size_choices(query.max_params), value=query.max_params)]


def breakdown_of(view: BoardView, dim: str | None) -> tuple[list[str], str | None]:
    """The breakdowns the plotted group offers, and the one shown: the visitor's pick while the group still has it,
    else its most common one. One function decides it for the Breakdown menu and for the plot, so the two agree."""
    from lemmata.space.plots import dimensions, plot_group

    dims = dimensions(plot_group(view))
    return dims, (dim if dim in dims else (dims[0] if dims else None))


def core_values(ctx: SpaceContext, view: BoardView, tab: str = "board", entry=None, item=None,
                dim: str | None = None, *, ticket: Any = None) -> list:
    """What a view change must show at once: the controls and the table (see ``BoardTab.core_outputs``).

    Every menu whose choices depend on the view (track, group, sort, breakdown) is replaced here, in the same
    event as the view, with its choices and its value together. ``ticket``: the page's draw
    (:class:`~lemmata.space.drawn.Ticket`), under which the view's query is noted for its refresh ticks."""
    import gradio as gr

    from lemmata.metrics.glossary import dimension_label
    from lemmata.space.tables import render_board

    q = view.query
    if ticket is not None:
        ctx.drawn.note(ticket, q)
    first = view.groups[0] if view.groups else None
    dims, dim = breakdown_of(view, dim)
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
        gr.Dropdown(choices=[(dimension_label(d), d) for d in dims], value=dim, visible=bool(dims)),
        gr.Dropdown(choices=headline_choices(view), value=q.headline, visible=bool(view.headlines)),
    ]


def headline_choices(view: BoardView) -> list[tuple[str, str]]:
    """The Headline menu: the stored headline (the default), then every other headline the view's entries offer."""
    first = view.groups[0] if view.groups and not view.query.headline else None
    stored = f"As scored ({first.metric})" if first is not None and first.metric else "As scored"
    return [(stored, "")] + [(label, label) for label in view.headlines]


def extra_values(ctx: SpaceContext, view: BoardView, dim: str | None) -> list:
    """What may follow a moment later: downloads and plots (see ``BoardTab.extra_outputs``)."""
    import gradio as gr

    from lemmata.metrics.glossary import dimension_label
    from lemmata.space.plots import (cost_svg, forest_svg, legend_html, model_colors, plot_group, plot_title,
                                     strata_frame)

    shown = plot_group(view)
    _, dim = breakdown_of(view, dim)
    frame = strata_frame(shown, dim)
    csv_path, json_path = write_exports(ctx, view)
    metric = (shown.metric if shown else "") or "score"
    colors = model_colors(frame)
    return [
        gr.DownloadButton(value=str(csv_path)),
        gr.DownloadButton(value=str(json_path)),
        # Vega's bottom legend is one line cut at the plot's width: the legend is HTML instead (see plot_note)
        # hidden by a class, never by ``visible``: an unmounted plot still finishing a draw throws in the browser
        gr.ScatterPlot(value=frame, elem_classes=["lm-hidden"] if frame.empty else [], title=plot_title(metric, dim) if dim else None,
                       x_title=dimension_label(dim) if dim else "stratum", y_title=plot_title(metric, None),
                       color_map=colors or None, colors_in_legend=[]),
        # the cost-versus-score scatter follows the forest plot where the group's LLM runs report usage
        (forest_svg(list(shown.rows), metric, title=f"{plot_title(metric, None)} with interval")
         + cost_svg(list(shown.rows), metric)) if shown else "",
        plot_note(view, shown) + legend_html(colors),
    ]


def plot_note(view: BoardView, shown) -> str:
    """Which group the plots show, and why that one."""
    if shown is None:
        return ""
    text = f'<p class="lm-summary">Plots show the group <b>{esc(group_label(shown.key))}</b>'
    if view.query.group or len(view.groups) == 1:
        return text + ".</p>"
    if shown is not view.groups[0]:
        return text + " (the first listed group with a score under this filter; choose a group above to plot " \
                      "another).</p>"
    return text + " (the first listed; choose a group above to plot another).</p>"


def layout(shell: Shell) -> BoardTab:
    import gradio as gr

    from lemmata.space.tables import BOARD_JS

    with gr.Tab("Leaderboard", id="board", elem_id="lm-tab-board") as tab:
        with gr.Row(equal_height=True):
            benchmark = gr.Dropdown(label="Benchmark", choices=[], interactive=True, scale=2,
                                    elem_id="lm-benchmark")
            track = gr.Dropdown(label="Track", choices=[], interactive=True, scale=1, elem_id="lm-track")
            group = gr.Dropdown(label="Frozen-tuple group", choices=[("All groups", ALL_GROUPS)],
                                value=ALL_GROUPS, interactive=True, scale=4, elem_id="lm-group")
            kind = gr.Radio(KIND_CHOICES, value="all", label="Source", scale=2, elem_id="lm-kind")
        with gr.Row(equal_height=True):
            search = gr.Textbox(label="Search", placeholder="model name, URL or entry id", scale=3,
                                max_length=MAX_SEARCH, elem_id="lm-search")
            size = gr.Dropdown(label="Parameters", choices=size_choices(), value="", interactive=True, scale=1,
                               elem_id="lm-size")
            open_only = gr.Checkbox(value=False, label="Open weights only", scale=1, elem_id="lm-open")
            sort = gr.Dropdown(label="Sort", choices=sort_choices((), DEFAULT_SORT), value=DEFAULT_SORT,
                               interactive=True, scale=2, elem_id="lm-sort")
            headline = gr.Dropdown(label="Headline", choices=[("As scored", "")], value="", interactive=True,
                                   visible=False, scale=1, elem_id="lm-headline")
            with gr.Column(scale=1, min_width=170):
                csv_btn = gr.DownloadButton("Download CSV", size="sm", elem_id="lm-csv")
                json_btn = gr.DownloadButton("Download JSON", size="sm", elem_id="lm-json")
        board = gr.HTML("", js_on_load=BOARD_JS, elem_id="lm-board")
        with gr.Accordion("Plots", open=True, elem_id="lm-plots"):
            plot_note = gr.HTML("")
            dim = gr.Dropdown(label="Breakdown", choices=[], interactive=True, visible=False, elem_id="lm-dim")
            strata = gr.ScatterPlot(x="stratum", y="score", color="model", height=320, elem_classes=["lm-hidden"],
                                    x_title="stratum", y_title="score", tooltip="all", x_label_angle=-30,
                                    colors_in_legend=[],
                                    elem_id="lm-strata")
            forest = gr.HTML("", elem_id="lm-forest")
    return BoardTab(
        tab=tab, benchmark=benchmark, track=track, group=group, kind=kind, search=search, sort=sort,
        headline=headline,
        open_only=open_only, size=size, csv_btn=csv_btn, json_btn=json_btn, board=board, plot_note=plot_note, dim=dim, strata=strata,
        forest=forest,
        # BoardControls.FIELDS order
        controls=[benchmark, track, group, kind, search, sort, shell.show_all, open_only, size, dim, headline],
        core_outputs=[benchmark, track, group, sort, board, shell.url_qs, shell.change_token, shell.show_all, dim,
                      headline],
        extra_outputs=[csv_btn, json_btn, strata, forest, plot_note])


def extras_event(ctx: SpaceContext, t: BoardTab) -> dict[str, Any]:
    """The follow-up event that renders the downloads and plots of the view the controls ask for."""
    def on_extras(*inputs):
        controls, _ = BoardControls.read(inputs)
        return extra_values(ctx, controls.view(ctx), controls.dim)

    return dict(fn=on_extras, inputs=t.controls, outputs=t.extra_outputs, show_progress="hidden",
                api_visibility="private", preprocess=False)


def wire(ctx: SpaceContext, t: BoardTab, shell: Shell) -> None:
    """Control changes: the table first, then (in parallel) the URL and the downloads and plots."""
    import gradio as gr

    from lemmata.space.drawn import session_of

    def shows(**cleared: str):
        """A handler showing the view the controls ask for, with the URL parameters ``cleared`` first."""
        def on_controls(request: gr.Request, *inputs):
            controls, _ = BoardControls.read(inputs)
            if cleared:
                controls = controls.with_params(**cleared)
            ticket = ctx.drawn.begin(session_of(request), controls.query)
            return core_values(ctx, controls.view(ctx), dim=controls.dim, ticket=ticket)

        return on_controls

    sync = sync_kwargs(shell.url_qs)
    # ``preprocess=False`` everywhere: a menu's choices may change between the moment the browser sends an event
    # and the moment the server runs it (the timer, a previous keystroke's follow-up); Gradio would then reject
    # the old value with an error toast. The handlers take raw values and ``BoardControls`` / ``breakdown_of``
    # map anything that is no longer a choice to the view's own fallback, which the same event then shows.
    extras = extras_event(ctx, t)
    common = dict(outputs=t.core_outputs, show_progress="minimal", api_visibility="private", preprocess=False)

    def chain(event) -> None:
        event.then(**sync)
        event.then(**extras)

    # another benchmark opens its first track and every group, ranked by the default sort (its columns are not the
    # last benchmark's); another track, every group (first rows only)
    chain(t.benchmark.input(shows(track="", group="", all="", sort="", headline=""), t.controls, **common))
    chain(t.track.input(shows(group="", all="", headline=""), t.controls, **common))
    for comp in (t.group, t.kind, t.sort, t.open_only, t.size, t.headline):
        chain(comp.input(shows(), t.controls, **common))
    chain(t.search.input(shows(), t.controls, trigger_mode="always_last", **common))
    chain(t.search.submit(shows(), t.controls, trigger_mode="always_last", **common))
    t.dim.input(**extras)
