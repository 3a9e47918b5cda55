"""The Re²Math theorem-retrieval track: corpus, queries and qrels built into the real release."""

from __future__ import annotations

from collections import Counter

import pytest

from lemmata.benchmarks.re2math.render import render_instance
from lemmata.benchmarks.re2math.theorem.retrieval import (
    CORPUS_CONFIG,
    QRELS_CONFIG,
    QUERIES_CONFIG,
    QUERY_SPLITS,
    WINDOW,
    corpus_rows,
    load_track,
    make_track,
    normalize_statement,
    statement_id,
)
from lemmata.release.load import open_release


@pytest.fixture(scope="module")
def release(re2math_release):
    return open_release(re2math_release)


@pytest.fixture(scope="module")
def corpus(release):
    return release.rows(CORPUS_CONFIG, "corpus")


def test_corpus_is_every_distinct_reference_statement(release, corpus):
    full = release.rows("full", "full")
    distinct = {normalize_statement(r["y"]["reference_tool_latex"]) for r in full}
    assert len(corpus) == len(distinct) == 858
    assert {d["text"] for d in corpus} == distinct
    assert len({d["_id"] for d in corpus}) == len(corpus)
    # every instance of the release is accounted for exactly once
    owners = Counter(i for d in corpus for i in d["instance_ids"])
    assert set(owners) == {r["instance_id"] for r in full} and set(owners.values()) == {1}
    for d in corpus:
        assert d["_id"] == statement_id(d["text"]) and d["title"] == ""


def test_no_query_statement_is_missing_and_merged_duplicates_keep_all_relevant_ids(release, corpus):
    by_id = {d["_id"]: d for d in corpus}
    instances = {r["instance_id"]: r for r in release.rows("full", "full")}
    merged = [d for d in corpus if len(d["instance_ids"]) > 1]
    assert len(merged) == 2
    judged: dict[str, set[str]] = {}
    for split in QUERY_SPLITS:
        qrels = release.rows(QRELS_CONFIG, split)
        queries = release.rows(QUERIES_CONFIG, split)
        assert [q["query-id"] for q in qrels] == [q["_id"] for q in queries]
        for q in qrels:
            doc = by_id[q["corpus-id"]]  # KeyError = a query whose statement is not in the corpus
            assert q["score"] == 1 and q["query-id"] in doc["instance_ids"]
            assert doc["text"] == normalize_statement(instances[q["query-id"]]["y"]["reference_tool_latex"])
            judged.setdefault(doc["_id"], set()).add(q["query-id"])
    # a merged statement is relevant to every one of its instances that has a query
    queried = {q["_id"] for s in QUERY_SPLITS for q in release.rows(QUERIES_CONFIG, s)}
    for d in merged:
        assert judged.get(d["_id"], set()) == set(d["instance_ids"]) & queried


def test_query_splits_mirror_the_instance_configs_and_render_with_window_5(release):
    for split, (config, isplit) in zip(QUERY_SPLITS, (("eval200", "test"), ("pool", "train"), ("pool", "dev"))):
        rows = release.rows(config, isplit)
        queries = release.rows(QUERIES_CONFIG, split)
        assert [q["_id"] for q in queries] == [r["instance_id"] for r in rows]
        for q, r in zip(queries[:25], rows[:25]):
            assert q["text_raw"] == render_instance(r, "raw", WINDOW)
            assert q["text_assisted"] == render_instance(r, "assisted", WINDOW)
            assert q["paper_key"] == r["paper_key"] and q["domain"] == r["domain"]
    assert len(release.rows(QUERIES_CONFIG, "test")) == 200


def test_whitespace_variants_merge_and_nothing_else_does():
    def row(i, text, kind="theorem"):
        return {"instance_id": i, "y": {"reference_tool_latex": text, "reference_tool_type": kind}}

    docs = corpus_rows([row("a", "Every  graph is\nfinite."), row("b", " Every graph is finite. ", "lemma"),
                        row("c", "Every graph is finite")])
    assert [d["instance_ids"] for d in docs] == [["a", "b"], ["c"]]
    assert docs[0]["reference_tool_types"] == ["theorem", "lemma"]


def test_make_track_refuses_a_query_whose_statement_is_not_in_the_corpus():
    inst = {"instance_id": "x_gap_1", "paper_key": "x", "domain": "d",
            "x": {"global_context": {"setup": "S", "target_theorem": "T"}, "local_context": [], "anchor_hint": "A"},
            "y": {"reference_tool_latex": "Stated.", "reference_tool_type": "theorem"}}
    other = dict(inst, instance_id="y_gap_1", y={"reference_tool_latex": "Other.", "reference_tool_type": "lemma"})
    with pytest.raises(ValueError, match="not in the corpus"):
        make_track([inst], {"test": [other], "train": [], "dev": []})


def test_load_track_and_card(re2math_release):
    ids, texts, queries, qrels = load_track(re2math_release, "test", "assisted")
    assert len(ids) == len(texts) == 858 and len(queries) == len(qrels) == 200
    assert all("## Anchor" in t for t in queries.values())
    card = (re2math_release / "README.md").read_text("utf-8")
    assert "## Theorem-retrieval track" in card and "lower bound" in card
    with pytest.raises(ValueError, match="unknown variant"):
        load_track(re2math_release, "test", "oracle")
