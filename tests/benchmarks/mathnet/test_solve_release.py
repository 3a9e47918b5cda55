"""MathNet-Solve release: built from the upstream layout (per-country parquet configs with images), checked,
loadable by ``datasets.load_dataset`` offline, with valid Croissant and Lemmata-named subsets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

FIXTURE = Path(__file__).parents[2] / "fixtures" / "hub" / "MathNet"
from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder
from lemmata.benchmarks.mathnet.solve_meta import SUBSETS
from lemmata.core.errors import InputError


def test_release_round_trips_through_load_dataset(solve_release: Path, tmp_path):
    import datasets

    problems = datasets.load_dataset(str(solve_release), "problems", cache_dir=str(tmp_path / "c"))
    assert set(problems) == {"full", *SUBSETS}
    full = problems["full"]
    assert full.num_rows == 17  # 17 rows upstream, every id once
    row = {r["unique_id"]: r for r in full}
    assert row["usa_2013_f6a7b8"]["final_answer"] == "\\frac{1}{2}"
    assert row["usa_2013_f6a7b8"]["domain"] == "algebra" and row["esp_2018_7a8b9c"]["domain"] == "discrete_math"
    assert row["esp_2017_4d5e6f"]["num_images"] == 2 and row["esp_2017_4d5e6f"]["image_description"]
    # duplicates after normalising spacing share a group; the equivalence via MathNet-Retrieve is not baked in
    assert row["bra_2019_dup001"]["duplicate_group"] == row["rus_2019_d99efd"]["duplicate_group"] == "bra_2019_dup001"
    images = datasets.load_dataset(str(solve_release), "images", split="images", cache_dir=str(tmp_path / "c"))
    assert images.num_rows == 5 and images[0]["image"].size == (24, 24)
    assert sorted((r["unique_id"], r["index"]) for r in images)[:2] == [("bra_2014_9c0d1e", 0), ("esp_2017_4d5e6f", 0)]


def test_card_croissant_and_licence_notes(solve_release: Path):
    import mlcroissant as mlc

    card = (solve_release / "README.md").read_text()
    assert "Lemmata's stratified subsets" in card and "not the paper's" in card
    assert "Test-Set-Small" in card and "lemmata_strat_70" in card  # named as Lemmata's, the paper's named apart
    assert "asserts its own copyright" in card
    assert "math-verify" in card and "only 7 counts" in card
    ds = mlc.Dataset(str(solve_release / "croissant.json"))
    rec = next(iter(ds.records("images")))
    assert rec["images/image"].size == (24, 24)
    manifest = json.loads((solve_release / "MANIFEST.json").read_text())
    assert {s["name"].split("/")[-2] for s in manifest["sources"]} == {"Brazil", "Spain", "USA"}
    assert all("33e6b3bc254e6f0f0c1479b4252f5e9dd551d56c" in s["url"] for s in manifest["sources"])


def test_subsets_are_stratified_and_fixed():
    from lemmata.benchmarks.mathnet.solve_schema import stratified_subset

    strata = {f"p{i:03d}": (("algebra", "geometry")[i % 2], ("English", "Spanish", "Portuguese")[i % 3],
                            str(i % 5 == 0)) for i in range(300)}
    a = stratified_subset(strata, 70, 7)
    assert a == stratified_subset(strata, 70, 7) and len(a) == 70 and a != stratified_subset(strata, 70, 8)
    # every stratum keeps its share to within one problem
    for key in set(strata.values()):
        share = sum(strata[p] == key for p in strata) * 70 / 300
        assert abs(sum(strata[p] == key for p in a) - share) < 1


def _copy_fixture(tmp_path: Path) -> Path:
    dest = tmp_path / "MathNet"
    shutil.copytree(FIXTURE, dest)
    return dest


def _rewrite(path: Path, edit) -> None:
    table = pq.read_table(path)
    rows = table.to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)


def test_bad_upstream_rows_name_file_row_and_field(tmp_path):
    src = _copy_fixture(tmp_path)
    usa = src / "data" / "USA" / "train-00000-of-00001.parquet"

    def edit(rows):
        rows[0]["images"][0]["bytes"] = b"not a png"
        rows[1]["num_images"] = 3
        rows[2]["problem_markdown"] = ""

    _rewrite(usa, edit)
    spain = src / "data" / "Spain" / "train-00000-of-00001.parquet"
    _rewrite(spain, lambda rows: rows[0].update(unique_id="usa_2010_aa11bb"))
    with pytest.raises(InputError) as err:
        MathNetSolveBuilder(source_dir=src).build(tmp_path / "out", quiet=True)
    where = {(p.file, p.line, p.field): p.reason for p in err.value.problems}
    f = "data/USA/train-00000-of-00001.parquet"
    assert "do not open as an image" in where[f, 1, "images[0]"]
    assert "disagree" in where[f, 2, "images"]
    assert (f, 3, "problem_markdown") in where
    assert "also in data/Spain/train-00000-of-00001.parquet, row 1 with a different statement" in where[f, 2, "unique_id"]
    assert not (tmp_path / "out" / "mathnet-solve-1.1.0").exists()


def test_schema_change_upstream_is_one_problem_per_column(tmp_path):
    src = _copy_fixture(tmp_path)
    path = src / "data" / "Brazil" / "train-00000-of-00001.parquet"
    table = pq.read_table(path).drop_columns(["final_answer"]).append_column("answer", pa.array(["x"] * 6))
    pq.write_table(table, path)
    with pytest.raises(InputError) as err:
        MathNetSolveBuilder(source_dir=src).build(tmp_path / "out", quiet=True)
    fields = {(p.field, p.reason.split(" (")[0]) for p in err.value.problems}
    assert fields == {("final_answer", "column missing"), ("answer", "unknown column")}
