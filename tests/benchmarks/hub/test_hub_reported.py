"""The MathNet, MIRB and MathAtlas papers' printed numbers, imported from the real transcriptions in the mirror."""

from __future__ import annotations

import json
import shutil

import pytest

from lemmata.core.errors import InputError
from lemmata.benchmarks.mathatlas.reported import mathatlas_reported
from lemmata.benchmarks.mathnet.reported import mathnet_reported
from lemmata.benchmarks.mirb.reported import MIRB_TOLERANCE, mirb_reported
from lemmata.benchmarks.mirb.reported import reported_file as mirb_reported_file


def reported_results(source_dir=None):
    return [*mathnet_reported(source_dir), *mirb_reported(source_dir), *mathatlas_reported(source_dir)]
from lemmata.core.paths import mirror_root


def _printed(name: str) -> dict:
    return json.loads((mirror_root() / "reported" / name).read_text("utf-8"))


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


def test_reported_rows_never_share_a_group_with_scored_rows():
    from lemmata.tracks.ranking import scoring_artifact

    for r in reported_results():
        assert r.kind == "reported"
        assert r.frozen.scoring_artifact != scoring_artifact()
        assert "paper" in r.frozen.scoring_artifact
        assert r.provenance["paper"].startswith("https://arxiv.org/abs/")
        assert r.result_id == r.content_id()


def test_mathnet_rows_keep_every_printed_cell():
    printed = _printed("mathnet_paper.json")["rows"]
    results = mathnet_reported()
    assert [r.model.name for r in results] == [p["model"] for p in printed]
    gemini = next(r for r in results if r.model.name == "gemini-embedding-001")
    assert gemini.main.metric == "recall@5" and gemini.main.value == pytest.approx(0.6888)
    assert gemini.breakdowns["by_domain"]["geometry"] == {"recall@1": pytest.approx(0.0549),
                                                          "recall@5": pytest.approx(0.8186)}
    assert gemini.track == "paper" and gemini.frozen.split == "paper/table5"


def test_mathatlas_rows_and_the_correctness_flag():
    results = mathatlas_reported()
    tables = _printed("mathatlas_paper.json")["tables"]
    assert len(results) == sum(len(t["rows"]) for t in tables)
    flagged = [(r.frozen.split, r.model.name) for r in results if "correct_disagrees" in r.flags]
    assert flagged == [("paper/statements_full", "ReForm 8B")]
    reform = next(r for r in results if r.model.name == "ReForm 8B" and r.frozen.split == "paper/statements_full")
    assert reform.main.value == pytest.approx(0.098)  # the abstract's 9.8%, kept as printed
    assert reform.flags["correct_disagrees"]["implied"] == pytest.approx(19.0 * 48.4 / 100)


def test_a_changed_transcription_is_refused(tmp_path):
    for name in ("mathnet_paper.json", "mirb_paper.json", "mathatlas_paper.json"):
        shutil.copyfile(mirror_root() / "reported" / name, tmp_path / name)
    path = tmp_path / "mirb_paper.json"
    path.write_text(path.read_text("utf-8").replace("55.2", "50.1"), "utf-8")
    with pytest.raises(InputError) as err:
        mirb_reported_file(tmp_path)
    assert "sha256 mismatch" in str(err.value)
    assert len(mathnet_reported(tmp_path)) == 8


def test_import_into_a_store_is_idempotent(tmp_path):
    from lemmata.families import reported_importers
    from lemmata.store import Store

    store = Store(tmp_path / "store")
    hub = {"mathnet", "mirb", "mathatlas"}

    def import_reported(st):
        return [pair for family, importer in reported_importers() if family in hub for pair in importer(st)]

    first = import_reported(store)
    again = import_reported(store)
    assert all(created for _, created in first)
    assert not any(created for _, created in again)
    assert [r.result_id for r, _ in first] == [r.result_id for r, _ in again]
