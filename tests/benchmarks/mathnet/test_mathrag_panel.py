"""The MathRAG matrix on the Across benchmarks tab: built from scored MathNet-Solve rows only, every
submitter-controlled string escaped, the gain over zero-shot with its paired interval, the retriever's Recall@5
beside it, cached per store generation, and never an exception on odd stored data."""

from __future__ import annotations

import io
import re

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.benchmarks.mathnet.panel import EMPTY, TITLE, MathragTable, compute, load, render_mathrag
from lemmata.space.safety import esc
from lemmata.store import Store

HOSTILE = "<img src=x onerror=alert(1)>"
RETRIEVER = ModelInfo(name="retr<b>iever</b>", kind="retriever", parameters=22_000_000)


def solve_result(solver: str, condition: str, correct: list[bool], *, kind: str = "scored", pending: int = 0,
                 retrieval: dict | None = None):
    artifact = "mathrag:zero-shot" if condition == "zero-shot" else f"mathrag:{condition}:{RETRIEVER.name}@k3"
    items = [{"item_id": f"p{i:02d}", "correct": None if i < pending else c} for i, c in enumerate(correct)]
    confirmed = sum(c for i, c in enumerate(correct) if i >= pending)
    total = len(correct) - pending
    provenance = {"retrieval": retrieval if retrieval is not None else
                  {"retriever": RETRIEVER.model_dump(mode="json"), "k": 3}} if condition == "retriever-rag" else {}
    return make_result(
        kind=kind, benchmark="mathnet-solve", track=condition,
        frozen=FrozenTuple(dataset_release="mathnet-solve-1.1.0", split="lemmata_strat_70", retrieval_artifact=artifact,
                           scoring_artifact="grader-a", date="2026-11-25"),
        submission_sha256=sha256_bytes(f"{solver}/{condition}/{kind}/{pending}".encode()), model=ModelInfo(name=solver),
        main=Score(metric="proofgrade", value=None if pending else confirmed / total, count=confirmed, total=total),
        items=items, pending=pending, status="pending_oracle" if pending else "complete", provenance=provenance)


def retrieve_result(recall5: float):
    return make_result(
        kind="scored", benchmark="mathnet-retrieve", track="hard",
        frozen=FrozenTuple(dataset_release="mathnet-retrieve-1.0.0", split="qrels/hard", retrieval_artifact=None,
                           scoring_artifact="qrels", date="2026-11-25"),
        submission_sha256=sha256_bytes(b"retriever-hard"), model=RETRIEVER,
        main=Score(metric="recall@5", value=recall5),
        metrics={"recall@5": {"mean": recall5}, "recall@1": {"mean": recall5 / 2}})


ZERO = [True, False, False, True, False, False, True, False, False, False]  # 0.3
RAG = [True, True, False, True, False, True, True, False, True, False]  # 0.6


def test_the_section_shows_gain_interval_and_recall_and_escapes_names():
    table = compute([solve_result(HOSTILE, "zero-shot", ZERO), solve_result(HOSTILE, "retriever-rag", RAG)],
                    [retrieve_result(0.4125)], n_resamples=200)
    assert not table.skipped and table.error is None and len(table.rows) == 2
    html = render_mathrag(table)
    assert TITLE in html and "<img" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "retr&lt;b&gt;iever&lt;/b&gt;" in html
    rag = next(r for r in table.rows if r["condition"] == "retriever-rag")
    low, high = rag["gain_interval"]
    assert f"+{rag['gain']:.3f}" == "+0.300" and "+0.300" in html
    shown = re.search(r"<td>\+0\.300 <span class=\"lm-metric\">\[([+-]?\d\.\d{3}), ([+-]?\d\.\d{3})\]</span></td>", html)
    assert shown and (float(shown[1]), float(shown[2])) == (round(low, 3), round(high, 3)) and low <= 0.3 <= high
    assert "0.412" in html or "0.413" in html  # Recall@5 (hard) beside the gain, in the board's 3-decimal format
    assert "<td>3</td>" in html and "0.600" in html and "0.300" in html
    header = html.split("<thead>")[1].split("</thead>")[0]
    for column in ("Solver", "Condition", "Retriever", "k", "ProofGrade", "Gain over zero-shot [95%]",
                   "Helped / hurt / unchanged", "Recall@5 (hard)"):
        assert f">{column}</th>" in header


def test_helped_hurt_unchanged_with_the_exact_mcnemar_test_per_problem():
    """RAG against its zero-shot twin, problem by problem: p01, p05, p08 turned right, none wrong (p = 2/8); a run
    that turns as many problems wrong as right has p = 1; a pending run has no counts yet."""
    from lemmata.benchmarks.mathnet.matrix import markdown

    mixed = [not z if i in (0, 1, 3, 4) else z for i, z in enumerate(ZERO)]  # p00, p03 wrong; p01, p04 right
    table = compute([solve_result("s", "zero-shot", ZERO), solve_result("s", "retriever-rag", RAG),
                     solve_result("s", "expert-rag", mixed), solve_result("t", "zero-shot", ZERO),
                     solve_result("t", "retriever-rag", RAG, pending=2)], [], n_resamples=50)
    by = {(r["solver"], r["condition"]): r for r in table.rows}
    assert by[("s", "retriever-rag")]["changes"] == {"helped": 3, "hurt": 0, "unchanged": 7, "p_value": 0.25}
    assert by[("s", "expert-rag")]["changes"] == {"helped": 2, "hurt": 2, "unchanged": 6, "p_value": 1.0}
    assert "changes" not in by[("s", "zero-shot")] and "changes" not in by[("t", "retriever-rag")]
    html = render_mathrag(table)
    assert '<td>3 / 0 / 7 <span class="lm-metric">(p = 0.25)</span></td>' in html
    assert '<td>2 / 2 / 6 <span class="lm-metric">(p = 1)</span></td>' in html
    assert "| 3 / 0 / 7 (p = 0.25) |" in markdown(table.rows)


def test_reported_rows_pending_runs_and_odd_data_never_break_it(tmp_path):
    st = Store(tmp_path)
    assert esc(EMPTY) in render_mathrag(load(st))
    st.add_result(solve_result("paper-model", "zero-shot", ZERO, kind="reported"))
    assert load(st).rows == [] and esc(EMPTY) in render_mathrag(load(st))
    st.add_result(solve_result("solver", "zero-shot", ZERO))
    st.add_result(solve_result("solver", "retriever-rag", RAG, pending=2))
    st.add_result(solve_result("broken", "retriever-rag", RAG, retrieval={"retriever": {"name": 5}}))  # no k
    table = load(st)
    assert table.skipped == 1 and {r["solver"] for r in table.rows} == {"solver"}
    html = render_mathrag(table)
    assert "paper-model" not in html and "pending <span class=\"lm-metric\">(2 to grade)</span>" in html and "1 scored entry could not be read" in html
    rag = next(r for r in table.rows if r["condition"] == "retriever-rag")
    assert rag["gain"] is None  # pending grades: no gain yet
    for odd in ({"solver": None, "accuracy": "x", "gain": 0.1, "gain_interval": [0.2], "pending": True,
                 "retrieve_recall": {"hard": None}}, {}):
        assert "<table" in render_mathrag(MathragTable(rows=[odd]))
    assert "could not be built" in render_mathrag(MathragTable(error="<script>x</script>")) and \
        "<script>" not in render_mathrag(MathragTable(error="<script>x</script>"))


def test_the_context_computes_it_once_per_store_generation(tmp_path):
    from lemmata.space.config import SpaceConfig
    from lemmata.space.context import create_context
    from lemmata.space.tabs.matrix import panels_html

    ctx = create_context(SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, bootstrap=False),
                         stream=io.StringIO())
    try:
        first = ctx.panel("mathrag")
        assert ctx.panel("mathrag") is first and first.rows == []
        ctx.store.add_result(solve_result("solver", "zero-shot", ZERO))
        ctx.store.add_result(solve_result("solver", "retriever-rag", RAG))
        ctx.store.add_result(retrieve_result(0.5))
        again = ctx.panel("mathrag")
        assert again is not first and len(again.rows) == 2 and ctx.panel("mathrag") is again
        rag = next(r for r in again.rows if r["condition"] == "retriever-rag")
        assert rag["retrieve_recall"]["hard"]["recall@5"] == 0.5 and rag["gain"] == 0.3
        assert "Gain over zero-shot" in panels_html(ctx) and '<section id="lm-mathrag"' in panels_html(ctx)
    finally:
        ctx.close()
