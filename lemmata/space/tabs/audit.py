"""The Audit tab: pick an entry and an item, and see how that item was scored."""

from dataclasses import dataclass
from typing import Any

from lemmata.space.context import SpaceContext
from lemmata.space.tabs.leaderboard import BoardTab
from lemmata.space.tabs.shell import Shell
from lemmata.space.views import BoardControls, compose_qs, entry_choices, sync_kwargs


@dataclass
class AuditTab:
    tab: Any
    entry: Any
    item: Any
    view: Any

    @property
    def outputs(self) -> list:
        return [self.entry, self.item, self.view]


def layout() -> AuditTab:
    import gradio as gr

    with gr.Tab("Audit", id="audit", elem_id="lm-tab-audit") as tab:
        with gr.Row():
            entry = gr.Dropdown(label="Entry", choices=[], allow_custom_value=True, scale=3,
                                interactive=True, elem_id="lm-audit-entry")
            item = gr.Dropdown(label="Item", choices=[], allow_custom_value=True, scale=2,
                               interactive=True, elem_id="lm-audit-item")
        view = gr.Markdown("Choose an entry (click an entry id on the leaderboard, or pick one above).",
                           latex_delimiters=[{"left": "$$", "right": "$$", "display": True},
                                             {"left": "$", "right": "$", "display": False}],
                           elem_id="lm-audit")
    return AuditTab(tab=tab, entry=entry, item=item, view=view)


def open_audit(ctx: SpaceContext, entry: str | None, item: str | None) -> list:
    """[entry dropdown, item dropdown, markdown, chosen item]."""
    import gradio as gr

    from lemmata.space.audit import audited_result, item_choices, render_audit

    result = audited_result(ctx.store, entry)
    choices = item_choices(result) if result is not None else []
    ids = [v for _, v in choices]
    if item not in ids:
        item = ids[0] if ids else None
    return [gr.Dropdown(choices=entry_choices(ctx), value=entry),
            gr.Dropdown(choices=choices, value=item),
            render_audit(ctx.store, ctx.submissions, entry, item), item]


def wire(ctx: SpaceContext, t: AuditTab, board: BoardTab, shell: Shell) -> None:
    from lemmata.space.audit import render_audit

    def on_entry(*inputs):
        controls, (entry,) = BoardControls.read(inputs)
        vals = open_audit(ctx, entry, None)
        return vals[:3] + [compose_qs(controls.view(ctx).query, "audit", entry, vals[3])]

    def on_item(*inputs):
        controls, (entry, item) = BoardControls.read(inputs)
        return [render_audit(ctx.store, ctx.submissions, entry, item),
                compose_qs(controls.view(ctx).query, "audit", entry, item)]

    sync = sync_kwargs(shell.url_qs)
    # raw values (no ``preprocess``): the board's menus may have new choices by the time this runs
    t.entry.input(on_entry, board.controls + [t.entry], t.outputs + [shell.url_qs],
                  api_visibility="private", preprocess=False).then(**sync)
    t.item.input(on_item, board.controls + [t.entry, t.item], [t.view, shell.url_qs],
                 api_visibility="private", preprocess=False).then(**sync)
