"""Hub-pinned releases (MathNet-Retrieve, MIRB, MathAtlas, MA-Align) built from fixtures in the upstream layout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lemmata.benchmarks.mirb.meta import TASKS
from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_file
from lemmata.core.jsonl import read_jsonl
from lemmata.release.card import parse_front_matter
from lemmata.release.load import open_release
from lemmata.release.manifest import verify_manifest

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hub"
MATHNET_SNAPSHOT = FIXTURES / "MathNet-Retrieve"
MIRB_SNAPSHOTS = FIXTURES / "mirb"
ATLAS_SNAPSHOTS = FIXTURES / "MathAtlas"


def _builder(name: str):
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.benchmarks.mirb.builder import MirbBuilder

    return {
        "mathnet-retrieve": (MathNetRetrieveBuilder, MATHNET_SNAPSHOT),
        "mirb": (MirbBuilder, MIRB_SNAPSHOTS),
        "mathatlas": (MathAtlasBuilder, ATLAS_SNAPSHOTS),
        "ma-align": (MaAlignBuilder, ATLAS_SNAPSHOTS),
    }[name]


NAMES = ("mathnet-retrieve", "mirb", "mathatlas", "ma-align")


@pytest.fixture(scope="session")
def hub_releases(tmp_path_factory) -> dict[str, Path]:
    hub_root = tmp_path_factory.mktemp("hub-releases")
    out = {}
    for name in NAMES:
        cls, src = _builder(name)
        out[name] = cls(source_dir=src).build(hub_root, quiet=True)
    return out


def _all_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", NAMES)
def test_rebuild_is_byte_identical(name, hub_releases, tmp_path):
    cls, src = _builder(name)
    again = cls(source_dir=src).build(tmp_path, quiet=True)
    assert _all_bytes(again) == _all_bytes(hub_releases[name])


@pytest.mark.parametrize("name", NAMES)
def test_manifest_lists_the_snapshot_files_with_pinned_urls(name, hub_releases):
    from lemmata.families import get_benchmark

    manifest = verify_manifest(hub_releases[name])
    meta = get_benchmark(name)
    assert manifest.release_id == meta.release_id
    assert manifest.sources, "no upstream files recorded"
    cls, src = _builder(name)
    pins = {p.repo_id: p for p in meta.hub}
    for s in manifest.sources:
        if not s.url.startswith("https://huggingface.co/"):  # shipped with the package: MA-Align's relabel file,
            continue                                         # checked in tests/benchmarks/mathatlas
        repo = "/".join(s.name.split("/")[:2])
        rel = s.name[len(repo) + 1:]
        pin = pins[repo]
        assert s.url == f"https://huggingface.co/datasets/{repo}/resolve/{pin.revision}/{rel}"
        local = src / rel if name == "mathnet-retrieve" else src / repo.split("/")[1] / rel
        assert sha256_file(local) == s.sha256


@pytest.mark.parametrize("name", NAMES)
def test_card_states_pins_licence_and_citation(name, hub_releases):
    from lemmata.families import get_benchmark

    meta = get_benchmark(name)
    card = (hub_releases[name] / "README.md").read_text("utf-8")
    fm = parse_front_matter(card)
    assert fm["license"] == meta.license_id
    assert [c["config_name"] for c in fm["configs"]] == [c.name for c in meta.configs]
    for pin in meta.hub:
        assert f"`{pin.revision}`" in card and pin.repo_id in card
    assert meta.citation.strip() in card
    assert meta.upstream_url in card


def test_mathnet_stores_the_shared_corpus_once_and_every_tier(hub_releases):
    rel = open_release(hub_releases["mathnet-retrieve"])
    corpus = [obj for _, obj in read_jsonl(MATHNET_SNAPSHOT / "hard" / "corpus.jsonl")]
    assert rel.rows("corpus", "corpus") == corpus
    queries = [obj for _, obj in read_jsonl(MATHNET_SNAPSHOT / "easy" / "queries.jsonl")]
    assert rel.rows("queries", "queries") == queries
    for tier in ("easy", "medium", "hard"):
        upstream = [obj for _, obj in read_jsonl(MATHNET_SNAPSHOT / tier / "qrels" / "test.jsonl")]
        assert rel.rows("qrels", tier) == upstream
        assert all(r["corpus-id"].endswith(f"::eq::{tier}") for r in upstream)


def test_mirb_has_every_task_with_titles_and_excluded_ids(hub_releases):
    rel = open_release(hub_releases["mirb"])
    assert rel.splits("qrels") == [t.name for t in TASKS]
    assert rel.splits("excluded_ids") == [t.name for t in TASKS if t.dynamic_corpus]
    mseqa = rel.rows("corpus", "mseqa")
    assert mseqa[0]["title"] == "Post 0"
    assert rel.rows("corpus", "leanps")[0]["title"] is None
    graded = rel.rows("qrels", "mathlibretrieval")
    assert {r["score"] for r in graded} == {1, 2}
    excluded = {r["query-id"]: r["excluded-ids"] for r in rel.rows("excluded_ids", "msedup")}
    assert excluded == {"msedup-q0": ["msedup-d5"], "msedup-q1": ["msedup-d4", "msedup-d5"], "msedup-q2": []}
    # holps ships no card upstream-style: read from the BEIR folder layout (qrels/test.tsv)
    assert len(rel.rows("qrels", "holps")) == 4


# MathAtlas' and MA-Align's own checks (splits, dependencies, depth, label sets): tests/benchmarks/mathatlas


@pytest.mark.parametrize("name, config, split", [
    ("mathnet-retrieve", "qrels", "hard"), ("mathnet-retrieve", "corpus", "corpus"),
    ("mirb", "corpus", "mseqa"), ("mirb", "excluded_ids", "modup"),
    ("mathatlas", "entities", "hard"), ("mathatlas", "dependencies", "open"), ("ma-align", "pairs", "test"),
])
def test_load_dataset_round_trip(name, config, split, hub_releases):
    import datasets

    cls, _ = _builder(name)
    root = hub_releases[name]
    ds = datasets.load_dataset(str(root), config, split=split)
    assert ds.features == cls().features()[config]
    assert ds.to_list() == open_release(root).rows(config, split)


@pytest.mark.parametrize("name, config", [("mathnet-retrieve", "qrels"), ("mirb", "excluded_ids"),
                                          ("mathatlas", "entities"), ("ma-align", "pairs")])
def test_croissant_iterates_the_same_records(name, config, hub_releases):
    import mlcroissant as mlc

    root = hub_releases[name]
    dataset = mlc.Dataset(jsonld=root / "croissant.json")
    assert not dataset.metadata.issues.errors
    doc = json.loads((root / "croissant.json").read_text("utf-8"))
    for d in doc["distribution"]:
        if "contentUrl" in d:
            assert sha256_file(root / d["contentUrl"]) == d["sha256"]
    records = list(dataset.records(config))
    rel = open_release(root)
    expected = sum(len(rel.rows(config, s)) for s in rel.splits(config))
    assert len(records) == expected
    if name == "mathnet-retrieve":
        got = {(r["qrels/split"].decode(), r["qrels/query-id"].decode()) for r in records}
        assert got == {(t, r["query-id"]) for t in rel.splits("qrels") for r in rel.rows("qrels", t)}


def test_cli_builds_a_family_from_one_source_dir(tmp_path, capsys):
    from lemmata.cli import main

    assert main(["build", "mathatlas", "--source-dir", str(ATLAS_SNAPSHOTS), "--out", str(tmp_path), "--quiet"]) == 0
    printed = capsys.readouterr().out.split()
    assert [Path(p).name for p in printed] == ["mathatlas-2.0.0", "ma-align-2.0.0"]


# -- bad snapshots: every problem with file, line and field; nothing left behind ---------------------

def _copy(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "snap"
    shutil.copytree(src, dest)
    return dest


def _fails(name: str, source_dir: Path, tmp_path: Path) -> InputError:
    cls, _ = _builder(name)
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        cls(source_dir=source_dir).build(out, quiet=True)
    assert not out.exists() or not list(out.iterdir())
    return err.value


def test_mathnet_tiers_must_share_the_corpus(tmp_path):
    snap = _copy(MATHNET_SNAPSHOT, tmp_path)
    path = snap / "medium" / "corpus.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    edited = lines[1].replace("Equivalently", "Equivalently (edited)")
    assert edited != lines[1]
    lines[1] = edited
    path.write_text("".join(lines), "utf-8")
    err = _fails("mathnet-retrieve", snap, tmp_path)
    assert "medium/corpus.jsonl" in str(err) and "record 2" in str(err)


def test_mathnet_qrels_twins_must_agree_and_ids_must_exist(tmp_path):
    snap = _copy(MATHNET_SNAPSHOT, tmp_path)
    tsv = snap / "easy" / "qrels" / "test.tsv"
    tsv.write_text(tsv.read_text("utf-8").replace("rus_2019_d99efd::eq::easy", "rus_2019_d99efd::eq::hard"), "utf-8")
    err = _fails("mathnet-retrieve", snap, tmp_path)
    assert "easy/qrels/test.tsv" in str(err) and "different judgements" in str(err)

    snap2 = _copy(MATHNET_SNAPSHOT, tmp_path / "b")
    path = snap2 / "hard" / "qrels" / "test.jsonl"
    path.write_text(path.read_text("utf-8").replace("jpn_2011_c0ffee::eq::hard", "jpn_2011_c0ffee::eq::nope"), "utf-8")
    (snap2 / "hard" / "qrels" / "test.tsv").unlink()
    err = _fails("mathnet-retrieve", snap2, tmp_path / "b")
    problem = err.problems[0]
    assert (problem.file, problem.line, problem.field) == ("hard/qrels/test.jsonl", 5, "corpus-id")
    assert "not in the corpus" in problem.reason


def test_mathnet_card_licence_drift_is_caught(tmp_path):
    snap = _copy(MATHNET_SNAPSHOT, tmp_path)
    card = snap / "README.md"
    card.write_text(card.read_text("utf-8").replace("license: cc-by-4.0", "license: cc-by-nc-4.0"), "utf-8")
    err = _fails("mathnet-retrieve", snap, tmp_path)
    assert err.problems[0].field == "license" and "cc-by-nc-4.0" in str(err)


def test_mirb_bad_rows_name_task_file_line_and_field(tmp_path):
    snap = _copy(MIRB_SNAPSHOTS, tmp_path)
    corpus = snap / "modup" / "corpus.jsonl"
    lines = corpus.read_text("utf-8").splitlines(keepends=True)
    lines.append(lines[1])  # duplicate id
    lines[0] = json.dumps({"_id": "modup-d0", "title": "Post 0"}) + "\n"  # no text
    corpus.write_text("".join(lines), "utf-8")
    err = _fails("mirb", snap, tmp_path)
    where = {(p.file, p.line, p.field) for p in err.problems}
    assert ("hcju/modup/corpus.jsonl", 1, "text") in where
    assert ("hcju/modup/corpus.jsonl", 7, "_id") in where


def test_mirb_excluded_positive_is_an_error(tmp_path):
    snap = _copy(MIRB_SNAPSHOTS, tmp_path)
    path = snap / "wikiformula" / "excluded_ids.jsonl"
    path.write_text(path.read_text("utf-8").replace('"wikiformula-d5"]}', '"wikiformula-d0"]}', 1), "utf-8")
    err = _fails("mirb", snap, tmp_path)
    assert err.problems[0].file == "hcju/wikiformula/excluded_ids.jsonl"
    assert err.problems[0].line == 1 and "relevant document 'wikiformula-d0'" in err.problems[0].reason


def test_mirb_missing_config_is_named(tmp_path):
    snap = _copy(MIRB_SNAPSHOTS, tmp_path)
    card = snap / "mseqa" / "README.md"
    card.write_text(card.read_text("utf-8").replace("config_name: excluded_ids", "config_name: excluded"), "utf-8")
    err = _fails("mirb", snap, tmp_path)
    assert "hcju/mseqa" in str(err) and "'excluded_ids'" in str(err)


def test_ma_align_needs_its_declared_split(tmp_path):
    snap = _copy(ATLAS_SNAPSHOTS, tmp_path)
    (snap / "MA-Align" / "README.md").write_text("---\nlicense: unknown\n---\n", "utf-8")
    err = _fails("ma-align", snap, tmp_path)
    assert "expected one config with split(s) test, found none" in str(err)
