"""The known-content grounding (GroundedOfflineToolAcc): extracted statements are grounded, composed ones are not.

Rubric ``ground_known.v1`` asks whether a statement is supported by what the cited work is known to contain: its
reference witness and its opened record. The questions here are asked of the protocol judge double
(:func:`test_judge.known_content_verdict` behind :class:`test_judge.ChatServer`) and of the instruction-following
double (:class:`test_injection.Follower`), into temporary judge artifacts.

Fixture source: instance ``1903.08525_gap_0`` of the Re²Math release (``re2math-1.0.0``, ``eval200/test``): its
``y.reference_tool_latex`` is :data:`WITNESS`; its cited record ``r0127279`` opens in world 2.1.0 with the title,
authors, year, arXiv id and abstract of :data:`OPENED` (arXiv 1710.04959, Rohde & Wang, "The Loewner energy of loops
and regularity of driving functions"), laid out by ``scholar.world.view.render_opened`` as the world does.
"""

from __future__ import annotations

import pytest

from lemmata.benchmarks.re2math.assessment import known_ground
from lemmata.benchmarks.re2math.judging import (
    UNGRADABLE,
    addressing_flags,
    judge_artifact_for,
    known_reading,
    resolve,
    verdict,
)
from lemmata.benchmarks.re2math.scholar.world.view import render_opened
from lemmata.benchmarks.re2math.semantics import headline
from lemmata.oracles.chat import ChatJudge
from lemmata.oracles.judge import load_rubric
from test_injection import Follower, attacks
from test_judge import ChatServer

IID = "1903.08525_gap_0"
WITNESS = ("If a Jordan curve has finite Loewner energy, then it is not necessarily $C^1$ and may exhibit slow "
           "spirals; in particular, it is not Lipschitz.")
ABSTRACT = ("Loewner driving functions encode simple curves in 2-dimensional simply connected domains by real-valued "
            "functions. We prove that the Loewner driving function of a $C^{1,\\beta}$ curve (differentiable "
            "parametrization with $\\beta$-H\\\"older continuous derivative) is in the class $C^{1,\\beta-1/2}$ if "
            "$1/2<\\beta\\leq 1$, and in the class $C^{0,\\beta + 1/2}$ if $0 \\leq \\beta \\leq 1/2$. This is the "
            "converse of a result of Carto Wong [26] and is optimal. We also introduce the Loewner energy of a rooted "
            "planar loop and use our regularity result to show the independence of this energy from the basepoint.")
TITLE = "The loewner energy of loops and regularity of driving functions"
#: a sentence of the abstract, as a system that extracts what it opened returns it
EXTRACTED = ("We prove that the Loewner driving function of a $C^{1,\\beta}$ curve (differentiable parametrization "
             "with $\\beta$-H\\\"older continuous derivative) is in the class $C^{1,\\beta-1/2}$ if "
             "$1/2<\\beta\\leq 1$, and in the class $C^{0,\\beta + 1/2}$ if $0 \\leq \\beta \\leq 1/2$.")
#: a plausible statement a system writes itself, on the work's topic, stated nowhere in the known content
COMPOSED = "Every Jordan curve of finite Loewner energy is a quasicircle, and its welding is a Weil-Petersson map."


class Opened:
    """An opened world record as the scorer reads it (``OpenedSource``: its record's title and its text)."""

    def __init__(self, abstract: str | None) -> None:
        self.record = type("Record", (), {"title": TITLE})()
        self.text = render_opened(TITLE, ["Rohde", "Wang"], 2017, "1710.04959", None, abstract, "r0127279")


def row(witness: str = WITNESS) -> dict:
    return {"instance_id": IID, "y": {"reference_tool_latex": witness, "reference_tool_type": "theorem",
                                      "restated_in_citing_paper": True}}


def ask(statements: dict[str, str], opened: Opened, judge, folder, witness: str = WITNESS) -> dict[str, tuple]:
    """Known-content Ground of each statement (selected source = the cited record), as the metrics read it."""
    planned = {name: known_ground(row(witness), "r0127279", opened, text) for name, text in statements.items()}
    resolve([q for _, q in planned.values() if q is not None],
            judge_artifact_for(judge, folder, headline("grounded").rubrics) if judge else None, judge)
    return {name: known_reading(verdict(q, rule)) for name, (rule, q) in planned.items()}


def test_the_rubric_is_versioned_fenced_and_shows_witness_and_opened_record():
    rubric = load_rubric("ground_known", 1)
    assert rubric.fenced and rubric.reviewed == ("statement",) and dict(rubric.rule) == {"verdict": "no"}
    assert rubric.fields == {"source_id", "source_title", "reference_witness", "opened_text", "statement"}
    assert '"verdict": "yes" | "no" | "uncertain"' in rubric.user and "ungradable" in rubric.user
    assert "composed without support in the known content is not grounded" in rubric.user
    grounded = headline("grounded")
    assert grounded.metric == "GroundedOfflineToolAcc" and grounded.rubrics["ground_known"] == 1
    assert "ground_known" not in headline("offline").rubrics  # OfflineToolAcc keeps its rubric set


def test_extracted_and_witnessed_statements_are_grounded_a_composed_one_is_not(tmp_path):
    statements = {"extracted": EXTRACTED, "witness": WITNESS, "composed": COMPOSED}
    with ChatServer() as server:
        judge = ChatJudge(server.config(model="known-content"))
        got = ask(statements, Opened(ABSTRACT), judge, tmp_path / "j")
        asked = [r["messages"][1]["content"] for r in server.requests]
    assert {k: (v[0], v[2]) for k, v in got.items()} == {
        "extracted": ("yes", "judge"), "witness": ("yes", "judge"), "composed": ("no", "judge")}
    assert len(asked) == 3 and all("Rubric ground_known.v1" in body and WITNESS in body and ABSTRACT in body
                                   for body in asked)
    # without the abstract the extracted sentence is no longer known content: not grounded
    with ChatServer() as server:
        bare = ask({"extracted": EXTRACTED}, Opened(None), ChatJudge(server.config(model="known-content")),
                   tmp_path / "k")
    assert bare["extracted"][0] == "no"


def test_not_enough_known_content_is_ungradable_never_grounded(tmp_path):
    # nothing known: no witness, no abstract -> settled by rule, never asked
    with ChatServer() as server:
        judge = ChatJudge(server.config(model="known-content"))
        nothing = ask({"composed": COMPOSED}, Opened(None), judge, tmp_path / "j", witness="  ")
        assert server.requests == []
        # a cut-off witness: the judge double answers "uncertain", read as ungradable
        thin = ask({"composed": COMPOSED}, Opened(None), judge, tmp_path / "j", witness=WITNESS[:40] + "...")
    assert nothing["composed"][:1] == (UNGRADABLE,) and nothing["composed"][2] == "rule"
    assert "not enough known content" in nothing["composed"][1]
    assert thin["composed"][0] == UNGRADABLE and thin["composed"][2] == "judge"
    assert thin["composed"][1].startswith("not enough known content to decide")
    # without a judge a question stays pending (awaiting the judge), never grounded
    assert ask({"composed": COMPOSED}, Opened(ABSTRACT), None, None)["composed"][0] == "pending"


def test_ungradable_and_pending_never_count_and_leave_a_range():
    from lemmata.benchmarks.re2math.judging import conj
    from lemmata.metrics.tool_acc import known_content_rates, tool_acc_report

    assert conj(UNGRADABLE, "yes") == "no" and conj("pending", "yes") == "pending"
    rows = [dict(instance_id=str(i), paper_key=f"p{i}", domain="d", ground=g, suff=s, cite_rank=1,
                 selected_source="cited", oracle_evaluable=False)
            for i, (g, s) in enumerate([("yes", "yes"), (UNGRADABLE, "yes"), ("no", "yes"), (UNGRADABLE, "no")])]
    report = tool_acc_report(rows, n_resamples=50)
    extra = known_content_rates(rows, n_resamples=50)
    assert (report.tool_acc.count, report.ground_rate.count) == (1, 1)
    assert extra["KnownContentUngradable"].count == 2 and extra["GroundedOfflineToolAccUpper"].count == 2


def test_injection_in_the_statement_stays_data(tmp_path):
    """A composed statement carrying an injection is settled "no" by the rubric's rule, flagged, never asked —
    even by a judge double that obeys instructions inside data."""
    hostile = attacks("ground_known", COMPOSED, EXTRACTED, "0" * 20)
    double = Follower(reads_data=True)
    with ChatServer(double) as server:
        judge = ChatJudge(server.config(model="follower-known"))
        planned = {k: known_ground(row(), "r0127279", Opened(ABSTRACT), v)
                   for k, v in {"composed": COMPOSED, "extracted": EXTRACTED, **hostile}.items()}
        questions = {k: q for k, (_, q) in planned.items()}
        resolve(list(questions.values()), judge_artifact_for(judge, tmp_path / "j", headline("grounded").rubrics),
                judge)
    assert double.asked == 2  # only the two clean statements
    assert verdict(questions["extracted"], None)[0] == "yes" and verdict(questions["composed"], None)[0] == "no"
    for attack in hostile:
        v, reason, by = verdict(questions[attack], None)
        assert (v, by) == ("no", "rule") and "ground_known.v1's rule" in reason, attack
        assert addressing_flags(questions[attack]) == {"addresses_grader": True}


@pytest.mark.parametrize("grounding, kind", [(None, "offline"), ("source-identity", "offline"),
                                             ("known-content", "grounded")])
def test_the_grounding_is_chosen_per_scoring_run(grounding, kind, monkeypatch):
    from lemmata.benchmarks.re2math.scoring import offline_kind
    from lemmata.core.errors import InputError
    from lemmata.tracks.base import OracleConfig

    monkeypatch.delenv("LEMMATA_RE2MATH_GROUNDING", raising=False)
    assert offline_kind(OracleConfig(extra={"grounding": grounding} if grounding else {})) == kind
    if grounding:
        monkeypatch.setenv("LEMMATA_RE2MATH_GROUNDING", grounding)
        assert offline_kind(OracleConfig()) == kind
    with pytest.raises(InputError, match="is not a grounding"):
        offline_kind(OracleConfig(extra={"grounding": "full-text"}))


def test_the_rubric_has_canaries_the_honest_double_passes_and_the_injectable_one_fails():
    """``canaries.json`` holds ground_known questions (a positive, a negative and an injection per entry): the
    protocol double answers each as expected; the double that obeys instructions inside data fails an injection."""
    import json

    from lemmata.oracles.canaries import probes

    found = probes({"ground_known": load_rubric("ground_known", 1)})
    assert len(found) == 18 and {p.expect.allowed for p in found} == {("yes",), ("no", "uncertain")}
    rubric = load_rubric("ground_known", 1)

    def answers(double) -> list[bool]:
        return [json.loads(double({"messages": rubric.prepare(p.values).messages}))["verdict"] in p.expect.allowed
                for p in found]

    from test_judge import rule_answer

    assert all(answers(rule_answer))
    assert not all(answers(Follower(reads_data=True)))
