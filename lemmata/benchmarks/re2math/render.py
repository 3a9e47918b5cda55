"""Agent input for the Raw and Assisted tracks.

One function renders an instance the same way for every system, so track and
window m are the only levers: Raw = setup + target theorem + the last m local
proof blocks; Assisted adds the anchor hint. Missing blocks are never invented:
fewer than m blocks renders what exists, none renders an empty section.

``mask_target_cite=True`` replaces the instance's own citation key
(``z.citation_key``) inside every LaTeX citation command (``\\cite``,
``\\citep``, ``\\citet``, ``\\citen``, ``\\citeauthor``, …, with optional
arguments) by :data:`MASK_TOKEN`, keeping every other key of a co-cited list:
the key names the answer (28 of the 200 Eval-200 inputs carry it). Masking is
opt-in and nothing renders masked by default: ``lemmata render
RELEASE ID --mask-target-cite`` shows the masked input; the leaderboard's tracks, the
agents' prompts and the release's stored renderings (``retrieval_queries``,
``cards/rendered/``) are unmasked.

``scope`` is the paper's planning-scope ablation: ``local_only`` leaves out the
setup and the target theorem (``lemmata render RELEASE ID --scope local_only``;
``lemmata run re2math --scope local_only`` runs an agent on it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

Track = Literal["raw", "assisted"]
Scope = Literal["global_local", "local_only"]
TRACKS: tuple[str, ...] = ("raw", "assisted")
WINDOWS: tuple[int, ...] = (1, 3, 5)


#: what a masked key becomes: LaTeX's own mark for an unresolved citation, naming nothing
MASK_TOKEN = "?"
#: a citation command with up to two optional arguments and its key list (keys hold no braces)
_CITE = re.compile(r"(\\[A-Za-z]*cite[A-Za-z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}\{)([^{}]*)(\})")


def mask_cite_key(text: str, key: str, token: str = MASK_TOKEN) -> str:
    """``text`` with ``key`` replaced by ``token`` inside citation commands; other keys and text untouched.

    >>> mask_cite_key(r"see \\cite[Thm.~2]{Ab1, T, Cd} and \\citet{T} but not T or \\ref{T}", "T")
    'see \\\\cite[Thm.~2]{Ab1, ?, Cd} and \\\\citet{?} but not T or \\\\ref{T}'
    >>> mask_cite_key(r"\\cite{TT,T2}", "T")
    '\\\\cite{TT,T2}'
    """
    key = key.strip()
    if not key:
        return text

    def one(m: re.Match[str]) -> str:
        parts = m.group(2).split(",")
        if not any(part.strip() == key for part in parts):
            return m.group(0)
        masked = [part.replace(key, token) if part.strip() == key else part for part in parts]
        return m.group(1) + ",".join(masked) + m.group(3)

    return _CITE.sub(one, text)


def local_window(local_context: list[str], window: int) -> list[str]:
    """The last ``window`` blocks, oldest first.

    >>> local_window(["b1", "b2", "b3"], 1), local_window(["b1"], 5), local_window([], 3)
    (['b3'], ['b1'], [])
    """
    return list(local_context[-window:]) if window > 0 else []


def render_instance(
    instance: Mapping[str, Any], track: Track = "raw", window: int = 5, scope: Scope = "global_local",
    *, mask_target_cite: bool = False,
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
    text = "\n".join(parts)
    if mask_target_cite:
        text = mask_cite_key(text, (instance.get("z") or {}).get("citation_key") or "")
    return text
