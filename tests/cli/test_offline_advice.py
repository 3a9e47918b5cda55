"""Offline, every "upstream files not reachable" failure ends with the same advice, said once.

The advice names the three places raw files are looked for (``--source-dir``,
``LEMMATA_MIRROR``, a ``../shared/data`` mirror beside the checkout), whichever
source failed: a pinned URL, a Hub dataset, a file that has no download.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from lemmata.core.errors import LemmataError
from lemmata.core.paths import offline_advice
from lemmata.release.sources import SourceUnavailable, unavailable_summary

OPTIONS = ("--source-dir", "LEMMATA_MIRROR", "../shared/data")


def _advised_once(message: str, family: str) -> None:
    assert "\n" not in message
    for option in OPTIONS:
        assert message.count(option) == 1, (option, message)
    assert f"`lemmata build {family} --source-dir DIR`" in message


def test_a_failed_download_names_the_file_and_the_three_mirror_options(tmp_path, monkeypatch):
    from lemmata.families import get_benchmark

    def refuse(*args, **kwargs):
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setenv("LEMMATA_HOME", str(tmp_path))
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    meta = get_benchmark("re2math")
    with pytest.raises(SourceUnavailable) as err:
        _download_only(meta)
    message = str(err.value)
    assert message.startswith(f"could not download {meta.sources[0].name} from {meta.sources[0].url} "
                              "(Name or service not known); ")
    _advised_once(message, "re2math")


def _download_only(meta):
    """Resolve sources with no mirror at all (the test machine has one beside the checkout)."""
    from unittest import mock

    from lemmata.release import sources

    with mock.patch.object(sources, "default_source_dir", lambda family: None):
        return sources.resolve_sources(meta)


def test_an_unreachable_hub_names_the_family_of_the_release_being_built(tmp_path, monkeypatch):
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("LEMMATA_MIRROR", str(tmp_path / "no-mirror"))
    with pytest.raises(LemmataError) as err:
        MathNetRetrieveBuilder().build(tmp_path / "out", quiet=True)
    message = str(err.value)
    assert "ShadenA/MathNet-Retrieve" in message and "Hub is unreachable" in message
    _advised_once(message, "mathnet")


def test_a_file_without_download_gets_the_same_advice_with_its_mirror_folder(tmp_path, monkeypatch):
    from lemmata.benchmarks.math_arxiv_meta.builder import MIRROR_FOLDER
    from lemmata.families import builder_classes

    monkeypatch.setenv("LEMMATA_MIRROR", str(tmp_path))
    cls = builder_classes("math-arxiv-meta")[0]  # 1.0.0 (1.1.0 reads the same file the same way)
    with pytest.raises(SourceUnavailable) as err:
        cls().fetch_sources()
    _advised_once(str(err.value), "math-arxiv-meta")
    assert f"under {MIRROR_FOLDER}/" in str(err.value)


def test_many_failures_on_one_line_give_the_advice_once():
    failures = [(f"r{i}-1.0.0", SourceUnavailable(f"could not download f{i}", family=f"fam{i}", hub=i % 2 == 0))
                for i in range(5)] + [("x-1.0.0", OSError("disk full"))]
    line = unavailable_summary(failures)
    for i in range(5):
        assert f"r{i}-1.0.0: could not download f{i}; " in line
    assert "x-1.0.0: disk full; " in line
    _advised_once(line, "FAMILY")
    assert unavailable_summary([("x-1.0.0", OSError("disk full"))]) == "x-1.0.0: disk full"


def test_the_space_start_up_lists_reasons_and_advises_once(tmp_path, monkeypatch):
    from lemmata.families import builder_classes
    from lemmata.space.bootstrap import release_step

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("LEMMATA_MIRROR", str(tmp_path / "no-mirror"))
    hub_only = []
    for cls in builder_classes():
        if cls.meta.hub:
            hub_only.append(cls.meta.release_id)
        else:
            (tmp_path / cls.meta.release_id).mkdir()
            (tmp_path / cls.meta.release_id / "MANIFEST.json").write_text("{}")
    assert len(hub_only) > 1
    summary = release_step(tmp_path)(lambda text: None)
    for option in OPTIONS:
        assert summary.count(option) == 1, summary
    assert offline_advice().replace("to build it ", "to build them ", 1) in summary


def test_score_builds_a_missing_release_first(tmp_path, monkeypatch, capsys):
    """``lemmata score --help`` says releases are built when missing: a Hub-only one builds from a mirror."""
    from pathlib import Path

    from lemmata.cli import main

    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("LEMMATA_RELEASES", str(tmp_path / "releases"))
    monkeypatch.setenv("LEMMATA_MIRROR", str(root / "tests" / "fixtures" / "hub"))
    assert main(["score", str(root / "submissions" / "mirb" / "example-mirb.jsonl"), "--quiet",
                 "--out", str(tmp_path / "result.json")]) == 0
    assert (tmp_path / "releases" / "mirb-1.0.0" / "MANIFEST.json").is_file()
    assert '"dataset_release": "mirb-1.0.0"' in (tmp_path / "result.json").read_text()


def test_score_offline_without_a_mirror_says_how_to_build_in_one_line(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    from lemmata.cli import main

    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("LEMMATA_RELEASES", str(tmp_path / "releases"))
    monkeypatch.setenv("LEMMATA_MIRROR", str(tmp_path / "no-mirror"))
    assert main(["score", str(root / "submissions" / "mirb" / "example-mirb.jsonl"), "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: could not download the Hugging Face dataset hcju/")
    _advised_once(err, "mirb")
