"""JSONL, the one way: line-numbered reading (a malformed line names its file and line) and one byte form written.

Every JSONL file the library writes (submissions, examples, runner logs, world
and artifact files) is :func:`dumps_jsonl`'s bytes: one ``json.dumps`` object a
line, non-ASCII kept as UTF-8, each line ending in ``"\\n"``; ``sort_keys`` for
the files whose key order is not meaningful. Releases, worlds and examples are
pinned by sha256, so this byte form never changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from lemmata.core.atomic import atomic_writer
from lemmata.core.errors import InputError, Problem

__all__ = ["dumps_jsonl", "iter_jsonl", "read_jsonl", "write_jsonl"]


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


def _line(obj: Any, sort_keys: bool) -> str:
    plain = obj.model_dump(mode="json") if hasattr(obj, "model_dump") else obj
    return json.dumps(plain, ensure_ascii=False, sort_keys=sort_keys) + "\n"


def dumps_jsonl(objects: Iterable[Any], *, sort_keys: bool = False) -> str:
    """One JSON object a line (a pydantic model as its JSON dump), each line ending in a newline.

    >>> dumps_jsonl([{"b": "é", "a": 1}, {"c": None}])
    '{"b": "é", "a": 1}\\n{"c": null}\\n'
    >>> dumps_jsonl([{"b": 2, "a": 1}], sort_keys=True)
    '{"a": 1, "b": 2}\\n'
    """
    return "".join(_line(obj, sort_keys) for obj in objects)


def write_jsonl(path: str | Path, objects: Iterable[Any], *, sort_keys: bool = False) -> Path:
    """Write :func:`dumps_jsonl`'s bytes, streamed and atomically: readers (and a rerun) never see a half-written
    file, and a long iterable is never held as one string.

    >>> import tempfile
    >>> path = write_jsonl(Path(tempfile.mkdtemp()) / "a.jsonl", iter([{"x": 1}, {"y": "é"}]))
    >>> path.read_bytes() == dumps_jsonl([{"x": 1}, {"y": "é"}]).encode("utf-8")
    True
    >>> [obj for _, obj in read_jsonl(path)]
    [{'x': 1}, {'y': 'é'}]
    """
    with atomic_writer(path) as fh:
        for obj in objects:
            fh.write(_line(obj, sort_keys).encode("utf-8"))
    return Path(path)
