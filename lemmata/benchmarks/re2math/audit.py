"""The audit view of one Re²Math result item: what the system saw, what it answered, and every verdict with its reason.

Reviewers check a verdict against its inputs here; the submission file is
optional (a stored result alone shows its verdicts).
"""

from __future__ import annotations

from lemmata.core.errors import InputError
from lemmata.core.latex_text import latex_to_text
from lemmata.formats.results import Result
from lemmata.tracks.base import AuditView, Validated
from lemmata.benchmarks.re2math.resources import Resources
from lemmata.benchmarks.re2math.validation import CANONICAL_WINDOW


def fence(text: str, lang: str = "text") -> str:
    """A Markdown code fence around ``text`` that its own backticks cannot close.

    >>> fence("x = 1", "python")
    '```python\\nx = 1\\n```'
    >>> fence("```").startswith("````text")
    True
    """
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def audit_view(result: Result, item_id: str, submission: Validated | None, resources: Resources) -> AuditView:
    """Rendered context, the trajectory, the answer and every verdict with its reason, for one instance."""
    from lemmata.benchmarks.re2math.render import render_instance

    item = next((i for i in result.items if i.get("instance_id") == item_id), None)
    if item is None:
        raise InputError.one(result.result_id, f"no item {item_id!r} in this result", field="item_id")
    track, window = result.flags.get("input_track", result.track), result.flags.get("window", CANONICAL_WINDOW)
    rows = resources.rows(result.frozen.dataset_release, result.frozen.split)
    row = rows[item_id]
    artifact = resources.artifact(result.frozen.retrieval_artifact) if result.frozen.retrieval_artifact else None
    masked = result.flags.get("cite_keys") == "masked"  # stored before masking: no flag, the input as stored
    sections: list[tuple[str, str]] = [
        (f"Input ({track} track, m = {window}{', cite key masked' if masked else ''})",
         fence(render_instance(row, track, window, result.flags.get("scope", "global_local"), mask_target_cite=masked),
               "markdown")),
    ]
    rec = None
    if submission is not None:
        rec = next((r for _, r in submission.records if r.instance_id == item_id), None)
    if rec is not None:
        lines = []
        for qi, q in enumerate(rec.queries):
            lines.append(f"**Query {qi}:** {q.text}\n")
            for rank, cid in enumerate(q.candidates, start=1):
                title = ""
                if artifact is not None:
                    try:
                        title = f" — {artifact.record(cid).title}"
                    except InputError:
                        title = " — (unknown to the artifact)"
                mark = " ← selected" if cid == rec.selected_source else ""
                lines.append(f"{rank}. `{cid}`{title}{mark}")
            lines.append("")
        sections.append(("Queries and candidates", "\n".join(lines) or "(no queries)"))
        if rec.opened is not None:
            sections.append(("Opened", ", ".join(f"`{o}`" for o in rec.opened) or "(nothing opened)"))
        if rec.anchor is not None:
            sections.append(("Planning anchor", fence(rec.anchor)))
        sections.append(("Selected source", f"`{rec.selected_source}`" if rec.selected_source else "(abstained)"))
        sections.append(("Statement", fence(rec.statement) if rec.statement else "(none)"))
        if rec.oracle_statement is not None:
            sections.append(("Oracle-run statement", fence(rec.oracle_statement)))
    else:
        sections.append(("Submission", "The submission file is not available; showing the stored verdicts only."))
    verdicts = [f"- **Ground**: {item['ground']['verdict']} ({item['ground']['by']}) — {item['ground']['reason']}",
                f"- **Suff**: {item['suff']['verdict']} ({item['suff']['by']}) — {item['suff']['reason']}",
                f"- **{result.main.metric}**: "
                f"{item['oracle']['tool_acc'] if item.get('oracle') and result.main.metric.startswith('Oracle') else item['tool_acc']}"]
    for key, label in (("anchor_match", "AnchorMatch"), ("query_match", "QueryMatch (the planning against the gap's "
                                                                         "proof obligation; a diagnostic)")):
        if item.get(key):
            v = item[key]
            verdicts.append(f"- **{label}**: {v['verdict']} ({v['by']}) — {v['reason']}")
    if item.get("oracle"):
        o = item["oracle"]
        verdicts.append(f"- **Oracle Ground**: {o['ground']['verdict']} ({o['ground']['by']}) — {o['ground']['reason']}")
        verdicts.append(f"- **Oracle Suff**: {o['suff']['verdict']} ({o['suff']['by']}) — {o['suff']['reason']}")
    verdicts.append(f"- **Cited source rank**: {item['cite_rank'] if item['cite_rank'] else 'not among the candidates'}"
                    f"; selected source is {item['source_match']}"
                    + (" (the citing paper)" if item.get("citing_paper") else ""))
    sections.append(("Verdicts", "\n".join(verdicts)))
    sections.append(("Reference (one admissible witness)", fence(row["y"]["reference_tool_latex"])
                     + "\n\nCited source (the bibliography entry, LaTeX markup removed):\n\n"
                     + fence(latex_to_text(row["z"]["citation_content"]))))
    return AuditView(item_id=item_id, sections=sections)

