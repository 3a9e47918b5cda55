"""The Across benchmarks tab: the model × benchmark matrix of main scores, with model metadata filters
(see :mod:`lemmata.space.matrix`), and below it the families' own panels (``Family.panels``; e.g. MathNet's
MathRAG matrix)."""

from dataclasses import dataclass
from typing import Any

from lemmata.space.context import SpaceContext


@dataclass
class MatrixTab:
    tab: Any
    kinds: Any
    open_only: Any
    size: Any
    source: Any
    view: Any
    panels: Any

    @property
    def filters(self) -> list:
        return [self.kinds, self.open_only, self.size, self.source]


def matrix_html(ctx: SpaceContext, kinds=None, open_only=False, size="", source="all") -> str:
    from lemmata.space.matrix import KIND_CHOICES, build_matrix, render_matrix

    try:
        max_params = float(size) if size else None
    except (TypeError, ValueError):
        max_params = None
    kinds = [k for k in (kinds or []) if k in KIND_CHOICES] if isinstance(kinds, list) else []
    columns, models = build_matrix(ctx.rows(), list(ctx.catalog()))
    return render_matrix(columns, models, kinds=kinds, open_only=bool(open_only), max_params=max_params,
                         source=source if source in ("all", "scored", "reported") else "all")


def panels_html(ctx: SpaceContext) -> str:
    """Every family panel, each in its own ``lm-<key>`` section (its table cached per store generation by the
    context); one that cannot be built says so and never breaks the page."""
    from lemmata.core.escape import esc
    from lemmata.families import panels

    out = []
    for panel in panels():
        try:
            body = panel.render(ctx.panel(panel.key))
        except Exception as exc:  # noqa: BLE001 - the store unreadable for a moment must not break the page
            import logging

            logging.getLogger("lemmata").warning("panel %s: %s", panel.key, exc)
            body = f'<p class="lm-empty">This section could not be built from the stored results ' \
                   f"({esc(type(exc).__name__)}).</p>"
        out.append(f'<section id="lm-{esc(panel.key)}">{body}</section>')
    return "".join(out)


def panels_css() -> str:
    """The families' panels' styles."""
    from lemmata.families import panels

    return "".join(p.css for p in panels())


def layout() -> MatrixTab:
    import gradio as gr

    from lemmata.space.matrix import KIND_CHOICES, SIZE_CHOICES
    from lemmata.space.overview import OPEN_JS

    with gr.Tab("Across benchmarks", id="matrix", elem_id="lm-tab-matrix") as tab:
        with gr.Row(equal_height=True, elem_id="lm-matrix-filters"):
            kinds = gr.CheckboxGroup(list(KIND_CHOICES), value=[], label="Type (none checked: every type)", scale=4,
                                     elem_id="lm-matrix-kinds")
            size = gr.Dropdown(list(SIZE_CHOICES), value="", label="Parameters", scale=1, elem_id="lm-matrix-size")
            open_only = gr.Checkbox(value=False, label="Open weights only", scale=1, elem_id="lm-matrix-open")
            source = gr.Radio([("All", "all"), ("Scored here", "scored"), ("Reported", "reported")], value="all",
                              label="Source", scale=2, elem_id="lm-matrix-source")
        view = gr.HTML("", js_on_load=OPEN_JS, elem_id="lm-matrix")
        panels = gr.HTML("", elem_id="lm-panels")
    return MatrixTab(tab=tab, kinds=kinds, open_only=open_only, size=size, source=source, view=view, panels=panels)


def wire(ctx: SpaceContext, t: MatrixTab) -> None:
    for comp in t.filters:
        comp.input(lambda k, o, s, src: matrix_html(ctx, k, o, s, src), t.filters, [t.view],
                   show_progress="hidden", api_visibility="private", preprocess=False)
