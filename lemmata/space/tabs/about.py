"""The About & cite tab: the ranking policy, the glossary of columns, and per release its citation, CITATION.cff and files."""

from dataclasses import dataclass
from typing import Any

from lemmata.space.context import SpaceContext


@dataclass
class AboutTab:
    tab: Any
    releases: list  # (ReleaseCitation, header, cff, file links)

    @property
    def outputs(self) -> list:
        return [c for _, *comps in self.releases for c in comps]


def layout(ctx: SpaceContext) -> AboutTab:
    import gradio as gr

    from lemmata.space.about import POLICY_MD, artifacts_md, glossary_md, release_citations

    with gr.Tab("About & cite", id="about", elem_id="lm-tab-about") as tab:
        gr.Markdown(POLICY_MD)
        gr.Markdown(artifacts_md(), elem_id="lm-artifacts")
        from lemmata.space.templates import code_link_md

        gr.Markdown(f"Code, submission schemas and example files: {code_link_md(ctx.config.repo_url)}.",
                    elem_id="lm-repo-link")
        with gr.Accordion("Glossary: what each column means", open=False, elem_id="lm-glossary"):
            gr.Markdown(glossary_md())
        releases = []
        for cit in release_citations(ctx.config.releases_root):
            with gr.Accordion(f"Cite {cit.meta.release_id}", open=False):
                header = gr.Markdown(cit.header_md())
                gr.Code(cit.meta.citation, label="BibTeX (the paper)", language=None, interactive=False)
                cff = gr.Code(cit.citation_cff(), label="CITATION.cff (this release)", language="yaml",
                              interactive=False)
                files = gr.HTML(cit.files_html(), elem_classes=["lm-release-files-box"])
            releases.append((cit, header, cff, files))
    return AboutTab(tab=tab, releases=releases)


def unbuilt_reason(ctx: SpaceContext | None) -> str:
    """Why a release is missing here, as the start-up state says: still being built, or not buildable here."""
    if ctx is None:
        return ""
    from lemmata.space.availability import HUB_UNREACHABLE, NOT_BUILT, hub_offline

    step = next((s for s in ctx.bootstrap.steps if s.key == "releases"), None)
    if step is None or step.status in ("waiting", "running"):
        return "the start-up step is still building the releases"
    if step.status == "skipped":
        return "building releases at start-up is switched off (LEMMATA_BOOTSTRAP=0)"
    return (HUB_UNREACHABLE if hub_offline() else NOT_BUILT).replace("its release", "it")


def load_values(t: AboutTab, ctx: SpaceContext | None = None) -> list:
    """Fresh values for ``AboutTab.outputs`` (releases built since the app was assembled)."""
    values = []
    reason = unbuilt_reason(ctx)
    for cit, *_ in t.releases:
        values += [cit.header_md(reason), cit.citation_cff(), cit.files_html()]
    return values
