"""MIRB submissions validated against the built fixture release and scored; both Hub retrieval handlers registered;
an end-to-end build -> load_dataset -> score round trip for MathNet-Retrieve and MIRB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.benchmarks.mirb.meta import TASK_NAMES, TASKS
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


# -- MIRB ---------------------------------------------------------------------------------------------------

def _mirb_header() -> dict:
    return {"format": "lemmata-submission/1", "benchmark": "mirb", "release": "mirb-1.0.0", "track": "zero-shot",
            "model": {"name": "fixture-bm25"}}


def _perfect(task: str) -> list[dict]:
    """Every query's relevant documents first (graded ones by grade), as in the fixture qrels."""
    return [
        {"task": task, "query_id": f"{task}-q0", "ranking": _ranking((f"{task}-d0", 3.0), (f"{task}-d3", 2.0))},
        {"task": task, "query_id": f"{task}-q1", "ranking": _ranking((f"{task}-d1", 1.0))},
        {"task": task, "query_id": f"{task}-q2", "ranking": _ranking((f"{task}-d2", 1.0))},
    ]


def test_mirb_perfect_run_scores_one_and_averages_twelve_datasets():
    records = [r for t in TASK_NAMES for r in _perfect(t)]
    result = _score(_file(_mirb_header(), records))
    assert result.main.value == pytest.approx(1.0)
    assert set(result.metrics["per_dataset"]) == {t.dataset for t in TASKS} and len(result.metrics["per_dataset"]) == 12
    assert result.breakdowns["per_task"]["msedup"]["ndcg@10"]["mean"] == pytest.approx(1.0)
    assert len(result.items) == 3 * len(TASK_NAMES)
    assert "upstream_query_set" not in result.metrics  # every judged query has a positive grade: one figure


def test_mirb_naturalproofs_is_the_mean_of_its_four_subsets():
    import math

    records = [r for t in TASK_NAMES for r in _perfect(t)]
    # in stacksps the second query's only relevant document is ranked second: nDCG@10 of that query = 1/log2(3)
    records = [r if not (r["task"] == "stacksps" and r["query_id"] == "stacksps-q1") else
               {**r, "ranking": _ranking(("stacksps-d4", 2.0), ("stacksps-d1", 1.0))} for r in records]
    result = _score(_file(_mirb_header(), records))
    stacks = (2 + 1 / math.log2(3)) / 3
    assert result.breakdowns["per_task"]["stacksps"]["ndcg@10"]["mean"] == pytest.approx(stacks)
    assert result.metrics["per_dataset"]["naturalproofs"] == pytest.approx((3 + stacks) / 4)
    assert result.main.value == pytest.approx((11 + (3 + stacks) / 4) / 12)


def test_mirb_validation_covers_tasks_and_dynamic_corpus():
    records = [r for t in TASK_NAMES if t != "leanps" for r in _perfect(t)]
    records.append({"task": "msedupp", "query_id": "x", "ranking": []})
    records.append({"task": "msedup", "query_id": "msedup-q1",
                    "ranking": _ranking(("msedup-d1", 1.0), ("msedup-d4", 0.5))})  # d4 is excluded for q1
    with pytest.raises(InputError) as err:
        validate_upload(_file(_mirb_header(), records), "mirb.jsonl")
    problems = err.value.problems
    reasons = [str(p) for p in problems]
    assert any("no rankings for task 'leanps'" in r for r in reasons)
    bad_task = next(p for p in problems if p.field == "task" and p.line)
    assert "did you mean 'msedup'" in bad_task.reason
    excluded = next(p for p in problems if p.field == "ranking[1].doc_id")
    assert "excluded for query 'msedup-q1'" in excluded.reason
    assert any("duplicate ranking for query 'msedup-q1'" in r for r in reasons)


def test_handlers_are_registered_for_the_space():
    from lemmata.families import known_benchmarks

    assert {"mathnet-retrieve", "mirb"} <= set(known_benchmarks())
    assert handler_for("mirb").tracks == ("zero-shot",)


def test_end_to_end_build_load_dataset_score():
    """A run built from the released qrels as ``datasets`` loads them scores 1 on every measure."""
    import datasets

    from lemmata.core.paths import releases_dir

    root = str(releases_dir() / "mathnet-retrieve-1.0.0")
    qrels = datasets.load_dataset(root, "qrels", split="medium")
    corpus = datasets.load_dataset(root, "corpus", split="corpus")
    assert corpus.num_rows == 26 and qrels.num_rows == 5
    records = [{"query_id": r["query-id"], "ranking": _ranking((r["corpus-id"], 1.0))} for r in qrels]
    result = _score(_file(_mathnet_header(tier="medium"), records))
    assert {k: v["mean"] for k, v in result.metrics.items() if k.startswith("recall@")} == \
        {"recall@1": 1.0, "recall@5": 1.0, "recall@10": 1.0}

    mirb = str(releases_dir() / "mirb-1.0.0")
    records = []
    for t in TASK_NAMES:
        by_query: dict[str, list] = {}
        for r in datasets.load_dataset(mirb, "qrels", split=t):
            by_query.setdefault(r["query-id"], []).append((r["corpus-id"], float(r["score"])))
        records += [{"task": t, "query_id": q, "ranking": _ranking(*docs)} for q, docs in by_query.items()]
    assert _score(_file(_mirb_header(), records)).main.value == pytest.approx(1.0)
