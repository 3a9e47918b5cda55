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
#: the fixture's uuids by name (tests/fixtures/hub/MathAtlas/make_fixture.py)
U = {
    "sigma": "a1f0c3d2-0001-4e6a-9b1c-000000000001", "thm-1.8": "a1f0c3d2-0003-4e6a-9b1c-000000000003",
    "ex-1.3": "a1f0c3d2-0004-4e6a-9b1c-000000000004", "prf-1.8": "a1f0c3d2-0005-4e6a-9b1c-000000000005",
    "prop-1.10": "a1f0c3d2-0007-4e6a-9b1c-000000000007", "homotopy": "b2e1d4c3-0001-4f7b-8c2d-000000000001",
    "ex-0.2": "b2e1d4c3-0002-4f7b-8c2d-000000000002", "prop-0.16": "b2e1d4c3-0003-4f7b-8c2d-000000000003",
    "cw-pair": "b2e1d4c3-0004-4f7b-8c2d-000000000004",
}
#: MA-Align fixture pairs (real uuids of the authors' relabel file): (published, relabel), True = aligned
PAIRS = {
    "84c6c40f-b850-404d-aa85-99942990a33e": (False, True), "2a3cbea2-47ed-4ab5-968c-3e6996822ba6": (True, True),
    "847276aa-df7a-47ea-a535-29221fbe6119": (True, False), "9e9dd946-1612-4775-a4f5-fe2cfe17ca9a": (True, True),
    "77851350-4fc4-44d0-80ec-86b412bde38b": (False, False), "ab6637f9-47ef-49b1-bb68-82a6a2ffb121": (False, True),
}
RECEIVED = "2026-11-23T12:00:00+00:00"
LEAN = "theorem x : True := trivial"
#: formalizations whose verdicts the oracle doubles below settle: compiles and judged aligned, compiles and judged
#: misaligned (the judge double reads the name), does not compile (an unclosed bracket: a Lean error)
ALIGNED, MISALIGNED, BROKEN = ("theorem t_aligned : True := by sorry", "theorem t_misaligned : True := by sorry",
                               "theorem t_broken : (True := by sorry")


@pytest.fixture(scope="module", autouse=True)
def served_releases():
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder
    from lemmata.core.paths import releases_dir

    for cls, rid in ((MathAtlasBuilder, "mathatlas-2.0.0"), (MaAlignBuilder, "ma-align-2.0.0")):
        if not (releases_dir() / rid).is_dir():
            cls(source_dir=FIXTURES).build(releases_dir(), quiet=True)


@pytest.fixture(scope="module")
def oracles(tmp_path_factory):
    """A Kimina-protocol Lean double and a chat judge double (aligned unless the Lean names "t_misaligned")."""
    from lemmata.oracles.chat import judge_from_env
    from lemmata.oracles.chat_double import ChatDouble
    from lemmata.oracles.kimina_double import KiminaDouble
    from lemmata.oracles.lean import verifier_from_env

    def judge(body: dict) -> str:
        verdict = "misaligned" if "t_misaligned" in body["messages"][-1]["content"] else "aligned"
        return json.dumps({"reasoning": "compared", "result": verdict})

    folder = tmp_path_factory.mktemp("mathatlas-oracles")
    with ChatDouble(judge) as jd, KiminaDouble() as lean:
        env = {"LEMMATA_JUDGE_BASE_URL": jd.base_url, "LEMMATA_JUDGE_MODEL": "judge-double",
               "LEMMATA_LEAN_URL": lean.url, "LEMMATA_MATHLIB_VERSION": "v4.24.0"}
        yield OracleConfig(judge=judge_from_env(env), lean=verifier_from_env(env),
                           extra={"lean_artifact": str(folder / "lean"), "judge_artifact": str(folder / "judge")})


def _file(header: dict, records: list[dict], extra: str = "") -> bytes:
    return ("".join(json.dumps(x) + "\n" for x in [header, *records]) + extra).encode()


def _atlas(track="statements", **kw) -> dict:
    return {"format": "lemmata-submission/1", "benchmark": "mathatlas", "release": "mathatlas-2.0.0", "track": track,
            "model": {"name": "fixture-formalizer"}, "lean_version": "v4.24.0", "judge": "CriticLean-32B", **kw}


def _rec(entity, compiles, faithful, statement=LEAN) -> dict:
    return {"entity_id": entity, "formal_statement": statement, "compiles": compiles, "faithful": faithful}


def _score(data: bytes, oracles: OracleConfig | None = None):
    v = validate_upload(data, "sub.jsonl")
    return v, handler_for(v.benchmark).score(v, received_at=RECEIVED, oracles=oracles or OracleConfig())


def test_statements_are_theorems_examples_and_exercises_with_breakdowns(oracles):
    # the stated verdicts say the opposite of the oracles': they are informational and never counted
    _, result = _score(_file(_atlas(), [_rec(U["thm-1.8"], "no", "no", ALIGNED),
                                        _rec(U["prop-0.16"], "yes", "yes", MISALIGNED),
                                        _rec(U["ex-0.2"], "no", "no", ALIGNED)]), oracles)
    assert result.kind == "scored" and result.status == "complete" and result.pending == 0
    # the population: four theorems, one example, one exercise (the proof and the definitions are not in it)
    assert (result.main.metric, result.main.count, result.main.total) == ("correct", 2, 6)
    assert result.main.value == pytest.approx(2 / 6) and result.main.interval == pytest.approx(wilson_interval(2, 6))
    assert result.metrics["compile_rate"]["count"] == 3
    assert (result.metrics["faithful_given_compiles"]["count"], result.metrics["faithful_given_compiles"]["total"]) == (2, 3)
    by_type = {t: (row["count"], row["total"]) for t, row in result.breakdowns["by_type"].items()}
    assert by_type == {"theorem": (1, 4), "example": (1, 1), "exercise": (0, 1)}
    assert {g: (row["count"], row["total"]) for g, row in result.breakdowns["by_depth"].items()} == {
        "depth 1": (1, 3), "depth 2–3": (1, 3)}
    assert result.frozen.scoring_artifact.startswith("mathatlas-lean:kimina:lean-0.0.0-protocol-double:"
                                                     "mathlib-v4.24.0:timeout-60s+mathatlas-judge:chat:judge-double:")
    assert result.flags == {"verdicts": "oracle", "context": "zero-shot", "lean": "protocol-double"}
    assert result.frozen.split == "entities/test+hard" and result.frozen.retrieval_artifact is None
    assert any("not the paper's depth" in n for n in result.notes)


def test_ma_hard_is_its_own_track_and_board_group(oracles):
    v, result = _score(_file(_atlas(track="ma-hard"), [
        _rec(U["cw-pair"], "yes", "yes", statement="structure CWPair (X : Type*) where\n  sub : Set X"),
        _rec(U["thm-1.8"], "yes", "yes", MISALIGNED)]), oracles)
    assert v.summary == "2 of 3 MA-Hard entities formalized (2 records)"
    assert (result.main.count, result.main.total) == (1, 3) and result.frozen.split == "entities/hard"
    assert {t: row["total"] for t, row in result.breakdowns["by_type"].items()} == {"definition": 1, "theorem": 2}
    with pytest.raises(InputError) as err:
        validate_upload(_file(_atlas(track="ma-hard"), [
            _rec(U["ex-0.2"], "yes", "yes"),                                    # open split only
            _rec(U["thm-1.8"], "yes", "yes", statement="def f : ℕ := 1")]), "sub.jsonl")  # a theorem's rules
    where = {(p.line, p.field): p.reason for p in err.value.problems}
    assert "is not in MA-Hard (upstream split 'hard')" in where[2, "entity_id"]
    assert "exactly one theorem, lemma or example; found 0" in where[3, "formal_statement"]


def test_without_oracles_every_formalization_is_pending_never_correct():
    v, result = _score(_file(_atlas(), [_rec(U["thm-1.8"], "yes", "yes", ALIGNED),
                                        _rec(U["prop-0.16"], "yes", "yes", BROKEN)]))
    assert v.needs_oracle
    assert result.status == "pending_oracle" and result.pending == 2
    assert result.main.count == 0 and result.main.value == 0.0 and result.metrics["correct_bounds"] == [0.0, 2 / 6]
    assert result.frozen.scoring_artifact == "mathatlas-lean:none+mathatlas-judge:none"
    assert any("await a verdict" in n and "lemmata judge" in n for n in result.notes)


def test_a_compiling_item_awaits_the_judge_and_a_failing_one_is_settled(oracles):
    lean_only = OracleConfig(lean=oracles.lean, extra={"lean_artifact": oracles.extra["lean_artifact"]})
    _, result = _score(_file(_atlas(), [_rec(U["thm-1.8"], "yes", "yes", ALIGNED),
                                        _rec(U["prop-0.16"], "yes", "yes", BROKEN)]), lean_only)
    items = {i["item_id"]: i for i in result.items}
    assert (items[U["thm-1.8"]]["compiles"], items[U["thm-1.8"]]["faithful"]) == ("yes", "pending")
    assert (items[U["prop-0.16"]]["compiles"], items[U["prop-0.16"]]["faithful"]) == ("no", "not_evaluable")
    assert result.pending == 1 and result.metrics["judge_pending"] == 1 and result.metrics["compile_pending"] == 0


def test_missing_entities_count_as_abstained(oracles):
    _, result = _score(_file(_atlas(track="definitions"), [_rec(U["sigma"], None, None,
                                                                "def IsSigma (X : Type*) (S : Set (Set X)) : Prop := "
                                                                "S.Nonempty")]), oracles)
    assert (result.main.count, result.main.total) == (1, 4)
    assert result.metrics["submitted"] == 1 and result.metrics["entities"] == 4
    items = {i["item_id"]: i for i in result.items}
    assert items[U["homotopy"]]["submitted"] is False and items[U["homotopy"]]["compiles"] == "abstain"
    assert items[U["cw-pair"]]["type"] == "definition" and items[U["cw-pair"]]["scc_depth"] == 0
    assert "stated" not in items[U["sigma"]]  # nothing stated, nothing kept


def test_verdict_submissions_are_checked_line_by_line():
    records = [
        _rec(U["sigma"], "yes", "yes"),                        # a definition in the statements track
        _rec("no-such-entity", "yes", "yes"),
        _rec(U["thm-1.8"], "maybe", "yes"),                    # not a verdict (a stated one is still checked)
        _rec(U["prop-0.16"], "yes", "no", statement=None),     # abstains: what it states is informational
        _rec(U["prop-0.16"], "no", "abstain"),                 # repeated
        _rec(U["prf-1.8"], "yes", "yes"),                      # a proof is in no track
    ]
    with pytest.raises(InputError) as err:
        validate_upload(_file(_atlas(), records), "sub.jsonl")
    where = {(p.line, p.field): p.reason for p in err.value.problems}
    noun = "the statements track formalizes theorem, example and exercise entities"
    assert f"is a definition; {noun}" in where[2, "entity_id"]
    assert where[3, "entity_id"] == "unknown entity_id 'no-such-entity'"
    assert (4, "compiles") in where
    assert not [key for key in where if key[0] == 5]
    assert "first on line 5" in where[6, "entity_id"]
    assert f"is a proof; {noun}" in where[7, "entity_id"]


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
        validate_upload(_file(_atlas(), [_rec(U["thm-1.8"], "yes", "yes", statement=statement)]), "sub.jsonl")
    found = [(p.line, p.field, p.reason) for p in err.value.problems]
    assert any(line == 2 and field == "formal_statement" and reason in why for line, field, why in found), found


@pytest.mark.parametrize(("track", "entity", "statement"), [
    ("statements", U["thm-1.8"], "import Mathlib\nopen Real\n\nnamespace Folland\nvariable {X : Type*} "
     "[MetricSpace X]\n\n/-- Theorem 1.8 -/\ntheorem thm_1_8 (x : X) : dist x x = 0 := by sorry\n\nend Folland"),
    ("statements", U["ex-1.3"],
     "noncomputable def f (x : ℝ) : ℝ := x ^ 2\nlemma t : ∀ x, f x ≥ 0 := sorry"),
    ("definitions", U["sigma"], "structure Sigma' (X : Type*) where\n  sets : Set (Set X)\n"
     "class Finite' (X : Type*) : Prop where\n  fin : ∃ n : ℕ, Nonempty (X ≃ Fin n)\n"
     "instance : Finite' Unit := ⟨⟨1, ⟨Equiv.equivOfUnique Unit (Fin 1)⟩⟩⟩"),
])
def test_honest_formalizations_are_accepted(track, entity, statement):
    v = validate_upload(_file(_atlas(track=track), [_rec(entity, "yes", "yes", statement=statement)]), "sub.jsonl")
    assert len(v.records) == 1


def test_the_stated_checker_and_judge_are_informational():
    header = _atlas()
    del header["judge"], header["lean_version"]
    v = validate_upload(_file(header, [{"entity_id": U["thm-1.8"], "formal_statement": LEAN}]), "sub.jsonl")
    assert v.header.judge is None and v.header.context == "zero-shot"
    with pytest.raises(InputError) as err:
        validate_upload(_file(_atlas(context="few-shot"), [_rec(U["thm-1.8"], "yes", "yes")]), "sub.jsonl")
    assert (err.value.problems[0].line, err.value.problems[0].field) == (1, "header.context")


# -- MA-Align -----------------------------------------------------------------------------------------------

def _align(**kw) -> dict:
    return {"format": "lemmata-submission/1", "benchmark": "ma-align", "release": "ma-align-2.0.0", "track": "judge",
            "model": {"name": "fixture-judge"}, **kw}


def test_judge_is_scored_against_both_label_sets_each_named():
    ids = list(PAIRS)
    # predictions for the first five pairs (the sixth abstains by omission)
    preds = dict(zip(ids, [True, True, True, False, False]))
    _, result = _score(_file(_align(), [{"pair_id": k, "faithful": v} for k, v in preds.items()]))
    # published: F T T T F F  -> right on 2, 3, 5
    assert result.metrics["confusion"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 1, "abstained": 1}
    assert (result.main.count, result.main.total) == (3, 6)
    assert result.main.interval == pytest.approx(wilson_interval(3, 6))
    assert result.metrics["precision"]["value"] == pytest.approx(2 / 3)
    assert result.metrics["recall"]["value"] == pytest.approx(2 / 3)
    lo, hi = result.metrics["f1"]["interval"]
    assert 0.0 <= lo <= result.metrics["f1"]["value"] <= hi <= 1.0
    # relabel: T T F T F T -> right on 1, 2, 5
    sets = result.metrics["label_sets"]
    assert set(sets) == {"published", "relabel"} and "ma-align-relabel.tsv" in sets["relabel"]["source"]
    assert (sets["relabel"]["accuracy"]["count"], sets["relabel"]["accuracy"]["total"]) == (3, 6)
    assert sets["relabel"]["confusion"] == {"tp": 2, "fp": 1, "fn": 2, "tn": 1, "abstained": 1}
    assert sets["published"]["accuracy"] == result.metrics["accuracy"]
    assert result.breakdowns["by_kind"] == {
        "definition": {"published": {"count": 2, "total": 3}, "relabel": {"count": 2, "total": 3}},
        "statement": {"published": {"count": 1, "total": 3}, "relabel": {"count": 1, "total": 3}}}
    assert any("relabel set" in n and "0.5000 (3/6)" in n for n in result.notes)
    assert result.metrics["missing"] == 1
    items = {i["item_id"]: i for i in result.items}
    assert items[ids[0]]["right"] is False and items[ids[0]]["right_relabel"] is True
    assert items[ids[5]]["right"] is False and items[ids[5]]["kind"] == "statement"


def test_judge_intervals_are_reproducible():
    recs = [{"pair_id": p, "faithful": n % 2 == 1} for n, p in enumerate(PAIRS)]
    _, a = _score(_file(_align(), recs))
    _, b = _score(_file(_align(), recs))
    assert a.metrics == b.metrics and a.result_id == b.result_id


def test_judge_records_are_checked():
    first, second = list(PAIRS)[:2]
    with pytest.raises(InputError) as err:
        validate_upload(_file(_align(), [{"pair_id": first, "faithful": "aligned"},
                                         {"pair_id": "align-999", "faithful": True},
                                         {"pair_id": second, "faithful": True, "why": "x"}]), "j.jsonl")
    where = {(p.line, p.field) for p in err.value.problems}
    assert {(2, "faithful"), (3, "pair_id"), (4, "why")} <= where
