"""Agent input for the Raw and Assisted tracks.

One function renders an instance the same way for every system, so track and
window m are the only levers: Raw = setup + target theorem + the last m local
proof blocks; Assisted adds the anchor hint. Missing blocks are never invented:
fewer than m blocks renders what exists, none renders an empty section.

``cite_keys`` says whether the instance's own citation key (``z.citation_key``) is shown: ``"masked"``
replaces it inside every LaTeX citation command (``\\cite``, ``\\citep``, ``\\citet``, ``\\citen``,
``\\citeauthor``, …, with optional arguments) of every input field by :data:`MASK_TOKEN`, keeping every other key
of a co-cited list (:func:`masked_input`): the key names the answer (28 of the 200 Eval-200 inputs carry it, and
keys are often author and year, a free query). On the offline world masked is the default: ``lemmata run
re2math``, the baseline agent (``lemmata baselines run agent``) and the source-retrieval track's ``*-masked``
query variants read masked input, and ``--cite-keys unmasked`` (the ``raw`` / ``assisted`` variants) restores
the old input, ranked in a group of its own. :func:`render_instance` renders a release row as stored unless
``mask_target_cite=True`` (the offline agents read :func:`system_input`, masked by default): the release's
stored renderings (``retrieval_queries``, ``cards/rendered/``), the theorem-retrieval track and ``lemmata
render`` without ``--mask-target-cite`` are unmasked.

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
CiteKeys = Literal["masked", "unmasked"]
CITE_KEYS: tuple[str, ...] = ("masked", "unmasked")
#: what a system on the offline world reads unless a run declares otherwise (``--cite-keys``)
DEFAULT_CITE_KEYS: CiteKeys = "masked"
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


def masked_input(instance: Mapping[str, Any]) -> dict[str, Any]:
    """``instance`` with its own cite key masked in every field a system reads (setup, target theorem, local blocks,
    anchor hint), so that nothing built from any of them — a rendering, a query, a prompt — can carry the key.

    >>> row = {"x": {"global_context": {"setup": r"By \\cite{K}", "target_theorem": "T"},
    ...              "local_context": [r"\\citep{A,K}"], "anchor_hint": r"\\cite{K}"}, "z": {"citation_key": "K"}}
    >>> m = masked_input(row)
    >>> m["x"]["global_context"]["setup"], m["x"]["local_context"], m["x"]["anchor_hint"], row["x"]["anchor_hint"]
    ('By \\\\cite{?}', ['\\\\citep{A,?}'], '\\\\cite{?}', '\\\\cite{K}')
    """
    key = (instance.get("z") or {}).get("citation_key") or ""
    x = instance["x"]

    def mask(text: Any) -> Any:
        return mask_cite_key(text, key) if isinstance(text, str) else text

    shown = {**x, **({"global_context": {k: mask(v) for k, v in x["global_context"].items()}}
                     if "global_context" in x else {}),
             "local_context": [mask(b) for b in x.get("local_context") or []]}
    if "anchor_hint" in x:
        shown["anchor_hint"] = mask(x["anchor_hint"])
    return {**instance, "x": shown}


def system_input(instance: Mapping[str, Any], cite_keys: str = DEFAULT_CITE_KEYS) -> Mapping[str, Any]:
    """The instance as a system declared to read it: its cite key masked (the offline default) or as stored.

    >>> system_input({"x": {}}, "shown")
    Traceback (most recent call last):
    ...
    ValueError: unknown cite_keys 'shown'; expected one of ('masked', 'unmasked')
    """
    if cite_keys not in CITE_KEYS:
        raise ValueError(f"unknown cite_keys {cite_keys!r}; expected one of {CITE_KEYS}")
    return masked_input(instance) if cite_keys == "masked" else instance


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
    if mask_target_cite:
        instance = masked_input(instance)
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
