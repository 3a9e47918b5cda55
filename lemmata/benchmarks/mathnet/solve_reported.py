"""The MathNet paper's problem-solving tables (3, 4 and 8) as *reported* leaderboard rows.

Every printed number is kept as printed (stored as a fraction, the printed percent in ``provenance``). The
rows are ``kind="reported"`` on the paper's own test sets (``paper/test-set-small``, ``paper/test-set-large``,
which upstream has not published by id), so they never share a frozen-tuple group with rows scored here on
Lemmata's subsets. Within the paper's rows, human expert grading, the average of four LLM graders and each
single grader are separate scoring artifacts, so they are never ranked together either; the condition
(zero-shot, the paper's embedding retriever, expert retrieval) is the retrieval artifact.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from lemmata.core.models import Frozen
from lemmata.benchmarks.mathnet.solve_meta import MATHNET_SOLVE
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score
from lemmata.tracks.reported import (
    PrintedTable, Transcription, disagreement, import_results, percent, pinned_transcription, reported_result,
)

#: the transcription this module reads (shipped in ``transcriptions/``), pinned by sha256
PAPER = Transcription(package=__package__, file="mathnet_solve_paper.json",
                      sha256="e0e254c9823ece587a9fb513a68e93ac3a0f06e582346610f168c224a8239fe5",
                      paper=MATHNET_SOLVE.paper_url,
                      tables=(PrintedTable(name="test_set_small", paper_table="Table 3"),
                              PrintedTable(name="test_set_large_zero_shot", paper_table="Table 4"),
                              PrintedTable(name="test_set_small_graders", paper_table="Table 8")))
TRANSCRIPTION, SHA256 = PAPER.file, PAPER.sha256
DATE = "2026-04-20"
#: the paper's conditions -> this track's names and retrieval artifacts
CONDITIONS = {"zero_shot": ("zero-shot", "paper:zero-shot"),
              "embed_rag": ("retriever-rag", "paper:embed-rag (the paper's off-the-shelf embedding retriever)"),
              "expert_rag": ("expert-rag", "paper:expert-rag (the paper's expert-curated similar problems)")}
LLM_GRADERS = "Llama-4, DeepSeek-V3, GPT-4.1, GPT-4o"
DOMAINS = ("algebra", "number_theory", "geometry", "discrete_math")
#: Table 3's LLM column and Table 8's average are the same numbers printed twice (to rounding)
TABLE_TOLERANCE = 0.01


class _Conditions(Frozen):
    zero_shot: float
    embed_rag: float
    expert_rag: float


class _SmallRow(Frozen):
    model: str
    release_date_2025: str
    human_grading: _Conditions
    llm_grading_average: _Conditions


class _Cell(Frozen):
    accuracy: float
    pm: float


class _LargeRow(Frozen):
    model: str
    group: str
    algebra: _Cell
    number_theory: _Cell
    geometry: _Cell
    discrete_math: _Cell
    macro_avg: _Cell
    micro_avg: _Cell


class _GraderRow(Frozen):
    model: str
    condition: str = Field(pattern="^(zero_shot|embed_rag|expert_rag)$")
    grader: dict[str, float]
    grader_average: float
    human_expert: float


class _File(Frozen):
    benchmark: str
    task: str
    paper: str
    metric_unit: str
    protocol: str
    note: str
    test_set_small: list[_SmallRow]
    test_set_large_zero_shot: list[_LargeRow]
    test_set_small_graders: list[_GraderRow]


def _frozen(split: str, retrieval: str, scoring: str) -> FrozenTuple:
    return FrozenTuple(dataset_release=MATHNET_SOLVE.release_id, split=split, retrieval_artifact=retrieval,
                       scoring_artifact=scoring, date=DATE)


def _row(model: str, track: str, frozen: FrozenTuple, value: float, notes: list[str], provenance: dict,
         **extra) -> Result:
    return reported_result(MATHNET_SOLVE, ModelInfo(name=model, kind="llm"), track=track, frozen=frozen, sha256=SHA256,
                           main=Score(metric="proof_grade", value=percent(value)),
                           metrics={"proof_grade": percent(value)}, notes=notes,
                           provenance={"source": TRANSCRIPTION, **provenance}, **extra)


def mathnet_solve_reported(source_dir: str | Path | None = None) -> list[Result]:
    """Tables 3, 4 and 8: one row per model, condition and grading (human, LLM average, single LLM grader)."""
    table = _File.model_validate_json(pinned_transcription(PAPER, source_dir).read_bytes())
    base = ["Reported in the MathNet paper (arXiv 2604.18584) and not re-scored by Lemmata.",
            "The paper's own test set, which upstream has not published by id; not comparable with rows scored "
            "on Lemmata's stratified subsets."]
    out: list[Result] = []
    averages = {(r.model.lower(), r.condition): r.grader_average for r in table.test_set_small_graders}
    for row in table.test_set_small:
        for cond, (track, retrieval) in CONDITIONS.items():
            human = getattr(row.human_grading, cond)
            out.append(_row(row.model, track, _frozen("paper/test-set-small", retrieval,
                                                      "paper/table3: human expert grading (0-7, only 7 counts)"),
                            human, base + ["Human expert grading (Table 3)."],
                            {"table": "Table 3", "grading": "human expert", "printed_percent": human,
                             "release_date_2025": row.release_date_2025}))
            llm = getattr(row.llm_grading_average, cond)
            flag = None
            twin = [v for (m, c), v in averages.items() if c == cond and _same_model(m, row.model)]
            if twin:
                flag = disagreement(llm, twin[0], TABLE_TOLERANCE)
            out.append(_row(row.model, track, _frozen("paper/test-set-small", retrieval,
                                                      f"paper/table3: average of four LLM graders ({LLM_GRADERS})"),
                            llm, base + ["Average of four LLM graders (Table 3); human grading is a separate row."]
                            + (["Table 3 prints {printed} where Table 8's average reads {implied}; kept as printed in "
                                "Table 3.".format(**flag)] if flag else []),
                            {"table": "Table 3", "grading": "LLM graders' average", "printed_percent": llm,
                             **({"disagreement_with_table8": flag} if flag else {})}))
    for g in table.test_set_small_graders:
        track, retrieval = CONDITIONS[g.condition]
        for grader, value in sorted(g.grader.items()):
            out.append(_row(g.model, track, _frozen("paper/test-set-small", retrieval, f"paper/table8: grader {grader}"),
                            value, base + [f"Graded by {grader} alone (Table 8)."],
                            {"table": "Table 8", "grading": f"LLM grader {grader}", "printed_percent": value,
                             "grader_average": g.grader_average, "human_expert": g.human_expert}))
    for row in table.test_set_large_zero_shot:
        by_domain = {d: {"proof_grade": percent(getattr(row, d).accuracy), "pm": percent(getattr(row, d).pm)}
                     for d in DOMAINS}
        out.append(reported_result(
            MATHNET_SOLVE, ModelInfo(name=row.model, kind="llm"), track="zero-shot", sha256=SHA256,
            frozen=_frozen("paper/test-set-large", "paper:zero-shot", "paper/table4: Gemini-2.5-Pro grader"),
            main=Score(metric="proof_grade", value=percent(row.micro_avg.accuracy)),
            metrics={"proof_grade": percent(row.micro_avg.accuracy), "micro_pm": percent(row.micro_avg.pm),
                     "macro": percent(row.macro_avg.accuracy), "macro_pm": percent(row.macro_avg.pm)},
            breakdowns={"by_domain": by_domain}, notes=base + [f"Table 4 (Test-Set-Large, 5,500 problems), {row.group}; "
                                                               "± as printed."],
            provenance={"source": TRANSCRIPTION, "table": "Table 4",
                        "printed": row.model_dump(mode="json")}))
    return out


def _same_model(a: str, b: str) -> bool:
    """Table 8 names models in lower case with other spellings (``claude-opus-4.5`` for ``Claude-4.5-Opus``).

    >>> _same_model("claude-opus-4.5", "Claude-4.5-Opus"), _same_model("gpt-5", "GPT-5"), _same_model("gpt-5", "Grok-4.1-Fast")
    (True, True, False)
    """
    import re

    def words(s: str) -> set[str]:
        return set(re.findall(r"[a-z]+|\d+(?:\.\d+)?", s.lower())) - {"think", "plus", "preview", "b"}
    wa, wb = words(a), words(b)
    return bool(wa) and (wa <= wb or wb <= wa or len(wa & wb) >= 2)


def import_reported(store, source_dir: str | Path | None = None) -> list[tuple[Result, bool]]:
    return import_results(store, mathnet_solve_reported(source_dir))
