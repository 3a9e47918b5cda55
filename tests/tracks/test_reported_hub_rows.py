"""Reported rows of the Hub families (MathNet, MIRB, MathAtlas): their own frozen group, refused when a
transcription changes, imported idempotently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import lemmata
from lemmata.core.errors import InputError
from lemmata.benchmarks.mathatlas.reported import mathatlas_reported
from lemmata.benchmarks.mathnet.reported import mathnet_reported
from lemmata.benchmarks.mirb.reported import mirb_reported
from lemmata.benchmarks.mirb.reported import reported_file as mirb_reported_file

PACKAGE = Path(lemmata.__file__).parent


def reported_results(source_dir=None):
    return [*mathnet_reported(source_dir), *mirb_reported(source_dir), *mathatlas_reported(source_dir)]


def _printed(name: str) -> dict:
    """The shipped transcription ``name`` (the file the importers read), as printed."""
    (path,) = PACKAGE.glob(f"benchmarks/*/transcriptions/{name}")
    return json.loads(path.read_text("utf-8"))


def test_reported_rows_never_share_a_group_with_scored_rows():
    from lemmata.tracks.ranking import scoring_artifact

    for r in reported_results():
        assert r.kind == "reported"
        assert r.frozen.scoring_artifact != scoring_artifact()
        assert "paper" in r.frozen.scoring_artifact
        assert r.provenance["paper"].startswith("https://arxiv.org/abs/")
        assert r.result_id == r.content_id()


def test_a_changed_transcription_is_refused(tmp_path):
    for name in ("mathnet_paper.json", "mirb_paper.json", "mathatlas_paper.json"):
        shutil.copyfile(next(PACKAGE.glob(f"benchmarks/*/transcriptions/{name}")), tmp_path / name)
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
