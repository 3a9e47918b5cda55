"""MathNet-Solve reads both published schemas of ``ShadenA/MathNet`` and says which it read.

Fixtures (``tests/fixtures/hub/MathNet`` = schema A, ``MathNet-B`` = schema B) are written by
``tests/fixtures/hub/MathNet/make_fixture.py``, whose docstring names the evidence each follows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_hub_download import FakeHub, online  # noqa: F401  (the in-process Hub and its fixture)

from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder
from lemmata.benchmarks.mathnet.solve_meta import HUB_REVISION, MATHNET_SOLVE
from lemmata.core.errors import InputError

HUB = Path(__file__).parents[2] / "fixtures" / "hub"
FIXTURE_A, FIXTURE_B = HUB / "MathNet", HUB / "MathNet-B"


@pytest.fixture(scope="module")
def release_b(tmp_path_factory) -> Path:
    return MathNetSolveBuilder(source_dir=FIXTURE_B).build(tmp_path_factory.mktemp("b"), quiet=True)


def _problems(release: Path) -> dict[str, dict]:
    rows = pq.read_table(release / "data" / "problems" / "full-00000-of-00001.parquet").to_pylist()
    return {r["unique_id"]: r for r in rows}


def test_schema_b_builds_and_the_manifest_names_it(release_b: Path):
    manifest = json.loads((release_b / "MANIFEST.json").read_text())
    assert manifest["layouts"] == {"ShadenA/MathNet": "B-10col-id"}
    assert manifest["version"] == MATHNET_SOLVE.version == "1.1.0" and manifest["builder_version"] == "1.1"
    # the aggregate folder repeats every file: never read
    assert sorted(s["name"].split("/", 2)[2] for s in manifest["sources"]) == [
        "data/Russia/train-00000-of-00001.parquet", "data/Spain/train-00000-of-00001.parquet",
        "data/USA/train-00000-of-00001.parquet"]
    rows = _problems(release_b)
    assert len(rows) == 8
    # images counted from the images column (schema B has no num_images)
    assert (rows["01a3"]["num_images"], rows["01a3"]["has_images"]) == (2, True)
    assert (rows["007c"]["num_images"], rows["007c"]["has_images"]) == (0, False)
    assert rows["007c"]["year"] is None and rows["007c"]["source_booklet"] == ""
    assert "built from schema **B-10col-id**" in (release_b / "README.md").read_text()


def test_language_strings_are_one_spelling_per_language(release_b: Path):
    rows = _problems(release_b)
    assert {r["language"] for r in rows.values()} == {"English", "Spanish", "English; Russian", "unknown"}
    assert rows["01f0"]["language"] == rows["007c"]["language"] == "Spanish"  # 'Español', 'español'
    assert rows["02b9"]["language"] == rows["02c4"]["language"]  # 'English; Russian', 'Russian; English'


def test_strata_use_the_normalised_language():
    from lemmata.benchmarks.mathnet.solve_builder import read_snapshot, release_rows, subsets
    from lemmata.release.hub import UsedFiles

    schema, rows = read_snapshot(FIXTURE_B, UsedFiles())
    problems, _ = release_rows(rows)
    solvable = [p for p in problems if p["solutions"]]
    sub = subsets(problems)["lemmata_strat_70"]
    assert schema == "B-10col-id" and len(sub) == len(solvable) == 7
    strata = {(p["domain"], p["language"], p["has_images"]) for p in solvable}
    assert not any(lang in {"español", "Español", "Russian; English"} for _, lang, _ in strata)


def test_schema_a_release_records_schema_a(solve_release: Path):
    manifest = json.loads((solve_release / "MANIFEST.json").read_text())
    assert manifest["layouts"] == {"ShadenA/MathNet": "A-23col-unique_id"}


def test_a_snapshot_mixing_schemas_fails_naming_the_file(tmp_path):
    src = tmp_path / "MathNet-B"
    shutil.copytree(FIXTURE_B, src)
    shutil.copy(FIXTURE_A / "data" / "USA" / "train-00000-of-00001.parquet",
                src / "data" / "USA" / "train-00000-of-00001.parquet")
    with pytest.raises(InputError) as err:
        MathNetSolveBuilder(source_dir=src).build(tmp_path / "out", quiet=True)
    (problem,) = err.value.problems
    assert problem.file == "data/USA/train-00000-of-00001.parquet" and problem.field == "columns"
    assert "schema A-23col-unique_id" in problem.reason and "schema B-10col-id" in problem.reason


def test_download_skips_the_all_folder_and_builds_the_same_release(online, tmp_path, release_b: Path):
    with FakeHub("ShadenA/MathNet", HUB_REVISION, FIXTURE_B) as hub:
        remote = MathNetSolveBuilder(endpoint=hub.endpoint).build(tmp_path / "remote", quiet=True)
    fetched = [r for r in hub.requests if "/resolve/" in r]
    assert fetched and not any("/data/all/" in r for r in fetched)
    files = lambda root: {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}  # noqa: E731
    assert files(remote) == files(release_b)
