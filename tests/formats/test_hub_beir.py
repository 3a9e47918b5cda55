"""BEIR reading and run validation (lemmata.formats.beir): every defect named by file, line and field."""

from __future__ import annotations

import json

import pytest

from lemmata.formats.beir import (
    Collection, Doc, check_collection, iter_trec_run, read_corpus, read_excluded, read_qrels, read_queries,
    validate_runs,
)
from lemmata.core.errors import InputError


def _jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), "utf-8")
    return path


def test_corpus_reads_integer_ids_optional_titles_and_parquet_shards(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    corpus = read_corpus(_jsonl(tmp_path / "corpus.jsonl", [{"_id": 7, "text": "a"},
                                                            {"_id": "d2", "title": "T", "text": ""}]))
    assert corpus == {"7": Doc("7", "a"), "d2": Doc("d2", "", "T")}
    shards = []
    for i in range(2):
        shards.append(tmp_path / f"corpus-0000{i}-of-00002.parquet")
        pq.write_table(pa.Table.from_pylist([{"_id": f"p{i}", "title": None, "text": f"t{i}"}]), shards[-1])
    assert list(read_corpus(shards)) == ["p0", "p1"]


def test_corpus_and_queries_report_every_bad_line(tmp_path):
    path = _jsonl(tmp_path / "corpus.jsonl", [{"_id": "a", "text": "x"}, {"_id": "", "text": "y"},
                                              {"_id": "b", "title": 3, "text": "z"}, {"_id": "a", "text": "w"},
                                              {"_id": "c"}])
    with pytest.raises(InputError) as err:
        read_corpus(path, label="corpus.jsonl")
    assert [(p.line, p.field) for p in err.value.problems] == [(2, "_id"), (3, "title"), (4, "_id"), (5, "text")]
    assert "first on line 1" in err.value.problems[2].reason
    with pytest.raises(InputError) as err:
        read_queries(_jsonl(tmp_path / "q.jsonl", [{"_id": "q", "text": "  "}]), label="q.jsonl")
    assert (err.value.problems[0].line, err.value.problems[0].field) == (1, "text")


def test_qrels_tsv_and_jsonl(tmp_path):
    tsv = tmp_path / "test.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1.0\n", "utf-8")
    assert [(q.query_id, q.doc_id, q.score, q.line) for q in read_qrels(tsv)] == [("q1", "d1", 2, 2), ("q1", "d2", 1, 3)]
    bad = tmp_path / "bad.tsv"
    bad.write_text("query-id\tcorpus-id\tscore\nq1\td1\t0.5\nq1\td1\nq1\td1\t1\nq1\td1\t1\n", "utf-8")
    with pytest.raises(InputError) as err:
        read_qrels(bad, label="bad.tsv")
    assert [(p.line, p.field) for p in err.value.problems] == [(3, None), (2, "score"), (5, "corpus-id")]
    header = tmp_path / "h.tsv"
    header.write_text("qid\tdocid\trel\n", "utf-8")
    with pytest.raises(InputError) as err:
        read_qrels(header)
    assert "header must be" in str(err.value)
    js = _jsonl(tmp_path / "test.jsonl", [{"query-id": "q1", "corpus-id": "d1", "score": "1"}])
    assert read_qrels(js)[0].score == 1


def test_collection_cross_checks_ids_and_excluded(tmp_path):
    corpus = {"d1": Doc("d1", "x"), "d2": Doc("d2", "y")}
    queries = {"q1": "a", "q2": "b"}
    qrels = read_qrels(_jsonl(tmp_path / "qrels.jsonl", [{"query-id": "q1", "corpus-id": "d1", "score": 1},
                                                         {"query-id": "q3", "corpus-id": "d9", "score": 1}]),
                       label="qrels.jsonl")
    with pytest.raises(InputError) as err:
        check_collection(corpus, queries, qrels, qrels_label="qrels.jsonl")
    assert [(p.line, p.field) for p in err.value.problems] == [(2, "query-id"), (2, "corpus-id")]
    excluded, lines = read_excluded(_jsonl(tmp_path / "ex.jsonl", [{"query-id": "q1", "excluded-ids": ["d1"]}]))
    with pytest.raises(InputError) as err:
        check_collection(corpus, queries, qrels[:1], qrels_label="qrels.jsonl", excluded=excluded,
                         excluded_lines=lines, excluded_label="ex.jsonl")
    assert "relevant document 'd1' of query 'q1' is excluded" in str(err.value)


def _coll() -> Collection:
    return Collection(corpus={d: Doc(d, "") for d in ("d1", "d2", "d3")}, queries={"q1": "a", "q2": "b"},
                      qrels={"q1": {"d1": 1}}, excluded={"q2": frozenset({"d3"})})


def test_runs_are_checked_per_entry():
    records = [
        (2, {"query_id": "q1", "ranking": [{"doc_id": "d1", "score": 1.5}, {"doc_id": "d2", "score": float("inf")}]}),
        (3, {"query_id": "q2", "ranking": [{"doc_id": "d3", "score": 1}, {"doc_id": "d1", "score": True},
                                           {"doc_id": "d1", "score": 0.1, "rank": 3}]}),
        (4, {"query_id": "q1", "ranking": "d1 d2"}),
    ]
    problems = []
    runs = validate_runs(records, file="run.jsonl", collection=_coll(), problems=problems)
    where = [(p.line, p.field) for p in problems]
    assert where == [(2, "ranking[1].score"), (3, "ranking[0].doc_id"), (3, "ranking[1].score"),
                     (3, "ranking[2].rank"), (3, "ranking[2].doc_id"), (4, "ranking"), (4, "query_id")]
    assert runs == {}
    ok = validate_runs([(1, {"query_id": "q1", "ranking": [{"doc_id": "d2", "score": 0}]})], file="r",
                       collection=_coll(), problems=problems)
    assert ok["q1"].scores == {"d2": 0.0}


def test_trec_run_files(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.0 sys\nq2 Q0 d3 1 0.3 sys\n", "utf-8")
    records = list(iter_trec_run(path))
    assert records == [(1, {"query_id": "q1", "ranking": [{"doc_id": "d1", "score": 2.5},
                                                          {"doc_id": "d2", "score": 1.0}]}),
                       (3, {"query_id": "q2", "ranking": [{"doc_id": "d3", "score": 0.3}]})]
    problems = []
    validate_runs(records, file="run.trec", collection=_coll(), problems=problems)
    assert [(p.line, p.field) for p in problems] == [(3, "ranking[0].doc_id")]  # d3 is excluded for q2
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 d1 1 x sys\nq1 Q0 d2 2\nq2 Q0 d3 1 0.3 sys\nq1 Q0 d4 3 0.1 sys\n", "utf-8")
    with pytest.raises(InputError) as err:
        list(iter_trec_run(bad))
    assert [(p.line, p.field) for p in err.value.problems] == [(1, "score"), (2, None), (4, "query_id")]
