"""The offline scholarly world 2.2: one work, one record, on math-arxiv-meta-1.1.0; titles without citation residue.

The world is built once per run (``scholar_world_22`` in ``tests/conftest.py``) from the session's Re²Math release
and ``math-arxiv-meta-1.1.0``; the same-work rule and the title rule are tested on their own first.
"""

from __future__ import annotations

import pytest

from lemmata.release.load import open_release


# -- the rules on their own -------------------------------------------------------------------------------------


def test_the_same_work_rule_needs_a_folded_title_and_a_shared_author_not_a_year():
    from lemmata.benchmarks.re2math.scholar.world.v2_1.build import _no_fold
    from lemmata.benchmarks.re2math.scholar.world.v2_2 import fold_works

    class Work:  # the builder's record under construction, as far as the fold reads it
        def __init__(self, distractor=None):
            self.distractor, self.rule, self.clusters, self.citing = distractor, "none", [0], []

    def entry(key, title, authors, year=None, row=None, work=None, arxiv=None, doi=None):
        return {"key": key, "title": title, "authors": authors, "year": year, "venue": None, "arxiv_id": arxiv,
                "doi": doi, "row": row, "work": work}

    # a journal-only cited work (dated) and its undated arXiv twin; a second arXiv record of another author; a
    # math_bib record whose "arXiv id" is digits of its DOI
    works = {"cite:7": Work()}
    entries = [entry("cite:7", "Sharp bounds for harmonic maps", ["Kim", "Lee"], year=1996, work="cite:7"),
               entry("arxiv:1501.00120", "Sharp bounds for harmonic maps", ["Lee"], row=4, arxiv="1501.00120"),
               entry("arxiv:1601.00001", "Sharp bounds for harmonic maps", ["Park"], row=9, arxiv="1601.00001"),
               entry("bib:x", "The wave of advance of advantageous genes", ["Fisher"], year=1937, arxiv="1809.1937",
                     doi="https://doi.org/10.1111/j.1469-1809.1937.tb02153.x")]
    kept, merged = fold_works([dict(e) for e in entries], works)
    assert merged == {"arxiv:1501.00120": "cite:7"} and [e["key"] for e in kept] == ["cite:7", "arxiv:1601.00001",
                                                                                       "bib:x"]
    assert (kept[0]["row"], kept[0]["arxiv_id"], kept[0]["year"]) == (4, "1501.00120", 1996)
    assert (works["cite:7"].distractor, works["cite:7"].rule) == (4, "same_work")
    assert kept[2]["arxiv_id"] is None  # not an arXiv id
    assert _no_fold(entries, works) == (entries, {})  # 2.1 folds nothing


def test_two_records_of_one_cited_work_become_one_work():
    from lemmata.benchmarks.re2math.scholar.world.v2_2 import fold_works

    class Work:
        def __init__(self, clusters, citing):
            self.distractor, self.rule, self.clusters, self.citing = None, "none", clusters, citing

    works = {"cite:1": Work([1], []), "arxiv:2001.00001": Work([], ["2001.00001"])}
    entries = [{"key": k, "title": "Random walks on wreath products", "authors": ["Erschler"], "year": None,
                "venue": None, "arxiv_id": None, "doi": None, "row": None, "work": k} for k in works]
    kept, merged = fold_works(entries, works)
    assert [e["key"] for e in kept] == ["arxiv:2001.00001"] and merged == {"cite:1": "arxiv:2001.00001"}
    assert list(works) == ["arxiv:2001.00001"] and works["arxiv:2001.00001"].clusters == [1]


# -- the world --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(scholar_world_22):
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world

    return open_any_world(scholar_world_22)


@pytest.fixture(scope="module")
def records(scholar_world_22):
    import pyarrow.parquet as pq

    from lemmata.benchmarks.re2math.scholar.world.info import RECORDS_FILE

    return pq.read_table(scholar_world_22 / RECORDS_FILE, columns=["id", "title", "authors", "arxiv_id"]).to_pylist()


def test_world_22_has_no_duplicate_work(world, records):
    """0 pairs of records of one work: the same arXiv id, an id and its zero-padded twin, the same folded title
    with a shared author — counted here on the records table, and by the build into ARTIFACT.json."""
    from lemmata.benchmarks.re2math.scholar.world.v2_2 import SameWorkWorld, duplicate_pairs

    assert isinstance(world, SameWorkWorld) and world.artifact_id == "re2math-scholar-offline-2.2.0"
    assert world.info.distractor_release_id == "math-arxiv-meta-1.1.0"
    assert duplicate_pairs(records) == {"same_id": 0, "padded_id": 0, "same_title_and_author": 0}
    c = world.info.composition
    assert [c[f"duplicate_pairs_{k}"] for k in ("same_id", "padded_id", "same_title_and_author")] == [0, 0, 0]
    assert c["records_folded_into_their_work"] > 0 and len(records) == c["records"]


def test_every_shown_title_went_through_the_one_residue_rule(records):
    from lemmata.benchmarks.re2math.scholar.display import without_citation_residue

    # the rule is idempotent: a title it shows is a fixed point of it, whatever the record's origin
    assert [r["title"] for r in records if without_citation_residue(r["title"]) != r["title"]] == []
    assert not [r["title"] for r in records if any(q in r["title"] for q in "\"“”«»")]


def test_a_record_of_the_cited_work_is_the_cited_work(world, re2math_release):
    """The Eval-200 instance whose gold work had a second record under a float-shortened id in 2.1 has one record
    here, and the scorer's identity (record equality) is identity of works."""
    rows = {r["instance_id"]: r for r in open_release(re2math_release).rows("full", "full")}
    instance = "1912.08872_gap_1"
    assert instance in rows
    gold = world.attribution(instance).record_id
    opened = world.open(gold)
    twins = [h.id for h in world.search(opened.title + " " + " ".join(opened.authors), None, 20).hits
             if h.title == opened.title]
    assert twins == [gold] and world.is_cited_source(instance, gold)


def test_world_22_build_is_the_pinned_bytes_and_a_consistent_rewrite_is_refused(scholar_world_22, tmp_path):
    """This run's build has exactly the pinned MANIFEST.json (byte-reproducible across processes); a record edited
    with MANIFEST.json regenerated is refused by the pin, naming the field."""
    from test_scholar_v2 import rewritten_consistently

    from lemmata.benchmarks.re2math.scholar.world.v2_2 import MANIFEST_SHA256, open_world
    from lemmata.core.errors import InputError

    copy = rewritten_consistently(scholar_world_22, tmp_path, MANIFEST_SHA256)
    with pytest.raises(InputError) as err:
        open_world(copy)
    assert [p.field for p in err.value.problems] == ["manifest_sha256"]
