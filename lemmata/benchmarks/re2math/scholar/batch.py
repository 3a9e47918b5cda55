"""Batch query files for ``lemmata artifact search --batch``: one JSON object per line, validated up front.

A line is ``{"query": str, "cutoff": int | null, "n": int}`` (``n`` optional,
default 20). Every bad line is reported at once, naming its line and field,
before any query runs, so a long batch never fails half-way through (malformed
JSON lines included: reading goes on past them). The report is bounded like an
upload's: reading stops after :data:`~lemmata.formats.envelope.STOP_AFTER`
problems, and the list shows the first ones and how many more there were
(:func:`~lemmata.formats.envelope.cap_problems`), so a file of a hundred
thousand bad lines costs a short message, not megabytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field, ValidationError

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Exact
from lemmata.formats.envelope import STOP_AFTER, cap_problems, stopped
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N

#: longest accepted query (characters): a rendered Re2Math proof state is well under this
MAX_QUERY_CHARS = 100_000
MAX_N = 1_000


class BatchQuery(Exact):
    """One line of a batch file."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    cutoff: int | None = Field(description="no record dated after this year; null: no cutoff")
    n: int = Field(default=DEFAULT_N, ge=1, le=MAX_N)


def read_batch(path: str | Path) -> list[BatchQuery]:
    """Every line of ``path`` as a :class:`BatchQuery`; all bad lines raise one :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError.one(str(path), "batch query file does not exist")
    out: list[BatchQuery] = []
    problems: list[Problem] = []
    name = str(path)
    with open(path, "rb") as fh:
        for line, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            if len(problems) >= STOP_AFTER:
                problems.append(stopped(name, line, len(problems)))
                break
            try:
                obj = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                problems.append(Problem(name, f"not valid UTF-8 ({exc.reason} at byte {exc.start})", line))
                continue
            except json.JSONDecodeError as exc:
                problems.append(Problem(name, f"malformed JSON: {exc.msg} (column {exc.colno})", line))
                continue
            if not isinstance(obj, dict):
                problems.append(Problem(name, f"expected a JSON object, got {type(obj).__name__}", line))
                continue
            try:
                out.append(BatchQuery.model_validate(obj))
            except ValidationError as exc:
                for err in exc.errors():
                    field = ".".join(str(p) for p in err["loc"]) or None
                    problems.append(Problem(name, err["msg"], line, field))
    if problems:
        raise InputError(cap_problems(problems, name))
    return out
