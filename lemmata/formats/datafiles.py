"""Rows of a data file — JSONL, JSON (a list), Parquet, CSV or TSV — each with the line or row it came from.

Upstream datasets ship in any of these formats; BEIR collections and Hub
builders read them through one function so an error can always point at the
record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, Problem

__all__ = ["iter_records", "iter_valid", "read_unique"]


def iter_records(path: Path, *, label: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line or row number, record)`` for JSONL, JSON (a list), Parquet, CSV and TSV data files.

    Numbers are 1-based lines for text files (the header line counts in CSV and
    TSV) and 1-based rows for Parquet, so an error can point at the record.
    """
    name = label or str(path)
    suffix = path.name.lower()
    if suffix.endswith(".jsonl"):
        from lemmata.core.jsonl import iter_jsonl

        yield from iter_jsonl(path, label=name)
    elif suffix.endswith(".parquet"):
        import pyarrow.parquet as pq

        row = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=4096):
            for rec in batch.to_pylist():
                row += 1
                yield row, rec
    elif suffix.endswith(".json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError.one(name, f"unreadable JSON: {exc}") from None
        if not isinstance(data, list):
            raise InputError.one(name, "expected a JSON list of records")
        for i, rec in enumerate(data, start=1):
            if not isinstance(rec, dict):
                raise InputError.one(name, f"record {i} is not a JSON object", i)
            yield i, rec
    elif suffix.endswith((".csv", ".tsv")):
        import csv

        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if suffix.endswith(".tsv") else ",")
            for rec in reader:
                yield reader.line_num, dict(rec)
    else:
        raise InputError.one(name, "unsupported data file type (expected .jsonl, .json, .parquet, .csv or .tsv)")


def read_unique(path: Path, label: str, model: type[Any], key: str,
                duplicate: str = "duplicate {key} {value!r} (first on line {first})") -> list[tuple[int, Any]]:
    """``(line, row)`` of a JSONL file, each line validated against ``model`` and its ``key`` unique.

    Every bad line and field, and every repeated key (``duplicate`` says it, with fields
    ``key``, ``value`` and ``first``), is reported at once in one :class:`InputError`.
    """
    from pydantic import ValidationError

    from lemmata.core.jsonl import iter_jsonl

    out: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for lineno, obj in iter_jsonl(path, label=label):
        try:
            row = model.model_validate(obj)
        except ValidationError as exc:
            for err in exc.errors():
                problems.append(Problem(label, err["msg"], lineno, ".".join(str(p) for p in err["loc"])))
            continue
        value = getattr(row, key)
        if value in seen:
            problems.append(Problem(label, duplicate.format(key=key, value=value, first=seen[value]), lineno, key))
            continue
        seen[value] = lineno
        out.append((lineno, row))
    if problems:
        raise InputError(problems)
    return out


def iter_valid(path: str | Path, model: type[Any], problems: list[Problem], *,
               label: str | None = None) -> Iterator[tuple[int, Any]]:
    """``(line, row)`` of every JSONL line ``model`` accepts; a refused line adds its first error to ``problems``."""
    from pydantic import ValidationError

    from lemmata.core.jsonl import iter_jsonl

    name = label or str(path)
    for lineno, obj in iter_jsonl(path, label=label):
        try:
            row = model.model_validate(obj)
        except ValidationError as exc:
            err = exc.errors()[0]
            problems.append(Problem(name, err["msg"], lineno, ".".join(str(p) for p in err["loc"]) or None))
            continue
        yield lineno, row
