"""The Re2Math release built from the real upstream snapshot."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from lemmata.benchmarks.re2math.builder import EVAL, FULL, Re2MathBuilder
from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_file
from lemmata.core.jsonl import read_jsonl
from lemmata.benchmarks.re2math.papers import paper_key
from lemmata.release.card import parse_front_matter
from lemmata.release.load import open_release
from lemmata.release.manifest import verify_manifest
from lemmata.release.sources import resolve_sources
from lemmata.benchmarks.re2math.meta import RE2MATH


@pytest.fixture(scope="module")
def release(re2math_release):
    return open_release(re2math_release)


@pytest.fixture(scope="module")
def upstream():
    paths = resolve_sources(RE2MATH, [FULL, EVAL])
    return {name: [obj for _, obj in read_jsonl(path)] for name, path in paths.items()}


def _all_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_layout(re2math_release):
    names = {p.relative_to(re2math_release).as_posix() for p in re2math_release.rglob("*") if p.is_file()}
    assert {"README.md", "croissant.json", "MANIFEST.json", "CITATION.cff"} <= names
    assert {"data/eval200/test-00000-of-00001.parquet", "data/full/full-00000-of-00001.parquet",
            "data/pool/train-00000-of-00001.parquet", "data/pool/dev-00000-of-00001.parquet"} <= names
    assert not [p for p in re2math_release.parent.iterdir() if p.name.startswith(".")], "temporary folders left behind"


def test_manifest_covers_every_file_and_source(re2math_release, release):
    manifest = verify_manifest(re2math_release)
    assert manifest.release_id == "re2math-1.0.0"
    listed = {f.path for f in manifest.files}
    on_disk = {p.relative_to(re2math_release).as_posix() for p in re2math_release.rglob("*")
               if p.is_file() and p.name != "MANIFEST.json"}
    assert listed == on_disk
    assert {s.name for s in manifest.sources} == set(Re2MathBuilder.source_names)
    for s in manifest.sources:
        assert s.sha256 == RE2MATH.source(s.name).sha256


def test_rebuild_is_byte_identical(re2math_release, tmp_path):
    again = Re2MathBuilder().build(tmp_path, quiet=True)
    assert _all_bytes(again) == _all_bytes(re2math_release)


def test_eval200_is_exactly_the_upstream_file(release, upstream):
    rows = release.rows("eval200", "test")
    assert [r["instance_id"] for r in rows] == [o["instance_id"] for o in upstream[EVAL]]
    assert len(rows) == 200
    by_id = {o["instance_id"]: o for o in upstream[EVAL]}
    for row in rows:
        src = by_id[row["instance_id"]]
        assert row["x"]["local_context"] == src["x"]["local_context"]  # oldest first, unchanged
        assert row["y"] == src["y"]
        assert row["paper"] == src["paper"]


def test_full_has_every_instance(release, upstream):
    rows = release.rows("full", "full")
    assert [r["instance_id"] for r in rows] == [o["instance_id"] for o in upstream[FULL]]
    assert len({r["paper_key"] for r in rows}) == 631  # the paper's count after version normalisation
    assert all(r["publication_year"] is not None for r in rows)


def test_split_integrity_at_paper_level(release, upstream):
    papers = defaultdict(set)
    for config, split in (("eval200", "test"), ("pool", "train"), ("pool", "dev")):
        for row in release.rows(config, split):
            papers[split].add(row["paper_key"])
            assert row["paper_key"] == paper_key(row["paper"]["paper_id"])
    assert not papers["test"] & papers["train"]
    assert not papers["test"] & papers["dev"]
    assert not papers["train"] & papers["dev"]
    # every non-test row is either in the pool or excluded because its paper is in the test set
    eval_ids = {o["instance_id"] for o in upstream[EVAL]}
    pool_ids = {r["instance_id"] for s in ("train", "dev") for r in release.rows("pool", s)}
    excluded = [o for o in upstream[FULL] if o["instance_id"] not in eval_ids and o["instance_id"] not in pool_ids]
    assert excluded and all(paper_key(o["paper"]["paper_id"]) in papers["test"] for o in excluded)
    assert len(pool_ids) + len(excluded) + len(eval_ids) == len(upstream[FULL])


def test_card_yaml_declares_configs_and_features(re2math_release, release):
    card = (re2math_release / "README.md").read_text("utf-8")
    fm = parse_front_matter(card)
    assert [c["config_name"] for c in fm["configs"]] == ["eval200", "full", "pool", "retrieval_corpus", "retrieval_queries",
                                                         "retrieval_qrels"]
    infos = {i["config_name"]: i for i in fm["dataset_info"]}
    assert {s["name"]: s["num_examples"] for s in infos["eval200"]["splits"]} == {"test": 200}
    names = [f["name"] for f in infos["eval200"]["features"]]
    assert names[:4] == ["instance_id", "paper_key", "publication_year", "domain"]
    assert fm["license"] == "unknown"
    # prose sections the card must carry, with counts from the build
    for heading in ("## Split policy", "## Tracks", "## Intended use", "## Limitations", "## Provenance",
                    "## Licence", "## Citation"):
        assert heading in card
    assert "not stated by the authors" in card
    assert "da7b008ac7a2f76373f8e23ca7c5b00966f3a239" in card
    n_train = len(release.rows("pool", "train"))
    assert f"train: {n_train} rows" in card


def test_citation_cff(re2math_release):
    cff = yaml.safe_load((re2math_release / "CITATION.cff").read_text("utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == "1.0.0"
    assert cff["preferred-citation"]["authors"][0]["family-names"] == "Lyu"
    assert "&id" not in (re2math_release / "CITATION.cff").read_text("utf-8")


def test_load_dataset_round_trip(re2math_release):
    import datasets

    from lemmata.benchmarks.re2math.builder import instance_features

    ds = datasets.load_dataset(str(re2math_release), "eval200", split="test")
    assert ds.num_rows == 200
    assert ds.features == instance_features()
    assert ds[0]["x"]["global_context"]["setup"]
    pool = datasets.load_dataset(str(re2math_release), "pool")
    assert set(pool) == {"train", "dev"}
    full = datasets.load_dataset(str(re2math_release), "full", split="full")
    assert full.num_rows == 860


def test_croissant_validates_and_iterates_the_same_records(re2math_release, release):
    import mlcroissant as mlc

    doc = json.loads((re2math_release / "croissant.json").read_text("utf-8"))
    assert doc["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    shas = {d["contentUrl"]: d["sha256"] for d in doc["distribution"] if "contentUrl" in d}
    for rel, sha in shas.items():
        assert sha256_file(re2math_release / rel) == sha
    dataset = mlc.Dataset(jsonld=re2math_release / "croissant.json")
    assert not dataset.metadata.issues.errors
    records = list(dataset.records("eval200"))
    rows = release.rows("eval200", "test")
    assert [r["eval200/instance_id"].decode() for r in records] == [r["instance_id"] for r in rows]
    first = records[0]
    assert first["eval200/x"]["eval200/x/local_context"] == [b.encode() for b in rows[0]["x"]["local_context"]]
    assert first["eval200/x/global_context"]["eval200/x/global_context/setup"].decode() == \
        rows[0]["x"]["global_context"]["setup"]
    pool = list(dataset.records("pool"))
    by_split = defaultdict(set)
    for r in pool:
        by_split[r["pool/split"].decode()].add(r["pool/instance_id"].decode())
    assert by_split == {s: {r["instance_id"] for r in release.rows("pool", s)} for s in ("train", "dev")}


# -- bad input: the build stops with file/line and leaves nothing behind ---------------------------------

def _build_fails(source_dir: Path, out: Path) -> InputError:
    with pytest.raises(InputError) as err:
        Re2MathBuilder(source_dir=source_dir).build(out, quiet=True)
    leftovers = list(out.iterdir()) if out.exists() else []
    assert leftovers == [], f"failed build left {leftovers}"
    return err.value


def _rehash(source_dir: Path, name: str, monkeypatch) -> None:
    """Point the registry's pinned hash at the edited file, so the row check (not the checksum) must catch it."""
    import lemmata.benchmarks.re2math.meta as mod
    from lemmata.benchmarks.re2math import builder as builder_mod

    sha = sha256_file(source_dir / name)
    sources = tuple(s.model_copy(update={"sha256": sha}) if s.name == name else s for s in mod.RE2MATH.sources)
    meta = mod.RE2MATH.model_copy(update={"sources": sources})
    monkeypatch.setattr(builder_mod.Re2MathBuilder, "meta", meta)


def test_checksum_mismatch_names_the_file(re2math_sources_copy, tmp_path):
    path = re2math_sources_copy / FULL
    data = bytearray(path.read_bytes())
    data[100] ^= 1
    path.write_bytes(bytes(data))
    err = _build_fails(re2math_sources_copy, tmp_path / "out")
    assert FULL in str(err) and "sha256 mismatch" in str(err)


def test_missing_source_file_is_named(re2math_sources_copy, tmp_path):
    (re2math_sources_copy / EVAL).unlink()
    err = _build_fails(re2math_sources_copy, tmp_path / "out")
    assert EVAL in str(err) and "missing source file" in str(err)


def test_malformed_json_line_is_named(re2math_sources_copy, tmp_path, monkeypatch):
    path = re2math_sources_copy / FULL
    lines = path.read_text("utf-8").splitlines(keepends=True)
    lines[41] = lines[41][:50] + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    _rehash(re2math_sources_copy, FULL, monkeypatch)
    err = _build_fails(re2math_sources_copy, tmp_path / "out")
    assert err.problems[0].file == FULL and err.problems[0].line == 42
    assert "malformed JSON" in str(err)


def test_schema_violations_name_line_and_field(re2math_sources_copy, tmp_path, monkeypatch):
    path = re2math_sources_copy / FULL
    lines = path.read_text("utf-8").splitlines(keepends=True)
    row = json.loads(lines[9])
    row["y"]["restated_in_citing_paper"] = "yes"
    del row["x"]["anchor_hint"]
    lines[9] = json.dumps(row, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    _rehash(re2math_sources_copy, FULL, monkeypatch)
    err = _build_fails(re2math_sources_copy, tmp_path / "out")
    where = {(p.line, p.field) for p in err.problems}
    assert (10, "y.restated_in_citing_paper") in where and (10, "x.anchor_hint") in where


def test_failed_rebuild_keeps_the_existing_release(re2math_sources_copy, tmp_path):
    good = Re2MathBuilder(source_dir=re2math_sources_copy).build(tmp_path, quiet=True)
    before = _all_bytes(good)
    (re2math_sources_copy / EVAL).write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError):
        Re2MathBuilder(source_dir=re2math_sources_copy).build(tmp_path, quiet=True)
    assert _all_bytes(good) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "mirror") == ["re2math-1.0.0"]


def test_tampered_release_fails_verification(re2math_release, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(re2math_release, copy)
    shard = copy / "data" / "eval200" / "test-00000-of-00001.parquet"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    (copy / "extra.txt").write_text("x")
    with pytest.raises(InputError) as err:
        open_release(copy)
    text = str(err.value)
    assert "test-00000-of-00001.parquet" in text and "modified" in text
    assert "extra.txt" in text and "not listed" in text
    os.chmod(copy, 0o755)


@pytest.mark.parametrize("field, value", [
    ("release_id", "re2math-9.9.9"), ("name", "other"), ("version", "9.9.9"), ("builder", "other"),
    ("builder_version", "999"), ("sources[0].sha256", "0" * 64), ("sources[0].url", "https://example.org/x"),
    ("files[0].bytes", 1), ("schema_version", "lemmata.manifest/0"),
])
def test_every_manifest_field_is_checked(re2math_release, tmp_path, field, value):
    import shutil

    from lemmata.catalog import _open
    from lemmata.release.manifest import MANIFEST

    root = tmp_path / re2math_release.name
    shutil.copytree(re2math_release, root)
    builder = Re2MathBuilder()
    data = json.loads((root / MANIFEST).read_text("utf-8"))
    head, _, rest = field.partition("[")
    if rest:
        data[head][int(rest[0])][rest.split(".", 1)[1]] = value
    else:
        data[field] = value
    (root / MANIFEST).write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    with pytest.raises(InputError) as err:
        _open(str(root), builder.meta)  # verification is cached by folder fingerprint: an edit re-verifies
    assert field.split(".")[-1] in {p.field.split(".")[-1] for p in err.value.problems if p.field}, err.value
    assert builder.name == json.loads((re2math_release / MANIFEST).read_text())["builder"]
