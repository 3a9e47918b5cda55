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


def write_jsonl(path: str | Path, objects: list[dict[str, Any]]) -> Path:
    """Write one JSON object per line, atomically: readers (and a rerun) never see a half-written file."""
    import os

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text("".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in objects), encoding="utf-8")
    os.replace(tmp, path)
    return path
