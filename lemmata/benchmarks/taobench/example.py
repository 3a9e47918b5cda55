"""The example proof submission: hand-written proofs spliced into the release's official files.

The repository ships only the proof texts (``submissions/taobench/example_proofs.json``); the
submission itself is built from a local release, because every attempt is a complete Lean file
and the official files are upstream's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from lemmata.core.errors import InputError, Problem
from lemmata.core.jsonl import write_jsonl
from lemmata.core.models import Frozen
from lemmata.core.paths import repo_root
from lemmata.formats.results import ModelInfo
from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.benchmarks.taobench.release import open_taobench
from lemmata.benchmarks.taobench.submission import BENCHMARK, TRACK

DEFAULT_PROOFS = "submissions/taobench/example_proofs.json"


class ExampleProof(Frozen):
    fqn: str
    formulation: Literal["tao", "mathlib"]
    proof: str = Field(min_length=2, description="replaces the exercise's body, starting with ':=' (or 'where')")


class ExampleProofs(Frozen):
    release: str
    model: ModelInfo
    notes: str = ""
    proofs: list[ExampleProof]


def build_example(proofs: ExampleProofs, releases_root: str | Path | None = None) -> list[dict]:
    """Header and records (as JSON objects) of the example submission."""
    release = open_taobench(proofs.release, releases_root)
    problems = []
    records = []
    for i, p in enumerate(proofs.proofs):
        if p.fqn not in release.by_fqn or not release.item(p.fqn, p.formulation).scoreable:
            problems.append(Problem(DEFAULT_PROOFS, f"{p.fqn} ({p.formulation}) is not a scoreable exercise of "
                                    f"{proofs.release}", field=f"proofs.{i}.fqn"))
            continue
        attempt = release.exercise(p.fqn, p.formulation).complete(p.proof)
        records.append({"fqn": p.fqn, "formulation": p.formulation, "attempts": [attempt]})
    if problems:
        raise InputError(problems)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": BENCHMARK, "track": TRACK, "release": proofs.release,
        "formulations": ["tao", "mathlib"], "model": proofs.model.model_dump(), "n": 1,
        "sampling": {"temperature": 0.0, "prompt": "hand-written proofs spliced into the official files"},
        "flags": {"used_lean_feedback": False, "trained_on_taobench": False, "used_external_tools": False,
                  "filtered_attempts": False},
        "notes": proofs.notes,
    }
    return [header, *records]


def write_example(out: str | Path, *, proofs_path: str | Path | None = None,
                  releases_root: str | Path | None = None) -> tuple[Path, int]:
    """Write the example submission JSONL; returns its path and number of records."""
    source = Path(proofs_path) if proofs_path else repo_root() / DEFAULT_PROOFS
    try:
        proofs = ExampleProofs.model_validate_json(source.read_bytes())
    except ValueError as exc:
        raise InputError.one(str(source), f"not an example-proofs file: {exc}") from None
    lines = build_example(proofs, releases_root)
    return write_jsonl(out, lines), len(lines) - 1


def recognise_proofs_spec(document: object, filename: str) -> list[Problem]:
    """One problem naming the command that builds a submission, when ``document`` is an example-proofs file.

    A proofs file (``submissions/taobench/example_proofs.json``) holds proof bodies, not complete Lean
    files, and is one JSON document, not JSONL; uploaded as it is, it would give one "malformed JSON"
    row per line.

    >>> [p.field for p in recognise_proofs_spec({"release": "r", "proofs": []}, "p.json")]
    ['proofs']
    >>> recognise_proofs_spec({"release": "r"}, "p.json")
    []
    """
    if not (isinstance(document, dict) and isinstance(document.get("proofs"), list)
            and isinstance(document.get("release"), str) and "format" not in document):
        return []
    return [Problem(filename, "this is a TaoBench proofs file (proof bodies per exercise), not a submission: "
                              f"turn it into one with `lemmata taobench example --proofs {filename} --out "
                              "submission.jsonl` (it splices each proof into the release's official Lean file) "
                              "and upload submission.jsonl", field="proofs")]

