"""TaoBench cross-framework equivalence retrieval: the track on both releases, its baselines and its export."""

from __future__ import annotations

import pytest

from lemmata.benchmarks.taobench.baselines import equivalence_run
from lemmata.catalog import release_path
from lemmata.benchmarks.taobench.meta import TAOBENCH_150, TAOBENCH_V1
from lemmata.cli import main
from lemmata.release.load import open_release
from lemmata.store import Store
from lemmata.benchmarks.taobench.equivalence import DIRECTIONS, load_track, make_track, retrieval_text, sides
from lemmata.lean.lexer import lex

RELEASES = {"taobench-150": TAOBENCH_150, "taobench-v1": TAOBENCH_V1}


@pytest.fixture(scope="module")
def roots():
    return {name: release_path(meta) for name, meta in RELEASES.items()}


@pytest.mark.parametrize("name", sorted(RELEASES))
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_track_on_both_releases(roots, name, direction):
    rows = open_release(roots[name]).rows("pairs", "test")
    track = load_track(roots[name], direction)
    q_side, c_side = sides(direction)
    with_statement = [r for r in rows if r[f"{c_side}_statement"] is not None]
    # every statement of the corpus side is a document (identical texts merged), each exercise in exactly one
    assert sorted(f for d in track.corpus for f in d["fqns"]) == sorted(r["fqn"] for r in with_statement)
    assert len({d["text"] for d in track.corpus}) == len(track.corpus)
    by_id = {d["_id"]: d for d in track.corpus}
    # one query per exercise with both statements; its only relevant document is its own twin
    complete = [r for r in rows if r["tao_statement"] is not None and r["mathlib_statement"] is not None]
    assert [q["_id"] for q in track.queries] == [r["fqn"] for r in complete]
    assert track.skipped == [r["fqn"] for r in rows if r not in complete]
    for q in track.queries:
        (doc_id, grade), = track.qrels[q["_id"]].items()
        assert grade == 1 and q["_id"] in by_id[doc_id]["fqns"]
    expected = {"taobench-150": 150, "taobench-v1": 594}[name]
    assert len(track.queries) == expected


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_retrieval_text_drops_names_and_comments(roots, name):
    rows = open_release(roots[name]).rows("pairs", "test")
    for row in rows:
        for side in ("tao", "mathlib"):
            statement = row[f"{side}_statement"]
            if statement is None:
                continue
            text = retrieval_text(statement)
            lexed = lex(text)
            assert not lexed.comments
            first, second = lexed.tokens[0], lexed.tokens[1]
            assert first.text == row[f"{side}_kind"]
            assert not (second.kind == "ident" and row[f"{side}_decl"].endswith(second.text)), (row["fqn"], text)


def test_merged_documents_are_relevant_to_every_query_they_hold():
    def row(fqn, tao, mathlib):
        return {"fqn": fqn, "tao_statement": tao, "mathlib_statement": mathlib}

    rows = [row("A.x", "theorem A.x : P", "theorem A.x : Q"), row("B.y", "theorem B.y : P", "theorem B.y : R"),
            row("C.z", None, "theorem C.z : S")]
    track = make_track(rows, "mathlib2tao")
    assert len(track.corpus) == 1 and track.corpus[0]["fqns"] == ["A.x", "B.y"]
    assert track.qrels["A.x"] == track.qrels["B.y"] == {track.corpus[0]["_id"]: 1}
    assert track.skipped == ["C.z"]
    forward = make_track(rows, "tao2mathlib")
    assert len(forward.corpus) == 3 and [q["_id"] for q in forward.queries] == ["A.x", "B.y"]
    with pytest.raises(ValueError, match="did you mean"):
        make_track(rows, "tao2lean")


def test_baselines_on_both_releases_through_the_cli(roots, tmp_path, capsys):
    store_dir = tmp_path / "store"
    rc = main(["baselines", "run", "equivalence", "--retriever", "bm25", "--out", str(tmp_path / "runs"),
               "--store", str(store_dir), "--depth", "10"])
    assert rc == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 4 and all("R@1 " in line and "R@10 " in line for line in printed)
    rows = Store(store_dir).results(benchmark="taobench-equivalence")
    assert sorted((r.frozen.dataset_release, r.track) for r in rows) == sorted(
        (m.release_id, d) for m in RELEASES.values() for d in DIRECTIONS)
    for r in rows:
        assert r.status == "complete" and r.frozen.split == "pairs/test" and r.frozen.retrieval_artifact is None
        assert "taobench-equivalence/1" in r.frozen.scoring_artifact
        assert r.metrics["recall@10"]["mean"] > 10 * 10 / r.metrics["judged_queries"]  # far above chance
        assert r.metrics["missing_queries"] == 0


def test_static_and_hybrid_runs_score(roots, tmp_path):
    from lemmata.scoring import score_file

    store = Store(tmp_path / "store")
    for retriever in ("static", "hybrid"):
        result = score_file(equivalence_run(retriever, "taobench-150", "tao2mathlib", tmp_path, depth=10), store)
        assert result.track == "tao2mathlib" and result.metrics["judged_queries"] == 150
        assert 0 < result.metrics["recall@1"]["mean"] <= result.metrics["recall@10"]["mean"]


def test_export_writes_a_valid_beir_collection(roots, tmp_path):
    from lemmata.formats.beir import check_collection, read_corpus, read_qrels, read_queries

    assert main(["baselines", "export", "equivalence", "--release", "taobench-v1", "--direction", "mathlib2tao",
                 "--out", str(tmp_path)]) == 0
    corpus = read_corpus(tmp_path / "corpus.jsonl")
    queries = read_queries(tmp_path / "queries.jsonl")
    qrels = read_qrels(tmp_path / "qrels" / "test.tsv")
    coll = check_collection(corpus, queries, qrels, qrels_label="qrels/test.tsv")
    track = load_track(roots["taobench-v1"], "mathlib2tao")
    assert coll.qrels == track.qrels and len(corpus) == len(track.corpus)
