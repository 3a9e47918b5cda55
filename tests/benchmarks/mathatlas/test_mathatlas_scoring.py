"""MathAtlas verdict submissions and MA-Align judge submissions, scored against the built fixture releases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.core.errors import InputError
from lemmata.metrics.intervals import wilson_interval
from lemmata.families import handler_for
from lemmata.scoring import validate_upload
from lemmata.tracks.base import OracleConfig

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub" / "MathAtlas"
RECEIVED = "2026-11-23T12:00:00+00:00"
LEAN = "theorem x : True := trivial"


@pytest.fixture(scope="module", autouse=True)
def served_releases():
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder
    from lemmata.core.paths import releases_dir

    for cls, rid in ((MathAtlasBuilder, "mathatlas-1.0.0"), (MaAlignBuilder, "ma-align-1.0.0")):
        if not (releases_dir() / rid).is_dir():
            cls(source_dir=FIXTURES).build(releases_dir(), quiet=True)


def _file(header: dict, records: list[dict], extra: str = "") -> bytes:
    return ("".join(json.dumps(x) + "\n" for x in [header, *records]) + extra).encode()


def _atlas(track="statements", **kw) -> dict:
    return {"format": "lemmata-submission/1", "benchmark": "mathatlas", "release": "mathatlas-1.0.0", "track": track,
            "model": {"name": "fixture-formalizer"}, "lean_version": "v4.24.0", "judge": "CriticLean-32B", **kw}


def _rec(entity, compiles, faithful, statement=LEAN) -> dict:
    return {"entity_id": entity, "formal_statement": statement, "compiles": compiles, "faithful": faithful}


def _score(data: bytes):
    v = validate_upload(data, "sub.jsonl")
    return v, handler_for(v.benchmark).score(v, received_at=RECEIVED, oracles=OracleConfig())


def test_statements_track_correctness_compile_rate_and_faithful_given_compiles():
    _, result = _score(_file(_atlas(), [_rec("folland-thm-1.8", "yes", "yes"), _rec("hatcher-prop-0.16", "yes", "no")]))
    assert result.kind == "scored" and result.status == "complete" and result.pending == 0
    assert (result.main.metric, result.main.count, result.main.total) == ("correct", 1, 2)
    assert result.main.value == 0.5 and result.main.interval == pytest.approx(wilson_interval(1, 2))
    assert result.metrics["compile_rate"]["count"] == 2
    assert (result.metrics["faithful_given_compiles"]["count"], result.metrics["faithful_given_compiles"]["total"]) == (1, 2)
    assert set(result.breakdowns["by_depth"]) == {"depth 1", "depth 2"}
    assert result.frozen.scoring_artifact == "submitted-verdicts lean=v4.24.0 judge=CriticLean-32B"
    assert result.flags == {"verdicts": "submitted"} and result.frozen.split == "entities/test"


def test_pending_faithfulness_is_never_correct():
    v, result = _score(_file(_atlas(), [_rec("folland-thm-1.8", "yes", "pending"),
                                        _rec("hatcher-prop-0.16", "no", "not_evaluable")]))
    assert v.needs_oracle
    assert result.status == "pending_oracle" and result.pending == 1
    assert result.main.count == 0 and result.main.value == 0.0
    assert any("await a verdict" in n for n in result.notes)


def test_missing_entities_count_as_abstained():
    _, result = _score(_file(_atlas(track="definitions"), [_rec("folland-def-1.1", "yes", "yes")]))
    assert (result.main.count, result.main.total) == (1, 3)
    assert result.metrics["submitted"] == 1 and result.metrics["entities"] == 3
    items = {i["item_id"]: i for i in result.items}
    assert items["hatcher-def-0.1"]["submitted"] is False and items["hatcher-def-0.1"]["compiles"] == "abstain"


def test_verdict_submissions_are_checked_line_by_line():
    records = [
        _rec("folland-def-1.1", "yes", "yes"),                 # a definition in the statements track
        _rec("no-such-entity", "yes", "yes"),
        _rec("folland-thm-1.8", "maybe", "yes"),               # not a verdict
        _rec("hatcher-prop-0.16", "yes", "no", statement=None),  # nothing to compile
        _rec("hatcher-prop-0.16", "no", "abstain"),            # repeated
    ]
    with pytest.raises(InputError) as err:
        validate_upload(_file(_atlas(), records), "sub.jsonl")
    where = {(p.line, p.field): p.reason for p in err.value.problems}
    assert "is a definition; the statements track formalizes theorem entities" in where[2, "entity_id"]
    assert where[3, "entity_id"] == "unknown entity_id 'no-such-entity'"
    assert (4, "compiles") in where
    assert "compiles must be 'abstain'" in where[5, "compiles"]
    assert "first on line 5" in where[6, "entity_id"]


# a formal statement may hold a formalization and nothing else; each refusal names the record's line, the field
# and the statement's own line
REFUSED_STATEMENTS = [
    ("theorem t : True := trivial\n#print axioms t", "formal_statement line 2: `#print` commands"),
    ("#guard_msgs (drop all) in\ntheorem t : False := by simp", "formal_statement line 1: `#guard_msgs"),
    ("set_option maxHeartbeats 0 in\ntheorem t : True := trivial", "formal_statement line 1: `set_option ... in`"),
    ("set_option autoImplicit true\ntheorem t : x = x := rfl", "formal_statement line 1: `set_option` is not allowed"),
    ("@[simp] theorem t : True := trivial", "formal_statement line 1: attribute `@[simp]`"),
    ("axiom a : False\ntheorem t : False := a", "formal_statement line 1: `axiom` declarations are not allowed"),
    ("macro \"triv\" : tactic => `(tactic| trivial)\ntheorem t : True := by triv", "formal_statement line 1: `macro`"),
    ("notation \"𝟙\" => (1 : ℕ)\ntheorem t : 𝟙 = 1 := rfl", "formal_statement line 1: `notation`"),
    ("import Mathlib\nimport MyCheats\ntheorem t : True := trivial", "formal_statement line 2: `import MyCheats`"),
    ("theorem t : 2 + 2 = 4 := by native_decide", "formal_statement line 1: `native_decide` bypasses kernel checking"),
    ("theorem t : True := trivial\ntheorem u : True := trivial", "exactly one theorem, lemma or example; found 2"),
    ("def f : ℕ := 1", "exactly one theorem, lemma or example; found 0"),
    ("unsafe def f : ℕ := 1\ntheorem t : f = 1 := rfl", "formal_statement line 1: modifier `unsafe`"),
    ("theorem t : True := by\n  run_tac pure ()\n  trivial", "formal_statement line 2: `run_tac` runs code"),
    ("theorem t : s! \"{x}\" = \"\" := /- unclosed", "formal_statement line 1: not readable as Lean"),
]


@pytest.mark.parametrize(("statement", "reason"), REFUSED_STATEMENTS)
def test_formal_statements_hold_only_a_formalization(statement, reason):
    with pytest.raises(InputError) as err:
        validate_upload(_file(_atlas(), [_rec("folland-thm-1.8", "yes", "yes", statement=statement)]), "sub.jsonl")
    found = [(p.line, p.field, p.reason) for p in err.value.problems]
    assert any(line == 2 and field == "formal_statement" and reason in why for line, field, why in found), found


@pytest.mark.parametrize(("track", "entity", "statement"), [
    ("statements", "folland-thm-1.8", "import Mathlib\nopen Real\n\nnamespace Folland\nvariable {X : Type*} "
     "[MetricSpace X]\n\n/-- Theorem 1.8 -/\ntheorem thm_1_8 (x : X) : dist x x = 0 := by sorry\n\nend Folland"),
    ("statements", "folland-thm-1.8",
     "noncomputable def f (x : ℝ) : ℝ := x ^ 2\nlemma t : ∀ x, f x ≥ 0 := sorry"),
    ("definitions", "folland-def-1.1", "structure Sigma' (X : Type*) where\n  sets : Set (Set X)\n"
     "class Finite' (X : Type*) : Prop where\n  fin : ∃ n : ℕ, Nonempty (X ≃ Fin n)\n"
     "instance : Finite' Unit := ⟨⟨1, ⟨Equiv.equivOfUnique Unit (Fin 1)⟩⟩⟩"),
])
def test_honest_formalizations_are_accepted(track, entity, statement):
    v = validate_upload(_file(_atlas(track=track), [_rec(entity, "yes", "yes", statement=statement)]), "sub.jsonl")
    assert len(v.records) == 1


def test_header_names_checker_and_judge():
    header = _atlas()
    del header["judge"]
    with pytest.raises(InputError) as err:
        validate_upload(_file(header, [_rec("folland-thm-1.8", "yes", "yes")]), "sub.jsonl")
    assert (err.value.problems[0].line, err.value.problems[0].field) == (1, "header.judge")


# -- MA-Align -----------------------------------------------------------------------------------------------

def _align(**kw) -> dict:
    return {"format": "lemmata-submission/1", "benchmark": "ma-align", "release": "ma-align-1.0.0", "track": "judge",
            "model": {"name": "fixture-judge"}, **kw}


def test_judge_accuracy_precision_recall_f1():
    # gold: 001 T, 002 F, 003 T, 004 T, 005 F, 006 T
    preds = {"align-001": True, "align-002": True, "align-003": True, "align-004": False, "align-005": False}
    _, result = _score(_file(_align(), [{"pair_id": k, "faithful": v} for k, v in preds.items()]))
    assert result.metrics["confusion"] == {"tp": 2, "fp": 1, "fn": 2, "tn": 1, "abstained": 1}
    assert (result.main.count, result.main.total) == (3, 6)
    assert result.main.interval == pytest.approx(wilson_interval(3, 6))
    assert result.metrics["precision"]["value"] == pytest.approx(2 / 3)
    assert result.metrics["recall"]["value"] == pytest.approx(2 / 4)
    assert result.metrics["f1"]["value"] == pytest.approx(4 / 7)
    lo, hi = result.metrics["f1"]["interval"]
    assert 0.0 <= lo <= 4 / 7 <= hi <= 1.0
    assert result.metrics["missing"] == 1
    assert {i["item_id"]: i["right"] for i in result.items}["align-006"] is False


def test_judge_intervals_are_reproducible():
    recs = [{"pair_id": f"align-00{i}", "faithful": i % 2 == 1} for i in range(1, 7)]
    _, a = _score(_file(_align(), recs))
    _, b = _score(_file(_align(), recs))
    assert a.metrics == b.metrics and a.result_id == b.result_id


def test_judge_records_are_checked():
    with pytest.raises(InputError) as err:
        validate_upload(_file(_align(), [{"pair_id": "align-001", "faithful": "yes"},
                                         {"pair_id": "align-999", "faithful": True},
                                         {"pair_id": "align-002", "faithful": True, "why": "x"}]), "j.jsonl")
    where = {(p.line, p.field) for p in err.value.problems}
    assert {(2, "faithful"), (3, "pair_id"), (4, "why")} <= where
