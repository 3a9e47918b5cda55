"""The Submit tab: upload, form, the validation panel and the list of benchmarks scorable here now."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.space.context import SpaceContext
from lemmata.space.safety import esc
from lemmata.space.tabs.shell import Shell
from lemmata.space.views import FAST_POLL_SECONDS, availability_html, status_html

SUBMIT_HELP = """
Upload one **JSONL** file: the first line is a header, every further line one prediction record. Pick the
benchmark below for a header it accepts, its schema and an example file.

The benchmark's handler checks the whole file before anything is stored and lists **every** problem with
its line and field. Uploading the same bytes twice points to the existing entry. Your contact is kept for
the maintainers and never shown.

A file written by `lemmata run` names its request log (`*.runner-log.jsonl`, header field `runner`): upload it
as the second file, and the entry is marked *runner log* once every record matches it (prompts recomputed from
the release). It shows that the records (attempts, formal statements, solutions, trajectories) are what the runner
made of the logged answers — not that a model wrote those answers.
"""


@dataclass
class SubmitTab:
    tab: Any
    upload: Any
    submitter: Any
    contact: Any
    notes: Any
    availability: Any
    button: Any
    outcome_html: Any
    outcome_json: Any
    chooser: Any = None
    runner_log: Any = None


def layout(ctx: SpaceContext) -> SubmitTab:
    import gradio as gr

    from lemmata.space.tables import BOARD_JS

    from lemmata.space.templates import code_link_md

    config = ctx.config
    with gr.Tab("Submit", id="submit", elem_id="lm-tab-submit") as tab:
        gr.Markdown(SUBMIT_HELP + f"\nLimits: {config.max_submission_bytes / 1_048_576:g} MiB per file; "
                    f"{config.rate_limit.describe()} per submitter. Code, schemas and examples: "
                    f"{code_link_md(config.repo_url)}.")
        from lemmata.families import known_benchmarks
        from lemmata.space.templates import guide_markdown

        from lemmata.families import handlers

        names = known_benchmarks()
        first = next(iter(handlers()), names[0])  # the first family's main benchmark, in registry order
        chooser = gr.Dropdown(names, value=first, label="Benchmark", elem_id="lm-submit-benchmark")
        guide = gr.Markdown(guide_markdown(first, config.repo_url), elem_id="lm-submit-guide")
        chooser.change(lambda b: guide_markdown(b, config.repo_url), chooser, guide, api_visibility="private",
                       show_progress="hidden")
        with gr.Row():
            with gr.Column(scale=3):
                upload = gr.File(label="Predictions (.jsonl)", file_types=[".jsonl", ".json", ".txt"],
                                 type="filepath", elem_id="lm-upload")
                runner_log = gr.File(label="Runner request log (optional: the *.runner-log.jsonl that `lemmata run` "
                                     "wrote beside the file)", file_types=[".jsonl"], type="filepath",
                                     elem_id="lm-runner-log")
            with gr.Column(scale=2):
                submitter = gr.Textbox(label="Submitter (person or team, shown publicly)",
                                       max_length=100, elem_id="lm-submitter")
                contact = gr.Textbox(label="Contact (e-mail or Hub user; never shown)", max_length=200,
                                     elem_id="lm-contact")
                notes = gr.Textbox(label="Notes (optional)", lines=3, max_length=2000, elem_id="lm-notes")
        availability = gr.HTML(lambda: availability_html(ctx), elem_id="lm-availability-view")  # per page load
        button = gr.Button("Validate and submit", variant="primary", elem_id="lm-submit")
        outcome_html = gr.HTML("", js_on_load=BOARD_JS, elem_id="lm-outcome")
        outcome_json = gr.JSON(visible=False)
    return SubmitTab(tab=tab, upload=upload, submitter=submitter, contact=contact, notes=notes,
                     availability=availability, button=button, outcome_html=outcome_html,
                     outcome_json=outcome_json, chooser=chooser, runner_log=runner_log)


def wire(ctx: SpaceContext, t: SubmitTab, shell: Shell, status_search: Any, status_view: Any) -> None:
    """Validate and store (the public ``/submit`` API), then poll faster until this upload is scored."""
    import gradio as gr

    from lemmata.space.submit import (
        SubmissionForm,
        client_key,
        render_outcome,
        submit_upload,
    )

    config = ctx.config

    def submit(file_path: str | None, submitter_name: str, contact_text: str, notes_text: str,
               log_path: str | None = None, request: gr.Request = None):
        from lemmata.core.errors import LemmataError
        from lemmata.space.availability import header_benchmark, unavailable_outcome

        blocked = ctx.bootstrap.submissions_blocked()
        if blocked:
            html = f'<div class="lm-errors" role="alert">Nothing was stored: {esc(blocked)}.</div>'
            return html, {"outcome": "unavailable", "message": blocked, "problems": []}
        data = Path(file_path).read_bytes() if file_path else None
        host = client_host(request, config.hosted)
        name = Path(file_path).name if file_path else None
        waiting = preparing_reason(ctx, header_benchmark(data or b""))
        if waiting:  # answer now, naming the step, rather than hold the upload until the step ends
            html = (f'<div class="lm-errors" role="alert">Nothing was stored: {esc(name or "the upload")} is for '
                    f"<code>{esc(header_benchmark(data or b''))}</code>, and {esc(waiting)}.</div>")
            return html, {"outcome": "unavailable", "message": waiting, "problems": []}
        try:
            outcome = submit_upload(
                ctx.store, config, data, name,
                SubmissionForm(submitter_name or "", contact_text or "", notes_text or ""),
                client=client_key(host), user=request_user(request),
                runner_log=Path(log_path).read_bytes() if log_path else None,
                runner_log_name=Path(log_path).name if log_path else None)
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

    t.button.click(submit, [t.upload, t.submitter, t.contact, t.notes, t.runner_log], [t.outcome_html, t.outcome_json],
                   api_name="submit", concurrency_limit=4, show_progress="minimal").then(
        after_submit, [t.outcome_json, shell.watch, status_search],
        [shell.timer, shell.watch, status_view, t.availability],
        api_visibility="private", show_progress="hidden")


def preparing_reason(ctx: SpaceContext, benchmark: str | None) -> str | None:
    """Why an upload for ``benchmark`` cannot be scored yet because start-up is still preparing it, or None."""
    if not benchmark or ctx.bootstrap.done:
        return None
    from lemmata.space.views import current_availability

    state = next((a for a in current_availability(ctx) if a.benchmark == benchmark), None)
    return state.reason if state is not None and state.state == "preparing" else None


def client_host(request: Any, hosted: bool) -> str | None:
    """The client address for rate limiting (the first forwarded address behind the Hub's proxy)."""
    if request is None:
        return None
    if hosted:
        forwarded = request.headers.get("x-forwarded-for", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    client = getattr(request, "client", None)
    return getattr(client, "host", None)


def request_user(request: Any) -> str | None:
    return getattr(request, "username", None) if request is not None else None
