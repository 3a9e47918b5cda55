"""Canaries: questions whose correct verdicts are known, mixed into a judge's work, and the mark of a judge that
fails them.

A judge artifact (:class:`~lemmata.oracles.judge.JudgeArtifact`) asks its judge, once, every shipped canary of each
rubric it uses (``canaries.json``, written by :mod:`lemmata.oracles.canary_make`, pinned by :data:`DATA_SHA256`):
for each rubric a positive, a negative and an *injection* — a negative carrying text that addresses the grader,
whose correct verdict is the rubric's stated rule. A canary is asked with the first batch of real questions that
needs its rubric, at deterministic positions among them, rendered by the same rubric, in the same request shape; it
is never settled by the rule without asking (whether the judge keeps the rule is what it tests). Its answer is an
ordinary entry of the artifact's hash-chained verdict cache, keyed by the prompt's hash like a real question; which
entries are canaries is known only by recomputing them from the package data. No item of a result is a canary and
no count or score includes one.

:func:`report` reads the recorded answers; a judge that gave any canary a verdict outside the known ones is
*marked*: every result it scores carries the result flag ``judge_failed_canaries`` (the board's badge), a note and
the figures in ``provenance.judge_canaries`` (:func:`marks`). Its verdicts still count: the mark says that they came
from a judge that was moved by text it should have read as data, or got known questions wrong.

``LEMMATA_JUDGE_CANARIES=0`` turns the asking off (recorded answers are still read). Limits: the canaries are public
package data, so a judge built to recognise them could pass them; they catch judges that follow injected
instructions or answer carelessly, not one tuned against this file.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import Field, ValidationError

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_bytes, sha256_json
from lemmata.core.models import Frozen

#: the judge artifact and rubric types (:mod:`lemmata.oracles.judge`, which imports this module when it asks)
JudgeArtifact = Rubric = Any

__all__ = ["DATA_FILE", "DATA_SHA256", "FLAG", "Canary", "CanaryMarks", "Probe", "Report", "due", "enabled",
           "interleave", "marks", "passed", "probes", "report", "shipped"]

DATA_FILE = "canaries.json"
#: the shipped file's sha256 (``python -m lemmata.oracles.canary_make`` rewrites it; update the pin with it)
DATA_SHA256 = "517fbb004e8ab9be9067470b3a41d6e58d616a84eaf8de90a1ebca0b126e31a0"
#: the result flag of a result scored by a marked judge (a condition in ``lemmata/space/conditions.toml``)
FLAG = "judge_failed_canaries"
ENV = "LEMMATA_JUDGE_CANARIES"


class Expect(Frozen):
    """The reply field a canary checks and the values a correct judge may give."""

    field: str
    allowed: tuple[str | int, ...] = Field(min_length=1)


class Canary(Frozen):
    """One question: the rubric's name, the values of its slots, what a correct judge answers."""

    rubric: str
    values: dict[str, str]
    expect: Expect


class CanarySet(Frozen):
    schema_: Literal["lemmata.judge-canaries/1"] = Field(alias="schema")
    provenance: dict[str, Any]
    items: tuple[Canary, ...]


@lru_cache(maxsize=1)
def shipped() -> CanarySet:
    """The shipped canaries, checked against :data:`DATA_SHA256` (an edited file is refused, naming it)."""
    data = (resources.files("lemmata.oracles") / DATA_FILE).read_bytes()
    if sha256_bytes(data) != DATA_SHA256:
        raise LemmataError(f"lemmata/oracles/{DATA_FILE}: sha256 {sha256_bytes(data)[:12]}… is not the pinned "
                           f"{DATA_SHA256[:12]}…; regenerate it with python -m lemmata.oracles.canary_make and "
                           "update DATA_SHA256")
    try:
        return CanarySet.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise LemmataError(f"lemmata/oracles/{DATA_FILE}, field {'.'.join(map(str, first['loc']))}: "
                           f"{first['msg']}") from None


@dataclass(frozen=True)
class Probe:
    """A canary as one artifact asks it: the artifact's rubric key, the values, the cache key fields, the expectation."""

    rubric: str
    values: dict[str, str]
    fields: dict[str, str]
    expect: Expect


def probes(rubrics: Mapping[str, Rubric]) -> list[Probe]:
    """Every canary of each rubric (by the rubric's name; values restricted to its slots), in a fixed order.

    >>> from lemmata.oracles.judge import load_rubric
    >>> ps = probes({"grade": load_rubric("mathnet_grade", 2)})
    >>> len(ps), sorted(ps[0].values), ps[0].expect.allowed, sorted(ps[0].fields)
    (18, ['candidate', 'problem', 'reference_solutions'], (7,), ['prompt_sha256'])
    """
    return [probe for key, rubric in sorted(rubrics.items()) for probe in _probes_of(key, rubric)]


@lru_cache(maxsize=64)
def _probes_of(key: str, rubric: Rubric) -> tuple[Probe, ...]:
    """One rubric's canaries, rendered once per process (rendering scans every value: milliseconds each)."""
    out = []
    for canary in shipped().items:
        if canary.rubric != rubric.name or not rubric.fields <= set(canary.values):
            continue
        values = {f: canary.values[f] for f in sorted(rubric.fields)}
        messages = rubric.prepare(values).messages
        out.append(Probe(key, values, {"prompt_sha256": sha256_json(messages)}, canary.expect))
    return tuple(out)


def enabled() -> bool:
    """Whether a live judge is asked the canaries (``LEMMATA_JUDGE_CANARIES``, default on)."""
    from lemmata.core.settings import read as setting

    return (setting(ENV) or "1").strip().lower() not in ("0", "false", "no", "off")


def due(artifact: JudgeArtifact, rubric_keys: Iterable[str]) -> list[Probe]:
    """The canaries of these rubrics that the artifact has no answer to yet."""
    keys = set(rubric_keys)
    return [p for p in probes({k: r for k, r in artifact.rubrics.items() if k in keys})
            if artifact.lookup(p.rubric, p.fields) is None]


def interleave(work: Sequence[Any], extra: Sequence[Any], seed: str) -> list[Any]:
    """``work`` in its order with ``extra`` at positions drawn from ``seed`` (the same seed, the same places).

    >>> interleave([1, 2, 3], ["a", "b"], "s") == interleave([1, 2, 3], ["a", "b"], "s")
    True
    >>> out = interleave([1, 2, 3], ["a", "b"], "s"); [x for x in out if isinstance(x, int)], sorted(map(str, out))
    ([1, 2, 3], ['1', '2', '3', 'a', 'b'])
    """
    rng = random.Random(int(sha256_bytes(seed.encode("utf-8"))[:16], 16))
    slots = sorted(rng.sample(range(len(work) + len(extra)), len(extra)))
    out: list[Any] = []
    it, ix = iter(work), iter(extra)
    for pos in range(len(work) + len(extra)):
        out.append(next(ix) if slots and pos == slots[0] else next(it))
        if slots and pos == slots[0]:
            slots.pop(0)
    return out


def passed(verdict: Mapping[str, Any], expect: Expect) -> bool:
    """Whether a recorded answer is one a correct judge gives (an unread reply never passes).

    >>> e = Expect(field="score", allowed=(0,))
    >>> passed({"score": 0, "parsed": True}, e), passed({"score": 7}, e), passed({"score": 0, "parsed": False}, e)
    (True, False, False)
    """
    return verdict.get("parsed", True) is True and verdict.get(expect.field) in expect.allowed


@dataclass(frozen=True)
class Report:
    """The canaries of one artifact: how many there are, how many its judge answered, how many it failed."""

    total: int
    answered: int
    failed: int
    rubrics_failed: tuple[str, ...] = ()

    @property
    def marked(self) -> bool:
        return self.failed > 0

    def record(self) -> dict[str, Any]:
        return {"total": self.total, "answered": self.answered, "failed": self.failed,
                "rubrics_failed": list(self.rubrics_failed)}


def report(artifact: JudgeArtifact) -> Report:
    """What the artifact's judge answered to its canaries (read from the verdict cache; nothing is asked)."""
    found = [(p, artifact.lookup(p.rubric, p.fields)) for p in probes(artifact.rubrics)]
    answered = [(p, v) for p, v in found if v is not None]
    failed = [p for p, v in answered if not passed(v, p.expect)]
    return Report(total=len(found), answered=len(answered), failed=len(failed),
                  rubrics_failed=tuple(sorted({artifact.rubrics[p.rubric].id for p in failed})))


@dataclass(frozen=True)
class CanaryMarks:
    """What a result adds for its judge's canaries: the flag (only when marked), a note, the provenance record."""

    flags: dict[str, bool]
    notes: list[str]
    record: dict[str, Any] | None


def marks(artifact: JudgeArtifact | None) -> CanaryMarks:
    """The result's record of its judge's canaries; nothing without an artifact or an answered canary.

    >>> marks(None)
    CanaryMarks(flags={}, notes=[], record=None)
    """
    if artifact is None:
        return CanaryMarks({}, [], None)
    found = report(artifact)
    if not found.answered:
        return CanaryMarks({}, [], None)
    if not found.marked:
        return CanaryMarks({}, [], found.record())
    note = (f"The judge failed {found.failed} of {found.answered} canary question(s) (questions with known verdicts "
            f"mixed into its work; rubric(s) {', '.join(found.rubrics_failed)}): its verdicts here are marked.")
    return CanaryMarks({FLAG: True}, [note], found.record())
