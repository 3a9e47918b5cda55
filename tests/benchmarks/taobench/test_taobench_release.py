"""The TaoBench releases built from the real upstream snapshot: reproducible, loadable, strict on bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lemmata.benchmarks.taobench.meta import (
    KNOWN_DEFECTS,
    MATHLIB_V1,
    PAIRS_150,
    TAOBENCH_150,
    TAOBENCH_V1,
    TEXTBOOK_V1,
)
from lemmata.benchmarks.taobench.builder import TaoBench150Builder, TaoBenchV1Builder
from lemmata.core.errors import InputError
from lemmata.core.jsonl import read_jsonl
from lemmata.families import get_benchmark
from lemmata.release.card import parse_front_matter
from lemmata.release.load import open_release
from lemmata.release.manifest import verify_manifest
from lemmata.release.sources import resolve_sources


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("taobench-releases")
    return {"150": TaoBench150Builder().build(root, quiet=True), "v1": TaoBenchV1Builder().build(root, quiet=True)}


@pytest.fixture(scope="module")
def sources():
    """Verified raw files (mirror or pinned download) of both releases."""
    return {**resolve_sources(TAOBENCH_150), **resolve_sources(TAOBENCH_V1)}


def _all_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_registry_records():
    for meta, rid in ((TAOBENCH_150, "taobench-150-1.1.0"), (TAOBENCH_V1, "taobench-v1-1.0.0")):
        assert get_benchmark(meta.name) is meta and get_benchmark(rid) is meta
        assert meta.family == "taobench" and meta.release_id == rid and meta.license_id == "mit"
        assert "2603.12744" in meta.citation and "CC-BY-4.0" in meta.license_note and "uclanlp/TaoBench" in meta.license_note


def test_rebuild_is_byte_identical(built, tmp_path):
    assert _all_bytes(TaoBench150Builder().build(tmp_path, quiet=True)) == _all_bytes(built["150"])
    assert _all_bytes(TaoBenchV1Builder().build(tmp_path, quiet=True)) == _all_bytes(built["v1"])


def test_manifest_and_layout(built):
    for key, builder in (("150", TaoBench150Builder), ("v1", TaoBenchV1Builder)):
        manifest = verify_manifest(built[key])
        assert {s.name for s in manifest.sources} == set(builder.source_names)
        names = {p.relative_to(built[key]).as_posix() for p in built[key].rglob("*") if p.is_file()}
        assert {"README.md", "croissant.json", "MANIFEST.json", "CITATION.cff",
                "data/pairs/test-00000-of-00001.parquet"} <= names


def test_150_rows_match_upstream(built, sources):
    rows = open_release(built["150"]).rows("pairs", "test")
    upstream = [obj for _, obj in read_jsonl(sources[PAIRS_150])]
    assert len(rows) == 150 and [r["index"] for r in rows] == list(range(150))
    by_fqn = {o["FQN"]: o for o in upstream}
    for row in rows:
        src = by_fqn[row["fqn"]]
        assert row["tao_lean"] == src["TaoBench"] and row["mathlib_lean"] == src["TaoBenchMathlib"]
        assert row["chapter_name"] == src["chapter_name"] == f"Section_{row['section'].replace('.', '_')}"
        assert row["lean_version"] == "leanprover/lean4:v4.23.0-rc2" and row["mathlib_version"] == "v4.23.0-rc2"  # pinned in 1.1.0 (see the card)
        for f in ("tao", "mathlib"):
            assert row[f"{f}_defect"] is None
            stmt, line = row[f"{f}_statement"], row[f"{f}_statement_line"]
            assert stmt.startswith(("theorem ", "lemma ")) and ":= by" not in stmt
            assert stmt.split("\n")[0].strip() in row[f"{f}_lean"].splitlines()[line - 1]
    first = rows[0]
    assert first["fqn"] == "Chapter2.Nat.backwards_induction" and first["tao_decl"] == first["fqn"]
    assert first["mathlib_decl"] == "New_Namespace.Nat.backwards_induction"
    assert first["tao_statement"].endswith("∀ m, m ≤ n → P m")


def test_v1_pairs_and_defects(built, sources):
    rows = open_release(built["v1"]).rows("pairs", "test")
    assert len(rows) == 600 and len({r["fqn"] for r in rows}) == 600
    textbook = {o["FQN"]: o for _, o in read_jsonl(sources[TEXTBOOK_V1])}
    mathlib = {o["FQN"]: o for _, o in read_jsonl(sources[MATHLIB_V1])}
    assert set(textbook) == set(mathlib) == {r["fqn"] for r in rows}
    for row in rows:
        assert row["tao_lean"] == textbook[row["fqn"]]["code"] and row["mathlib_lean"] == mathlib[row["fqn"]]["code"]
        assert row["lean_version"] == "leanprover/lean4:v4.26.0" and row["mathlib_version"] == "v4.26.0"
        assert row["tao_origin"] == textbook[row["fqn"]]["origin"]
    assert sum(r["in_taobench_150"] for r in rows) == 145
    defects = {(r["fqn"], "tao") for r in rows if r["tao_defect"]} | {(r["fqn"], "mathlib") for r in rows if r["mathlib_defect"]}
    assert defects == {(fqn, f) for (_, f, fqn) in KNOWN_DEFECTS}
    for row in rows:
        if row["tao_defect"]:
            assert row["tao_statement"] is None and row["tao_decl"] is None and "unterminated comment" in row["tao_defect"]
        else:
            assert row["tao_statement"] and row["tao_decl"]
    kinds = {r["tao_kind"] for r in rows if r["tao_kind"]}
    assert kinds == {"theorem", "lemma", "def", "abbrev", "instance"}


def test_load_dataset_offline(built, monkeypatch, tmp_path):
    from datasets import load_dataset

    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    for key, n in (("150", 150), ("v1", 600)):
        ds = load_dataset(str(built[key]), "pairs", split="test")
        assert len(ds) == n
        assert ds.features["tao_statement_line"].dtype == "int32"
        assert ds[0]["fqn"] == open_release(built[key]).rows("pairs", "test")[0]["fqn"]


def test_croissant_iterates(built):
    import mlcroissant as mlc

    for key, n in (("150", 150), ("v1", 600)):
        ds = mlc.Dataset(jsonld=str(built[key] / "croissant.json"))
        records = list(ds.records("pairs"))
        assert len(records) == n
        fqn = records[0]["pairs/fqn"]
        assert (fqn.decode() if isinstance(fqn, bytes) else fqn) == open_release(built[key]).rows("pairs", "test")[0]["fqn"]


def test_card(built):
    card = (built["150"] / "README.md").read_text("utf-8")
    fm = parse_front_matter(card)
    assert fm["license"] == "mit" and fm["configs"][0]["config_name"] == "pairs"
    for needle in ("## Pairing", "## Columns", "## Intended use", "## Limitations", "v4.23.0-rc2",
                   "CC-BY-4.0", "Permission is hereby granted", "2603.12744"):
        assert needle in card, needle
    v1 = (built["v1"] / "README.md").read_text("utf-8")
    assert "6 upstream file(s) are not well-formed Lean" in v1 and "145 are" in v1


# --- bad input ----------------------------------------------------------------------------------------------------


def _copy(sources: dict[str, Path], tmp: Path) -> dict[str, Path]:
    out = {}
    for name, path in sources.items():
        out[name] = tmp / name
        shutil.copyfile(path, out[name])
    return out


def _rewrite_line(path: Path, lineno: int, edit) -> None:
    lines = path.read_text("utf-8").split("\n")
    lines[lineno - 1] = edit(lines[lineno - 1])
    path.write_text("\n".join(lines), encoding="utf-8")


def test_checksum_mismatch_names_the_file(sources, tmp_path):
    copied = _copy({k: v for k, v in sources.items() if k in TaoBench150Builder.source_names}, tmp_path)
    with open(copied[PAIRS_150], "ab") as fh:
        fh.write(b"\n")
    with pytest.raises(InputError) as exc:
        TaoBench150Builder(source_dir=tmp_path).build(tmp_path / "out", quiet=True)
    assert PAIRS_150 in str(exc.value) and "sha256 mismatch" in str(exc.value)
    assert not (tmp_path / "out" / TAOBENCH_150.release_id).exists()


def test_malformed_line_names_file_and_line(sources, tmp_path):
    copied = _copy(sources, tmp_path)
    _rewrite_line(copied[TEXTBOOK_V1], 7, lambda line: line[:-5])
    with pytest.raises(InputError) as exc:
        TaoBenchV1Builder().make_tables(copied)
    (problem,) = exc.value.problems
    assert problem.file == TEXTBOOK_V1 and problem.line == 7 and "malformed JSON" in problem.reason


def test_unpaired_and_mismatched_fqns_name_file_and_line(sources, tmp_path):
    copied = _copy(sources, tmp_path)

    def rename(line: str) -> str:
        obj = json.loads(line)
        obj["FQN"] += "_renamed"
        return json.dumps(obj, ensure_ascii=False)

    def reindex(line: str) -> str:
        obj = json.loads(line)
        obj["index"] += 1000
        return json.dumps(obj, ensure_ascii=False)

    _rewrite_line(copied[MATHLIB_V1], 3, rename)
    _rewrite_line(copied[MATHLIB_V1], 10, reindex)
    with pytest.raises(InputError) as exc:
        TaoBenchV1Builder().make_tables(copied)
    where = {(p.file, p.line, p.field) for p in exc.value.problems}
    assert (TEXTBOOK_V1, 3, "FQN") in where and (MATHLIB_V1, 3, "FQN") in where and (MATHLIB_V1, 10, "index") in where
    assert len(exc.value.problems) == 3


def test_schema_problems_are_all_reported(sources, tmp_path):
    copied = _copy(sources, tmp_path)

    def drop(field: str):
        def edit(line: str) -> str:
            obj = json.loads(line)
            obj.pop(field)
            return json.dumps(obj, ensure_ascii=False)
        return edit

    def bad_section(line: str) -> str:
        obj = json.loads(line)
        obj["chapter_name"] = "Chapter 2"
        return json.dumps(obj, ensure_ascii=False)

    _rewrite_line(copied[PAIRS_150], 2, drop("TaoBenchMathlib"))
    _rewrite_line(copied[PAIRS_150], 5, bad_section)
    with pytest.raises(InputError) as exc:
        TaoBench150Builder().make_tables(copied)
    assert {(p.line, p.field) for p in exc.value.problems} == {(2, "TaoBenchMathlib"), (5, "chapter_name")}


def test_unpinned_lean_defect_stops_the_build(sources, tmp_path):
    copied = _copy(sources, tmp_path)

    def break_comment(line: str) -> str:
        obj = json.loads(line)
        obj["TaoBench"] = obj["TaoBench"].replace("namespace", "/- namespace", 1)
        return json.dumps(obj, ensure_ascii=False)

    _rewrite_line(copied[PAIRS_150], 4, break_comment)
    with pytest.raises(InputError) as exc:
        TaoBench150Builder().make_tables(copied)
    (problem,) = exc.value.problems
    assert (problem.file, problem.line, problem.field) == (PAIRS_150, 4, "TaoBench")
    assert "not well-formed Lean" in problem.reason and "KNOWN_DEFECTS" in problem.reason


def test_pinned_defect_that_disappears_stops_the_build(sources, tmp_path, monkeypatch):
    import lemmata.benchmarks.taobench.builder as mod

    fqn = json.loads(sources[PAIRS_150].read_text("utf-8").split("\n")[0])["FQN"]
    monkeypatch.setitem(mod.KNOWN_DEFECTS, ("taobench-150", "mathlib", fqn), "a defect that is not there")
    with pytest.raises(InputError) as exc:
        TaoBench150Builder().make_tables(sources)
    (problem,) = exc.value.problems
    assert problem.line == 1 and "no longer occurs" in problem.reason


def test_dataset_builder_entry_point_is_thin():
    text = (Path(__file__).parents[3] / "dataset_builders" / "taobench.py").read_text("utf-8")
    assert 'main(["build", "taobench"' in text and len(text.splitlines()) < 25
