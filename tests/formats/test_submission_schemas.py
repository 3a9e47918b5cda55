"""Every submission format's JSON Schema is current, and real submission files satisfy it line by line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from lemmata.formats.schema import stale_schemas
from lemmata.families import schema_files

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "submissions" / "schema"
EXAMPLES = sorted(p for p in (ROOT / "submissions").glob("*/example*.jsonl"))


def _schema_for(header: dict) -> dict:
    name = {"re2math": "re2math-submission", "taobench": "taobench-proofs"}.get(header["benchmark"])
    candidates = [SCHEMAS / f"{name}.schema.json"] if name else [
        SCHEMAS / f"{header['benchmark']}-submission.schema.json", SCHEMAS / f"{header['benchmark']}-run.schema.json"]
    path = next(p for p in candidates if p.is_file())
    return json.loads(path.read_text("utf-8"))


def _check_lines(path: Path) -> int:
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    schema = _schema_for(lines[0])
    validator = jsonschema.Draft202012Validator(schema)
    for i, obj in enumerate(lines, start=1):
        errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.path))
        assert not errors, f"{path.name} line {i}: {errors[0].message}"
    return len(lines)


def test_schemas_are_current():
    assert stale_schemas(schema_files(), SCHEMAS) == []


def test_schemas_are_valid_json_schema():
    for path in SCHEMAS.glob("*.schema.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text("utf-8")))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_committed_examples_satisfy_their_schema(path):
    assert _check_lines(path) > 1


def test_schema_rejects_what_the_handler_rejects():
    schema = json.loads((SCHEMAS / "re2math-submission.schema.json").read_text("utf-8"))
    header = json.loads((ROOT / "submissions/re2math/example-re2math-bm25-raw-m5.jsonl").read_text("utf-8")
                        .splitlines()[0])
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(validator.iter_errors(header))
    assert list(validator.iter_errors({**header, "window": 2}))
    assert list(validator.iter_errors({**header, "surprise": True}))


def test_generated_runs_and_proof_submissions_satisfy_their_schema(re2math_release, tmp_path):
    from lemmata.benchmarks.re2math.baselines import theorem_retrieval_run
    from lemmata.benchmarks.taobench.example import write_example

    run = theorem_retrieval_run("bm25", "raw", tmp_path, depth=10)
    assert _check_lines(run) == 201
    proofs, n = write_example(tmp_path / "taobench-example.jsonl")
    assert _check_lines(proofs) == n + 1
