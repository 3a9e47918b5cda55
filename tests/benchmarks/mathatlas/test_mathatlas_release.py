"""MathAtlas and MA-Align releases built from fixtures in the authors' record layout (tests/fixtures/hub/MathAtlas,
written by its make_fixture.py, which names the upstream files each follows)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder
from lemmata.benchmarks.mathatlas.relabel import RELABEL_SOURCE, KINDS, packaged_relabel, read_relabel
from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_file
from lemmata.core.jsonl import write_jsonl
from lemmata.release.load import open_release
from lemmata.release.manifest import verify_manifest

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub" / "MathAtlas"
ATLAS_DATA = FIXTURES / "MathAtlas" / "data"
ALIGN_DATA = FIXTURES / "MA-Align" / "data"
PARQUET = "{}-00000-of-00001.parquet"


def _fixture_maker():
    import importlib.util

    spec = importlib.util.spec_from_file_location("mathatlas_make_fixture", FIXTURES / "make_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the fixture's uuids by name, from the script that writes the fixture (one table for both)
U = _fixture_maker().U
NAME = {u: n for n, u in U.items()}
#: Lemmata's SCC depth of every fixture entity, worked out by hand: 1.9 and 1.10 form a cycle above 1.8
DEPTH = {"sigma": 0, "measure": 1, "thm-1.8": 2, "ex-1.3": 1, "prf-1.8": 3, "thm-1.9": 3, "prop-1.10": 3,
         "homotopy": 0, "ex-0.2": 1, "prop-0.16": 1, "cw-pair": 0}


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("atlas-releases")
    return {"mathatlas": MathAtlasBuilder(source_dir=FIXTURES).build(out, quiet=True),
            "ma-align": MaAlignBuilder(source_dir=FIXTURES).build(out, quiet=True)}


def _rows(split: str) -> list[dict]:
    return pq.read_table(ATLAS_DATA / PARQUET.format(split)).to_pylist()


def _snapshot(tmp_path: Path) -> Path:
    dest = tmp_path / "snap"
    shutil.copytree(FIXTURES, dest)
    return dest


def _as_jsonl(snap: Path, repo: str, split: str, rows: list[dict]) -> None:
    """Replace a split's parquet file by JSONL rows (the card's ``data/<split>-*`` pattern matches both)."""
    (snap / repo / "data" / PARQUET.format(split)).unlink()
    write_jsonl(snap / repo / "data" / f"{split}-00000-of-00001.jsonl", rows)


def _fails(cls, snap: Path, tmp_path: Path) -> InputError:
    with pytest.raises(InputError) as err:
        cls(source_dir=snap).build(tmp_path / "out", quiet=True)
    assert not (tmp_path / "out" / cls.meta.release_id).exists()
    return err.value


# -- MathAtlas -------------------------------------------------------------------------------------------------

def test_both_upstream_splits_become_entity_splits_and_ma_hard_is_flagged(releases):
    rel = open_release(releases["mathatlas"])
    assert sorted(rel.splits("entities")) == ["hard", "test"]
    for split in ("test", "hard"):
        rows = rel.rows("entities", split)
        upstream = _rows(split)
        assert [r["entity_id"] for r in rows] == [u["uuid"] for u in upstream]
        assert [(r["entity_type"], r["book"], r["statement"]) for r in rows] == [
            (u["type"], u["file_id"], u["text"]) for u in upstream]
    hard = {NAME[r["entity_id"]] for r in rel.rows("entities", "hard")}
    assert hard == {"prop-1.10", "thm-1.8", "cw-pair"}
    assert {NAME[r["entity_id"]] for r in rel.rows("entities", "test") if r["ma_hard"]} == {"prop-1.10", "thm-1.8"}


def test_scc_depth_condenses_the_cycle_and_ignores_withheld_targets(releases):
    rel = open_release(releases["mathatlas"])
    rows = {r["entity_id"]: r for s in ("test", "hard") for r in rel.rows("entities", s)}
    assert {NAME[e]: r["scc_depth"] for e, r in rows.items()} == DEPTH
    assert {NAME[e] for e, r in rows.items() if r["scc_size"] == 2} == {"thm-1.9", "prop-1.10"}
    # the self-link of Theorem 1.9 is dropped; a reference with two candidates keeps both
    assert rows[U["thm-1.9"]]["dependencies"] == [U["prop-1.10"]]
    assert rows[U["thm-1.8"]]["dependencies"] == [U["measure"], U["sigma"]]


def test_depth_does_not_depend_on_record_order(releases, tmp_path):
    snap = _snapshot(tmp_path)
    for split in ("test", "hard"):
        path = snap / "MathAtlas" / "data" / PARQUET.format(split)
        table = pq.read_table(path)
        pq.write_table(pa.Table.from_pylist(table.to_pylist()[::-1], schema=table.schema), path)
    again = open_release(MathAtlasBuilder(source_dir=snap).build(tmp_path / "out", quiet=True))
    assert {NAME[r["entity_id"]]: r["scc_depth"] for r in again.rows("entities", "test")} == {
        n: d for n, d in DEPTH.items() if n != "cw-pair"}


def test_dependencies_count_unresolved_targets_and_the_card_reports_them(releases):
    rel = open_release(releases["mathatlas"])
    edges = rel.rows("dependencies", "open")
    assert all(e["entity_id"] != e["depends_on"] for e in edges)
    unresolved = sorted((NAME[e["entity_id"]], e["reference"]) for e in edges if not e["resolved"])
    assert unresolved == [("cw-pair", "CW complex"), ("ex-1.3", "Lemma 0.9"), ("prop-0.16", "Proposition 0.17")]
    assert len(edges) == 14
    card = (releases["mathatlas"] / "README.md").read_text("utf-8")
    assert "**3 unresolved** (3 distinct targets)" in card
    assert "not the paper's depth" in card and "2 entities lie on a cycle; the maximum depth is 3" in card
    assert "`hard` is MA-Hard (3 entities: definition 1, theorem 2; 2 of them also in `test`)" in card
    assert ("Present upstream and not read: `entity_links`, `entity_references`, `item_start`, `mathlib_links`"
            in card)
    assert "`unpinned`" in card


def test_entity_schema_problems_are_all_reported_with_row_and_field(tmp_path):
    snap = _snapshot(tmp_path)
    rows = _rows("test")
    rows[1]["type"] = "lemma"
    rows[2]["object_links"] = [U["sigma"]]       # a flat list, not one list of candidates per reference
    del rows[3]["text"]
    rows[4]["uuid"] = rows[0]["uuid"]
    _as_jsonl(snap, "MathAtlas", "test", rows)
    err = _fails(MathAtlasBuilder, snap, tmp_path)
    where = {(p.line, (p.field or "").split(".")[0]) for p in err.problems}
    assert {(2, "type"), (3, "object_links"), (4, "text"), (5, "uuid")} <= where
    assert all(p.file == "MathAtlas/MathAtlas/data/test-00000-of-00001.jsonl" for p in err.problems)


def test_an_unknown_column_is_listed_not_refused(tmp_path):
    snap = _snapshot(tmp_path)
    _as_jsonl(snap, "MathAtlas", "hard", [{**r, "difficulty": "hard"} for r in _rows("hard")])
    built = MathAtlasBuilder(source_dir=snap).build(tmp_path / "out", quiet=True)
    assert "Present upstream and not read: `difficulty`, `entity_links`" in (built / "README.md").read_text("utf-8")


def test_a_uuid_in_both_splits_must_be_the_same_entity(tmp_path):
    snap = _snapshot(tmp_path)
    rows = _rows("hard")
    rows[0]["text"] = "A different text."
    _as_jsonl(snap, "MathAtlas", "hard", rows)
    err = _fails(MathAtlasBuilder, snap, tmp_path)
    assert [(p.line, p.field) for p in err.problems] == [(1, "uuid")]
    assert "also in another split with a different record" in err.problems[0].reason


def test_the_card_must_declare_test_and_hard(tmp_path):
    snap = _snapshot(tmp_path)
    card = snap / "MathAtlas" / "README.md"
    card.write_text(card.read_text("utf-8").replace("  - split: hard\n    path: data/hard-*\n", ""), "utf-8")
    err = _fails(MathAtlasBuilder, snap, tmp_path)
    assert "expected one config with split(s) test, hard, found default/test" in str(err)


# -- MA-Align ----------------------------------------------------------------------------------------------------

def test_pairs_carry_both_label_sets(releases):
    rows = open_release(releases["ma-align"]).rows("pairs", "test")
    upstream = pq.read_table(ALIGN_DATA / PARQUET.format("test")).to_pylist()
    assert [(r["pair_id"], r["informal_statement"], r["formal_statement"], r["label"]) for r in rows] == [
        (u["uuid"], u["informal"], u["formal"], u["label"]) for u in upstream]
    _, relabel = packaged_relabel()
    assert [(r["relabel"], r["relabel_confidence"], r["kind"]) for r in rows] == [
        (relabel[r["pair_id"]].relabel, relabel[r["pair_id"]].confidence, relabel[r["pair_id"]].kind) for r in rows]
    assert sum(r["label"] != r["relabel"] for r in rows) == 3
    card = (releases["ma-align"] / "README.md").read_text("utf-8")
    assert "Published labels: 3 aligned; relabel: 4 aligned; 3 labels differ" in card
    assert "Rows of the relabel file matching no pair of this snapshot: 194" in card
    relabel_source = [x for x in verify_manifest(releases["ma-align"]).sources if "relabel" in x.name]
    assert [(x.url, x.sha256) for x in relabel_source] == [
        (f"https://github.com/offendo/math-atlas/blob/{RELABEL_SOURCE['commit']}/benchmarks/labels/"
         "ma-align-relabel.tsv", sha256_file(packaged_relabel()[0]))]


def test_a_pair_must_match_its_relabel_row(tmp_path):
    snap = _snapshot(tmp_path)
    rows = pq.read_table(ALIGN_DATA / PARQUET.format("test")).to_pylist()
    rows[0]["uuid"] = "00000000-0000-4000-8000-00000000dead"
    rows[1]["label"] = "misaligned"
    _as_jsonl(snap, "MA-Align", "test", rows)
    err = _fails(MaAlignBuilder, snap, tmp_path)
    where = {(p.line, p.field): p.reason for p in err.problems}
    assert "has no row in the relabel file" in where[1, "uuid"]
    assert "differs from the relabel file's original_label 'aligned'" in where[2, "label"]
    assert len(where) == 2


def test_the_packaged_relabel_file_matches_the_authors_description():
    _, rows = packaged_relabel()
    assert len(rows) == 200 and {k: sum(r.kind == k for r in rows.values()) for k in KINDS.values()} == {
        "definition": 100, "statement": 100}
    changed = [r for r in rows.values() if r.original_label != r.relabel]
    assert len(changed) == 34 and sum(r.kind == "definition" for r in changed) == 25
    statements = [r for r in rows.values() if r.kind == "statement"]
    assert sum(r.original_label == "aligned" for r in statements) == 25


def test_the_upstream_relabel_layout_reads_too(tmp_path):
    # the upstream file's header and quoting (a quoted reasoning cell with doubled quotes), two rows
    path = tmp_path / "ma-align-relabel.tsv"
    path.write_text(
        "benchmark\tindex\tuuid\toriginal_label\trelabel\tconfidence\treasoning\n"
        "ma-align-defs\t0\tu-1\tmisaligned\taligned\tlow\t\"A \"\"harmless\"\" generalization.\"\n"
        "ma-align-stmts\t0\tu-2\taligned\taligned\thigh\tStated exactly.\n", "utf-8")
    rows = read_relabel(path)
    assert rows["u-1"].reasoning == 'A "harmless" generalization.' and rows["u-2"].kind == "statement"
    path.write_text(path.read_text("utf-8") + "ma-align-stmts\t1\tu-2\taligned\tmaybe\thigh\tx\n", "utf-8")
    with pytest.raises(InputError) as err:
        read_relabel(path)
    assert {(p.line, p.field) for p in err.value.problems} == {(4, "relabel")}
