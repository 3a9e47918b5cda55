"""The audit of one query of a ranking run: its text, the top of the submitted ranking, and which documents count.

Everything shown comes from the stored submission (the scores the system
gave) and the served collection (query text, documents, qrels): a reader sees
exactly what the scorer saw, ordered the way the scorer orders (score
descending, then document id ascending). Relevant documents the ranking missed,
or ranked below the cut, are listed with their rank so a low score explains
itself. Cells are plain text made safe for a markdown table; the space still
passes every section through its markdown sanitiser.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from lemmata.formats.beir import Collection

#: ranked documents listed per query
AUDIT_TOP = 10
#: characters of a document's text shown in the table (the rest is cut with an ellipsis)
SNIPPET_CHARS = 280


def cell(text: object, limit: int = SNIPPET_CHARS) -> str:
    """One table cell: a single line, pipes and backticks neutralised, TeX's ``~`` kept from striking text
    through, at most ``limit`` characters, never cut inside a math span (an unpaired ``$`` would pair with the
    next row's).

    >>> cell("a | b\\n`c`"), cell("x" * 10, 4), cell("Theorem~1 and~2")
    ("a \\\\| b 'c'", 'xxx…', 'Theorem\\\\~1 and\\\\~2')
    >>> cell("see $a+b$ and $c+d+e+f$", 20)
    'see $a+b$ and …'
    """
    flat = " ".join(str(text).split()).replace("|", "\\|").replace("`", "'").replace("~", "\\~")
    if len(flat) <= limit:
        return flat
    cut = flat[:limit - 1]
    dollars = [i for i, c in enumerate(cut) if c == "$" and (i == 0 or cut[i - 1] != "\\")]
    if len(dollars) % 2:
        cut = cut[:dollars[-1]].rstrip()
    return cut + (" …" if len(dollars) % 2 else "…")


def ordered(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """The scorer's order: score descending, then document id ascending.

    >>> ordered({"b": 1.0, "a": 1.0, "c": 2.0})
    [('c', 2.0), ('a', 1.0), ('b', 1.0)]
    """
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def doc_text(doc_id: str, collection: Collection, texts: Mapping[str, str] | None) -> str:
    """A listed document's text: from ``texts`` (read by the track), else the collection's, else a reason."""
    if texts and texts.get(doc_id):
        return texts[doc_id]
    doc = collection.corpus.get(doc_id)
    if doc is None:
        return "(not in corpus)"
    return ((doc.title + ": " if doc.title else "") + doc.text) or "(no text in this collection)"


def ranking_sections(query_id: str, collection: Collection, scores: Mapping[str, float] | None,
                     item: Mapping[str, Any], top: int = AUDIT_TOP,
                     texts: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """``(title, markdown)`` sections for one query: the query, the measures, the top ``top`` and missed relevants
    (each document with its text, clipped: ``texts`` where the collection itself holds ids only)."""
    qrels = collection.qrels.get(query_id, {})
    relevant = {d: g for d, g in qrels.items() if g > 0}
    text = collection.queries.get(query_id, "") if scores is not None else "(not available: the submission file is missing)"
    sections = [("Query", f"`{cell(query_id, 200)}`\n\n" + "\n".join(f"> {line}" if line.strip() else ">"
                                                                   for line in (text or "(no text)").splitlines()))]
    measures = [(k, v) for k, v in item.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                and "@" in k]
    if measures:
        sections.append(("Scores of this query", "| measure | value |\n|---|---|\n" + "\n".join(
            f"| {cell(k, 40)} | {v:.4f} |" for k, v in measures if math.isfinite(v))))
    if scores is None:
        sections.append(("Ranking", "The submission file is not available here, so its ranking cannot be shown; "
                                    "the scores above are the stored ones."))
        return sections
    ranking = ordered(scores)
    if not ranking:
        sections.append(("Ranking", "The submission ranked no document for this query (it scores 0)."))
    else:
        rows = []
        for rank, (doc_id, score) in enumerate(ranking[:top], start=1):
            snippet = doc_text(doc_id, collection, texts)
            mark = f"**relevant** (grade {relevant[doc_id]})" if doc_id in relevant else ""
            rows.append(f"| {rank} | `{cell(doc_id, 80)}` | {score:.6g} | {mark} | {cell(snippet)} |")
        sections.append((f"Top {min(top, len(ranking))} of {len(ranking)} ranked documents",
                         "| rank | document | score | relevant | text |\n|---:|---|---:|---|---|\n" + "\n".join(rows)))
    position = {d: i for i, (d, _) in enumerate(ranking, start=1)}
    missed = sorted((d for d in relevant if position.get(d, math.inf) > top), key=lambda d: (position.get(d, math.inf), d))
    if relevant:
        lines = [f"{len(relevant)} relevant document(s); "
                 + (f"{len(missed)} not in the top {top}:" if missed else f"all in the top {top}.")]
        lines += [f"- `{cell(d, 80)}` (grade {relevant[d]}): "
                  + (f"ranked {position[d]}" if d in position else "not ranked")
                  + f" — {cell(doc_text(d, collection, texts))}" for d in missed[:50]]
        if len(missed) > 50:
            lines.append(f"- … and {len(missed) - 50} more")
        sections.append(("Relevant documents", "\n".join(lines)))
    return sections
