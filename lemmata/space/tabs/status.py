"""The Status tab: every submission on record with its state, filtered as the visitor types."""

from dataclasses import dataclass
from typing import Any

from lemmata.space.context import SpaceContext
from lemmata.space.views import status_html


@dataclass
class StatusTab:
    tab: Any
    search: Any
    view: Any


def layout() -> StatusTab:
    import gradio as gr

    from lemmata.space.tables import BOARD_JS

    with gr.Tab("Status", id="status", elem_id="lm-tab-status") as tab:
        search = gr.Textbox(label="Filter", placeholder="model, submitter, content hash or status",
                            elem_id="lm-status-search")
        view = gr.HTML("", js_on_load=BOARD_JS, elem_id="lm-status")
    return StatusTab(tab=tab, search=search, view=view)


def wire(ctx: SpaceContext, t: StatusTab) -> None:
    t.search.input(lambda s: status_html(ctx, s), [t.search], [t.view],
                   trigger_mode="always_last", show_progress="hidden", api_visibility="private")
