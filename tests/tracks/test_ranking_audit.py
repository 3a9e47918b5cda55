"""The audit of a retrieval entry: per query its text, the top of the submitted ranking with scores, the relevant
documents marked and the missed ones listed (fixture releases; MathNet-Retrieve and MIRB's fifteen collections)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.benchmarks.mirb.meta import TASK_NAMES
from lemmata.families import handler_for
from lemmata.scoring import validate_upload
from lemmata.tracks.base import OracleConfig

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hub"
ANCHORS = ("rus_2019_d99efd", "usa_2008_0b41c2", "chn_2015_77aa10", "bra_2012_5e3f09", "jpn_2011_c0ffee")


@pytest.fixture(scope="module", autouse=True)
def served_releases():
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.benchmarks.mirb.builder import MirbBuilder
    from lemmata.core.paths import releases_dir

    for cls, src, rid in ((MathNetRetrieveBuilder, FIXTURES / "MathNet-Retrieve", "mathnet-retrieve-1.0.0"),
                          (MirbBuilder, FIXTURES / "mirb", "mirb-1.0.0")):
        if not (releases_dir() / rid).is_dir():
            cls(source_dir=src).build(releases_dir(), quiet=True)


def _scored(header: dict, records: list[dict]):
    data = "".join(json.dumps(x) + "\n" for x in [header, *records]).encode()
    validated = validate_upload(data, "run.jsonl")
    handler = handler_for(validated.benchmark)
    return handler, validated, handler.score(validated, received_at="2026-11-22T08:30:00+00:00",
                                             oracles=OracleConfig())


def _ranking(*pairs) -> list[dict]:
    return [{"doc_id": d, "score": s} for d, s in pairs]


def test_mathnet_audit_shows_query_top_k_and_marks_relevant():
    a = ANCHORS[3]
    others = [(f"{a}::nm::{i}", 1.0 - i / 10) for i in range(2)]
    records = [{"query_id": a, "ranking": _ranking(*others, (f"{a}::eq::hard", 0.2))},
               {"query_id": ANCHORS[0], "ranking": _ranking((f"{ANCHORS[0]}::eq::hard", 0.9))}]
    handler, validated, result = _scored(
        {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": "mathnet-retrieve-1.0.0",
         "track": "hard", "model": {"name": "fixture-retriever"}}, records)
    collection = handler.collection(validated.header)
    view = handler.audit(result, a, validated)
    sections = dict(view.sections)
    assert collection.queries[a].split()[0] in sections["Query"]
    table = next(body for title, body in view.sections if title.startswith("Top 3 of 3"))
    lines = [ln for ln in table.splitlines() if ln.startswith("| ") and "rank" not in ln]
    assert [ln.split("|")[2].strip() for ln in lines] == [f"`{d}`" for d, _ in others] + [f"`{a}::eq::hard`"]
    assert "**relevant**" in lines[2] and "**relevant**" not in lines[0]
    assert "0.2" in lines[2]
    assert "| recall@5 | 1.0000 |" in sections["Scores of this query"]
    # a judged query with no ranking: said so, and its relevant documents are listed as not ranked
    missing = ANCHORS[4]
    view = handler.audit(result, missing, validated)
    body = dict(view.sections)
    assert "no document" in body["Ranking"] and "not ranked" in body["Relevant documents"]
    # without the stored submission the stored per-query record still shows
    assert '"recall@5": 1.0' in dict(handler.audit(result, a, None).sections)["Item"]


def test_mirb_audit_finds_the_task_collection():
    records = [{"task": t, "query_id": f"{t}-q{i}", "ranking": _ranking((f"{t}-d{(i + 1) % 3}", 2.0),
                                                                      (f"{t}-d{i}", 1.0))}
               for t in TASK_NAMES for i in range(3)]
    handler, validated, result = _scored(
        {"format": "lemmata-submission/1", "benchmark": "mirb", "release": "mirb-1.0.0", "track": "zero-shot",
         "model": {"name": "fixture-bm25"}}, records)
    task = TASK_NAMES[0]
    view = handler.audit(result, f"{task}/{task}-q1", validated)
    table = next(body for title, body in view.sections if title.startswith("Top "))
    rows = [ln for ln in table.splitlines() if ln.startswith("| ") and "rank" not in ln]
    assert f"`{task}-d2`" in rows[0] and "**relevant**" not in rows[0]
    assert f"`{task}-d1`" in rows[1] and "**relevant**" in rows[1]


def test_audit_cells_cannot_break_the_table():
    from lemmata.formats.beir import Collection, Doc
    from lemmata.tracks.ranking_audit import ranking_sections

    col = Collection(corpus={"d|1": Doc("d|1", "x" * 5000 + "\n| injected | row |")}, queries={"q": "long " * 500},
                     qrels={"q": {"d|1": 1}})
    sections = dict(ranking_sections("q", col, {"d|1": 1.0}, {"item_id": "q"}))
    table = sections["Top 1 of 1 ranked documents"]
    assert len(table.splitlines()) == 3 and "\\|" in table and len(table) < 1000
