"""Graders: a judge that scores on a points scale (IMO-style 0-7) instead of answering yes/no.

A grader is a :class:`~lemmata.oracles.judge.Judge` whose reply is ``{"score": int, "reason": str}``; it
shares the judge's rubric templates, scoring artifact (``JudgeArtifact``: judge id and rubric hashes in
``ARTIFACT.json``) and hash-chained verdict cache, so a grade is recorded once, verified whenever read, and
a missing grade is *pending*. Only the top of the scale counts as correct; an unparsable reply is recorded
as 0 with the reply kept in the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.oracles.judge import MAX_REASON_CHARS, Judge, Rubric, parse_reply

#: the top of the IMO scale: only this grade counts as a correct solution
FULL_MARKS = 7


class Grade(BaseModel):
    """The only reply shape a grader may give."""

    model_config = ConfigDict(extra="forbid", strict=True)

    score: int = Field(ge=0, le=FULL_MARKS)
    reason: str = Field(max_length=MAX_REASON_CHARS)


@dataclass(frozen=True)
class GradeAnswer:
    """A grader's answer in the shape :meth:`JudgeArtifact.obtain` records (``verdict``, ``parsed``, ``raw``)."""

    verdict: Grade
    parsed: bool
    raw: str


def parse_grade(reply: str) -> Grade | None:
    """The grade in a reply that is exactly one JSON object (optionally in one ```json fence), else None.

    >>> parse_grade('{"score": 7, "reason": "complete"}')
    Grade(score=7, reason='complete')
    >>> parse_grade('{"score": 8, "reason": "r"}') is None, parse_grade('{"score": "7", "reason": "r"}') is None
    (True, True)
    >>> parse_grade('Score: 7') is None
    True
    """
    return parse_reply(reply, Grade)


def ungradable(raw: str) -> Grade:
    shown = raw.strip()
    if len(shown) > 500:
        shown = shown[:500] + " …"
    return Grade(score=0, reason=f"unparsable grader reply: {shown!r}")


def is_full_marks(verdict: Mapping[str, Any] | None) -> bool | None:
    """True only for a recorded, parsed 7; None while pending.

    >>> is_full_marks({"score": 7, "parsed": True}), is_full_marks({"score": 6}), is_full_marks(None)
    (True, False, None)
    """
    if verdict is None:
        return None
    return verdict.get("score") == FULL_MARKS and verdict.get("parsed", True) is True


class ChatGrader(Judge):
    """A grader behind an OpenAI-compatible chat-completions endpoint (the judge's endpoint settings)."""

    def __init__(self, config, *, sleep: Callable[[float], None] = time.sleep) -> None:
        from lemmata.oracles.chat import ChatClient

        self.config = config
        self.client = ChatClient(config, sleep=sleep)
        self.judge_id = config.resolved_judge_id

    def ask(self, rubric: Rubric, messages: list[dict[str, str]]) -> GradeAnswer:  # type: ignore[override]
        completion = self.client.complete(messages)
        text = completion.choices[0].message.content or ""
        grade = parse_grade(text)
        if grade is None:
            return GradeAnswer(verdict=ungradable(text), parsed=False, raw=text)
        return GradeAnswer(verdict=grade, parsed=True, raw=text)

    def describe(self) -> dict[str, Any]:
        return {"id": self.judge_id, "kind": "openai-chat-completions", "model": self.config.model,
                "temperature": 0.0, "scale": f"0-{FULL_MARKS}"}


def grader_from(judge: Any) -> Judge | None:
    """The grader for a configured oracle: a grader as is, a chat judge's endpoint as a grader, else None."""
    if judge is None:
        return None
    if isinstance(judge, ChatGrader) or getattr(judge, "grades", False):
        return judge
    config = getattr(judge, "config", None)
    from lemmata.oracles.chat import ChatConfig

    if isinstance(config, ChatConfig):
        return ChatGrader(config)
    return None
