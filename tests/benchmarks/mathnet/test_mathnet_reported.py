"""The MathNet paper's printed numbers, imported from the transcription shipped in the package."""

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


def test_mathnet_rows_keep_every_printed_cell():
    printed = _printed("mathnet_paper.json")["rows"]
    results = mathnet_reported()
    assert [r.model.name for r in results] == [p["model"] for p in printed]
    gemini = next(r for r in results if r.model.name == "gemini-embedding-001")
    assert gemini.main.metric == "recall@5" and gemini.main.value == pytest.approx(0.6888)
    assert gemini.breakdowns["by_domain"]["geometry"] == {"recall@1": pytest.approx(0.0549),
                                                          "recall@5": pytest.approx(0.8186)}
    assert gemini.track == "paper" and gemini.frozen.split == "paper/table5"
