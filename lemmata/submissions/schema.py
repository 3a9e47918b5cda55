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
    benchmark: str
    filename: str
    text: str


def _exports() -> list[SchemaFile]:
    from lemmata.hubtracks import schema as hub
    from lemmata.re2math import submission as re2math
    from lemmata.retrieval_tracks import run_schema, RUN_BENCHMARKS
    from lemmata.taobench import submission as taobench

    files = [SchemaFile("re2math", Path(re2math.SCHEMA_ID).name, re2math.schema_text()),
             SchemaFile("taobench", Path(taobench.SCHEMA_PATH).name, taobench.schema_text())]
    files += [SchemaFile(b, hub.schema_filename(b), hub.schema_text(b)) for b in hub.BENCHMARKS]
    files += [SchemaFile(b, f"{b}-run.schema.json", dumps(run_schema(b))) for b in RUN_BENCHMARKS]
    return files


def write_schemas(folder: str | Path) -> list[Path]:
    """Write every format's schema into ``folder``; returns the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for f in _exports():
        (folder / f.filename).write_text(f.text, encoding="utf-8")
        out.append(folder / f.filename)
    return out


def stale_schemas(folder: str | Path) -> list[str]:
    """Committed schema files that are missing or differ from a fresh export."""
    folder = Path(folder)
    return [f"{folder / f.filename} is out of date; run `lemmata schemas`" for f in _exports()
            if not (folder / f.filename).is_file() or (folder / f.filename).read_text("utf-8") != f.text]
