"""Upstream MathAtlas files read record by record: validated on the columns a model reads, ids unique.

The authors publish more columns than Lemmata reads, and the exact column list of the public files
could not be seen offline; so a record is validated on the model's fields only, the columns seen are
collected (a card lists those not read), and every problem names its file, row and field. Both the
Hub data (:mod:`lemmata.benchmarks.mathatlas.builder`) and the relabel file
(:mod:`lemmata.benchmarks.mathatlas.relabel`) read through here.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lemmata.core.errors import InputError, Problem
from lemmata.formats.datafiles import iter_records
from lemmata.formats.envelope import validate_model

__all__ = ["unique_records"]


def unique_records(files: Iterable[tuple[str, Path]], model: type[BaseModel], *, key: str = "uuid",
                   columns: set[str] | None = None) -> list[tuple[str, int, Any]]:
    """``(file label, row, record)`` of every record of ``files`` (``(label, path)`` pairs).

    Each record is validated on ``model``'s fields; ``key`` must be unique across all files. The
    column names seen are added to ``columns`` when given. Every problem is reported at once.
    """
    read = set(model.model_fields)
    problems: list[Problem] = []
    out: list[tuple[str, int, Any]] = []
    first: dict[Any, str] = {}
    for label, path in files:
        for line, rec in iter_records(path, label=label):
            if columns is not None:
                columns.update(rec)
            obj = validate_model(model, {k: v for k, v in rec.items() if k in read}, label, line, problems)
            if obj is None:
                continue
            value = getattr(obj, key)
            if value in first:
                problems.append(Problem(label, f"duplicate {key} {value!r} (first at {first[value]})", line, key))
                continue
            first[value] = f"{label}:{line}"
            out.append((label, line, obj))
    if problems:
        raise InputError(problems[:200])
    return out
