"""JSON Schemas of every submission format, exported from the pydantic models that validate uploads.

A submission is the shared envelope (line 1 the header, every further line a
record), so each schema describes *one line*: ``oneOf`` the header and the
record. Users can check a file line by line with any JSON Schema validator; the
track handler still does what a schema cannot (ids that exist in the release,
one record per item, replaying trajectories). ``lemmata schemas`` writes the
files under ``submissions/schema/``; ``lemmata schemas --check`` (run by the
tests) fails when a committed file differs from a fresh export.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

SCHEMA_BASE = "https://huggingface.co/spaces/lemmata/leaderboard/schema/"


def line_schema(header: type[BaseModel], record: type[BaseModel], *, filename: str, title: str,
                description: str) -> dict[str, Any]:
    """JSON Schema (2020-12) of one line of a submission: the header or a record."""
    from pydantic.json_schema import models_json_schema

    _, defs = models_json_schema([(header, "validation"), (record, "validation")], ref_template="#/$defs/{model}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_BASE + filename,
        "title": title,
        "description": description,
        "oneOf": [{"$ref": f"#/$defs/{header.__name__}"}, {"$ref": f"#/$defs/{record.__name__}"}],
        **defs,
    }


def dumps(schema: dict[str, Any]) -> str:
    """The committed file's exact text."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class SchemaFile:
    """One exported schema: the benchmark it describes, its committed file name and exact text."""

    benchmark: str
    filename: str
    text: str


def write_schemas(files: Iterable[SchemaFile], folder: str | Path) -> list[Path]:
    """Write every format's schema into ``folder``; returns the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for f in files:
        (folder / f.filename).write_text(f.text, encoding="utf-8")
        out.append(folder / f.filename)
    return out


def stale_schemas(files: Iterable[SchemaFile], folder: str | Path) -> list[str]:
    """Committed schema files that are missing or differ from a fresh export."""
    folder = Path(folder)
    return [f"{folder / f.filename} is out of date; run `lemmata schemas`" for f in files
            if not (folder / f.filename).is_file() or (folder / f.filename).read_text("utf-8") != f.text]
