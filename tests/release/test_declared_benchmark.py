"""A BEIR-style benchmark added as metadata alone: build → load_dataset → validate → score, through the registry.

The benchmark is ``tests/fixtures/declared/toy_ir_meta.py`` (one metadata module) with its upstream files in the
BEIR layout (``tests/fixtures/declared/toy-ir/``); nothing else names it but the one :data:`FAMILIES` line the
test adds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from lemmata import families
from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_bytes
from lemmata.core.paths import releases_dir
from lemmata.tracks.base import OracleConfig

FIXTURES = Path(__file__).parents[1] / "fixtures" / "declared"


@pytest.fixture(scope="module")
def toy_ir():
    """The fixture benchmark registered as a family, its release built by `lemmata build` from the fixture."""
    from lemmata.cli import main

    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(FIXTURES))
    mp.setitem(families.FAMILIES, "toy-ir", "toy_ir_meta:FAMILY")
    families.refresh()
    out = releases_dir()
    try:
        assert main(["build", "toy-ir", "--source-dir", str(FIXTURES), "--out", str(out), "--quiet"]) == 0
        yield out / "toy-ir-1.0.0"
    finally:
        mp.undo()
        families.refresh()


def _run(records: list[dict], **header) -> bytes:
    head = {"format": "lemmata-submission/1", "benchmark": "toy-ir", "release": "toy-ir-1.0.0", "track": "test",
            "model": {"name": "fixture-retriever"}, **header}
    return "".join(json.dumps(x) + "\n" for x in [head, *records]).encode()


def test_the_release_loads_with_datasets_and_croissant(toy_ir):
    import datasets
    import mlcroissant as mlc

    from lemmata.release.load import open_release

    release = open_release(toy_ir)
    assert release.release_id == "toy-ir-1.0.0"
    corpus = datasets.load_dataset(str(toy_ir), "corpus", split="corpus")
    assert corpus.column_names == ["_id", "title", "text"] and len(corpus) == 6 and corpus[5]["title"] is None
    qrels = datasets.load_dataset(str(toy_ir), "qrels", split="test").to_list()
    assert {(r["query-id"], r["corpus-id"], r["score"]) for r in qrels} == {
        ("q1", "d1", 1), ("q2", "d3", 1), ("q3", "d4", 2), ("q3", "d3", 1)}
    assert datasets.load_dataset(str(toy_ir), "queries", split="queries")["_id"] == ["q1", "q2", "q3"]
    assert not mlc.Dataset(jsonld=toy_ir / "croissant.json").metadata.issues.errors
    manifest = json.loads((toy_ir / "MANIFEST.json").read_text())
    assert manifest["builder"] == "lemmata.builders.declared.toy-ir"
    assert sorted(s["name"] for s in manifest["sources"]) == [
        "lemmata-fixtures/toy-ir/corpus.jsonl", "lemmata-fixtures/toy-ir/qrels/test.tsv",
        "lemmata-fixtures/toy-ir/queries.jsonl"]
    card = (toy_ir / "README.md").read_text()
    assert "Judged queries per track: test 3." in card and "`ndcg@10` is the headline" in card


def test_a_run_is_validated_and_scored_through_the_registry(toy_ir):
    data = _run([{"query_id": "q1", "ranking": [{"doc_id": "d1", "score": 0.9}, {"doc_id": "d2", "score": 0.5}]},
                 {"query_id": "q2", "ranking": [{"doc_id": "d5", "score": 0.8}, {"doc_id": "d3", "score": 0.7}]}])
    validated = families.validate_upload(data, "run.jsonl")
    assert validated.benchmark == "toy-ir" and validated.summary == "2 rankings for test"
    result = families.handler_for("toy-ir").score(validated, received_at="2026-11-25T09:00:00+00:00",
                                                   oracles=OracleConfig())
    # q1: the positive first; q2: second (gain 1 / log2 3); q3: no ranking, scores 0
    assert result.main.metric == "ndcg@10" and result.main.value == pytest.approx((1 + 1 / math.log2(3)) / 3)
    assert result.metrics["recall@1"]["mean"] == pytest.approx(1 / 3)
    assert result.submission_sha256 == sha256_bytes(data)
    assert result.frozen.dataset_release == "toy-ir-1.0.0" and result.frozen.split == "qrels/test"
    assert result.notes == ["ndcg@10, recall@1 over the 3 queries of test; ties ranked by doc id.",
                            "1 judged queries had no ranking and score 0."]
    (schema,) = families.handler_for("toy-ir").schema_files()
    assert schema.filename == "toy-ir-submission.schema.json"
    assert json.loads(schema.text)["$defs"]["Header"]["properties"]["benchmark"]["const"] == "toy-ir"


def test_unknown_ids_and_a_wrong_track_name_line_and_field(toy_ir):
    with pytest.raises(InputError) as bad_doc:
        families.validate_upload(_run([{"query_id": "q1", "ranking": [{"doc_id": "d9", "score": 1.0}]}]), "r.jsonl")
    assert any(p.line == 2 and "ranking[0].doc_id" in (p.field or "") for p in bad_doc.value.problems)
    with pytest.raises(InputError) as bad_track:
        families.validate_upload(_run([], track="dev"), "r.jsonl")
    assert any(p.line == 1 and p.field == "header.track" for p in bad_track.value.problems)


def test_the_same_benchmark_declared_on_pinned_files_builds_the_same_tables(toy_ir, tmp_path):
    import shutil

    from toy_ir_meta import TOY_IR

    from lemmata.core.hashing import sha256_file
    from lemmata.core.meta import SourceFile
    from lemmata.declared import declared_builder
    from lemmata.release.load import open_release

    snapshot = FIXTURES / "toy-ir"
    files = ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")
    meta = TOY_IR.model_copy(update={"hub": (), "sources": tuple(
        SourceFile(name=f, upstream_path=f, commit="v1", url=f"https://example.org/toy-ir/{f}",
                   sha256=sha256_file(snapshot / f)) for f in files)})
    root = declared_builder(meta)(source_dir=snapshot).build(tmp_path / "files", quiet=True)
    built, served = open_release(root), open_release(toy_ir)
    for config, split in (("corpus", "corpus"), ("queries", "queries"), ("qrels", "test")):
        assert built.rows(config, split) == served.rows(config, split)
    assert [s["name"] for s in json.loads((root / "MANIFEST.json").read_text())["sources"]] == list(files)

    tampered = tmp_path / "tampered"
    shutil.copytree(snapshot, tampered)
    (tampered / "queries.jsonl").write_text('{"_id": "q1", "text": "changed"}\n')
    with pytest.raises(InputError, match="sha256 mismatch"):
        declared_builder(meta)(source_dir=tampered).build(tmp_path / "bad", quiet=True)
    assert not (tmp_path / "bad" / "toy-ir-1.0.0").exists()
