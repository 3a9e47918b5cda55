"""Deterministic citing-paper-level train/dev assignment for the non-test pool.

A paper goes to ``dev`` when the first 64 bits of
``sha256("re2math/pool/v1:" + paper_key)``, read as a fraction of 2**64, fall
below :data:`DEV_FRACTION`; otherwise to ``train``. The rule depends only on the
normalised paper key, so adding papers never moves existing ones.
"""

from __future__ import annotations

import hashlib

SALT = "re2math/pool/v1:"
DEV_FRACTION = 0.2


def pool_split(key: str) -> str:
    """``'train'`` or ``'dev'`` for a normalised paper key.

    >>> pool_split("2110.11087") in ("train", "dev")
    True
    """
    digest = hashlib.sha256((SALT + key).encode("utf-8")).digest()
    return "dev" if int.from_bytes(digest[:8], "big") / 2**64 < DEV_FRACTION else "train"
