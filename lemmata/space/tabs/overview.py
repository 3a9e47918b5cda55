"""The Benchmarks tab, the page's landing view: one card per benchmark (see :mod:`lemmata.space.overview`)."""

from dataclasses import dataclass
from typing import Any


@dataclass
class OverviewTab:
    tab: Any
    view: Any


def layout(initial: str = "") -> OverviewTab:
    """The tab, showing ``initial`` (the overview when the page was built) until the page's load step refreshes
    it: during a first start that step waits behind the build, and the landing view must not be blank meanwhile."""
    import gradio as gr

    from lemmata.space.overview import OPEN_JS

    with gr.Tab("Benchmarks", id="overview", elem_id="lm-tab-overview") as tab:
        view = gr.HTML(initial, js_on_load=OPEN_JS, elem_id="lm-overview")
    return OverviewTab(tab=tab, view=view)
