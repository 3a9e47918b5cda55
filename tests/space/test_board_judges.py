"""Judge-decided board columns show their judge's calibration beside them, or "uncalibrated".

The columns are the ones a family declares (``Family.judged``); the calibration is the ``CALIBRATION.json`` that
``lemmata calibrate --judge`` writes into the judge's artifact folder, matched by judge id and by the rubrics the
columns were judged under.
"""

from __future__ import annotations

import json
import re

import pytest

from lemmata.benchmarks.mathatlas.calibrate import agreement
from lemmata.oracles.calibration import CALIBRATION_FILE, SCHEMA, read_calibration
from lemmata.space.board import BoardQuery, build_view, load_rows
from lemmata.space.rows import ROW_SUMMARY
from lemmata.space.tables import render_board
from lemmata.store import Store
from test_board_rank_ranges import N, _result

#: the six MA-Align fixture pairs (tests/fixtures/hub/MathAtlas) with their published labels, and what a judge
#: said of them: the hand-checked case of tests/benchmarks/mathatlas/test_mathatlas_oracles.py
#: (tp 2, fp 1, fn 1, tn 2: kappa = (4/6 - 1/2) / (1/2) = 1/3)
PUBLISHED = [False, True, True, True, False, False]
PREDICTED = [True, True, False, True, False, False]


#: the rubric pins ``lemmata calibrate --judge`` records: every rubric of the MathAtlas judge artifact, by kind
ATLAS_RUBRICS = {"definition": "faithful-definition.v1", "statement": "faithful-statement.v1"}


def _calibration(folder, judge_id: str, rubrics: dict[str, str] = ATLAS_RUBRICS, measured_on: str = "MA-Align",
                 ) -> None:
    """A calibration record as ``lemmata calibrate --judge`` writes it (lemmata/benchmarks/mathatlas/calibrate.py)."""
    published = {"source": "published labels", **agreement(PUBLISHED, PREDICTED), "by_kind": {}}
    record = {"schema": SCHEMA, "artifact_id": f"mathatlas-judge:{judge_id}:" + "+".join(sorted(rubrics.values())),
              "judge": {"id": judge_id, "model": judge_id.split(":", 1)[1]},
              "rubrics": {kind: {"id": rid, "sha256": "0" * 64} for kind, rid in rubrics.items()},
              "release": "ma-align-2.0.0", "measured_on": measured_on, "headline": "published", "pairs": 6,
              "unparsable": 0, "settled_by_rule": 0, "label_sets": {"published": published},
              "calibrated_at": "2026-11-27T10:00:00+00:00", "items": []}
    folder.mkdir(parents=True)
    (folder / CALIBRATION_FILE).write_text(json.dumps(record), "utf-8")


def _atlas(name: str, judge_id: str | None, correct: int, *, kind: str = "scored"):
    """A MathAtlas-shaped result (lemmata/benchmarks/mathatlas/track.py): its judge in ``provenance.judge`` and in
    the scoring artifact (one group per judge), compile rate and faithful-if-compiles beside correct."""
    base = _result(name, correct, kind=kind)
    return base.model_copy(update={
        "frozen": base.frozen.model_copy(update={
            "scoring_artifact": f"mathatlas-lean:x+mathatlas-judge:{judge_id or 'none'}:f.v1"}),
        "metrics": {"compile_rate": {"rate": 0.6, "count": 60, "total": N},
                    "faithful_given_compiles": {"rate": correct / 60, "count": correct, "total": 60}},
        "provenance": {"judge": {"id": judge_id, "kind": "openai-chat-completions"} if judge_id else None},
    }).finalized()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LEMMATA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _groups(store: Store, benchmark: str = "mathatlas") -> dict[str, str]:
    """Each group's HTML, by the judge id in its scoring artifact."""
    view = build_view(load_rows(store), BoardQuery(benchmark=benchmark, track="statements"))
    html = render_board(view)
    sections = re.findall(r'<section class="lm-group".*?</section>', html, re.S)
    return {re.search(r"judge:([^<:]*:[^<:]*|none):", s).group(1): s for s in sections}


def _header_title(section: str, label: str) -> str:
    th = re.search(rf'<th[^>]*title="([^"]*)"[^>]*><button[^>]*>{re.escape(label)}', section)
    assert th, label
    return th.group(1)


def test_a_calibrated_judge_shows_its_kappa_an_uncalibrated_one_says_so(tmp_path, home):
    _calibration(home / "artifacts" / "judges" / "mathatlas-judge_chat_good", "chat:good")
    store = Store(tmp_path / "store", row_summary=ROW_SUMMARY)
    for r in (_atlas("atlas-a", "chat:good", 4), _atlas("atlas-b", "chat:unmeasured", 3), _atlas("atlas-c", None, 0)):
        store.add_result(r)
    groups = _groups(store)
    kappa = read_calibration(home / "artifacts" / "judges" / "mathatlas-judge_chat_good" / CALIBRATION_FILE)
    _, published = kappa.headline_set()
    assert published.kappa.value == pytest.approx(1 / 3)  # by hand, above
    lo, hi = published.kappa.interval
    calibrated = groups["chat:good"]
    assert f"chat:good: judge κ 0.33 [{lo:.2f}, {hi:.2f}] on MA-Align (n=6)" in calibrated
    assert "uncalibrated" not in calibrated
    assert "chat:unmeasured: uncalibrated" in groups["chat:unmeasured"]
    assert "no judge yet: its verdicts are pending" in groups["none"]
    # beside the columns the family declares judge-decided (header marked, tooltip with the calibration), only those
    heads = {re.sub(r"<wbr>| ⚖| &#\d+;", "", text): (text, title) for title, text in
             re.findall(r'<th[^>]*title="([^"]*)"[^>]*><button[^>]*>(.*?)</button>', calibrated)}
    for label in ("Correct", "Faithful if compiles"):
        text, title = heads[label]
        assert "⚖" in text and "chat:good: judge κ 0.33" in title and "faithful" in title
    text, title = heads["Compile rate"]
    assert "⚖" not in text and "judge" not in title


def test_the_calibration_is_read_again_when_it_changes_and_the_cli_store_agrees(tmp_path, home):
    store = Store(tmp_path / "store", row_summary=ROW_SUMMARY)
    store.add_result(_atlas("atlas-a", "chat:late", 4))
    assert "chat:late: uncalibrated" in _groups(store)["chat:late"]
    _calibration(home / "artifacts" / "judges" / "late", "chat:late")
    assert "chat:late: judge κ 0.33" in _groups(store)["chat:late"]
    # a store opened without the space's summary (the CLI's) summarises rows from their files: the same judge
    cli = Store(tmp_path / "store")
    assert "chat:late: judge κ 0.33" in _groups(cli)["chat:late"]
    # an unreadable calibration never breaks the board: that judge reads as uncalibrated, the file named
    (home / "artifacts" / "judges" / "late" / CALIBRATION_FILE).write_text('{"schema": "x"}', "utf-8")
    late = _groups(store)["chat:late"]
    assert "chat:late: uncalibrated" in late and "could not be read" in late and CALIBRATION_FILE in late


def test_reported_rows_and_undeclared_benchmarks(tmp_path, home):
    store = Store(tmp_path / "store", row_summary=ROW_SUMMARY)
    store.add_result(_atlas("paper-row", None, 5, kind="reported"))
    assert "the paper&#x27;s own judge (reported rows): uncalibrated" in _groups(store)["none"]
    # a benchmark no family declares judge-decided columns for: nothing is marked, whatever its provenance says
    store.add_result(_result("bm25", 50).model_copy(update={"benchmark": "mirb",
                                                            "provenance": {"judge": {"id": "chat:good"}}}).finalized())
    html = render_board(build_view(load_rows(store), BoardQuery(benchmark="mirb", track="statements")))
    assert "bm25" in html and "⚖" not in html and "judge-decided" not in html


def test_a_calibration_shows_only_beside_columns_judged_under_its_rubrics(tmp_path, home):
    """The same judge calibrated on MA-Align (faithfulness rubrics) is "uncalibrated for this rubric" beside
    Re²Math's Suff columns (judged under suff/anchor/query, as the result records them); calibrated under those
    rubrics too, each column shows its own calibration."""
    from types import SimpleNamespace as Row

    from lemmata.families import judged_columns
    from lemmata.space.judges import judge_note, load_calibrations

    judges = home / "artifacts" / "judges"
    _calibration(judges / "atlas", "chat:good")
    re2math, atlas = judged_columns()["re2math"], judged_columns()["mathatlas"]
    doc = {"benchmark": "re2math", "provenance": {"scoring_artifact": {
        "judge": {"id": "chat:good"}, "rubrics": {"anchor": {"id": "anchor.v2", "sha256": "1" * 64},
                                                 "suff": {"id": "suff.v3", "sha256": "2" * 64},
                                                 "query": {"id": "query.v1", "sha256": "3" * 64}}}}}
    assert re2math.judge_of(doc) == "chat:good"
    suff_rows = [Row(judge="chat:good", judge_rubrics=re2math.rubrics_of(doc), kind="scored")]
    atlas_rows = [Row(judge="chat:good", judge_rubrics=atlas.rubrics_of({}), kind="scored")]
    (line,) = judge_note(re2math, ("ToolAcc", "SuffRate"), suff_rows, load_calibrations()).lines
    assert line.text == "chat:good: uncalibrated for this rubric" and not line.calibrated
    assert "anchor.v2, query.v1, suff.v3" in line.tip and "MA-Align under faithful-definition.v1" in line.tip
    (line,) = judge_note(atlas, ("correct",), atlas_rows, load_calibrations()).lines
    assert line.calibrated and line.text.startswith("chat:good: judge κ 0.33") and "MA-Align" in line.text
    # a calibration under the Re²Math rubrics (keyed by judge and rubrics: the MA-Align one stays)
    _calibration(judges / "re2math", "chat:good", {"anchor": "anchor.v2", "suff": "suff.v3", "query": "query.v1"},
                 measured_on="Suff labels")
    found, _ = load_calibrations()
    assert set(found) == {("chat:good", ("faithful-definition.v1", "faithful-statement.v1")),
                          ("chat:good", ("anchor.v2", "query.v1", "suff.v3"))}
    (line,) = judge_note(re2math, ("SuffRate",), suff_rows, load_calibrations()).lines
    assert line.calibrated and "on Suff labels" in line.text
    (line,) = judge_note(atlas, ("correct",), atlas_rows, load_calibrations()).lines
    assert line.calibrated and "on MA-Align" in line.text
    # a row whose rubrics are unrecorded never borrows a calibration
    (line,) = judge_note(re2math, ("SuffRate",), [Row(judge="chat:good", judge_rubrics=(), kind="scored")],
                         load_calibrations()).lines
    assert line.text == "chat:good: uncalibrated for this rubric"


def test_declared_rubrics_are_the_ones_the_judges_are_asked_under():
    """MathAtlas and MathNet-Solve results do not record their rubrics: the families declare them, and the
    declarations follow the rubrics their scorers load."""
    from lemmata.benchmarks.mathatlas.verdicts import rubrics
    from lemmata.benchmarks.mathnet.solve_scoring import RUBRIC
    from lemmata.families import judged_columns
    from lemmata.oracles.judge import load_rubric

    assert judged_columns()["mathatlas"].rubrics_of({}) == tuple(sorted(r.id for r in rubrics().values()))
    assert judged_columns()["mathnet-solve"].rubrics_of({}) == (load_rubric(*RUBRIC).id,)
