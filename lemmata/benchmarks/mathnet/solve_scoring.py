"""MathNet-Solve scoring: the proof grade (a grader model, 0-7, only 7 counts) and the answer check (math-verify).

Two columns that measure different things and are never merged:

- **ProofGrade**: the paper's protocol. A grader sees the problem, the reference solutions and the candidate
  and returns 0-7 with a reason (rubric ``mathnet_grade.v2``, its inputs fenced as data). Grades live in the grader's
  :class:`~lemmata.oracles.judge.JudgeArtifact` (judge id + rubric hash, hash-chained cache). A candidate with
  no grade is *pending*: it is reported between a lower bound (pending fails) and an upper bound (pending
  succeeds), never as a success. An abstention or an empty solution is settled at 0 without asking.
- **AnswerCheck**: for problems that state a final answer, ``math-verify`` compares the candidate's final
  answer (its last ``\\boxed{}``, else a ``Final answer:`` line) with the reference. Problems without a stated
  answer are outside this column's population. Every comparison runs in a worker process under a wall-clock and
  memory bound, with a time budget per file (:mod:`~lemmata.benchmarks.mathnet.answer_check`); one cut off counts
  as not equal, and its item's ``answer_check_reason`` says why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from lemmata.benchmarks.mathnet import answer_check
from lemmata.core.hashing import sha256_bytes
from lemmata.metrics.intervals import wilson_interval
from lemmata.oracles.grader import FULL_MARKS

#: the grader's rubric: mathnet_grade.v1 with every inserted text fenced as data (lemmata.oracles.fence)
RUBRIC = ("mathnet_grade", 2)
BENCHMARK = "mathnet-solve"
_FINAL_LINE = re.compile(r"(?im)final answer(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*(?P<ans>.+?)\s*$")
#: the longest final answer handed to math-verify (bounded parsing time)
MAX_ANSWER_CHARS = answer_check.MAX_ANSWER_CHARS
#: every comparison runs in a bounded worker process (:mod:`~lemmata.benchmarks.mathnet.answer_check`); these
#: cheap limits refuse before it what is plainly too big (towers of powers, huge literals): not checked (False)
MAX_POWERS = 8
_LONG_NUMBER = re.compile(r"\d{60,}")
#: a power inside an exponent (a tower) or an exponent of five digits or more
_HUGE_POWER = re.compile(r"(\^|\*\*)\s*(\{[^{}]*(\^|\*\*)|[\w.]+\s*(\^|\*\*)|\{?\s*\d{5,})")


def last_boxed(text: str) -> str | None:
    r"""The content of the last ``\boxed{...}`` (balanced braces), or None.

    >>> last_boxed(r"so \boxed{1} or rather \boxed{\frac{1}{2}}.")
    '\\frac{1}{2}'
    >>> last_boxed("no box") is None, last_boxed(r"\boxed{unclosed") is None
    (True, True)
    """
    start = text.rfind("\\boxed{")
    while start >= 0:
        depth, i = 0, start + len("\\boxed{") - 1
        for j in range(i, min(len(text), i + 10 * MAX_ANSWER_CHARS)):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    return text[i + 1:j].strip()
        start = text.rfind("\\boxed{", 0, start)
    return None


def final_answer_of(solution: str, declared: str | None = None) -> str | None:
    r"""The candidate's final answer: the one it declared, else its last ``\boxed{}``, else a ``Final answer:`` line.

    >>> final_answer_of("... Final answer: $0.5$")
    '$0.5$'
    >>> final_answer_of(r"thus \boxed{9}", declared=None), final_answer_of("x", declared=" 7 ")
    ('9', '7')
    """
    if declared is not None and declared.strip():
        return declared.strip()[:MAX_ANSWER_CHARS]
    boxed = last_boxed(solution)
    if boxed:
        return boxed[:MAX_ANSWER_CHARS]
    lines = _FINAL_LINE.findall(solution)
    return lines[-1].strip()[:MAX_ANSWER_CHARS] if lines else None


def math_verify_version() -> str:
    try:
        return metadata.version("math-verify")
    except metadata.PackageNotFoundError:
        return "missing"


def answers_agree(reference: str, candidate: str | None) -> bool:
    r"""Whether ``math-verify`` finds the candidate's final answer equal to the reference (within the bound).

    >>> answers_agree(r"\frac{1}{2}", "0.5"), answers_agree(r"\frac12", r"$\frac{1}{2}$"), answers_agree("9", "8")
    (True, True, False)
    >>> answers_agree("144", None), answers_agree(r"\{1, 2\}", r"\{2, 1\}")
    (False, True)
    """
    return check_answers([(reference, candidate)])[0][0]


def check_answers(pairs: Sequence[tuple[str, str | None]],
                  limits: answer_check.Limits | None = None) -> list[tuple[bool, str | None]]:
    r"""Each ``(reference, candidate)`` pair's verdict and, when it was not checked to the end, why.

    A missing answer is not equal (no reason needed); one :func:`_tame` refuses is not handed to math-verify;
    the rest go through the bounded checker together (one file's budget), where a comparison cut off by its
    bound counts as not equal with the bound as its reason.

    >>> check_answers([("2", None), ("2", "9^{9^{9}}")])
    [(False, None), (False, 'answer not checked: too large for the checker (a tower or over 8 powers, a huge literal)')]
    """
    out: list[tuple[bool, str | None]] = [(False, None)] * len(pairs)
    where: list[int] = []
    todo: list[tuple[str, str]] = []
    for i, (reference, candidate) in enumerate(pairs):
        if candidate is None or not candidate.strip():
            continue
        if not _tame(candidate) or not _tame(reference):
            which = "answer" if not _tame(candidate) else "reference"
            out[i] = (False, f"{which} not checked: too large for the checker (a tower or over {MAX_POWERS} powers, "
                             "a huge literal)")
            continue
        where.append(i)
        todo.append((reference, candidate))
    for i, verdict in zip(where, answer_check.check(todo, limits)):
        out[i] = verdict
    return out


def start_answer_check() -> None:
    """Start the bounded checker's workers now, without waiting (they import math-verify meanwhile)."""
    from importlib.util import find_spec

    if find_spec("math_verify") is not None:
        answer_check.pool(answer_check.limits()).start()


def _tame(answer: str) -> bool:
    r"""Whether an answer is small enough for sympy to compare in bounded time.

    >>> _tame(r"\frac{1}{2}"), _tame("2^{n} - 1 + x^2"), _tame("9^{9^{9}}"), _tame("9^9^9"), _tame("2^{100000}")
    (True, True, False, False, False)
    >>> _tame("x^2 + y^2 = z^2"), _tame("1" * 80)
    (True, False)
    """
    return (len(answer) <= MAX_ANSWER_CHARS and answer.count("^") + answer.count("**") <= MAX_POWERS
            and not _LONG_NUMBER.search(answer) and not _HUGE_POWER.search(answer))


def grade_fields(problem_id: str, problem: str, references: Sequence[str], candidate: str) -> dict[str, str]:
    """What a grade is keyed by in the verdict cache: the problem, its references and the candidate, by hash."""
    return {"problem_id": problem_id, "problem_sha256": sha256_bytes(problem.encode("utf-8")),
            "references_sha256": sha256_bytes("\n\x00\n".join(references).encode("utf-8")),
            "candidate_sha256": sha256_bytes(candidate.encode("utf-8"))}


def grade_values(problem: str, references: Sequence[str], candidate: str) -> dict[str, str]:
    refs = "\n\n".join(f"Reference solution {i}:\n{r}" for i, r in enumerate(references, start=1))
    return {"problem": problem, "reference_solutions": refs, "candidate": candidate}


# -- aggregation ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ItemOutcome:
    """One problem's outcome: proof grade (None = pending) and answer check (None = no stated answer)."""

    problem_id: str
    domain: str
    language: str
    has_images: bool
    problem_type: str
    grade: int | None
    correct: bool | None
    answer_ok: bool | None


def _rate(outcomes: Sequence[ItemOutcome]) -> dict[str, Any]:
    total = len(outcomes)
    count = sum(o.correct is True for o in outcomes)
    pending = sum(o.correct is None for o in outcomes)
    checked = [o for o in outcomes if o.answer_ok is not None]
    ok = sum(o.answer_ok is True for o in checked)
    out: dict[str, Any] = {"total": total, "proof_grade": {"count": count, "pending": pending,
                                                            "rate": count / total if total else None,
                                                            "upper": (count + pending) / total if total else None}}
    out["answer_check"] = {"count": ok, "total": len(checked), "rate": ok / len(checked) if checked else None}
    return out


def breakdowns(outcomes: Sequence[ItemOutcome]) -> dict[str, dict[str, Any]]:
    """Rates by domain, language, image presence and problem type (sorted keys)."""
    keys = {"by_domain": lambda o: o.domain, "by_language": lambda o: o.language,
            "by_images": lambda o: "with images" if o.has_images else "text only",
            "by_problem_type": lambda o: o.problem_type}
    out: dict[str, dict[str, Any]] = {}
    for name, key in keys.items():
        groups: dict[str, list[ItemOutcome]] = {}
        for o in outcomes:
            groups.setdefault(key(o), []).append(o)
        out[name] = {g: _rate(v) for g, v in sorted(groups.items())}
    return out


def macro_micro(flags: Sequence[bool], domains: Sequence[str], *, n_resamples: int = 1000,
                seed: int = 0) -> dict[str, Any]:
    """Micro average (over problems, Wilson 95%) and macro average (mean over domains, stratified bootstrap 95%).

    >>> r = macro_micro([True, True, False, False], ["a", "a", "b", "b"], n_resamples=200)
    >>> r["micro"], r["macro"], r["micro_wilson95"][0] < 0.5 < r["micro_wilson95"][1]
    (0.5, 0.5, True)
    """
    x = np.asarray(flags, dtype=np.float64)
    n = len(x)
    if n == 0:
        return {"micro": None, "macro": None}
    labels = sorted(set(domains))
    codes = np.array([labels.index(d) for d in domains])
    per = [x[codes == c].mean() for c in range(len(labels))]
    rng = np.random.default_rng(seed)
    boots = np.empty(n_resamples)
    members = [np.flatnonzero(codes == c) for c in range(len(labels))]
    for b in range(n_resamples):
        boots[b] = np.mean([x[rng.choice(m, size=len(m))].mean() for m in members])
    lo, hi = np.percentile(boots, [2.5, 97.5])
    count = int(x.sum())
    return {"micro": count / n, "micro_wilson95": list(wilson_interval(count, n)),
            "macro": float(np.mean(per)), "macro_bootstrap95": [float(lo), float(hi)],
            "macro_domains": {lab: float(v) for lab, v in zip(labels, per)}}


def summarize(outcomes: Sequence[ItemOutcome]) -> dict[str, Any]:
    """The result's metrics: ProofGrade (confirmed, bounds, macro/micro) and AnswerCheck, over one population."""
    lower = [o.correct is True for o in outcomes]
    upper = [o.correct is not False for o in outcomes]
    domains = [o.domain for o in outcomes]
    checked = [o for o in outcomes if o.answer_ok is not None]
    out: dict[str, Any] = {
        "problems": len(outcomes),
        "proof_grade": {**macro_micro(lower, domains), "count": sum(lower), "total": len(outcomes),
                        "pending": sum(o.correct is None for o in outcomes),
                        "bounds": [sum(lower) / len(outcomes), sum(upper) / len(outcomes)] if outcomes else None,
                        "full_marks": FULL_MARKS,
                        "grade_histogram": {str(g): sum(o.grade == g for o in outcomes) for g in range(FULL_MARKS + 1)}},
        "answer_check": ({**macro_micro([o.answer_ok is True for o in checked], [o.domain for o in checked]),
                          "count": sum(o.answer_ok is True for o in checked), "total": len(checked)}
                         if checked else {"count": 0, "total": 0, "micro": None, "macro": None}),
    }
    return out


def scoring_artifact_id(judge_artifact_id: str | None) -> str:
    """The frozen tuple's scoring artifact: the grader's artifact (judge id + rubric) and the answer checker."""
    grader = judge_artifact_id or f"{BENCHMARK}-judge:none:{RUBRIC[0]}.v{RUBRIC[1]}"
    return f"{grader}+math-verify-{math_verify_version()}"


def as_grade(verdict: Mapping[str, Any] | None) -> int | None:
    if verdict is None:
        return None
    score = verdict.get("score")
    return int(score) if isinstance(score, int) and not isinstance(score, bool) else 0
