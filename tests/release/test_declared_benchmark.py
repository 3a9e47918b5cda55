"""A BEIR-style benchmark added as metadata alone: build → load_dataset → validate → score, through the registry.

The benchmark is ``tests/fixtures/declared/toy_ir_meta.py`` (one metadata module) with its upstream files in the
BEIR layout (``tests/fixtures/declared/toy-ir/``); nothing else names it but the one :data:`FAMILIES` line the
test adds.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from lemmata import families, scoring
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
    validated = scoring.validate_upload(data, "run.jsonl")
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
        scoring.validate_upload(_run([{"query_id": "q1", "ranking": [{"doc_id": "d9", "score": 1.0}]}]), "r.jsonl")
    assert any(p.line == 2 and "ranking[0].doc_id" in (p.field or "") for p in bad_doc.value.problems)
    with pytest.raises(InputError) as bad_track:
        scoring.validate_upload(_run([], track="dev"), "r.jsonl")
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


# -- the submission kit: README, schema and example generated from the metadata ------------------------------

_ROW = re.compile(r"^\| `([^`]+)` \| (yes|no) \| (.*) \|$", re.MULTILINE)


def _table(readme: str, heading: str) -> dict[str, tuple[bool, str]]:
    """Field -> (required, text) of the table under one ``###`` heading of the page."""
    section = readme.split(f"### {heading}", 1)[1].split("\n#", 1)[0]
    return {f: (req == "yes", text) for f, req, text in _ROW.findall(section)}


def _fields(model, prefix: str = "") -> dict[str, bool]:
    """Every field a model accepts (nested models expanded as the page names them) and whether it is required."""
    from lemmata.formats.results import ModelInfo, RerankerInfo
    from lemmata.tracks.ranking import RankedDoc

    out = {}
    for name, info in model.model_fields.items():
        out[prefix + name] = info.is_required()
        if info.annotation is ModelInfo:
            out |= _fields(ModelInfo, f"{prefix}{name}.")
        elif info.annotation == RerankerInfo | None:  # an optional nested model: its fields as the page names them
            out |= _fields(RerankerInfo, f"{prefix}{name}.")
        elif info.annotation == list[RankedDoc]:
            out |= _fields(RankedDoc, f"{prefix}{name}[i].")
    return out


def test_the_submission_kit_is_generated_from_the_metadata_and_its_example_scores(toy_ir, tmp_path):
    from toy_ir_meta import TOY_IR

    from lemmata.cli import main
    from lemmata.core.hashing import sha256_file
    from lemmata.tracks.ranking_docs import result_block
    from lemmata.tracks.ranking import RankingRecord

    folder = tmp_path / "submissions"
    assert main(["submission-kit", "toy-ir", "--dir", str(folder)]) == 0
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "schema/toy-ir-submission.schema.json", "toy-ir/README.md", "toy-ir/example-toy-ir.jsonl"]
    readme = (folder / "toy-ir" / "README.md").read_text(encoding="utf-8")
    track = families.handlers()["toy-ir"]

    # the schema is exactly what `lemmata schemas` exports; the tables name every field it accepts, no other
    (schema,) = track.schema_files()
    assert (folder / "schema" / schema.filename).read_text(encoding="utf-8") == schema.text
    header, records = _table(readme, "Header (line 1)"), _table(readme, "Records")
    assert {f: req for f, (req, _) in header.items()} == _fields(track.header_model)
    assert {f: req for f, (req, _) in records.items()} == _fields(RankingRecord)
    assert header["benchmark"][1].startswith('exactly `"toy-ir"`') and header["track"][1].startswith('exactly `"test"`')
    assert '`"toy-ir-1.0.0"`' in header["release"][1] and "`^toy-ir-\\d+\\.\\d+\\.\\d+$`" in header["release"][1]
    assert "split `queries`" in records["query_id"][1] and "split `corpus`" in records["ranking[i].doc_id"][1]
    assert "[`../schema/toy-ir-submission.schema.json`](../schema/toy-ir-submission.schema.json)" in readme
    assert "**Measures:** `ndcg@10`, `recall@1`" in readme and "**Main score:** `ndcg@10`" in readme
    assert "**submit the top 10**" in readme and "`lemmata build toy-ir`" in readme
    assert "lemmata score example-toy-ir.jsonl --received-at 2026-11-25" in readme
    assert sha256_file(toy_ir / "MANIFEST.json") in readme

    # the example validates and scores through the registry, and the page shows exactly that score
    data = (folder / "toy-ir" / "example-toy-ir.jsonl").read_bytes()
    validated = scoring.validate_upload(data, "example-toy-ir.jsonl")
    assert validated.summary == "3 rankings for test" and validated.header.release == TOY_IR.release_id
    result = families.handler_for("toy-ir").score(validated, received_at="2026-11-25T00:00:00+00:00",
                                                   oracles=OracleConfig())
    # BM25 ranks each question's lemma first; q3's second positive (grade 1) shares no term with it
    ideal_q3 = 2 + 1 / math.log2(3)
    assert result.main.value == pytest.approx((1 + 1 + 2 / ideal_q3) / 3, abs=5e-5)
    assert f"<!-- result: example-toy-ir.jsonl -->\n```text\n{result_block(validated.summary, result)}\n```" in readme

    # --check: fresh is clean, an edited example is stale; the space's header template for it is accepted
    assert main(["submission-kit", "toy-ir", "--dir", str(folder), "--check"]) == 0
    (folder / "toy-ir" / "example-toy-ir.jsonl").write_bytes(data.replace(b'"score": 0.7746', b'"score": 0.9'))
    assert main(["submission-kit", "--dir", str(folder), "--check"]) == 1
    from lemmata.space.templates import example_path, header_template

    track.header_model.model_validate(header_template("toy-ir"))
    assert example_path("toy-ir", tmp_path) == "submissions/toy-ir/example-toy-ir.jsonl"


def test_the_submission_kit_never_overwrites_a_hand_written_page(toy_ir, tmp_path):
    from toy_ir_meta import TOY_IR

    from lemmata.core.errors import LemmataError
    from lemmata.declared import write_kit

    page = tmp_path / "toy-ir" / "README.md"
    page.parent.mkdir()
    page.write_text("# Toy-IR submissions, by hand\n")
    with pytest.raises(LemmataError, match="written by hand"):
        write_kit(TOY_IR, tmp_path)
    assert page.read_text() == "# Toy-IR submissions, by hand\n" and sorted(tmp_path.rglob("*.json*")) == []
    with pytest.raises(LemmataError, match="mathnet-retrieve is not a declared release"):
        write_kit(families.get_benchmark("mathnet-retrieve"), tmp_path)


def test_the_kit_page_shows_the_real_errors_of_broken_copies_of_its_example(toy_ir, tmp_path):
    from toy_ir_meta import TOY_IR

    from lemmata.declared import write_kit
    from lemmata.tracks.ranking_docs import broken_copies

    write_kit(TOY_IR, tmp_path)
    readme = (tmp_path / "toy-ir" / "README.md").read_text(encoding="utf-8")
    shown = dict(re.findall(r"<!-- errors: (\S+) -->\n```text\n(.*?)\n```", readme, re.DOTALL))
    lines = [json.loads(x) for x in (tmp_path / "toy-ir" / "example-toy-ir.jsonl").read_text().splitlines()]
    copies = broken_copies(TOY_IR, lines)
    assert set(shown) == {c.marker for c in copies} == {"toy-ir-records", "toy-ir-header", "toy-ir-nan"}
    for broken in copies:
        with pytest.raises(InputError) as err:
            scoring.validate_upload(broken.data, "broken.jsonl")
        assert shown[broken.marker] == str(err.value)
    fields = {(p.line, p.field) for p in
              pytest.raises(InputError, scoring.validate_upload, copies[0].data, "b.jsonl").value.problems}
    assert fields == {(2, "ranking[0].rank"), (3, "query_id"), (4, "ranking[0].doc_id"), (4, "ranking[0].score")}


def test_lemmata_evaluate_runs_a_declared_track_from_its_metadata(toy_ir, tmp_path):
    """A declared release's `lemmata evaluate` task derives from its metadata: the track is listed with the
    defaults, and a BM25 run over it is written and scored exactly as an upload of the same file."""
    from lemmata.harness.evaluate import default_tracks, evaluate, tracks

    assert "toy-ir" in tracks() and "toy-ir" in default_tracks()
    (done,) = evaluate("bm25", ["toy-ir"], out=tmp_path, quiet=True)
    assert done.task == "toy-ir:test" and done.path.name.startswith("toy-ir.test.")
    header = json.loads(done.path.read_text().splitlines()[0])
    assert (header["benchmark"], header["release"], header["track"]) == ("toy-ir", "toy-ir-1.0.0", "test")
    again = scoring.score_upload(done.path.read_bytes(), done.path.name, received_at=done.result.frozen.date)[2]
    assert again.content_id() == done.result.content_id()
    assert done.result.main.metric == "ndcg@10" and 0 < done.result.main.value <= 1
