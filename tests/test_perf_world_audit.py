"""The audit's "as shown" population (``perf/world_audit.py``): the distractors are the records the search shows.

A double of a world answers each query with fixed hits, so the test checks what the population is made of —
both queries of every instance asked with its cutoff; the citing paper's own record and every cited (gold)
record left out; each record once — without building a world. The row shape (``instance_id``, ``paper`` with
its title, ``x.global_context.target_theorem``) is the Re²Math release's (``lemmata/benchmarks/re2math``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

SCRIPT = Path(__file__).resolve().parents[1] / "perf" / "world_audit.py"


def _audit():
    spec = importlib.util.spec_from_file_location("world_audit", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(instance: str, title: str, theorem: str) -> dict:
    return {"instance_id": instance, "paper_key": None, "paper": {"paper_id": "", "title": title},
            "x": {"global_context": {"target_theorem": theorem}, "local_context": {"proof_state": "p"}}}


class ListedWorld:
    """Answers a query by its text: the hits listed for it (id, title), recording every query asked."""

    def __init__(self, answers: dict[str, list[tuple[str, str]]]):
        self.answers, self.asked = answers, []

    def search_batch(self, queries):
        self.asked += queries
        return [SimpleNamespace(hits=[SimpleNamespace(id=i, title=t) for i, t in self.answers.get(q, [])])
                for q, _, _ in queries]


def test_listed_distractors_are_the_shown_non_gold_admissible_records(monkeypatch):
    audit = _audit()
    monkeypatch.setattr("lemmata.benchmarks.re2math.render.render_instance", lambda r, track, m: "raw " + r["instance_id"])
    rows = [_row("a_gap_1", "Sharp bounds for harmonic maps", "thm a"), _row("b_gap_1", "Wreath products", "thm b")]
    world = ListedWorld({
        "raw a_gap_1": [("r1", "Sharp bounds for harmonic maps"), ("gold-b", "X"), ("r2", "Y")],  # r1: citing paper
        "thm a": [("r2", "Y"), ("r3", "Z")],
        "raw b_gap_1": [("r1", "Sharp bounds for harmonic maps"), ("gold-a", "W")],  # r1 is admissible here
        "thm b": [],
    })
    attributions = {"a_gap_1": SimpleNamespace(year_cutoff=2010), "b_gap_1": SimpleNamespace(year_cutoff=None)}
    pos_of = {"r1": 5, "r2": 3, "r3": 9, "gold-a": 0, "gold-b": 1}
    got = audit.listed_distractors(world, rows, attributions, {"gold-a", "gold-b"}, pos_of)
    assert got == [3, 5, 9]
    assert world.asked == [("raw a_gap_1", 2010, audit.K), ("thm a", 2010, audit.K), ("raw b_gap_1", None, audit.K),
                           ("thm b", None, audit.K)]
