"""MathNet-Solve scoring units: math-verify agreement and disagreement, final-answer extraction, grade parsing,
averages; the two columns never feed each other."""

from __future__ import annotations

import pytest

from lemmata.benchmarks.mathnet.solve_scoring import ItemOutcome, answers_agree, final_answer_of, summarize
from lemmata.oracles.grader import is_full_marks, parse_grade


@pytest.mark.parametrize("reference, candidate, agree", [
    (r"\frac12", "0.5", True),
    (r"\frac{1}{2}", r"$\frac{2}{4}$", True),
    ("144", "144.0", True),
    (r"\{1, 2\}", r"\{2, 1\}", True),
    (r"2\sqrt{2}", r"\sqrt{8}", True),
    ("9", "18", False),
    (r"\frac12", "0.51", False),
    ("32", None, False),
    ("32", "", False),
])
def test_math_verify_agreement_and_disagreement(reference, candidate, agree):
    assert answers_agree(reference, candidate) is agree


@pytest.mark.parametrize("solution, declared, expected", [
    (r"so the answer is \boxed{\frac{1}{2}}.", None, r"\frac{1}{2}"),
    (r"first \boxed{1}, corrected: \boxed{2}", None, "2"),
    ("Final answer: $0.5$", None, "$0.5$"),
    ("**Final answer:** 7", None, "7"),
    ("no answer here", None, None),
    (r"\boxed{3}", "4", "4"),
])
def test_final_answer_extraction(solution, declared, expected):
    assert final_answer_of(solution, declared) == expected


@pytest.mark.parametrize("reply, score", [
    ('{"score": 7, "reason": "complete"}', 7),
    ('```json\n{"score": 0, "reason": "wrong"}\n```', 0),
    ('{"score": 7.0, "reason": "r"}', None),
    ('{"score": 9, "reason": "r"}', None),
    ('{"score": 7}', None),
    ("The score is 7.", None),
])
def test_grades_parse_strictly(reply, score):
    grade = parse_grade(reply)
    assert (grade.score if grade else None) == score


def test_only_a_parsed_seven_counts_and_pending_is_never_success():
    assert is_full_marks({"score": 7, "parsed": True}) and not is_full_marks({"score": 7, "parsed": False})
    outcomes = [ItemOutcome("a", "algebra", "English", False, "proof only", 7, True, None),
                ItemOutcome("b", "algebra", "English", False, "proof only", None, None, True),
                ItemOutcome("c", "geometry", "Spanish", True, "answer only", 3, False, False),
                ItemOutcome("d", "geometry", "Spanish", True, "answer only", 7, True, True)]
    m = summarize(outcomes)
    pg = m["proof_grade"]
    assert pg["count"] == 2 and pg["pending"] == 1 and pg["micro"] == 0.5 and pg["bounds"] == [0.5, 0.75]
    assert pg["macro"] == pytest.approx((1 / 2 + 1 / 2) / 2)
    # the answer check counts only problems with a stated answer, whatever their grade
    assert m["answer_check"]["count"] == 2 and m["answer_check"]["total"] == 3
