"""The Admin tab: hide, unhide or rescore an entry (token locally, Hub login when hosted), every action logged."""

from dataclasses import dataclass
from typing import Any

from lemmata.space.context import SpaceContext
from lemmata.space.safety import esc
from lemmata.space.views import render_events


@dataclass
class AdminTab:
    tab: Any
    token: Any
    entry: Any
    reason: Any
    hide: Any
    unhide: Any
    rescore: Any
    out: Any
    events: Any


def layout(ctx: SpaceContext) -> AdminTab:
    import gradio as gr

    config = ctx.config
    with gr.Tab("Admin", id="admin", elem_id="lm-tab-admin") as tab:
        gr.Markdown(config.admin_note() + " Hiding takes an entry off the board and its exports; its "
                    "result file stays stored, and every action is logged with its reason.")
        if config.hosted:
            gr.LoginButton()
            token = gr.Textbox(visible=False)
        else:
            token = gr.Textbox(label="Admin token", type="password", elem_id="lm-admin-token")
        with gr.Row():
            entry = gr.Textbox(label="Entry id (64 hex characters)", scale=3, elem_id="lm-admin-entry")
            reason = gr.Textbox(label="Reason (logged)", scale=2, elem_id="lm-admin-reason")
        with gr.Row():
            hide = gr.Button("Hide", variant="stop")
            unhide = gr.Button("Unhide")
            rescore = gr.Button("Rescore")
        out = gr.Markdown("")
        events = gr.HTML("")
    return AdminTab(tab=tab, token=token, entry=entry, reason=reason, hide=hide, unhide=unhide, rescore=rescore,
                    out=out, events=events)


def wire(ctx: SpaceContext, t: AdminTab) -> None:
    import gradio as gr

    from lemmata.space.admin import moderate

    config = ctx.config

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

    for btn, action in ((t.hide, "hide"), (t.unhide, "unhide"), (t.rescore, "rescore")):
        btn.click(admin_action(action), [t.token, t.entry, t.reason], [t.out, t.events],
                  api_visibility="private")
