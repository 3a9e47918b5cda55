"""User-visible names: NFC, invisible characters refused with the field, look-alike names flagged on the board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from lemmata.core.errors import InputError
from lemmata.formats.names import clean_name, near_duplicates, skeleton
from lemmata.formats.results import ModelInfo
from lemmata.scoring import validate_upload
from lemmata.space.board import BoardQuery, build_view, row_from_index
from lemmata.space.submit import SubmissionForm, form_problems
from lemmata.space.tables import render_board

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "submissions/re2math/example-re2math-bm25-raw-m5.jsonl"


def _with_model_name(name: str) -> bytes:
    """The example's header with ``name`` and its first record (the header problem needs no more)."""
    head, rest = EXAMPLE.read_bytes().split(b"\n", 2)[:2]
    header = json.loads(head)
    header["model"]["name"] = name
    return json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n" + rest + b"\n"


def test_upload_with_a_zero_width_space_in_the_model_name_is_refused(re2math_uploads):
    with pytest.raises(InputError) as err:
        validate_upload(_with_model_name("bm25\u200b"), "m.jsonl")
    [p] = [p for p in err.value.problems if p.field and p.field.endswith("model.name")]
    assert p.line == 1 and "U+200B ZERO WIDTH SPACE" in p.reason


@pytest.mark.parametrize("bad, shown", [
    ("bm\u202e52", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("bm25\x00", "U+0000"),
    ("bm25\x1b[2J", "U+001B"),
    ("bm25\ue000", "U+E000"),
    ("bm25\u2028", "U+2028 LINE SEPARATOR"),
])
def test_invisible_characters_in_model_identity_are_refused_with_the_field(bad, shown):
    for field in ("name", "revision", "endpoint_model"):
        with pytest.raises(ValidationError) as err:
            ModelInfo.model_validate({"name": "ok", field: bad})
        [e] = err.value.errors()
        assert e["loc"] == (field,) and shown in e["msg"] and f"model.{field}" in e["msg"]


def test_model_name_is_stored_in_nfc():
    assert ModelInfo(name="Cafe\u0301 BM25").name == "Caf\u00e9 BM25"
    assert ModelInfo(name="bm25").model_dump(mode="json") == {"name": "bm25", "revision": None, "url": None}


def test_submitter_with_control_or_zero_width_characters_is_refused():
    _, problems = form_problems(SubmissionForm(submitter="Ada\u200b", contact=""))
    assert [(p.field, "U+200B" in p.reason) for p in problems] == [("submitter", True)]
    cleaned, problems = form_problems(SubmissionForm(submitter=" Ada\n Lovelace ", contact=""))
    assert problems == [] and cleaned.submitter == "Ada Lovelace"


def test_skeletons_meet_for_confusables_only():
    assert skeleton("e5-large") == skeleton("\u0435" + "5-large")  # Cyrillic е
    assert skeleton("ColBERT") == skeleton("CoIBERT")  # capital I for l
    assert skeleton("bm25") != skeleton("bm26")
    assert near_duplicates(["bm25", "bm25", "e5"]) == {}
    with pytest.raises(ValueError):
        clean_name("x\u2028y", "model.name")


def _index_row(result_id: str, model: str) -> dict:
    summary = {"main": {"metric": "ndcg@10"}, "model": {}, "frozen": {"dataset_release": "b-1"}}
    return {"result_id": result_id, "submission_sha256": "0" * 64, "kind": "scored", "benchmark": "b",
            "track": "t", "group_key": "g", "model_name": model, "main_value": 0.5, "pending": 0,
            "status": "complete", "scored_at": "2026-11-21T00:00:00Z", "version": 1,
            "summary_json": json.dumps(summary)}


def test_board_flags_a_name_that_looks_like_another_entry():
    rows = [row_from_index(_index_row("r1", "e5-large")), row_from_index(_index_row("r2", "\u0435" + "5-large")),
            row_from_index(_index_row("r3", "bm25"))]
    view = build_view(rows, BoardQuery(benchmark="b", track="t"))
    flagged = {r.model_name: r.look_alike for g in view.groups for r in g.rows}
    assert flagged == {"e5-large": ("\u0435" + "5-large",), "\u0435" + "5-large": ("e5-large",), "bm25": ()}
    assert any("look like another name" in n for n in view.notices)
    assert render_board(view).count("looks like another entry") == 2


def test_a_papers_own_rows_are_never_flagged_but_an_imitation_of_them_is():
    """Reported rows are transcribed as printed (GPT-5 in one table, gpt-5 in another): no warning between them;
    a submitted name that imitates a reported one is still flagged."""
    reported = [{**_index_row("p1", "GPT-5"), "kind": "reported"}, {**_index_row("p2", "gpt-5"), "kind": "reported"}]
    view = build_view([row_from_index(r) for r in reported], BoardQuery(benchmark="b", track="t"))
    assert all(r.look_alike == () for g in view.groups for r in g.rows)
    assert not any("look like another name" in n for n in view.notices)
    rows = [*reported, _index_row("s1", "G\u0420T-5")]  # a Cyrillic Er for the P
    view = build_view([row_from_index(r) for r in rows], BoardQuery(benchmark="b", track="t"))
    flagged = {r.result_id: r.look_alike for g in view.groups for r in g.rows}
    assert flagged["p1"] == flagged["p2"] == () and flagged["s1"]
