"""MathAtlas end to end against in-process servers speaking the real protocols: `lemmata run mathatlas` with a chat
double, compilation by the Kimina-protocol Lean double (compiles, errors, timeouts, `sorry` warnings), faithfulness
by a judge double (valid, malformed and refusing replies); pending without oracles, completed by `lemmata judge`;
a submitter's stated verdicts change nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lemmata.cli import main
from lemmata.families import judged_columns
from lemmata.oracles.chat_double import ChatDouble
from lemmata.oracles.kimina_double import TIMEOUT_MARKER, KiminaDouble

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub" / "MathAtlas"
#: the statements track of the fixture (tests/fixtures/hub/MathAtlas/make_fixture.py), by a phrase of its text
FORMALIZER = {
    "E_1 \\subset": "<think>first try:\n```lean\ntheorem anon : False := by sorry\n```</think>\nDraft:\n```lean\n"
                    "theorem anon : 1 = 2 := by sorry\n```\nFinal:\n```lean4\nimport Mathlib\n\ntheorem anon_good "
                    "(s : ℕ → Set ℕ) : s = s := by sorry\n```",                           # compiles, aligned
    "infinite $\\sigma$-algebra": "```lean\ntheorem anon (x : ℕ) : (x = x := by sorry\n```",  # Lean error
    "countably subadditive": f"```lean\n{TIMEOUT_MARKER}\ntheorem anon : True := by sorry\n```",   # times out
    "completion of $\\mu$": "```lean\ntheorem anon_malformed : True := by sorry\n```",      # judge reply malformed
    "identity of $\\mathbb{R}^n$": "```lean\ntheorem anon_refused : True := by sorry\n```",  # judge refuses
    "CW pair": "I cannot formalize this.",                                                  # no Lean: abstains
}
JUDGE = {"anon_good": '{"reasoning": "same hypotheses and conclusion", "result": "aligned"}',
         "anon_malformed": "The formalization looks aligned to me.",
         "anon_refused": "I'm sorry, but I can't help with that."}


@pytest.fixture(scope="module", autouse=True)
def served_release():
    from lemmata.benchmarks.mathatlas.builder import MathAtlasBuilder
    from lemmata.core.paths import releases_dir

    if not (releases_dir() / "mathatlas-2.0.0").is_dir():
        MathAtlasBuilder(source_dir=FIXTURES).build(releases_dir(), quiet=True)


def formalizer(body: dict) -> str:
    text = body["messages"][-1]["content"]
    return next(reply for phrase, reply in FORMALIZER.items() if phrase in text)


def judge(body: dict) -> str:
    text = body["messages"][-1]["content"]
    assert "<<<DATA" in text  # the candidate is shown fenced as data
    return next(reply for name, reply in JUDGE.items() if re.search(rf"\b{name}\b", text))


@pytest.fixture
def servers(monkeypatch, tmp_path):
    with ChatDouble(formalizer, model_id="formalizer-0101") as chat, ChatDouble(judge, model_id="judge-1") as jd, \
            KiminaDouble() as lean:
        monkeypatch.setenv("LEMMATA_LLM_BASE_URL", chat.base_url)
        monkeypatch.setenv("LEMMATA_LLM_CONCURRENCY", "4")
        oracle_env = {"LEMMATA_JUDGE_BASE_URL": jd.base_url, "LEMMATA_JUDGE_MODEL": "judge-1",
                      "LEMMATA_LEAN_URL": lean.url, "LEMMATA_MATHLIB_VERSION": "v4.24.0",
                      "LEMMATA_LEAN_BATCH": "4", "LEMMATA_LEAN_ARTIFACT": str(tmp_path / "lean"),
                      "LEMMATA_JUDGE_ARTIFACT": str(tmp_path / "judge")}
        yield chat, jd, lean, oracle_env


def _run(tmp_path, *extra) -> tuple[dict, list[dict], dict]:
    assert main(["run", "mathatlas", "--model", "formalizer", "--out", str(tmp_path / "out"), "--cache",
                 str(tmp_path / "cache.jsonl"), "--quiet", *extra]) == 0
    sub = next(p for p in (tmp_path / "out").glob("mathatlas.*.jsonl") if not p.name.endswith(".runner-log.jsonl"))
    header, *records = [json.loads(x) for x in sub.read_text("utf-8").splitlines()]
    result = json.loads(sub.with_suffix(".result.json").read_text("utf-8")) if "--no-score" not in extra else {}
    return header, records, result


def test_run_scores_with_verdicts_from_the_oracles_only(servers, tmp_path, monkeypatch):
    _, jd, lean, oracle_env = servers
    for k, v in oracle_env.items():
        monkeypatch.setenv(k, v)
    header, records, result = _run(tmp_path)
    assert header["model"]["prompt_version"] == "formalize-definition.v1+formalize-statement.v1"
    assert header["model"]["endpoint_model"] == "formalizer-0101" and header["context"] == "zero-shot"
    assert header["model"]["sampling"]["temperature"] == 0.0
    by_reply = {r["entity_id"]: r["formal_statement"] for r in records}
    assert len(records) == 6 and sum(v is None for v in by_reply.values()) == 1  # the reply without Lean abstains
    assert "theorem anon_good" in next(v for v in by_reply.values() if v and "anon_good" in v)  # the last block
    # Lean got the forced header, the reply's own imports dropped
    codes = [s["code"] for r in lean.requests if r["path"] == "/checks" for s in r["body"]["snippets"]]
    good = next(c for c in codes if "anon_good" in c)
    assert good.startswith("import Mathlib\nimport Aesop\n\n") and good.count("import Mathlib") == 1
    items = {i["item_id"]: i for i in result["items"]}
    outcome = sorted((i["compiles"], i["faithful"], i["compile_reason"].split(";")[0] if i["compile_reason"] else None)
                     for i in items.values())
    assert outcome == [("abstain", "abstain", None), ("no", "not_evaluable", "1 error(s)"),
                       ("no", "not_evaluable", "timed out after 60 s"), ("yes", "no", "compiles"),
                       ("yes", "no", "compiles"), ("yes", "yes", "compiles")]
    assert all(i["sorries"] == 1 for i in items.values() if i["compiles"] == "yes")  # `sorry` warnings do not fail
    assert (result["main"]["count"], result["main"]["total"]) == (1, 6) and result["status"] == "complete"
    assert result["metrics"]["compile_rate"]["count"] == 3
    unreadable = [i for i in items.values() if i["compiles"] == "yes" and i["faithful"] == "no"]
    assert all(i["judge_result"] == "misaligned" and "unparsable judge reply" in i["judge_reasoning"]
               for i in unreadable)
    # only compiling items were judged, each with its own rubric (all statements here)
    assert len(jd.requests) == 3 + 2  # one retry of each unreadable reply
    frozen = result["frozen"]
    assert frozen["scoring_artifact"].startswith("mathatlas-lean:kimina:lean-0.0.0-protocol-double:mathlib-v4.24.0"
                                                 ":timeout-60s+mathatlas-judge:")
    assert frozen["retrieval_artifact"] is None and result["flags"]["context"] == "zero-shot"
    assert result["flags"]["lean"] == "protocol-double"
    # the board finds the judge where the family declares it, to show that judge's calibration
    assert judged_columns()["mathatlas"].judge_of(result) == "chat:judge-1"
    # a rerun reads every verdict from the caches: nothing is asked again
    before_lean, before_judge = len(lean.requests), len(jd.requests)
    (tmp_path / "out" / next((tmp_path / "out").glob("mathatlas.*.result.json")).name).unlink()
    _, _, again = _run(tmp_path)
    assert len(jd.requests) == before_judge and len(lean.requests) <= before_lean + 1  # the version probe only
    assert again["main"] == result["main"]


def test_dependency_context_is_shown_and_splits_groups(servers, tmp_path, monkeypatch):
    chat, *_ = servers
    header, _, result = _run(tmp_path, "--context", "dependencies")
    assert header["context"] == "dependencies" and result["flags"]["context"] == "dependencies"
    assert result["frozen"]["retrieval_artifact"] == "mathatlas-dependency-context/1"  # never grouped with zero-shot
    shown = [b["messages"][-1]["content"] for b in chat.requests]
    with_deps = [t for t in shown if t.startswith("## Background: prerequisites of this item")]
    # thm-1.8 cites the measure and the σ-algebra; its block shows both, labelled as upstream labels them
    thm = next(t for t in with_deps if "E_1 \\subset" in t.split("Please autoformalize")[1])
    assert '### 1. "measure" (Definition 1.2; definition)' in thm and "### 2." in thm
    # prop-0.16's links: the homotopy (in the release) and a withheld proposition (never shown)
    cw = next(t for t in shown if "CW pair" in t.split("Please autoformalize")[1])
    assert "A homotopy is a family" in cw and "### 2." not in cw
    from lemmata.benchmarks.mathatlas import DEPENDENCY_CONTEXT

    assert DEPENDENCY_CONTEXT.splits and DEPENDENCY_CONTEXT.holds({"context": "dependencies"})


def test_without_oracles_items_are_pending_with_bounds_and_judge_completes_them(servers, tmp_path, monkeypatch):
    _, _, _, oracle_env = servers
    store = tmp_path / "store"
    _, _, pending = _run(tmp_path, "--store", str(store))
    assert pending["status"] == "pending_oracle" and pending["pending"] == 5 and pending["main"]["count"] == 0
    assert pending["metrics"]["correct_bounds"] == [0.0, 5 / 6]
    assert pending["frozen"]["scoring_artifact"] == "mathatlas-lean:none+mathatlas-judge:none"
    for k, v in oracle_env.items():
        monkeypatch.setenv(k, v)
    assert main(["judge", "--store", str(store), "--quiet"]) == 0
    from lemmata.store import Store

    results = Store(store).results(benchmark="mathatlas")
    assert len(results) == 1
    done = results[0]
    assert done.status == "complete" and done.version == 2 and done.supersedes == pending["result_id"]
    assert (done.main.count, done.main.total) == (1, 6) and done.pending == 0


def test_a_stated_verdict_changes_nothing(servers, tmp_path):
    from lemmata.benchmarks.mathatlas.track import track_entities
    from lemmata.families import handler_for
    from lemmata.oracles.chat import judge_from_env
    from lemmata.oracles.lean import verifier_from_env
    from lemmata.scoring import validate_upload
    from lemmata.tracks.base import OracleConfig

    *_, oracle_env = servers
    oracles = OracleConfig(judge=judge_from_env(oracle_env), lean=verifier_from_env(oracle_env),
                           extra={"lean_artifact": str(tmp_path / "lean"), "judge_artifact": str(tmp_path / "judge")})
    ids = list(track_entities("mathatlas-2.0.0", "statements"))
    header = {"format": "lemmata-submission/1", "benchmark": "mathatlas", "release": "mathatlas-2.0.0",
              "track": "statements", "model": {"name": "m"}, "lean_version": "v4.24.0", "judge": "CriticLean-32B"}
    texts = ["theorem anon_good : True := by sorry", "theorem anon_malformed : (True := by sorry"]

    def scored(stated: str, using: OracleConfig = oracles) -> dict:
        recs = [{"entity_id": e, "formal_statement": t, "compiles": stated, "faithful": stated}
                for e, t in zip(ids, texts)]
        data = "".join(json.dumps(x) + "\n" for x in [header, *recs]).encode()
        v = validate_upload(data, "sub.jsonl")
        result = handler_for("mathatlas").score(v, received_at="2026-11-27T00:00:00+00:00", oracles=using)
        return json.loads(result.to_json())

    yes, no = scored("yes"), scored("no")
    assert [i.get("stated") for i in yes["items"][:2]] == [{"compiles": "yes", "faithful": "yes"}] * 2
    for key in ("main", "metrics", "breakdowns", "frozen", "status", "pending", "flags"):
        assert yes[key] == no[key], key
    strip = [{k: v for k, v in i.items() if k != "stated"} for i in yes["items"]]
    assert strip == [{k: v for k, v in i.items() if k != "stated"} for i in no["items"]]
    assert (yes["main"]["count"], yes["metrics"]["compile_rate"]["count"]) == (1, 1)
    # the verdicts on record score the same file again with no oracle reachable
    recorded = scored("no", OracleConfig(extra=dict(oracles.extra)))
    assert recorded["main"] == no["main"] and recorded["frozen"] == no["frozen"] and recorded["status"] == "complete"


# -- calibration -----------------------------------------------------------------------------------------------

#: a scripted judge on the six MA-Align fixture pairs, by a name in each formalization: aligned on three, an
#: unreadable reply (counts as misaligned), a refusal (likewise) and one plain "misaligned"
CALIBRATION_REPLIES = {
    "IsPeriodicWith": '{"reasoning": "r", "result": "aligned"}', "IsFreeAction": '{"reasoning": "r", "result": "aligned"}',
    "IsBasic": '{"result": "aligned"}', "cauchy_schwarz": '{"reasoning": "r", "result": "aligned"}',
    "nil_ideal_nilpotent": "I'm sorry, I can't assist with that.",
    "abelian_of_sq_eq_one": '{"reasoning": "r", "result": "misaligned"}',
}


def test_calibrate_judge_on_ma_align_against_both_label_sets(tmp_path, monkeypatch):
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder
    from lemmata.core.paths import releases_dir

    if not (releases_dir() / "ma-align-2.0.0").is_dir():
        MaAlignBuilder(source_dir=FIXTURES).build(releases_dir(), quiet=True)
    seen: list[str] = []

    def scripted(body: dict) -> str:
        text = body["messages"][-1]["content"]
        seen.append(text)
        return next(reply for name, reply in CALIBRATION_REPLIES.items() if name in text)

    with ChatDouble(scripted) as jd:
        monkeypatch.setenv("LEMMATA_JUDGE_BASE_URL", jd.base_url)
        monkeypatch.setenv("LEMMATA_JUDGE_MODEL", "scripted-judge")
        art = tmp_path / "judge"
        assert main(["calibrate", "--judge", "--judge-artifact", str(art), "--quiet"]) == 0
        asked = len(jd.requests)
        assert main(["calibrate", "--judge", "--judge-artifact", str(art), "--quiet"]) == 0
        assert len(jd.requests) == asked  # every verdict came from the artifact's cache
    # each kind under its own rubric: three definition pairs, three statement pairs (+1 retry of each unreadable)
    assert sum("Rubric faithful-definition.v1" in t for t in seen) == 3 + 1
    assert sum("Rubric faithful-statement.v1" in t for t in seen) == 3 + 1
    record = json.loads((art / "CALIBRATION.json").read_text("utf-8"))
    assert record["judge"]["id"] == "chat:scripted-judge" and record["artifact_id"].startswith("mathatlas-judge:")
    assert record["unparsable"] == 2 and record["pairs"] == 6
    # by hand: predicted aligned on pairs 1, 2 and 4 (IsPeriodicWith, IsFreeAction, cauchy_schwarz);
    # published F T T T F F -> right on 2, 4, 5, 6: tp 2, fp 1, fn 1, tn 2; p_o = 4/6, p_e = .5·.5 + .5·.5
    pub = record["label_sets"]["published"]
    assert (pub["accuracy"]["count"], pub["accuracy"]["total"]) == (4, 6)
    assert pub["confusion"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 2, "abstained": 0}
    assert pub["precision"]["value"] == pytest.approx(2 / 3) and pub["f1"]["value"] == pytest.approx(2 / 3)
    assert pub["kappa"]["value"] == pytest.approx((4 / 6 - 0.5) / 0.5)
    # relabel T T F T F T -> right on all but pair 6: tp 3, fp 0, fn 1, tn 2; p_e = .5·(4/6) + .5·(2/6) = .5
    rel = record["label_sets"]["relabel"]
    assert rel["accuracy"]["count"] == 5 and rel["recall"]["value"] == pytest.approx(3 / 4)
    assert rel["f1"]["value"] == pytest.approx(6 / 7) and rel["kappa"]["value"] == pytest.approx((5 / 6 - 0.5) / 0.5)
    lo, hi = rel["kappa"]["interval"]
    assert lo <= rel["kappa"]["value"] <= hi and rel["kappa"]["interval_kind"] == "pair_bootstrap95"
    assert set(rel["by_kind"]) == {"definition", "statement"}


def test_run_writes_a_request_log_and_an_edited_statement_is_named(servers, tmp_path):
    """The run writes its request log beside the submission (no oracle here: the verdicts stay pending), the result
    carries the *runner log* badge, and a formal statement edited after the run is refused with its line and the
    log line of the answer it no longer matches; the same file without the runner field is self-reported."""
    import hashlib

    from lemmata.core.errors import InputError
    from lemmata.formats.runner_log import log_beside
    from lemmata.scoring import validate_upload
    from lemmata.space.conditions import badges

    header, records, result = _run(tmp_path)
    sub = next(p for p in (tmp_path / "out").glob("mathatlas.*.jsonl") if not p.name.endswith(".runner-log.jsonl"))
    log = log_beside(sub).read_bytes()
    assert header["runner"]["log_sha256"] == hashlib.sha256(log).hexdigest()
    entries = [json.loads(x) for x in log.decode("utf-8").splitlines()]
    assert entries[0]["benchmark"] == "mathatlas" and len(entries) == 1 + len(records)
    assert result["flags"]["runner_log"] == "consistent" and "runner log" in [b for b, _ in badges(result["flags"])]
    assert result["provenance"]["runner_log"]["log_sha256"] == header["runner"]["log_sha256"]

    pos = next(i for i, r in enumerate(records) if r["formal_statement"] and "anon_good" in r["formal_statement"])
    edited = [dict(r) for r in records]
    edited[pos]["formal_statement"] = "theorem anon_better (n : ℕ) : n = n := by sorry"
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [header, *edited]).encode("utf-8")
    with pytest.raises(InputError) as exc:
        validate_upload(data, sub.name, runner_log=log, runner_log_name=log_beside(sub).name)
    (problem,) = exc.value.problems
    log_line = next(n for n, e in enumerate(entries, 1) if e.get("item") == records[pos]["entity_id"])
    assert (problem.file, problem.line, problem.field) == (sub.name, pos + 2, "formal_statement")
    assert records[pos]["entity_id"] in problem.reason and f"line {log_line} of" in problem.reason
    # an abstention turned into a statement is caught the same way
    abstained = next(i for i, r in enumerate(records) if r["formal_statement"] is None)
    edited = [dict(r) for r in records]
    edited[abstained]["formal_statement"] = "theorem anon (n : ℕ) : n = n := by sorry"
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [header, *edited]).encode("utf-8")
    with pytest.raises(InputError) as exc:
        validate_upload(data, sub.name, runner_log=log)
    assert [(p.line, p.field) for p in exc.value.problems] == [(abstained + 2, "formal_statement")]
    # without the runner field the file is self-reported: no log, no badge
    plain = {k: v for k, v in header.items() if k != "runner"}
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [plain, *records]).encode("utf-8")
    assert validate_upload(data, sub.name).runner_log is None
