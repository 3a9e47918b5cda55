"""Graders: a judge that scores on a points scale (IMO-style 0-7) instead of answering yes/no.

A grader is a :class:`~lemmata.oracles.judge.Judge` whose reply is ``{"score": int, "reason": str}``; it
shares the judge's rubric templates, scoring artifact (``JudgeArtifact``: judge id and rubric hashes in
``ARTIFACT.json``) and hash-chained verdict cache, so a grade is recorded once, verified whenever read, and
a missing grade is *pending*. Only the top of the scale counts as correct; an unparsable reply is recorded
as 0 with the reply kept in the reason. Under a fenced rubric (``mathnet_grade.v2``) the candidate is shown as data
and one that addresses the grader is graded 0 by the rubric's rule without asking (:mod:`lemmata.oracles.fence`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.oracles.chat import ChatConfig, ChatJudge
from lemmata.oracles.judge import MAX_REASON_CHARS, Judge, parse_reply, shown_reply

#: the top of the IMO scale: only this grade counts as a correct solution
FULL_MARKS = 7


class Grade(BaseModel):
    """The only reply shape a grader may give."""

    model_config = ConfigDict(extra="forbid", strict=True)

    score: int = Field(ge=0, le=FULL_MARKS)
    reason: str = Field(max_length=MAX_REASON_CHARS)


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
    """The zero grade recorded for a reply that is not a grade object (the reply is kept in the reason)."""
    return Grade(score=0, reason=f"unparsable grader reply: {shown_reply(raw)!r}")


def is_full_marks(verdict: Mapping[str, Any] | None) -> bool | None:
    """True only for a recorded, parsed 7; None while pending.

    >>> is_full_marks({"score": 7, "parsed": True}), is_full_marks({"score": 6}), is_full_marks(None)
    (True, False, None)
    """
    if verdict is None:
        return None
    return verdict.get("score") == FULL_MARKS and verdict.get("parsed", True) is True


class ChatGrader(ChatJudge):
    """A grader behind an OpenAI-compatible chat-completions endpoint (the judge's endpoint settings)."""

    read_reply = staticmethod(parse_grade)
    when_unreadable = staticmethod(ungradable)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "scale": f"0-{FULL_MARKS}"}


def grader_from(judge: Any) -> Judge | None:
    """The grader for a configured oracle: a grader as is, a chat judge's endpoint as a grader, else None."""
    if judge is None:
        return None
    if isinstance(judge, ChatGrader) or getattr(judge, "grades", False):
        return judge
    config = getattr(judge, "config", None)
    if isinstance(config, ChatConfig):
        return ChatGrader(config)
    return None
