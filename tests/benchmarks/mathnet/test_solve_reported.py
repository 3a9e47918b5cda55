"""The paper's Tables 3, 4 and 8 as reported rows: numbers as printed, human and LLM grading apart, never in a
group with rows scored here."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from lemmata.benchmarks.mathnet.solve_reported import PAPER, mathnet_solve_reported


def _paper():
    return json.loads(PAPER.packaged().read_text("utf-8"))


def test_tables_as_printed_with_gradings_apart():
    rows = mathnet_solve_reported()
    paper = _paper()
    assert all(r.kind == "reported" and r.flags["reported"] for r in rows)
    by = {(r.provenance["table"], r.model.name, r.track, r.frozen.scoring_artifact): r for r in rows}
    gpt5 = {k[3]: r for k, r in by.items() if k[:3] == ("Table 3", "GPT-5", "zero-shot")}
    human = next(r for a, r in gpt5.items() if "human" in a)
    llm = next(r for a, r in gpt5.items() if "four LLM graders" in a)
    assert human.main.value == pytest.approx(0.768) and llm.main.value == pytest.approx(0.8709)
    assert human.frozen.group_key() != llm.frozen.group_key()
    ds = [r for r in rows if r.model.name == "DeepSeek-V3.2-Speciale" and r.track == "expert-rag"
          and "human" in r.frozen.scoring_artifact]
    assert ds[0].main.value == pytest.approx(0.973)
    # Table 4: micro average is the headline, macro and +/- kept as printed
    large = {r.model.name: r for r in rows if r.provenance["table"] == "Table 4"}
    assert len(large) == len(paper["test_set_large_zero_shot"])
    assert large["GPT-5"].main.value == pytest.approx(0.7963) and large["GPT-5"].metrics["macro"] == pytest.approx(0.8274)
    assert large["GPT-5"].breakdowns["by_domain"]["geometry"]["pm"] == pytest.approx(0.0073)
    # Table 8: one row per grader, each its own scoring artifact
    graders = defaultdict(set)
    for r in rows:
        if r.provenance["table"] == "Table 8":
            graders[(r.model.name, r.track)].add(r.frozen.scoring_artifact)
    assert len(graders) == 21 and all(len(v) == 4 for v in graders.values())
    # Table 3's LLM column disagrees with Table 8's average for two rows: flagged, kept as printed
    flagged = {r.model.name: r.provenance["disagreement_with_table8"] for r in rows
               if "disagreement_with_table8" in r.provenance}
    assert flagged["DeepSeek-V3.2-Speciale"]["printed"] == 87.87 and flagged["DeepSeek-V3.2-Speciale"]["implied"] == 87.89
    assert set(flagged) == {"DeepSeek-V3.2-Speciale", "Gemini-3-Pro"}


def test_reported_rows_never_share_a_group_with_scored_rows():
    for r in mathnet_solve_reported():
        assert r.frozen.split.startswith("paper/") and r.frozen.retrieval_artifact.startswith("paper:")
        assert r.frozen.scoring_artifact.startswith("paper/")
