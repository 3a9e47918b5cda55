"""Judge-decided board columns show their judge's calibration beside them, or "uncalibrated".

The columns are the ones a family declares (``Family.judged``); the calibration is the ``CALIBRATION.json`` that
``lemmata calibrate --judge`` writes into the judge's artifact folder, matched by judge id.
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


def _calibration(folder, judge_id: str) -> None:
    """A calibration record as ``lemmata calibrate --judge`` writes it (lemmata/benchmarks/mathatlas/calibrate.py)."""
    published = {"source": "published labels", **agreement(PUBLISHED, PREDICTED), "by_kind": {}}
    record = {"schema": SCHEMA, "artifact_id": f"mathatlas-judge:{judge_id}:faithful-definition.v1+"
              "faithful-statement.v1", "judge": {"id": judge_id, "model": judge_id.split(":", 1)[1]},
              "rubrics": {"statement": {"id": "faithful-statement.v1", "sha256": "0" * 64}},
              "release": "ma-align-2.0.0", "measured_on": "MA-Align", "headline": "published", "pairs": 6,
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
