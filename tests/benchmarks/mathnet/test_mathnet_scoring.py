"""MathNet-Retrieve submissions: validated against the built fixture release, scored into Results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import RESULT_SCHEMA, Result
from lemmata.families import handler_for
from lemmata.scoring import validate_upload
from lemmata.tracks.base import OracleConfig

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub"
RECEIVED = "2026-11-22T08:30:00+00:00"
ANCHORS = ("rus_2019_d99efd", "usa_2008_0b41c2", "chn_2015_77aa10", "bra_2012_5e3f09", "jpn_2011_c0ffee")


@pytest.fixture(scope="module", autouse=True)
def served_releases():
    """The fixture releases where the handlers look for them ($LEMMATA_HOME/releases)."""
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.benchmarks.mirb.builder import MirbBuilder
    from lemmata.core.paths import releases_dir

    for cls, src, rid in ((MathNetRetrieveBuilder, FIXTURES / "MathNet-Retrieve", "mathnet-retrieve-1.0.0"),
                          (MirbBuilder, FIXTURES / "mirb", "mirb-1.0.0")):
        if not (releases_dir() / rid).is_dir():
            cls(source_dir=src).build(releases_dir(), quiet=True)


def _file(header: dict, records: list[dict]) -> bytes:
    return "".join(json.dumps(x) + "\n" for x in [header, *records]).encode()


def _mathnet_header(tier="hard", **kw) -> dict:
    return {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": "mathnet-retrieve-1.0.0",
            "track": tier, "model": {"name": "fixture-retriever"}, **kw}


def _ranking(*pairs) -> list[dict]:
    return [{"doc_id": d, "score": s} for d, s in pairs]


def _score(data: bytes, name="run.jsonl") -> Result:
    validated = validate_upload(data, name)
    return handler_for(validated.benchmark).score(validated, received_at=RECEIVED, oracles=OracleConfig())


# -- MathNet-Retrieve --------------------------------------------------------------------------------


def test_mathnet_recall_at_k_on_a_tier():
    # the hard positive is ranked 1st for two queries, 2nd (behind the easy variant) for one, 6th for one;
    # the last query gets no ranking at all and scores 0
    records = [
        {"query_id": ANCHORS[0], "ranking": _ranking((f"{ANCHORS[0]}::eq::hard", 0.9), (f"{ANCHORS[0]}::nm::0", 0.1))},
        {"query_id": ANCHORS[1], "ranking": _ranking((f"{ANCHORS[1]}::eq::hard", 0.8))},
        {"query_id": ANCHORS[2], "ranking": _ranking((f"{ANCHORS[2]}::eq::easy", 0.9),
                                                     (f"{ANCHORS[2]}::eq::hard", 0.7))},
        {"query_id": ANCHORS[3], "ranking": _ranking(*[(f"{ANCHORS[3]}::nm::{i}", 1.0 - i / 10) for i in range(2)],
                                                     *[(f"{a}::eq::medium", 0.5) for a in ANCHORS[:3]],
                                                     (f"{ANCHORS[3]}::eq::hard", 0.2))},
    ]
    data = _file(_mathnet_header(), records)
    result = _score(data)
    assert result.schema_version == RESULT_SCHEMA and result.kind == "scored"
    assert result.benchmark == "mathnet-retrieve" and result.track == "hard"
    assert result.submission_sha256 == sha256_bytes(data)
    assert result.frozen.dataset_release == "mathnet-retrieve-1.0.0" and result.frozen.split == "qrels/hard"
    assert result.frozen.date == "2026-11-22" and result.frozen.scoring_artifact.startswith("lemmata-retrieval/1")
    means = {k: v["mean"] for k, v in result.metrics.items() if k.startswith("recall@")}
    assert means == {"recall@1": pytest.approx(2 / 5), "recall@5": pytest.approx(3 / 5),
                     "recall@10": pytest.approx(4 / 5)}
    assert result.main.metric == "recall@5" and result.main.value == pytest.approx(3 / 5)
    lo, hi = result.main.interval
    assert lo <= 3 / 5 <= hi
    assert result.metrics["missing_queries"] == 1 and result.metrics["judged_queries"] == 5
    items = {i["item_id"]: i for i in result.items}
    assert items[ANCHORS[4]]["ranked"] is False and items[ANCHORS[4]]["recall@10"] == 0.0
    assert items[ANCHORS[2]]["recall@1"] == 0.0 and items[ANCHORS[2]]["recall@5"] == 1.0
    assert result.result_id == result.content_id()


def test_mathnet_ties_break_by_doc_id_ascending():
    q = ANCHORS[1]
    # 'usa_2008_0b41c2::eq::hard' sorts after '...::eq::easy' but before '...::nm::0': equal scores put it 2nd
    tied = {"query_id": q, "ranking": _ranking((f"{q}::nm::0", 1.0), (f"{q}::eq::hard", 1.0), (f"{q}::eq::easy", 1.0))}
    result = _score(_file(_mathnet_header(), [tied]))
    item = next(i for i in result.items if i["item_id"] == q)
    assert item["recall@1"] == 0.0 and item["recall@5"] == 1.0
    first = {"query_id": q, "ranking": _ranking((f"{q}::nm::0", 1.0), (f"{q}::eq::hard", 1.0))}
    item = next(i for i in _score(_file(_mathnet_header(), [first])).items if i["item_id"] == q)
    assert item["recall@1"] == 1.0  # 'eq::hard' < 'nm::0'


def test_mathnet_bad_runs_name_line_and_field():
    records = [
        {"query_id": "nope", "ranking": []},
        {"query_id": ANCHORS[0], "ranking": _ranking((f"{ANCHORS[0]}::eq::hard", 0.9), ("ghost", 0.5))},
        {"query_id": ANCHORS[1], "ranking": _ranking((f"{ANCHORS[1]}::eq::hard", 0.9), (f"{ANCHORS[1]}::eq::hard", 0.1))},
        {"query_id": ANCHORS[0], "ranking": []},
        {"query_id": ANCHORS[2], "ranking": [{"doc_id": f"{ANCHORS[2]}::eq::hard", "score": "high"}], "extra": 1},
    ]
    text = _file(_mathnet_header(), records).decode()
    nan = text + '{"query_id": "%s", "ranking": [{"doc_id": "%s::eq::hard", "score": NaN}]}\n' % (ANCHORS[3],
                                                                                                  ANCHORS[3])
    with pytest.raises(InputError) as err:  # NaN is refused while parsing the line, with its field, next to the rest
        validate_upload(nan.encode(), "bad.jsonl")
    assert [(p.line, p.field) for p in err.value.problems][0] == (7, "ranking[0].score")
    assert "finite" in err.value.problems[0].reason
    assert {p.line for p in err.value.problems} == {2, 3, 4, 5, 6, 7}
    with pytest.raises(InputError) as err:
        validate_upload(text.encode(), "bad.jsonl")
    where = {(p.line, p.field): p.reason for p in err.value.problems}
    assert "unknown query id 'nope'" in where[2, "query_id"]
    assert "unknown document id 'ghost'" in where[3, "ranking[1].doc_id"]
    assert "duplicate document id" in where[4, "ranking[1].doc_id"]
    assert "first on line 3" in where[5, "query_id"]
    assert where[6, "ranking[0].score"] == "score must be a number"
    assert where[6, "extra"] == "unknown field"
    assert all(p.file == "bad.jsonl" for p in err.value.problems)


def test_mathnet_header_problems():
    with pytest.raises(InputError) as err:
        validate_upload(_file(_mathnet_header(tier="expert"), [{"query_id": ANCHORS[0], "ranking": []}]), "h.jsonl")
    assert err.value.problems[0].field == "header.track" and err.value.problems[0].line == 1
    with pytest.raises(InputError) as err:
        validate_upload(_file(_mathnet_header(release="mathnet-retrieve-0.9.0"), [{"query_id": ANCHORS[0],
                                                                                    "ranking": []}]), "h.jsonl")
    assert err.value.problems[0].field == "header.release" and "not served" in err.value.problems[0].reason
