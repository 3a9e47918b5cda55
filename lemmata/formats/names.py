"""User-visible names (model names, submitter names): one Unicode form, no invisible characters, confusables found.

A name on the board is read by people, who cannot see a zero-width space, a
right-to-left override, a NUL or a terminal escape, and who cannot tell ``e5``
from ``е5`` (Cyrillic ``е``). So a name is stored in NFC, every character a
reader cannot see (control ``Cc``, format ``Cf`` — zero-width and bidi controls
among them —, private-use ``Co``, surrogate ``Cs``, unassigned ``Cn``, line and
paragraph separators) is refused at validation naming the field and the code
point, and names whose *confusable skeletons* are equal are flagged as
near-duplicates of each other on the board (they are not refused: a real name
may happen to look like another).

The skeleton follows Unicode's idea (UTS #39): NFKC, every character replaced by one representative of its confusable class. The classes
come from Unicode's ``confusables.txt`` as shipped by ``confusable-homoglyphs``
(loaded lazily, once); case is folded after that mapping, so ``I`` and ``l``
still meet.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

#: general categories a reader cannot see or that a terminal obeys: refused in every name
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def clean_name(value: str, field: str) -> str:
    """``value`` in NFC, or ``ValueError`` naming ``field`` and the first invisible character.

    >>> clean_name("Cafe\\u0301 retriever", "model.name")
    'Café retriever'
    >>> clean_name("bm25\\u200b", "model.name")
    Traceback (most recent call last):
    ...
    ValueError: model.name holds U+200B ZERO WIDTH SPACE at character 5, which a reader cannot see; remove it
    >>> clean_name("a\\x1b[31mb", "submitter")
    Traceback (most recent call last):
    ...
    ValueError: submitter holds U+001B (a control character) at character 2, which a reader cannot see; remove it
    """
    text = unicodedata.normalize("NFC", value)
    for i, ch in enumerate(text, start=1):
        cat = unicodedata.category(ch)
        if cat in INVISIBLE_CATEGORIES:
            name = unicodedata.name(ch, "")
            what = f"U+{ord(ch):04X} {name}" if name else f"U+{ord(ch):04X} ({_CATEGORY_WORDS.get(cat, cat)})"
            raise ValueError(f"{field} holds {what} at character {i}, which a reader cannot see; remove it")
    return text


_CATEGORY_WORDS = {"Cc": "a control character", "Cf": "a format character", "Co": "a private-use character",
                   "Cs": "a lone surrogate", "Cn": "an unassigned code point", "Zl": "a line separator",
                   "Zp": "a paragraph separator"}


@functools.cache
def _classes() -> dict[str, str]:
    """Character → representative of its confusable class (the smallest code point in it)."""
    from confusable_homoglyphs import confusables  # lazy: a 1.5 MB table only the board needs

    parent: dict[str, str] = {}

    def find(c: str) -> str:
        root = c
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(c, c) != root:
            parent[c], c = root, parent[c]
        return root

    for char, entries in confusables.confusables_data.items():
        for entry in entries:
            other = entry["c"].strip("\u200e\u200f")
            if len(char) == 1 and len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in list(parent)}


@functools.lru_cache(maxsize=65536)  # a board checks every listed name on every view
def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, case folded, confusable characters mapped to one representative.

    >>> skeleton("e5-large") == skeleton("\\u0435" + "5-large")  # Cyrillic е
    True
    >>> skeleton("BM25") == skeleton("bm25"), skeleton("bm25") == skeleton("bm26"), skeleton("Il") == skeleton("ll")
    (True, False, True)
    """
    classes = _classes()
    mapped = "".join(classes.get(c, c) for c in unicodedata.normalize("NFKC", name) if not c.isspace())
    return "".join(classes.get(c, c) for c in mapped.casefold())


def near_duplicates(names: Iterable[str]) -> dict[str, list[str]]:
    """For each name that looks like another (equal skeletons, different text), the names it looks like.

    >>> near_duplicates(["e5", "\\u0435" + "5", "bm25", "e5"])
    {'e5': ['е5'], 'е5': ['e5']}
    """
    by_skeleton: dict[str, set[str]] = {}
    for name in names:
        by_skeleton.setdefault(skeleton(name), set()).add(name)
    out: dict[str, list[str]] = {}
    for group in by_skeleton.values():
        if len(group) > 1:
            for name in sorted(group):
                out[name] = sorted(group - {name})
    return out
