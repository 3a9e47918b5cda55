"""Line-numbered JSONL reading: a malformed line names its file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, Problem


def iter_jsonl(path: str | Path, *, label: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; 1-based line numbers."""
    name = label or str(path)
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError([Problem(name, f"not valid UTF-8 ({exc.reason} at byte {exc.start})", lineno)]) from None
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError([Problem(name, f"malformed JSON: {exc.msg} (column {exc.colno})", lineno)]) from None
            if not isinstance(obj, dict):
                raise InputError([Problem(name, f"expected a JSON object, got {type(obj).__name__}", lineno)])
            yield lineno, obj


def read_jsonl(path: str | Path, *, label: str | None = None) -> list[tuple[int, dict[str, Any]]]:
    return list(iter_jsonl(path, label=label))
