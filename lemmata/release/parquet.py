"""Deterministic Parquet with pinned Hugging Face features."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:  # pragma: no cover
    from datasets import Features


def shard_name(split: str) -> str:
    return f"{split}-00000-of-00001.parquet"


def write_rows(rows: "list[dict[str, Any]] | pa.Table", features: "Features", path: Path) -> None:
    """Write ``rows`` with exactly ``features``' Arrow schema (no inferred ``large_string``).

    ``rows`` is a list of dicts or, for large releases read from Parquet, an
    Arrow table, which is cast to the schema without becoming Python objects.
    The schema carries the ``huggingface`` metadata key, so ``datasets`` restores
    the declared features even without the card.
    """
    if isinstance(rows, pa.Table):
        table = rows.select(features.arrow_schema.names).cast(features.arrow_schema)
    else:
        table = pa.Table.from_pylist(rows, schema=features.arrow_schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", write_statistics=True)


def read_rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).to_pylist()
