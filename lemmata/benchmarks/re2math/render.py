"""Agent input for the Raw and Assisted tracks.

One function renders an instance the same way for every system, so track and
window m are the only levers: Raw = setup + target theorem + the last m local
proof blocks; Assisted adds the anchor hint. Missing blocks are never invented:
fewer than m blocks renders what exists, none renders an empty section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Track = Literal["raw", "assisted"]
Scope = Literal["global_local", "local_only"]
TRACKS: tuple[str, ...] = ("raw", "assisted")
WINDOWS: tuple[int, ...] = (1, 3, 5)


def local_window(local_context: list[str], window: int) -> list[str]:
    """The last ``window`` blocks, oldest first.

    >>> local_window(["b1", "b2", "b3"], 1), local_window(["b1"], 5), local_window([], 3)
    (['b3'], ['b1'], [])
    """
    return list(local_context[-window:]) if window > 0 else []


def render_instance(
    instance: Mapping[str, Any], track: Track = "raw", window: int = 5, scope: Scope = "global_local"
) -> str:
    """Render a release row (or upstream record) as the agent's input text.

    >>> row = {"x": {"global_context": {"setup": "S", "target_theorem": "T"},
    ...              "local_context": ["b1", "b2"], "anchor_hint": "A"}}
    >>> print(render_instance(row, "assisted", 1))
    ## Setup
    S
    <BLANKLINE>
    ## Target theorem
    T
    <BLANKLINE>
    ## Local proof context (last 1 of 2 blocks, oldest first)
    [block 2]
    b2
    <BLANKLINE>
    ## Anchor
    A
    """
    if track not in TRACKS:
        raise ValueError(f"unknown track {track!r}; expected one of {TRACKS}")
    if window not in WINDOWS:
        raise ValueError(f"window m must be one of {WINDOWS}, got {window!r}")
    if scope not in ("global_local", "local_only"):
        raise ValueError(f"unknown scope {scope!r}")
    x = instance["x"]
    blocks = list(x.get("local_context") or [])
    shown = local_window(blocks, window)
    first = len(blocks) - len(shown) + 1
    parts: list[str] = []
    if scope == "global_local":
        gc = x["global_context"]
        parts += ["## Setup", gc["setup"].strip(), "", "## Target theorem", gc["target_theorem"].strip(), ""]
    parts.append(f"## Local proof context (last {len(shown)} of {len(blocks)} blocks, oldest first)")
    for i, block in enumerate(shown):
        parts += [f"[block {first + i}]", block.strip()]
        if i < len(shown) - 1:
            parts.append("")
    if track == "assisted":
        parts += ["", "## Anchor", (x.get("anchor_hint") or "").strip()]
    return "\n".join(parts)
