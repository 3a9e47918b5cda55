r"""Math in the audit viewer: macros defined where the release knows them, and anything KaTeX cannot draw shown as
source.

Audited text quotes papers, and papers use their own macros (``\calM``, ``\tM``,
``\Vor``). KaTeX draws an undefined control word as a red error in the middle of
the page, which reads as if the scorer had failed. So before the page renders a
math span (``$…$`` or ``$$…$$``), its argument-free macros known for the item are
expanded, and a span that still uses a word KaTeX does not know is shown as its
source, in a code span, exactly as the paper wrote it. Code spans and fences are
left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lemmata.space.katex_words import KATEX_WORDS
from lemmata.space.safety import outside_fences

_SPAN = re.compile(r"\$\$(?P<display>.+?)\$\$|\$(?P<inline>[^$\n]+?)\$", re.S)
_WORD = re.compile(r"\\([A-Za-z]+)")
_CODE = re.compile(r"(`+)(?:.+?)\1")
MAX_EXPANSIONS = 4


def expand_macros(tex: str, macros: Mapping[str, str]) -> str:
    r"""Argument-free macros replaced by their bodies (nested ones too, a few levels deep).

    >>> expand_macros(r"x \in \calM \cup \calMx", {"calM": r"\mathcal{M}"})
    'x \\in \\mathcal{M} \\cup \\calMx'
    """
    if not macros:
        return tex
    for _ in range(MAX_EXPANSIONS):
        new = _WORD.sub(lambda m: macros.get(m.group(1), m.group(0)), tex)
        if new == tex:
            break
        tex = new
    return tex


def unknown_words(tex: str) -> list[str]:
    r"""Control words KaTeX would draw as errors.

    >>> unknown_words(r"\mathcal{M} \cup \tM \Vor")
    ['tM', 'Vor']
    """
    return [w for w in dict.fromkeys(_WORD.findall(tex)) if w not in KATEX_WORDS]


def _span(match: re.Match, macros: Mapping[str, str]) -> str:
    display = match.group("display") is not None
    body = match.group("display") if display else match.group("inline")
    expanded = expand_macros(body, macros)
    if unknown_words(expanded):
        source = match.group(0).replace("`", "'")
        return f"`` {source} ``" if "`" in source else f"`{source}`"
    return f"$${expanded}$$" if display else f"${expanded}$"


def katex_or_source(markdown: str, macros: Mapping[str, str] | None = None) -> str:
    r"""Markdown whose math spans KaTeX can all draw: known macros expanded, the others shown as source.

    >>> print(katex_or_source(r"Let $\calM$ be $\mathcal{N}$, and $\tM \subset X$; `$\tM$` stays.", {"calM": r"\mathcal{M}"}))
    Let $\mathcal{M}$ be $\mathcal{N}$, and `$\tM \subset X$`; `$\tM$` stays.
    """
    macros = macros or {}

    def line_math(line: str) -> str:
        pieces, last = [], 0
        for code in _CODE.finditer(line):  # inline code is shown literally: its dollars are not math
            pieces.append(_SPAN.sub(lambda s: _span(s, macros), line[last:code.start()]))
            pieces.append(code.group(0))
            last = code.end()
        pieces.append(_SPAN.sub(lambda s: _span(s, macros), line[last:]))
        return "".join(pieces)

    return outside_fences(markdown, line_math)
