"""The MathAtlas paper's printed numbers, imported from the transcription shipped in the package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lemmata
from lemmata.benchmarks.mathatlas.reported import mathatlas_reported
from lemmata.benchmarks.mathnet.reported import mathnet_reported
from lemmata.benchmarks.mirb.reported import mirb_reported

PACKAGE = Path(lemmata.__file__).parent


def reported_results(source_dir=None):
    return [*mathnet_reported(source_dir), *mirb_reported(source_dir), *mathatlas_reported(source_dir)]


def _printed(name: str) -> dict:
    """The shipped transcription ``name`` (the file the importers read), as printed."""
    (path,) = PACKAGE.glob(f"benchmarks/*/transcriptions/{name}")
    return json.loads(path.read_text("utf-8"))


def test_mathatlas_rows_and_the_correctness_flag():
    results = mathatlas_reported()
    tables = _printed("mathatlas_paper.json")["tables"]
    assert len(results) == sum(len(t["rows"]) for t in tables)
    flagged = [(r.frozen.split, r.model.name) for r in results if "correct_disagrees" in r.flags]
    assert flagged == [("paper/statements_full", "ReForm 8B")]
    reform = next(r for r in results if r.model.name == "ReForm 8B" and r.frozen.split == "paper/statements_full")
    assert reform.main.value == pytest.approx(0.098)  # the abstract's 9.8%, kept as printed
    assert reform.flags["correct_disagrees"]["implied"] == pytest.approx(19.0 * 48.4 / 100)
