"""The repairs ``math-arxiv-meta-1.1.0`` makes to the pinned table: float-mangled ids, their twin records, bad DOIs.

One of the two mirrors the table merges (``staeiou/arxiv_archive``) stored
arXiv ids as floats. The 1.0.0 script repaired the ids that had lost more than
one digit (``704.056`` is ``0704.0560``), but an id that lost exactly one
trailing zero still looked valid (``1501.00120`` became ``1501.0012``), so it
stayed: a new-style id from 2015-01 on has five digits after the dot, and
such an id has four. Where the other mirror (or the same one, under the
correct id) also held the paper, the table has two records of one work.
Version 1.1.0 pads those ids with the lost zero, merges each twin into the
record under the correct id (its fields first, a missing one taken from the
twin, the sources of both) and keeps only the DOI fields that are DOIs. It
never guesses: every count is measured on the pinned file and stated in the
card.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from lemmata.core.identifiers import normalize_doi

#: a new-style id one digit short for its year-month: YYMM from 1501 on with four digits after the dot
_SHORT = re.compile(r"^(?:1[5-9]|[2-9]\d)(?:0[1-9]|1[0-2])\.\d{4}$")
#: the columns a merged record takes from its twin when its own value is missing
FILLED_FROM_TWIN = ("created", "categories", "primary_category", "subjects", "msc", "doi", "comment")


def padded_id(arxiv_id: str) -> str | None:
    """The id a float conversion shortened by one trailing zero, restored (None: the id has its full length).

    >>> padded_id("1501.0012"), padded_id("1908.0423")
    ('1501.00120', '1908.04230')
    >>> padded_id("1412.0012"), padded_id("1501.00120"), padded_id("math/0601001")
    (None, None, None)
    """
    return arxiv_id + "0" if _SHORT.match(arxiv_id) else None


def doi_field(value: str | None) -> tuple[str | None, str]:
    """The DOI a ``doi`` field holds, and what was done: ``kept`` (a DOI, as written), ``first`` (several DOIs
    written in one field: the first kept), ``dropped`` (no DOI in it), ``empty``.

    >>> doi_field("10.1214/07-AAP481"), doi_field(None)
    (('10.1214/07-AAP481', 'kept'), (None, 'empty'))
    >>> doi_field("10.4213/faa3441 10.1007/s10688-017-0172-5"), doi_field("10.471/JEMS/196")
    (('10.4213/faa3441', 'first'), (None, 'dropped'))
    """
    if not value:
        return None, "empty"
    if normalize_doi(value) is not None:
        return value, "kept"
    first = next((p for p in re.split(r"[\s,;]+", value) if p and normalize_doi(p) is not None), None)
    return (first, "first") if first else (None, "dropped")


def _missing(value: Any) -> bool:
    return value is None or value == [] or value == ""


def repair_table(table):
    """The pinned table with its ids repaired, twins merged and DOI fields cleaned, sorted by id, and the counts
    of each repair (what the card reports).

    Only the rows a repair touches become Python objects; the large text columns stay Arrow arrays.
    """
    import pyarrow as pa

    from lemmata.core.latex_text import words

    ids = table["arxiv_id"].to_pylist()
    position = {a: i for i, a in enumerate(ids)}
    short = [i for i, a in enumerate(ids) if padded_id(a) is not None]
    twins = {i: position[padded_id(ids[i])] for i in short if padded_id(ids[i]) in position}
    titles = table["title"].to_pylist()
    created = table["created"].to_pylist()
    counts: dict[str, Any] = {
        "rows_in": table.num_rows,
        "short_ids": len(short),
        "short_ids_with_twin": len(twins),
        "twins_same_created": sum(1 for i, j in twins.items() if created[i] is not None and created[i] == created[j]),
        "twins_same_title": sum(1 for i, j in twins.items() if words(titles[i]) == words(titles[j])),
        "short_ids_padded": len(short) - len(twins),
    }
    columns = {c: table[c].to_pylist() for c in (*FILLED_FROM_TWIN, "sources")}
    filled: Counter[str] = Counter()
    for i, j in twins.items():
        for c in FILLED_FROM_TWIN:
            if _missing(columns[c][j]) and not _missing(columns[c][i]):
                columns[c][j] = columns[c][i]
                filled[c] += 1
        columns["sources"][j] = sorted(set(columns["sources"][j]) | set(columns["sources"][i]))
    dois = [doi_field(d) for d in columns["doi"]]
    columns["doi"] = [d for d, _ in dois]
    done = Counter(how for _, how in dois)
    for i in short:
        ids[i] = padded_id(ids[i])
    counts.update({"filled_from_twin": dict(sorted(filled.items())), "doi_first_of_several": done["first"],
                   "doi_dropped": done["dropped"]})
    schema = table.schema
    for c, values in (("arxiv_id", ids), *columns.items()):
        table = table.set_column(schema.get_field_index(c), schema.field(c), pa.array(values, schema.field(c).type))
    keep = pa.array([i not in twins for i in range(len(ids))])
    table = table.filter(keep).sort_by("arxiv_id")
    counts["rows_out"] = table.num_rows
    return table, counts
