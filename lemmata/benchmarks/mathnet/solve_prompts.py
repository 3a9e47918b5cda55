"""The versioned solving prompt and the messages a solver receives (figures as image parts or as text).

The template ``prompts/solve.v1.md`` is shared by every condition; its id and sha256 are part of the model's
declared identity (``ModelInfo.prompt_version``), so an edited template without a version bump is a different
system. A model declared ``text+image`` gets each figure as an ``image_url`` part (a base64 ``data:`` URL); a
``text`` model gets the figure's description from upstream instead (``natural_language_description``), as the
paper does for text-only models. Under retrieval-augmented conditions the similar problems and their
solutions come first, labelled as context.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from lemmata.oracles.judge import Rubric, parse_rubric

PROMPT_NAME, PROMPT_VERSION = "solve", 1
Modality = Literal["text", "text+image"]
_IMAGE_REF = re.compile(r"!\[[^\]]*\]\(([^)]*)\)")
#: the longest solution shown as context (characters); longer ones are cut with a marker
MAX_CONTEXT_SOLUTION = 8000


@lru_cache(maxsize=None)
def prompt() -> Rubric:
    data = (resources.files("lemmata.benchmarks.mathnet") / "prompts" / f"{PROMPT_NAME}.v{PROMPT_VERSION}.md").read_bytes()
    return parse_rubric(f"mathnet_{PROMPT_NAME}", PROMPT_VERSION, data)


def prompt_id() -> str:
    """``mathnet_solve.v1+<sha256[:12]>`` of the template in use."""
    p = prompt()
    return f"{p.id}+{p.sha256[:12]}"


def _mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


def context_block(contexts: Sequence[Mapping[str, Any]]) -> str:
    """The similar problems with their solutions, labelled as context (empty for zero-shot)."""
    if not contexts:
        return ""
    parts = []
    for i, c in enumerate(contexts, start=1):
        solution = c["solutions"][0] if c["solutions"] else ""
        if len(solution) > MAX_CONTEXT_SOLUTION:
            solution = solution[:MAX_CONTEXT_SOLUTION] + "\n[… solution cut]"
        parts.append(f"### SIMILAR PROBLEM {i}\n{_IMAGE_REF.sub('[figure]', c['problem'])}\n\n"
                     f"### ITS SOLUTION\n{solution}\n")
    return ("Here are similar problems with their solutions. They may help, or they may not apply.\n\n"
            + "\n".join(parts) + "\n")


def messages(problem: Mapping[str, Any], images: Sequence[bytes], modality: Modality,
             contexts: Sequence[Mapping[str, Any]] = ()) -> tuple[dict[str, Any], ...]:
    """The chat messages for one problem.

    >>> p = {"problem": "Find x. ![](attached_image_1.png)", "image_description": "A square.", "has_images": True}
    >>> text = messages(p, [b"\\x89PNG..."], "text")
    >>> "[figure 1]" in text[1]["content"] and "Figure description: A square." in text[1]["content"]
    True
    >>> parts = messages(p, [b"\\x89PNG..."], "text+image")[1]["content"]
    >>> [x["type"] for x in parts], parts[1]["image_url"]["url"][:22]
    (['text', 'image_url'], 'data:image/png;base64,')
    """
    template = prompt()
    counter = iter(range(1, 1000))
    statement = _IMAGE_REF.sub(lambda m: f"[figure {next(counter)}]", problem["problem"])
    send_images = modality == "text+image" and bool(images)
    if problem.get("has_images") and not send_images:
        description = (problem.get("image_description") or "").strip() or "(no description available)"
        figures = f"\nFigure description: {description}\n"
    elif send_images:
        figures = f"\n({len(images)} figure(s) attached, in order.)\n"
    else:
        figures = ""
    msgs = template.render({"context": context_block(contexts), "problem": statement, "figures": figures})
    if not send_images:
        return tuple(msgs)
    parts: list[dict[str, Any]] = [{"type": "text", "text": msgs[1]["content"]}]
    for data in images:
        url = f"data:{_mime(data)};base64," + base64.b64encode(data).decode("ascii")
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return (msgs[0], {"role": "user", "content": parts})
