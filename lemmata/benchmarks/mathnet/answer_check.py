"""math-verify under a bound: every comparison runs in a worker process with a wall-clock and a memory limit.

sympy can be made to compute for minutes and gigabytes by a short answer (nested factorials, huge binomials,
Gamma of a large number, towers of powers); math-verify's own timeouts use signals and hold only in the main
thread, and not even there while a C routine runs. So the comparison never runs in the caller: :func:`agree`
is the worker side (imported once per worker, light on purpose: no numpy), :func:`check` the caller's side,
which sends a file's pairs through a shared :class:`~lemmata.core.bounded.BoundedPool` with

- ``LEMMATA_ANSWER_CHECK_TIMEOUT_S`` seconds (default 1.5) and ``LEMMATA_ANSWER_CHECK_MEMORY_MB`` megabytes of
  address space (default 400) per comparison, in ``LEMMATA_ANSWER_CHECK_WORKERS`` processes (default 2);
- a budget per file: ``LEMMATA_ANSWER_CHECK_FILE_S`` seconds (default 30) may be lost to comparisons that hit
  the bound, and all of a file's comparisons together may take that plus :data:`PER_ANSWER_S` per answer
  (wall clock); comparisons not started when either is spent are not run.

A comparison that is cut off, or not run, counts as not equal; its reason says which bound it met.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lemmata.core.bounded import BoundedPool, Outcome, shared_pool

#: the worker-side function, as the pool imports it
TARGET = "lemmata.benchmarks.mathnet.answer_check:agree"
#: the longest answer handed to math-verify (the scorer truncates to it too)
MAX_ANSWER_CHARS = 500
#: comparisons each worker makes before its first real one (math-verify builds its parsers on first use)
WARM = ((r"\frac{1}{2}", "0.5"), (r"\{1, 2\}", r"\{2, 1\}"), ("x^2 + 1", "1 + x^2"), ("(1, 2)", "(1,2)"),
        (r"2\sqrt{2}", r"\sqrt{8}"), (r"\text{yes}", "yes"))
#: wall-clock seconds a file's comparisons may take per answer, beyond the file's own budget (honest answers
#: take about 0.03 s each)
PER_ANSWER_S = 0.1

#: the answer families the bound is measured against (the tests and ``perf/hostile_input_speed.py answer_bombs``):
#: one final answer each that would make sympy compute for minutes or gigabytes unless bounded or refused first
HOSTILE_ANSWERS: dict[str, str] = {
    "nested factorials": r"((10!)!)!",
    "nested factorials, \\left": r"\left(\left(10!\right)!\right)!",
    "factorial of a power": r"(10^8)!",
    "double factorial": r"(10^{6})!!",
    "large factorial": r"100000000!",
    "huge binomial": r"\binom{10^9}{5 \cdot 10^8}",
    "huge binomial, braced": r"\binom{10^{9}}{10^{8}}",
    "Gamma of a large number": r"\Gamma(10^8)",
    "Gamma, \\left": r"\Gamma\left(10^{9}\right)",
    "tower in parentheses": r"(9^9)^(9^9)",
    "tower of braced parentheses": r"((2^{9999})^{9999})^{9999}",
    "power of a factorial": r"(10!)^{(10!)}",
    "deep parentheses": "(" * 200 + "1" + ")" * 200,
    "fraction chain of factorials": r"\frac{10^{9999}!}{" * 3 + "2" + "}" * 3,
    "plain tower": "9^{9^{9}}",
    "huge literal": "9" * 80,
    "power of a huge exponent": "2^{100000}",
}


@dataclass(frozen=True)
class Limits:
    """The answer check's bounds (see the module docstring); :func:`limits` reads them from the settings."""

    seconds: float = 1.5
    memory_mb: int = 400
    workers: int = 2
    file_s: float = 30.0

    @property
    def bound(self) -> str:
        return f"{self.seconds:g} s / {self.memory_mb} MB"

    def budget_s(self, answers: int) -> float:
        """Wall-clock seconds a file of ``answers`` comparisons may take in all."""
        return self.file_s + PER_ANSWER_S * answers


def limits(environ: Mapping[str, str] | None = None) -> Limits:
    """The bounds set by ``LEMMATA_ANSWER_CHECK_*`` (defaults otherwise; a value that is not a positive number
    is refused by name)."""
    from lemmata.core.errors import LemmataError
    from lemmata.core.settings import read

    values = {}
    for field, name, kind in (("seconds", "TIMEOUT_S", float), ("memory_mb", "MEMORY_MB", int),
                              ("workers", "WORKERS", int), ("file_s", "FILE_S", float)):
        raw = read("LEMMATA_ANSWER_CHECK_" + name, environ)
        if raw is None:
            continue
        try:
            value = kind(raw)
        except ValueError:
            value = 0
        if not value > 0 or value != value or value == float("inf"):
            raise LemmataError(f"LEMMATA_ANSWER_CHECK_{name}={raw!r} is not a positive number")
        values[field] = value
    return Limits(**values)


def pool(lim: Limits) -> BoundedPool:
    return shared_pool(TARGET, workers=lim.workers, seconds=lim.seconds, memory_mb=lim.memory_mb, warm=WARM)


def check(pairs: Sequence[tuple[str, str]], lim: Limits | None = None) -> list[tuple[bool, str | None]]:
    """Each ``(reference, candidate)`` pair's verdict, and why it was not checked to the end (None when it was)."""
    if not pairs:
        return []
    from importlib.util import find_spec

    if find_spec("math_verify") is None:
        from lemmata.core.errors import LemmataError

        raise LemmataError("the MathNet answer check needs math-verify: pip install 'lemmata[mathnet]'")
    lim = lim or limits()
    outcomes = pool(lim).map([list(p) for p in pairs], budget_s=lim.budget_s(len(pairs)), overrun_s=lim.file_s,
                             label="the file's answer check")
    return [verdict(o, lim) for o in outcomes]


def verdict(outcome: Outcome, lim: Limits) -> tuple[bool, str | None]:
    """A comparison's outcome as the scorer records it: equal only when math-verify said so within the bound."""
    if outcome.ok:
        if outcome.near_cap and outcome.value is not True:
            return False, f"answer check exceeded its bound ({lim.bound}): out of memory"
        return outcome.value is True, None
    if outcome.bound == "budget":
        return False, f"answer check {outcome.reason or 'not run'}"
    if outcome.bound == "error":
        return False, f"answer check {outcome.reason or 'failed'}"
    return False, f"answer check exceeded its bound ({lim.bound}): {outcome.reason or outcome.bound}"


# -- the worker side -----------------------------------------------------------------------------------------

class _Swallowed(logging.Handler):
    """Notices the out-of-memory and recursion errors math-verify catches and logs at debug level."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: BaseException | None = None

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, (MemoryError, RecursionError)) and self.seen is None:
            self.seen = exc


_WATCH: _Swallowed | None = None


def _latex(answer: str) -> str:
    text = answer.strip()
    return text if "$" in text or "\\boxed" in text else f"${text}$"


def agree(reference: str, candidate: str) -> bool:
    r"""Whether math-verify finds ``candidate`` equal to ``reference`` (run in a bounded worker: no timeouts of
    its own, which would need signals). An out-of-memory error math-verify swallowed is raised again, so the
    pool records the bound."""
    global _WATCH
    from math_verify import parse, verify

    if _WATCH is None:
        _WATCH = _Swallowed()
        for name in ("math_verify", "latex2sympy2_extended"):
            log = logging.getLogger(name)
            log.setLevel(logging.DEBUG)
            log.addHandler(_WATCH)
            log.propagate = False
    _WATCH.seen = None
    gold = parse(_latex(reference), parsing_timeout=None)  # type: ignore[arg-type]
    pred = parse(_latex(candidate[:MAX_ANSWER_CHARS]), parsing_timeout=None)  # type: ignore[arg-type]
    same = bool(gold) and bool(pred) and bool(verify(gold, pred, timeout_seconds=None))
    if not same and _WATCH.seen is not None:
        raise _WATCH.seen
    return same
