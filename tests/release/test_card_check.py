"""``lemmata build NAME --check`` against an in-process Hub (``HF_ENDPOINT``) serving real-format cards.

Cards served, each a fixture whose note names its evidence: MathNet schema A (``fixtures/hub/MathNet``) and
schema B (``fixtures/hub/MathNet-B``, both written by ``MathNet/make_fixture.py``), MathNet-Retrieve
(``fixtures/hub/MathNet-Retrieve``), one MIRB task (``fixtures/hub/cards/leanps``, card only) and MathAtlas
(``fixtures/hub/MathAtlas/MathAtlas``). Only ``README.md`` may be fetched: every test asserts that no data file
was requested.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_hub_download import FakeHub, online  # noqa: F401  (the in-process Hub and its fixture)

from lemmata.core.errors import InputError
from lemmata.core.meta import HubPin
from lemmata.release.card_check import render_table

HUB = Path(__file__).parents[1] / "fixtures" / "hub"
ROOT = Path(__file__).parents[2]
SOLVE_REV = "33e6b3bc254e6f0f0c1479b4252f5e9dd551d56c"
RETRIEVE_REV = "edab33b5ae2c56c18da0b9a174530de2012a1075"


def _mathnet_hub(solve_folder: Path, retrieve_folder: Path = HUB / "MathNet-Retrieve") -> FakeHub:
    return FakeHub("ShadenA/MathNet", SOLVE_REV, solve_folder,
                   more={"ShadenA/MathNet-Retrieve": (RETRIEVE_REV, retrieve_folder)})


def _only_cards(hub: FakeHub) -> None:
    fetched = [r.split(" ", 1)[1] for r in hub.requests if "/resolve/" in r]
    assert fetched and all(r.endswith("/README.md") for r in fetched), fetched


def _cli(endpoint: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m lemmata build ... --check`` in its own process, the Hub named only by ``HF_ENDPOINT``."""
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HUB_OFFLINE": "0", "HF_HUB_CACHE": str(tmp_path / "hf"),
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "LEMMATA_MIRROR": str(tmp_path / "no-mirror")}
    return subprocess.run([sys.executable, "-m", "lemmata", "build", *args, "--check"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def _edit_card(src: Path, dest: Path, edit) -> Path:
    """A copy of the snapshot ``src`` whose card's front matter ``edit`` changed."""
    shutil.copytree(src, dest)
    text = (dest / "README.md").read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    data = yaml.safe_load(front)
    edit(data)
    (dest / "README.md").write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n"
                                    + body, encoding="utf-8")
    return dest


def test_cli_check_reads_only_the_cards_over_hf_endpoint(tmp_path):
    with _mathnet_hub(HUB / "MathNet-B") as hub:
        done = _cli(hub.endpoint, tmp_path, "mathnet")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"ShadenA/MathNet@33e6b3bc25 +\* +\* +\* +layout +B-10col-id +fits", out), out
    assert re.search(r"ShadenA/MathNet-Retrieve@edab33b5ae +\* +\* +\* +layout +BEIR per tier +fits", out), out
    # the aggregate config is declared upstream and not read; the Retrieve card states no features
    assert re.search(r"ShadenA/MathNet@\w+ +all +\* +\* +declared +not read +skipped", out), out
    assert re.search(r"MathNet-Retrieve@\w+ +easy .* no dataset_info features +columns not compared +unverified",
                     out), out
    _only_cards(hub)


def test_cli_unknown_layout_fails_naming_revision_config_split_and_column(tmp_path):
    def rename(front):
        spain = next(i for i in front["dataset_info"] if i["config_name"] == "Spain")
        next(f for f in spain["features"] if f["name"] == "final_answer")["name"] = "answer"

    snap = _edit_card(HUB / "MathNet-B", tmp_path / "snap", rename)
    with _mathnet_hub(snap) as hub:
        done = _cli(hub.endpoint, tmp_path, "mathnet")
    assert done.returncode == 2  # an input error: the upstream layout, not the environment
    table = done.stdout
    assert re.search(r"ShadenA/MathNet@33e6b3bc25 +\* +\* +\* +layout +none fits +differs", table), table
    assert re.search(r"Spain +train +answer +present +unknown column +differs", table), table
    err = done.stderr
    assert f"ShadenA/MathNet@{SOLVE_REV}/README.md" in err
    assert "config 'Spain', split 'train', column 'final_answer': card: missing; builder: reads it" in err
    assert "config 'Spain', split 'train', column 'answer': card: present; builder: unknown column" in err
    _only_cards(hub)


def test_schema_a_card_fits_schema_a(online, tmp_path):  # noqa: F811
    from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder

    with _mathnet_hub(HUB / "MathNet") as hub:
        (report,) = MathNetSolveBuilder(endpoint=hub.endpoint).check_cards()
    assert report.layout == "A-23col-unique_id" and not any(r.blocking for r in report.rows)
    assert [r.verdict for r in report.rows] == ["skipped"]  # the all config; every country fits A
    _only_cards(hub)


def test_a_licence_change_is_a_difference(online, tmp_path):  # noqa: F811
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder

    snap = _edit_card(HUB / "MathNet-Retrieve", tmp_path / "r", lambda front: front.update(license="mit"))
    with _mathnet_hub(HUB / "MathNet", snap) as hub:
        (report,) = MathNetRetrieveBuilder(endpoint=hub.endpoint).check_cards()
    (row,) = [r for r in report.rows if r.blocking]
    assert (row.column, row.card, row.builder) == ("license", "mit", "cc-by-4.0")
    assert "license  mit" in render_table([report])


def _mirb_hub(folder: Path) -> FakeHub:
    from lemmata.benchmarks.mirb.builder import MirbBuilder

    pin = MirbBuilder().pins()["leanps"]
    return FakeHub(pin.repo_id, pin.revision, folder)


def test_mirb_task_card_fits_the_mteb_layout(online):  # noqa: F811
    from lemmata.benchmarks.mirb.builder import MirbBuilder

    with _mirb_hub(HUB / "cards" / "leanps") as hub:
        (report,) = MirbBuilder(endpoint=hub.endpoint).check_cards(["leanps"])
    assert report.layout == "MTEB retrieval" and report.rows == ()  # features stated and all read
    _only_cards(hub)


def test_mirb_task_card_without_a_qrels_column_fails(online, tmp_path):  # noqa: F811
    from lemmata.benchmarks.mirb.builder import MirbBuilder

    def drop_score(front):
        qrels = next(i for i in front["dataset_info"] if i["config_name"] == "default")
        qrels["features"] = [f for f in qrels["features"] if f["name"] != "score"]

    snap = _edit_card(HUB / "cards" / "leanps", tmp_path / "leanps", drop_score)
    with _mirb_hub(snap) as hub:
        reports = MirbBuilder(endpoint=hub.endpoint).check_cards(["leanps"])
    from lemmata.release.card_check import failures

    (problem,) = failures(reports)
    assert problem.file.startswith("hcju/leanps@") and problem.field == "configs.default"
    assert "config 'default', split 'test', column 'score': card: missing; builder: reads it" in problem.reason


def _pinned_atlas():
    from lemmata.benchmarks.mathatlas.builder import MathAtlasBuilder

    class PinnedAtlas(MathAtlasBuilder):  # MathAtlas has no pinned revision yet; a test pins one
        def pins(self):
            return {self.pin.repo_id: HubPin(repo_id=self.pin.repo_id, revision="e" * 40)}

    return PinnedAtlas


def test_mathatlas_card_fits_the_authors_columns(online, tmp_path):  # noqa: F811
    builder = _pinned_atlas()
    with FakeHub("MathAtlas/MathAtlas", "e" * 40, HUB / "MathAtlas" / "MathAtlas") as hub:
        (report,) = builder(endpoint=hub.endpoint).check_cards()
    assert report.layout == "authors' columns" and not any(r.blocking for r in report.rows)
    _only_cards(hub)

    def one_split(front):
        front["configs"][0]["data_files"] = front["configs"][0]["data_files"][:1]
        for info in [front["dataset_info"]] if isinstance(front["dataset_info"], dict) else front["dataset_info"]:
            info["splits"] = info["splits"][:1]

    snap = _edit_card(HUB / "MathAtlas" / "MathAtlas", tmp_path / "atlas", one_split)
    shutil.rmtree(tmp_path / "hf-cache")  # the same pinned revision would be answered from the cache
    with FakeHub("MathAtlas/MathAtlas", "e" * 40, snap) as hub:
        (report,) = builder(endpoint=hub.endpoint).check_cards()
    assert report.layout is None
    assert [(r.split, r.card) for r in report.rows if r.blocking] == [("hard", "no such split")]


def test_an_unpinned_dataset_is_not_fetched(online, capsys):  # noqa: F811
    from lemmata.cli import main

    assert main(["build", "mathatlas", "--check"]) == 1
    err = capsys.readouterr().err
    assert "MathAtlas/MathAtlas" in err and "no pinned revision" in err and len(err.strip().splitlines()) == 1


def test_a_family_without_hub_data_has_nothing_to_check(capsys, tmp_path):
    from lemmata.cli import main

    assert main(["build", "taobench", "--check", "--source-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "not from a Hub dataset card; nothing to check" in out


def test_failures_name_every_blocking_row():
    from lemmata.release.card_check import CardLayout, ConfigLayout, check_card, failures

    pin = HubPin(repo_id="o/d", revision="f" * 40)
    layout = CardLayout(name="x", configs=(ConfigLayout(name="default", splits=("test",), columns=("id",)),))
    report = check_card("o/d", pin, Path("/nonexistent/README.md"), "other", [layout])
    assert report.layout is None
    with pytest.raises(InputError) as err:
        raise InputError(failures([report]))
    assert "o/d@" + "f" * 40 in str(err.value) and "config 'default'" in str(err.value)
