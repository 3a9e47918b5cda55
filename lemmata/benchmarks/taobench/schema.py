"""Pydantic models of the upstream TaoBench rows: every field checked before a release is built."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from lemmata.core.models import Frozen

_SECTION = r"^Section_(\d+)_(\d+)$"
_FQN = r"^\S+$"


class _Row(Frozen):
    index: int = Field(ge=0)
    chapter_name: str = Field(pattern=_SECTION, description="upstream section id, e.g. 'Section_5_4'")
    FQN: str = Field(pattern=_FQN, min_length=1)

    @property
    def chapter(self) -> int:
        return int(re.match(_SECTION, self.chapter_name).group(1))  # type: ignore[union-attr]

    @property
    def section(self) -> str:
        m = re.match(_SECTION, self.chapter_name)
        return f"{m.group(1)}.{m.group(2)}"  # type: ignore[union-attr]


class PairRow(_Row):
    """One line of ``TaoBench_TaoBenchMathlib.jsonl``: both formulations in one record."""

    TaoBench: str = Field(min_length=1, description="Lean file in Tao's definitional framework")
    TaoBenchMathlib: str = Field(min_length=1, description="Lean file of the Mathlib twin")


class TextbookRow(_Row):
    """One line of ``TaoBenchAnalysis_textbook.jsonl`` (v1)."""

    lean_version: str = Field(pattern=r"^leanprover/lean4:v\S+$")
    textbook_commit: str = Field(pattern=r"^[0-9a-f]{7,40}$")
    source: Literal["Tao_Version"]
    code: str = Field(min_length=1)
    origin: str = Field(min_length=1)


class MathlibRow(_Row):
    """One line of ``TaoBenchAnalysis_mathlib.jsonl`` (v1)."""

    exercise_enumeration: str | None = None
    lean_version: str = Field(pattern=r"^leanprover/lean4:v\S+$")
    source: Literal["mathlib_code"]
    origin: str = Field(min_length=1)
    code: str = Field(min_length=1)
