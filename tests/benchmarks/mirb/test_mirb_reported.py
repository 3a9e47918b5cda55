"""The MIRB paper's printed numbers, imported from the transcription shipped in the package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lemmata
from lemmata.benchmarks.mathatlas.reported import mathatlas_reported
from lemmata.benchmarks.mathnet.reported import mathnet_reported
from lemmata.benchmarks.mirb.reported import MIRB_TOLERANCE, mirb_reported

PACKAGE = Path(lemmata.__file__).parent


def reported_results(source_dir=None):
    return [*mathnet_reported(source_dir), *mirb_reported(source_dir), *mathatlas_reported(source_dir)]


def _printed(name: str) -> dict:
    """The shipped transcription ``name`` (the file the importers read), as printed."""
    (path,) = PACKAGE.glob(f"benchmarks/*/transcriptions/{name}")
    return json.loads(path.read_text("utf-8"))


def test_mirb_disagreeing_averages_are_flagged_with_both_numbers_and_kept_as_printed():
    printed = {r["model"]: r for r in _printed("mirb_paper.json")["rows"]}
    results = {r.model.name: r for r in mirb_reported()}
    assert list(results) == list(printed)
    flagged = {name for name, r in results.items() if "average_disagrees" in r.flags}
    assert flagged == {"NV-Embed-v2", "gte-Qwen2-7B-instruct"}
    nv = results["NV-Embed-v2"]
    flag = nv.flags["average_disagrees"]
    mean = sum(printed["NV-Embed-v2"]["ndcg@10"].values()) / 12
    assert flag["printed"] == 55.2 and flag["implied"] == pytest.approx(mean, abs=1e-4)
    assert flag["difference"] == pytest.approx(55.2 - mean, abs=1e-4) and flag["tolerance"] == MIRB_TOLERANCE
    assert nv.main.value == pytest.approx(0.552)  # printed, not corrected
    assert nv.notes[0].startswith("Printed average 55.20 differs from the mean of the twelve printed cells (50.10)")
    qwen = results["gte-Qwen2-7B-instruct"].flags["average_disagrees"]
    assert (qwen["printed"], qwen["implied"]) == (44.26, pytest.approx(43.9242, abs=1e-4))
    # a rounding-sized gap (text-embedding-3-large: 49.93 printed, 49.935 mean) is not flagged
    assert "average_disagrees" not in results["text-embedding-3-large"].flags
    for name, r in results.items():
        assert r.kind == "reported" and r.flags["reported"] is True
        assert r.metrics["per_dataset"] == {d: pytest.approx(v / 100) for d, v in printed[name]["ndcg@10"].items()}
        assert r.main.value == pytest.approx(printed[name]["reported_average"] / 100)
