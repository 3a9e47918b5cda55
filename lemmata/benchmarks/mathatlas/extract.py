"""The Lean a MathAtlas formalizer's reply holds, taken out of it as the authors' own harness does.

Upstream (``offendo/math-atlas``, ``benchmarks/common.py``: ``extract_lean``, ``strip_imports``) reads a reply
in this order: the last ``final`` channel of a harmony-format reply (gpt-oss without a reasoning parser), then
every ``<think>…</think>`` block removed (and everything up to an unterminated ``</think>``), then the *last*
non-empty fenced block (models often show a broken draft first), else the whole remaining text, so a malformed
reply is still compiled and counted as a failure rather than dropped. The compiler is then given a forced
header (``import Mathlib`` / ``import Aesop``; ``blv.verify(..., force_header=...)``) with the reply's own
``import`` lines dropped (:func:`with_forced_header`).
"""

from __future__ import annotations

import re

__all__ = ["FORCED_HEADER", "extract_lean", "strip_imports", "with_forced_header"]

#: the header every formalization is compiled under (upstream ``DEFAULT_HEADER``)
FORCED_HEADER = ("import Mathlib", "import Aesop")
_THINK = re.compile(r"<think>.*?</think>", flags=re.DOTALL)
_HARMONY = re.compile(r"<\|channel\|>final<\|message\|>(.*?)(?:<\|end\|>|$)", flags=re.DOTALL)
_FENCE = re.compile(r"```(?:lean4?|Lean4?)?\s*\n(.*?)```", flags=re.DOTALL)


def extract_lean(reply: str | None) -> str:
    """The Lean snippet of a model reply: thinking stripped, the last fenced block, else the stripped text.

    >>> extract_lean("<think>try ```lean\\nbad\\n```</think>Draft:\\n```lean\\ntheorem a : 1 = 2 := sorry\\n```\\n"
    ...              "Final:\\n```lean4\\ntheorem a : 1 = 1 := by sorry\\n```")
    'theorem a : 1 = 1 := by sorry'
    >>> extract_lean("reasoning that never closed </think> theorem t : True := trivial")
    'theorem t : True := trivial'
    >>> extract_lean("<|channel|>analysis<|message|>hm<|end|><|channel|>final<|message|>```\\ndef f := 1\\n```<|end|>")
    'def f := 1'
    >>> extract_lean(None), extract_lean("  no code at all ")
    ('', 'no code at all')
    """
    if not reply:
        return ""
    text = reply
    harmony = _HARMONY.findall(text)
    if harmony:
        text = harmony[-1]
    text = _THINK.sub("", text)
    if "</think>" in text:  # an unterminated thinking block
        text = text.split("</think>")[-1]
    blocks = [b.strip() for b in _FENCE.findall(text) if b.strip()]
    return blocks[-1] if blocks else text.strip()


def strip_imports(code: str) -> str:
    """``code`` without its ``import`` lines (the forced header replaces them).

    >>> strip_imports("import Mathlib.Topology.Basic\\nimport Aesop\\n\\ntheorem t : True := trivial")
    'theorem t : True := trivial'
    """
    return "\n".join(line for line in code.splitlines() if not line.strip().startswith("import ")).strip()


def with_forced_header(code: str) -> str:
    """What the Lean server is sent: the forced header, a blank line, the formalization without its imports.

    >>> with_forced_header("import Mathlib\\ntheorem t : True := trivial")
    'import Mathlib\\nimport Aesop\\n\\ntheorem t : True := trivial'
    """
    return "\n".join(FORCED_HEADER) + "\n\n" + strip_imports(code)
