"""Re²Math submission format v1 (models, exported schema) and the paper's reported rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.core.errors import InputError
from lemmata.benchmarks.re2math.reported import PAPER_RETRIEVAL_ARTIFACT, PAPER_SCORING_ARTIFACT, reported_results
from lemmata.benchmarks.re2math.submission import Header, Record, json_schema, parse_submission, schema_text
from lemmata.formats.envelope import parse_envelope

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = ROOT / "submissions" / "schema" / "re2math-submission.schema.json"

HEADER = {"format": "lemmata-submission/1", "benchmark": "re2math", "release": "re2math-1.0.0",
          "split": "eval200/test", "track": "raw", "window": 5, "model": {"name": "m"},
          "retrieval_artifact": "art-1", "flags": {"tuned_on_pool": False, "used_external_tools": False}}
RECORD = {"instance_id": "x_gap_0", "anchor": "bound the trace", "queries": [{"text": "q", "candidates": ["a", "b"]}],
          "selected_source": "b", "statement": "S"}


def _paper_tables() -> Path:
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.release.sources import resolve_sources

    return resolve_sources(RE2MATH, ["paper_all_tables.json"])["paper_all_tables.json"]


def _parse(*objs) -> tuple:
    data = "\n".join(json.dumps(o) for o in objs).encode()
    return parse_submission(parse_envelope(data, "sub.jsonl"))


def test_exported_schema_is_current():
    assert SCHEMA.read_text("utf-8") == schema_text(), (
        "regenerate with: python -m lemmata.benchmarks.re2math.submission --write-schema " + str(SCHEMA.relative_to(ROOT)))


def test_schema_describes_both_line_kinds():
    schema = json_schema()
    assert schema["oneOf"] == [{"$ref": "#/$defs/Header"}, {"$ref": "#/$defs/Record"}]
    header, record = schema["$defs"]["Header"], schema["$defs"]["Record"]
    assert header["additionalProperties"] is False and record["additionalProperties"] is False
    assert {"format", "benchmark", "release", "split", "track", "window", "model", "retrieval_artifact",
            "flags"} <= set(header["required"])
    assert set(record["required"]) == {"instance_id", "queries", "selected_source", "statement"}
    assert header["properties"]["window"]["enum"] == [1, 3, 5]


def test_valid_submission_parses():
    header, records = _parse(HEADER, RECORD, {**RECORD, "instance_id": "y", "selected_source": None,
                                              "statement": None, "queries": []})
    assert isinstance(header, Header) and header.window == 5
    assert [line for line, _ in records] == [2, 3] and isinstance(records[0][1], Record)
    assert records[0][1].candidate_ids() == ["a", "b"]


def test_every_format_problem_is_reported_with_line_and_field():
    with pytest.raises(InputError) as err:
        _parse({**HEADER, "window": 4, "split": "eval200/dev", "flags": {"tuned_on_pool": "no"}},
               {**RECORD, "statement": "  "},
               {**RECORD, "selected_source": None},
               {**RECORD, "queries": [{"text": "q", "candidates": ["a", ""]}]},
               {**RECORD, "queries": [{"text": "q", "candidates": [str(i) for i in range(21)]}]},
               {k: v for k, v in RECORD.items() if k != "statement"})
    where = {(p.line, p.field) for p in err.value.problems}
    assert {(1, "header.window"), (1, "header.split"), (1, "header.flags.tuned_on_pool"),
            (1, "header.flags.used_external_tools"), (2, "statement"), (4, "queries.0.candidates.1"),
            (5, "queries.0.candidates"), (6, "statement")} <= where
    assert any(p.line == 3 and "needs the source" in p.reason for p in err.value.problems)


def test_oracle_statements_follow_the_header_declaration():
    with pytest.raises(InputError) as err:
        _parse({**HEADER, "oracle_run": True}, RECORD)
    assert err.value.problems[0].field == "oracle_statement" and err.value.problems[0].line == 2
    with pytest.raises(InputError, match="does not declare oracle_run"):
        _parse(HEADER, {**RECORD, "oracle_statement": "S"})
    _, records = _parse({**HEADER, "oracle_run": True}, {**RECORD, "oracle_statement": None})
    assert records[0][1].oracle_statement is None


def test_header_only_file_is_rejected():
    with pytest.raises(InputError, match="no records after the header"):
        _parse(HEADER)


# -- reported rows -----------------------------------------------------------------------------------------

def test_reported_rows_keep_the_papers_numbers_under_their_own_frozen_tuple():
    printed = json.loads(_paper_tables().read_text("utf-8"))
    results = reported_results()
    assert [r.model.name for r in results] == ["GPT-5.2", "Gemini 3.1 Pro", "Claude Opus 4.5", "DeepSeek V3.2",
                                               "Qwen3-235B Thinking", "Kimi K2 Thinking", "Grok 4"]
    for r in results:
        assert r.kind == "reported" and r.flags["reported"] is True and r.status == "complete"
        assert r.frozen.retrieval_artifact == PAPER_RETRIEVAL_ARTIFACT
        assert r.frozen.scoring_artifact == PAPER_SCORING_ARTIFACT
        assert r.frozen.group_key() == results[0].frozen.group_key()
        assert r.result_id == r.content_id()
    claude = results[2]
    assert (claude.main.count, claude.main.total, claude.main.value) == (14, 200, 0.07)
    assert claude.metrics["AnchorAcc"]["count"] == 48 and claude.metrics["CiteRecall@20"]["count"] == 21
    assert len(printed["rows"]) == len(results)
    for r, row in zip(results, printed["rows"]):
        for key, value in row["main_table_1"].items():
            got = r.metrics["AnchorAcc" if key == "AnchorAcc(x_raw)" else key]
            assert (got["count"], got["total"], got["rate"]) == (value["success"], value["total"], value["rate"])
            assert got["wilson95"] == value["wilson95"]
            assert got["paper_cluster_bootstrap95"] == value["paper_cluster_bootstrap95"]
        assert r.metrics["DeltaToOracle"] == row["main_table_2"]["DeltaToOracle"]
        assert r.breakdowns["appendix_stratified"] == row["appendix_stratified"]
    assert [r.result_id for r in reported_results()] == [r.result_id for r in results]


def test_reported_rows_refuse_a_file_that_fails_its_pinned_hash(tmp_path):
    data = _paper_tables().read_bytes()
    (tmp_path / "paper_all_tables.json").write_bytes(data.replace(b'"success": 14', b'"success": 15', 1))
    with pytest.raises(InputError, match="sha256 mismatch"):
        reported_results(tmp_path)
