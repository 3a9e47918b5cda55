"""HTML escaping that also makes bidirectional controls visible: what every page of Lemmata renders text with.

It sits at the bottom so that a family's own board section (a panel, :class:`lemmata.core.family.Panel`) escapes
exactly as the space does; the space's other neutralisers (links, markdown, CSV cells) are in
:mod:`lemmata.space.safety`.
"""

from __future__ import annotations

import html
import re

__all__ = ["bidi_visible", "esc"]

#: bidirectional controls: embeddings/overrides, isolates, marks and the Arabic letter mark
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def esc(value: object) -> str:
    """HTML-escape any value for text or attribute context.

    >>> esc('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    >>> esc(None)
    ''
    >>> esc("evil\u202egnp.exe")
    'evil[U+202E]gnp.exe'
    """
    return "" if value is None else html.escape(bidi_visible(str(value)), quote=True)


def bidi_visible(text: str) -> str:
    """Bidirectional control characters shown as ``[U+XXXX]``, so a name cannot reorder the text around it.

    A right-to-left override in a model name would otherwise make the board show
    a different name (or reversed numbers next to it) than the one stored.

    >>> bidi_visible("model\u202e1.0\u2066x\u200f")
    'model[U+202E]1.0[U+2066]x[U+200F]'
    """
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)
