"""Integrity checks: every violation kind on hand-written attempts, and every official statement passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lemmata.benchmarks.taobench.lean.integrity import IntegrityReport, Violation, check_attempt, token_keys
from lemmata.lean.lexer import LexError, lex
from lemmata.benchmarks.taobench.lean.statements import locate

FIXTURES = Path(__file__).parents[2] / "fixtures" / "taobench"
ATTEMPTS = sorted((FIXTURES / "attempts").glob("*.lean"))
#: one crafted cheat per file, each with a header saying what it tries and the violation expected
ATTACKS = sorted((FIXTURES / "attacks").glob("*.lean"))
ALL_KINDS = set(Violation.model_fields["kind"].annotation.__args__)
#: a genuine proof text: real tactics, no sorry (whether it closes the goal is the verifier's business)
PROOF = ":= by\n  classical\n  constructor <;> intro h <;> simp_all\n  all_goals aesop\n"


@pytest.fixture(scope="module")
def demo():
    return locate((FIXTURES / "official.lean").read_text("utf-8"), "Demo.PNat.ofNat_succ")


def expected(text: str) -> set[tuple[str, int | None]]:
    """``-- expect: kind[, kind]`` on a line marks violations of that line; ``-- expect-file:`` line-less ones."""
    out: set[tuple[str, int | None]] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if m := re.search(r"-- expect: (.*)$", line):
            out |= {(k.strip(), lineno) for k in m.group(1).split(",")}
        if m := re.search(r"-- expect-file: (.*)$", line):
            out |= {(k.strip(), None) for k in m.group(1).split(",")}
    return out


@pytest.mark.parametrize("path", ATTEMPTS, ids=[p.stem for p in ATTEMPTS])
def test_hand_written_attempt(demo, path):
    text = path.read_text("utf-8")
    report = check_attempt(demo, text)
    assert {(v.kind, v.line) for v in report.violations} == expected(text), [str(v) for v in report.violations]
    assert report.ok == (not expected(text))


@pytest.mark.parametrize("path", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_attack_is_refused(demo, path):
    text = path.read_text("utf-8")
    header = re.search(r"^-- Attack: (.+)\n-- Expected violation: (.+)\.\n", text)
    assert header, "an attack file starts with what it tries and the violation expected"
    report = check_attempt(demo, text)
    assert not report.ok
    assert {(v.kind, v.line) for v in report.violations} == expected(text), [str(v) for v in report.violations]
    assert set(report.kinds()) == {k.strip() for k in header.group(2).split(",")}
    assert all(v.line is not None and f"line {v.line}" in str(v) for v in report.violations)


def test_attack_corpus_covers_the_reported_cheats():
    names = {p.stem for p in ATTACKS}
    assert {"guard_msgs_drop_all", "elab_answers_probe", "macro_answers_probe", "eval_bang_before",
            "interpolated_string_spaced", "dbg_trace_interpolation", "decide_plus_kernel", "decide_config_native",
            "decide_config_positional", "unification_hint_attribute", "throw_error_at_interpolation",
            "message_native_decide_in_proof", "unknown_head_interpolation", "by_sorry_in_helper_binder"} <= names


def test_fixtures_cover_every_violation_kind():
    found = set().union(*(expected(p.read_text("utf-8")) for p in ATTEMPTS + ATTACKS))
    assert {kind for kind, _ in found} == ALL_KINDS
    assert any(not expected(p.read_text("utf-8")) for p in ATTEMPTS), "an honest attempt must be among the fixtures"


def test_official_file_itself_is_flagged_for_its_sorry(demo):
    report = check_attempt(demo, (FIXTURES / "official.lean").read_text("utf-8"))
    assert [(v.kind, v.line) for v in report.violations] == [("sorry", 40)]


def test_official_lines_cover_context_not_proof(demo):
    text = (FIXTURES / "attempts" / "honest_helper_and_mentions.lean").read_text("utf-8")
    report = check_attempt(demo, text)
    lines = {n for lo, hi in report.official_lines for n in range(lo, hi + 1)}
    given = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("theorem zero_add"))
    exercise = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("theorem PNat.ofNat_succ "))
    assert given in lines and exercise not in lines and exercise + 2 not in lines


def test_completing_the_official_file_passes(demo):
    assert check_attempt(demo, demo.complete(PROOF)).ok


def test_statement_is_extracted_without_body(demo):
    assert demo.statement == "theorem PNat.ofNat_succ (k : ℕ) : PNat.ofNat (Nat.succ k) = (PNat.ofNat k)⁺"
    assert demo.statement_line == 39 and demo.decl_name == "Demo.PNat.ofNat_succ" and demo.how == "exact"


def test_whitespace_that_changes_meaning_is_kept():
    assert token_keys(lex("f x.1").tokens) != token_keys(lex("f x .1").tokens)
    assert token_keys(lex("(f x).1").tokens) != token_keys(lex("(f x) .1").tokens)
    assert token_keys(lex("xs[i]").tokens) != token_keys(lex("xs [i]").tokens)
    assert token_keys(lex("f  (x:ℕ)  -- c\n").tokens) == token_keys(lex("f (x : ℕ)").tokens)


def test_report_is_data():
    report = IntegrityReport(violations=(Violation(kind="sorry", line=3, message="m"),))
    assert not report.ok and report.kinds() == ["sorry"] and str(report.violations[0]) == "line 3: sorry: m"


# --- the real releases ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def official_exercises():
    """Every well-formed official file of both releases, located from the pinned upstream rows."""
    from lemmata.benchmarks.taobench.meta import MATHLIB_V1, PAIRS_150, TAOBENCH_V1, TEXTBOOK_V1
    from lemmata.benchmarks.taobench.builder import load_rows
    from lemmata.release.sources import resolve_sources
    from lemmata.benchmarks.taobench.schema import MathlibRow, PairRow, TextbookRow

    src = resolve_sources(TAOBENCH_V1, [PAIRS_150, TEXTBOOK_V1, MATHLIB_V1])
    files = []
    for _, r in load_rows(src[PAIRS_150], PAIRS_150, PairRow):
        files += [("150/tao", r.FQN, r.TaoBench), ("150/mathlib", r.FQN, r.TaoBenchMathlib)]
    for name, model, kind in ((TEXTBOOK_V1, TextbookRow, "v1/tao"), (MATHLIB_V1, MathlibRow, "v1/mathlib")):
        files += [(kind, r.FQN, r.code) for _, r in load_rows(src[name], name, model)]
    out = []
    for kind, fqn, code in files:
        try:
            out.append((kind, fqn, locate(code, fqn)))
        except LexError:
            assert kind == "v1/tao", f"{kind} {fqn} does not lex"
    assert len(out) == 2 * 150 + 2 * 600 - 6
    return out


def test_every_official_statement_completed_with_a_proof_passes(official_exercises):
    failures = []
    for kind, fqn, ex in official_exercises:
        report = check_attempt(ex, ex.complete(PROOF))
        if not report.ok:
            failures.append((kind, fqn, [str(v) for v in report.violations]))
    assert failures == []


def test_real_attempts_are_caught(official_exercises):
    """Tampering with a real exercise is caught: statement, local definitions, sorry in the proof."""
    kind, fqn, ex = next(e for e in official_exercises if e[1] == "Chapter2.Nat.backwards_induction" and e[0] == "150/tao")
    honest = ex.complete(PROOF)
    weakened = honest.replace("∀ m, m ≤ n → P m", "∀ m, m = n → P m", 1)
    assert check_attempt(ex, weakened).kinds() == ["statement_changed"]
    redefined = honest.replace("le n m := ∃ a : Nat, m = n + a", "le n m := True", 1)
    assert check_attempt(ex, redefined).kinds() == ["prefix_changed"]
    assert check_attempt(ex, ex.complete(":= by\n  sorry\n")).kinds() == ["sorry"]
    commented = ex.complete(":= by\n  -- sorry is not used here\n  exact fun m _ => hn.elim\n")
    assert check_attempt(ex, commented).ok
    answered = honest + '\nelab "#print" "axioms" _x:ident : command => pure ()\n'
    assert check_attempt(ex, answered).kinds() == ["after_exercise", "not_permitted"]
    assert ex.statement in honest
    guarded = honest.replace(ex.statement, "#guard_msgs (drop all) in\n" + ex.statement, 1)
    assert check_attempt(ex, guarded).kinds() == ["not_permitted", "statement_changed"]
    native = ex.complete(":= by\n  decide (config := { kernel := true })\n")
    assert check_attempt(ex, native).kinds() == ["not_permitted"]


# --- command structure ----------------------------------------------------------------------------------------------


# -- helper declarations a model writes before the theorem: kept by the extractor, checked like the rest -----------

_HELPER = """/-- A helper of the model's own. -/
theorem PNat.ofNat_succ_aux (k : ℕ) : PNat.ofNat (k + 1) = (PNat.ofNat k)⁺ := rfl
"""
_THEOREM = """theorem PNat.ofNat_succ (k : ℕ) : PNat.ofNat (Nat.succ k) = (PNat.ofNat k)⁺ := by
  exact PNat.ofNat_succ_aux k
"""


def _reply(block: str) -> str:
    return f"First a helper, then the proof.\n```lean\n{block}```\n"


def test_helper_lemmas_before_the_theorem_survive_extraction_and_pass(demo):
    from lemmata.benchmarks.taobench.sampler import extract_proof

    attempt, reason = extract_proof(_reply(_HELPER + "\n" + _THEOREM), demo)
    assert reason is None
    assert attempt == demo.complete(":= by\n  exact PNat.ofNat_succ_aux k", _HELPER + "\n")
    # after the official context, before the exercise's own doc comment, which stays with the exercise
    assert attempt.index(_HELPER) < attempt.index("/-- Exercise:") < attempt.index("exact PNat.ofNat_succ_aux")
    assert attempt.index("end PNat") < attempt.index(_HELPER)
    assert check_attempt(demo, attempt).violations == ()
    # the extraction of runs made before helpers were kept drops it (and that attempt cannot use it)
    legacy, _ = extract_proof(_reply(_HELPER + "\n" + _THEOREM), demo, helpers=False)
    assert legacy == demo.complete(":= by\n  exact PNat.ofNat_succ_aux k") and _HELPER not in legacy


def test_a_block_repeating_the_official_context_keeps_only_its_own_helpers(demo):
    """A model that copies the file (without its imports) around its helper: the official commands are not
    carried twice, the helper is, and the file passes."""
    from lemmata.benchmarks.taobench.sampler import extract_proof

    source = demo.file.source
    context = source[source.index("namespace Demo"):source.index("/-- Exercise:")]
    block = context + _HELPER + "\n" + _THEOREM + "\nend Demo\n"
    attempt, _ = extract_proof(_reply(block), demo)
    assert attempt.count("theorem PNat.ofNat_succ_aux") == 1 and attempt.count("inductive PNat") == 1
    assert attempt.count("theorem zero_add") == 1 and check_attempt(demo, attempt).violations == ()


@pytest.mark.parametrize("helper, kind", [
    ("theorem PNat.ofNat_succ_aux (k : ℕ) : PNat.ofNat (k + 1) = (PNat.ofNat k)⁺ := by sorry\n", "sorry"),
    ("axiom PNat.cheat : False\n", "new_axiom"),
    ("theorem PNat.zero_add (m : PNat) : m = m := rfl\n", "redefinition"),
])
def test_a_helper_is_checked_like_the_rest_of_the_file(demo, helper, kind):
    from lemmata.benchmarks.taobench.sampler import extract_proof

    attempt, _ = extract_proof(_reply(helper + "\n" + _THEOREM), demo)
    assert helper.strip() in attempt
    line = attempt[:attempt.index(helper.strip())].count("\n") + 1
    assert (kind, line) in {(v.kind, v.line) for v in check_attempt(demo, attempt).violations}
