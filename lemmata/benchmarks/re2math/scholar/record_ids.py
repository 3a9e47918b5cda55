"""Opaque record ids: a fixed pseudo-random permutation, so that no id says anything about its record.

World 2.0.0 numbered its records in (year, title) order: ``rec-000000`` and its
neighbours were the undated and oldest records, all of them gold, and an id
alone told a system what the hidden year would (gradient boosting separated gold
from distractors with AUC 0.72 on the id). World 2.1 numbers records by their
rank in the order of ``sha256(seed, key)`` over every record's internal key
(``arxiv:<id>``, ``bib:<id>``, ``cite:<n>``): a fixed permutation, the same on
every build of the same inputs, independent of year, origin and gold status.
Storage order (year order, for the cutoff prefix) and id order are unrelated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

#: id prefix of world 2.1 records (2.0.0 used ``rec-``: the two id spaces never mix)
PREFIX = "r"
#: digits of an id (room for ten million records)
WIDTH = 7


def opaque_ids(keys: Iterable[str], seed: str) -> dict[str, str]:
    """Key -> opaque id: ``r`` + the key's rank in ``sha256(seed NUL key)`` order, zero-padded.

    >>> ids = opaque_ids(["arxiv:1", "arxiv:2", "cite:0", "bib:x"], seed="s")
    >>> sorted(ids.values())
    ['r0000000', 'r0000001', 'r0000002', 'r0000003']
    >>> ids == opaque_ids(["bib:x", "cite:0", "arxiv:2", "arxiv:1"], seed="s")   # order of the input does not matter
    True
    >>> opaque_ids(["a", "a"], seed="s")
    Traceback (most recent call last):
    ...
    ValueError: duplicate record key 'a'
    """
    keyed: dict[str, bytes] = {}
    for k in keys:
        if k in keyed:
            raise ValueError(f"duplicate record key {k!r}")
        keyed[k] = hashlib.sha256(f"{seed}\0{k}".encode()).digest()
    if len(keyed) >= 10 ** WIDTH:
        raise ValueError(f"{len(keyed)} records do not fit {WIDTH}-digit ids")
    order = sorted(keyed, key=lambda k: (keyed[k], k))
    return {k: f"{PREFIX}{rank:0{WIDTH}d}" for rank, k in enumerate(order)}
