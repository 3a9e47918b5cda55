"""math-arxiv-meta-1.1.0: float-shortened ids repaired, their twin records merged, DOI fields cleaned; 1.0.0 kept.

The cases are rows of the pinned mirror file itself (``arxiv_math/math_arxiv_meta_1991_2019.parquet``, the
file both releases read): ``1501.0012`` and ``1501.00120`` are one paper (Guo and Wang, "Enveloping actions
and duality theorems for partial twisted smash products", first version 2014-12-31) under a shortened and the
correct id; ``1706.0506`` has no twin; ``0704.0002`` (four digits before 2015) and ``math/0601001`` (old
style) have their full length.
"""

from __future__ import annotations

import re

import pytest

from lemmata.release.load import open_release

CASES = ["0704.0002", "1501.0012", "1501.00120", "1706.0506", "math/0601001"]


@pytest.fixture(scope="module")
def pinned_rows():
    """The four case rows, read from the pinned file by id (the mirror's bytes, sha256-verified)."""
    import pyarrow.parquet as pq

    from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder
    from lemmata.benchmarks.math_arxiv_meta.meta import PARQUET

    path = MathArxivMetaBuilder().fetch_sources()[PARQUET]
    return pq.read_table(path, filters=[("arxiv_id", "in", CASES)])


def test_a_shortened_id_is_padded_and_its_twin_merged_into_one_row(pinned_rows):
    import pyarrow as pa

    from lemmata.benchmarks.math_arxiv_meta.repair import repair_table

    assert pinned_rows["arxiv_id"].to_pylist() == CASES
    # a DOI field with two DOIs and one with none, as 30 and 4 rows of the pinned file hold them
    dois = ["10.4213/faa3441 10.1007/s10688-017-0172-5", None, None, "10.471/JEMS/196", None]
    table = pinned_rows.set_column(pinned_rows.schema.get_field_index("doi"), "doi", pa.array(dois, pa.string()))
    repaired, counts = repair_table(table)
    rows = {r["arxiv_id"]: r for r in repaired.to_pylist()}
    assert list(rows) == ["0704.0002", "1501.00120", "1706.05060", "math/0601001"]
    assert counts == {"rows_in": 5, "short_ids": 2, "short_ids_with_twin": 1, "twins_same_created": 1,
                      "twins_same_title": 1, "short_ids_padded": 1, "filled_from_twin": {},
                      "doi_first_of_several": 1, "doi_dropped": 1, "rows_out": 4}
    merged = rows["1501.00120"]
    assert merged["title"].startswith("Enveloping actions and duality theorems") and merged["created"] == "2014-12-31"
    assert merged["sources"] == ["HeinrichHartmann/arxiv_meta@1d3cff6", "staeiou/arxiv_archive@f043eb1"]
    assert rows["0704.0002"]["doi"] == "10.4213/faa3441" and rows["1706.05060"]["doi"] is None


def test_the_full_length_check_refuses_a_shortened_id(pinned_rows):
    from lemmata.benchmarks.math_arxiv_meta.builder import check_table

    assert check_table(pinned_rows, "x") == []  # 1.0.0's rule: any 4 or 5 digits
    (problem,) = check_table(pinned_rows, "x", full_length_ids=True)
    assert problem.field == "arxiv_id" and "'1501.0012'" in problem.reason and "2 row(s)" in problem.reason


def test_both_versions_are_registered_and_each_builds_by_its_own_builder():
    from lemmata.families import builder_classes, get_benchmark

    old, new = get_benchmark("math-arxiv-meta"), get_benchmark("math-arxiv-meta-1.1.0")
    assert (old.release_id, new.release_id) == ("math-arxiv-meta-1.0.0", "math-arxiv-meta-1.1.0")
    assert old.manifest_sha256 == "8b2fbe502d7d5467822d003f7d61e8ec1e9cbe5cefcbec819e283613f6a6481b"  # unchanged
    assert [c.meta.release_id for c in builder_classes("math-arxiv-meta")] == [old.release_id, new.release_id]
    assert new.sources == old.sources  # the same pinned file


def test_release_11_has_full_length_ids_one_row_per_work_and_counts_its_repairs(distractor_release_11):
    import pyarrow.parquet as pq

    from lemmata.benchmarks.math_arxiv_meta.builder import WRONG_LENGTH_PATTERN
    from lemmata.benchmarks.math_arxiv_meta.meta import ROWS_1_1
    from lemmata.release.card import CARD

    rel = open_release(distractor_release_11)  # every file against its manifest
    assert rel.release_id == "math-arxiv-meta-1.1.0"
    ids = pq.read_table(next(distractor_release_11.glob("data/default/*.parquet")), columns=["arxiv_id"])["arxiv_id"]
    ids = ids.to_pylist()
    known = set(ids)
    assert len(ids) == len(known) == ROWS_1_1 and ids == sorted(ids)
    assert not [a for a in ids if re.match(WRONG_LENGTH_PATTERN, a)]
    assert not [a for a in ids if a + "0" in known]
    card = (distractor_release_11 / CARD).read_text(encoding="utf-8")
    for line in ("(one short for their year-month) | 7,584 |", "(the same arXiv id, so one work) | 5,954 |",
                 "the same normalised title | 5,953 / 5,745 |", "no other row: id padded | 1,630 |",
                 "the first kept | 30 |", "emptied | 4 |", "345,376 rows in, 339,422 out"):
        assert line in card, line
