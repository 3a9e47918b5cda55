"""TaoBench proof submissions: validation, scoring offline (pending) and with a protocol server, reported rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.core.errors import InputError, LemmataError
from lemmata.metrics.correctness import pass_at_k
from lemmata.oracles.lean import LeanArtifact, LeanConfig, LeanVerifier
from lemmata.families import handler_for
from lemmata.scoring import validate_upload
from lemmata.tracks.base import OracleConfig
from lemmata.store import Store
from lemmata.oracles.kimina_double import KiminaDouble
from lemmata.benchmarks.taobench.release import open_taobench
from lemmata.benchmarks.taobench.scoring import INTEGRITY_VERSION, PROBE_VERSION, Verification, score_submission
from lemmata.benchmarks.taobench.submission import SCHEMA_PATH, parse_submission, schema_text
from lemmata.benchmarks.taobench.track import TaoBenchProofsHandler, verification_for
from lemmata.formats.envelope import parse_envelope

ROOT = Path(__file__).parents[3]
RELEASE = "taobench-150-1.1.0"
PROOF = ":= by\n  intro x\n  simp_all"
RECEIVED = "2026-11-21T12:00:00+00:00"


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb-releases")
    open_taobench(RELEASE, root)  # builds it there
    return root


@pytest.fixture(scope="module")
def release(releases):
    return open_taobench(RELEASE, releases, build=False)


def header(**kw) -> dict:
    h = {"format": "lemmata-submission/1", "benchmark": "taobench", "track": "proofs", "release": RELEASE,
         "formulations": ["tao", "mathlib"], "model": {"name": "test-prover", "revision": "r1"}, "n": 2,
         "sampling": {"temperature": 0.6, "top_p": 0.95, "max_tokens": 4096},
         "flags": {"used_lean_feedback": False, "trained_on_taobench": False, "used_external_tools": False,
                        "filtered_attempts": False}}
    h.update(kw)
    return h


def jsonl(objs) -> bytes:
    return b"".join(json.dumps(o, ensure_ascii=False).encode("utf-8") + b"\n" for o in objs)


def honest(release, fqn, formulation, proof=PROOF) -> str:
    return release.exercise(fqn, formulation).complete(proof)


@pytest.fixture(scope="module")
def handler(releases):
    return TaoBenchProofsHandler(releases)


def validate(handler, data: bytes, name="sub.jsonl"):
    from lemmata.core.hashing import sha256_bytes

    return handler.validate(parse_envelope(data, name), sha256_bytes(data))


# --- validation -----------------------------------------------------------------------------------------------------


def test_every_problem_is_reported_with_line_and_field(handler, release):
    fqns = release.fqns()
    ok = honest(release, fqns[0], "mathlib")
    data = jsonl([
        header(n=1, formulations=["mathlib"]),
        {"fqn": fqns[0], "formulation": "mathlib", "attempts": [ok]},  # line 2: fine
        {"fqn": "Chapter2.Nat.backward_induction", "formulation": "mathlib", "attempts": [ok]},  # 3: unknown FQN
        {"fqn": fqns[0], "formulation": "mathlib", "attempts": [ok]},  # 4: duplicate
        {"fqn": fqns[1], "formulation": "mathlib", "attempts": [ok, ok]},  # 5: too many attempts
        {"fqn": fqns[2], "formulation": "mathlib", "attempts": ["x" * (256 * 1024 + 1)]},  # 6: oversized
        {"fqn": fqns[3], "formulation": "tao", "attempts": [ok]},  # 7: undeclared formulation
        {"fqn": fqns[4], "formulation": "mathlib", "attempts": []},  # 8: no attempt
        {"fqn": fqns[5], "formulation": "mathlib", "attempts": [ok], "extra": 1},  # 9: unknown field
    ])
    with pytest.raises(InputError) as exc:
        validate(handler, data)
    where = {(p.line, p.field) for p in exc.value.problems}
    assert where == {(3, "fqn"), (4, "fqn"), (5, "attempts"), (6, "attempts.0"), (7, "formulation"), (8, "attempts"),
                     (9, "extra")}
    unknown = next(p for p in exc.value.problems if p.line == 3)
    assert "did you mean 'Chapter2.Nat.backwards_induction'" in unknown.reason


def test_wrong_release_and_non_utf8(handler, release):
    with pytest.raises(InputError) as exc:
        validate(handler, jsonl([header(release="taobench-150-9.9.9"),
                                 {"fqn": release.fqns()[0], "formulation": "tao", "attempts": ["x", "x"]}]))
    (p,) = exc.value.problems
    assert (p.line, p.field) == (1, "header.release") and "taobench-150-1.1.0" in p.reason
    bad = jsonl([header()]) + b'{"fqn": "\xff", "formulation": "tao", "attempts": ["x"]}\n'
    with pytest.raises(InputError) as exc:
        validate(handler, bad)
    assert exc.value.problems[0].line == 2 and "UTF-8" in exc.value.problems[0].reason


def test_dispatch_through_the_shared_interface(releases, release, monkeypatch):
    import lemmata.core.paths

    monkeypatch.setenv("LEMMATA_HOME", str(releases.parent))
    monkeypatch.setattr(lemmata.core.paths, "releases_dir", lambda: releases)
    data = jsonl([header(n=1), {"fqn": release.fqns()[0], "formulation": "tao",
                                "attempts": [honest(release, release.fqns()[0], "tao")]}])
    validated = validate_upload(data, "sub.jsonl")
    assert validated.benchmark == "taobench" and validated.track == "proofs" and validated.needs_oracle
    assert isinstance(handler_for("taobench"), TaoBenchProofsHandler)


def test_schema_file_is_current():
    assert (ROOT / SCHEMA_PATH).read_text("utf-8") == schema_text()


# --- scoring --------------------------------------------------------------------------------------------------------


def _submission(release, n=2):
    """Attempts with known outcomes under the protocol double.

    fqns[0]: both formulations, honest attempts (pass); fqns[1]: tao honest + one with sorry (rejected),
    mathlib one unbalanced bracket (fails) and one honest (passes); fqns[2]: tao statement changed
    (rejected) only; everything else: no record. Every record carries exactly n attempts: the ones named are
    followed by the official statement closed with `sorry` (rejected, so a failure), which leaves pass@k as if
    the missing attempts had not been sent.
    """
    f = release.fqns()
    recs = [
        {"fqn": f[0], "formulation": "tao", "attempts": [honest(release, f[0], "tao")] * n},
        {"fqn": f[0], "formulation": "mathlib", "attempts": [honest(release, f[0], "mathlib")]},
        {"fqn": f[1], "formulation": "tao", "attempts": [honest(release, f[1], "tao"),
                                                          honest(release, f[1], "tao", ":= by\n  sorry")]},
        {"fqn": f[1], "formulation": "mathlib", "attempts": [honest(release, f[1], "mathlib", ":= by\n  exact (foo"),
                                                              honest(release, f[1], "mathlib")]},
        {"fqn": f[2], "formulation": "tao", "attempts": [
            honest(release, f[2], "tao").replace(release.item(f[2], "tao").statement,
                                                 release.item(f[2], "tao").statement + " ∧ True", 1)]},
    ]
    for rec in recs:
        rec["attempts"] += [honest(release, rec["fqn"], rec["formulation"], ":= by\n  sorry")] * (n - len(rec["attempts"]))
    return header(n=n), recs


def _records(handler, release, n=2):
    h, recs = _submission(release, n)
    return validate(handler, jsonl([h, *recs]))


def test_offline_scoring_keeps_passing_attempts_pending(handler, release):
    validated = _records(handler, release)
    result = handler.score(validated, received_at=RECEIVED, oracles=OracleConfig())
    assert result.status == "pending_oracle" and result.main.value is None and result.main.total == 150
    att = result.metrics["attempts"]
    assert (att["rejected"], att["pending"], att["passed"], att["failed"]) == (4, 6, 0, 0)
    assert att["submitted"] == 10 and att["not_submitted"] == 2 * 150 * 2 - 10
    assert result.metrics["violations"] == {"sorry": 3, "statement_changed": 1}
    tao1 = result.metrics["tao"]["pass@1"]
    assert tao1["value"] == 0.0 and tao1["pending_items"] == 2
    assert tao1["upper_if_pending_pass"] == pytest.approx((1 + 0.5) / 150)
    assert result.frozen.scoring_artifact == f"taobench-lean:none+{INTEGRITY_VERSION}+{PROBE_VERSION}"
    assert result.frozen.dataset_release == RELEASE and result.frozen.date == "2026-11-21"
    assert result.frozen.retrieval_artifact is None and result.pending == 4


def test_a_pending_result_shows_its_bounds_everywhere(handler, release, tmp_path):
    """The range a pending pass@1 can still end in (pending attempts failing … passing) is declared by the scorer
    and shown by the board, the audit, the matrix and the CLI's summary line alike."""
    from lemmata.space.audit import entry_facts
    from lemmata.space.board import load_rows
    from lemmata.space.matrix import build_matrix, render_matrix
    from lemmata.space.tables import pending_value
    from lemmata.store import Store
    from lemmata.tracks.baseline_report import headline

    result = handler.score(_records(handler, release), received_at=RECEIVED, oracles=OracleConfig())
    low, high = 0.0, (1 + 0.5) / 150
    assert result.main.value is None and result.main.bounds == pytest.approx((low, high))
    assert "pending: 0.000–0.010" in headline(result) and "pending: 0.000–0.010" in entry_facts(result)
    store = Store(tmp_path / "store")
    stored, _ = store.add_result(result.finalized())
    (row,) = [r for r in load_rows(store) if r.result_id == stored.result_id]
    assert (row.bounds.low, row.bounds.high) == pytest.approx((low, high))
    assert "pending: 0.000–0.010" in pending_value(row)
    columns, models = build_matrix([row])
    assert "pending: 0.000–0.010" in render_matrix(columns, models)
    # declared while pending and stored with the result; a score without bounds dumps as before the field existed
    assert result.main.model_dump(mode="json")["bounds"] == pytest.approx([low, high])
    assert "bounds" not in result.main.model_copy(update={"bounds": None}).model_dump(mode="json")


def test_scoring_with_a_protocol_server(handler, release, tmp_path):
    validated = _records(handler, release)
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        oracles = OracleConfig(lean=verifier, extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True})
        result = handler.score(validated, received_at=RECEIVED, oracles=oracles)
        sent = len(server.requests)
        again = handler.score(validated, received_at=RECEIVED,
                              oracles=OracleConfig(extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True}))
        assert len(server.requests) == sent, "a rescore reads the artifact and asks nothing"
    assert again.result_id == result.result_id
    assert result.status == "complete" and result.pending == 0
    att = result.metrics["attempts"]
    assert (att["passed"], att["failed"], att["rejected"], att["pending"]) == (5, 1, 4, 0)
    f = release.fqns()
    # per-exercise pass@k from (n, c): tao f0 (2, 2), f1 (2, 1), f2 (2, 0); mathlib f0 (2, 1), f1 (2, 1)
    for k in (1, 2):
        tao = (pass_at_k(2, 2, k) + pass_at_k(2, 1, k)) / 150
        mathlib = (pass_at_k(2, 1, k) + pass_at_k(2, 1, k)) / 150
        assert result.metrics["tao"][f"pass@{k}"]["value"] == pytest.approx(tao)
        assert result.metrics["mathlib"][f"pass@{k}"]["value"] == pytest.approx(mathlib)
    assert "pass@8" not in result.metrics["tao"]
    assert result.main.value == pytest.approx(1.5 / 150) and result.main.count == 2
    gap = result.metrics["gap"]
    assert gap["n_items"] == 150  # every exercise scoreable in both formulations, submitted or not
    assert gap["pass@1"]["difference"] == pytest.approx(((1 + 0.5) - (0.5 + 0.5)) / 150)
    assert gap["pass@1"]["paired_bootstrap95"] is not None
    chapters = result.breakdowns["chapter"]["tao"]["pass@1"]
    assert chapters[str(release.item(f[0], "tao").chapter)]["value"] > 0
    by_id = {it["item_id"]: it for it in result.items}
    failed = by_id[f"{f[1]}@mathlib"]["attempts"][0]
    assert failed["outcome"] == "failed" and failed["lean"]["lean_version"] == "0.0.0-protocol-double"
    passed = by_id[f"{f[0]}@tao"]["attempts"][0]
    assert passed["outcome"] == "passed" and passed["lean"]["axioms"][0] == "propext"
    probe = server.requests[-1]["body"]["snippets"][0]["code"].rstrip().splitlines()[-1]
    assert probe.startswith("#print axioms ") and probe.split()[-1] in {release.item(x, y).decl for x in f[:2]
                                                                        for y in ("tao", "mathlib")}
    rejected = by_id[f"{f[1]}@tao"]["attempts"][1]
    assert rejected["outcome"] == "rejected" and rejected["violations"][0]["kind"] == "sorry"
    assert any("protocol double" in note for note in result.notes)
    view = handler.audit(result, f"{f[1]}@tao", validated)
    assert any("rejected" in body and "sorry" in body for _, body in view.sections)
    # the audit shows the entry's pass@k curve for every k ≤ n, each formulation, equal to the scored metrics
    curve = dict(view.sections)["This entry: pass@k for every k ≤ n"]
    for k in (1, 2):
        row = f"| {k} | {result.metrics['tao'][f'pass@{k}']['value']:.4f} | " \
              f"{result.metrics['mathlib'][f'pass@{k}']['value']:.4f} |"
        assert row in curve
    assert "| 3 |" not in curve


def test_results_by_local_definition_bucket_reach_the_board_and_the_audit(handler, release, tmp_path):
    """Each exercise is bucketed by the definitions its Tao file declares before it; its Mathlib twin in the same
    bucket. Upstream's first pair (``Chapter2.Nat.backwards_induction``) declares ``inductive Nat``, two ``abbrev``s
    and two ``instance``s before the exercise (the ``postfix`` notation is no definition): 5."""
    from lemmata.benchmarks.taobench.context import BUCKETS
    from lemmata.space.plots import breakdown_table

    assert release.local_definitions("Chapter2.Nat.backwards_induction") == 5
    validated = _records(handler, release)
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        result = handler.score(validated, received_at=RECEIVED, oracles=OracleConfig(
            lean=verifier, extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True}))
    by_id = {it["item_id"]: it for it in result.items}
    for fqn in release.fqns()[:3]:
        assert by_id[f"{fqn}@tao"]["local_definitions"] == by_id[f"{fqn}@mathlib"]["local_definitions"] \
            == release.local_definitions(fqn)
    table = result.breakdowns["local_definitions"]
    labels = [label for label, _ in BUCKETS]
    for form in ("tao", "mathlib"):
        cells = table[form]["pass@1"]
        assert list(cells) == labels, "every bucket is populated on taobench-150, in bucket order"
        assert [cells[b]["n_items"] for b in labels] == [35, 42, 42, 31]  # near-quartiles of the 150 pairs
        for label, low in BUCKETS:  # each bucket's value is the mean of its items' pass@1, recomputed here
            high = next((lo for _, lo in BUCKETS if lo > low), 10**9)
            mine = [pass_at_k(it["n"], it["c"], 1) for it in result.items
                    if it["formulation"] == form and low <= it["local_definitions"] < high]
            assert cells[label]["value"] == pytest.approx(sum(mine) / len(mine))
    assert any(v["value"] > 0 for v in table["tao"]["pass@1"].values())
    # the board reads it as one more breakdown dimension, as it reads chapters
    shown = breakdown_table(result.breakdowns, result.main.metric)
    assert shown["local_definitions / tao / pass@1"] == {b: table["tao"]["pass@1"][b]["value"] for b in labels}
    # and the audit shows the item's count and the entry's table
    first = release.fqns()[0]
    view = dict(handler.audit(result, f"{first}@tao", validated).sections)
    assert f"{release.local_definitions(first)} local definitions (bucket" in view["Exercise"]
    bucket_rows = view["This entry: pass@k by local definitions"]
    assert f"| 5–9 | 42 | {table['tao']['pass@1']['5–9']['value']:.4f} |" in bucket_rows


def test_given_lemmas_with_sorry_do_not_fail_an_honest_attempt(handler, release, tmp_path):
    """Tao files state the lemmas an exercise may use with `sorry`; Lean warns about them, on official lines."""
    from lemmata.lean.lexer import lex

    fqn = next(f for f in release.fqns()
               if sum(t.text == "sorry" for t in lex(release.item(f, "tao").lean).tokens) > 1)
    data = jsonl([header(n=1, formulations=["tao"]), {"fqn": fqn, "formulation": "tao",
                                                      "attempts": [honest(release, fqn, "tao")]}])
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        result = handler.score(validate(handler, data), received_at=RECEIVED, oracles=OracleConfig(
            lean=verifier, extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True}))
    (attempt,) = next(it for it in result.items if it["fqn"] == fqn)["attempts"]
    assert attempt["outcome"] == "passed", attempt
    assert "sorryAx" in attempt["lean"]["axioms"] and attempt["lean"]["own_sorry_lines"] == []


def test_pass_at_8_and_n(handler, release):
    h, recs = _submission(release, n=16)
    result = handler.score(validate(handler, jsonl([h, *recs])), received_at=RECEIVED, oracles=OracleConfig())
    assert sorted(result.metrics["tao"], key=lambda k: int(k.split("@")[1])) == ["pass@1", "pass@8", "pass@16"]


def test_unreachable_verifier_leaves_attempts_pending_never_failed(handler, release, tmp_path):
    validated = _records(handler, release)
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0, max_retries=1))
        server.busy.extend([503] * 100)
        result = handler.score(validated, received_at=RECEIVED, oracles=OracleConfig(
            lean=verifier, extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True}))
    att = result.metrics["attempts"]
    assert (att["pending"], att["failed"], att["passed"]) == (6, 0, 0) and result.main.value is None


def test_protocol_double_cannot_score_a_leaderboard_entry(tmp_path):
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        with pytest.raises(LemmataError, match="protocol double"):
            verification_for(OracleConfig(lean=verifier, extra={"lean_artifact": str(tmp_path / "a")}))


def test_defective_exercises_are_left_out(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb-v1")
    v1 = open_taobench("taobench-v1-1.0.0", root)
    bad = [r["fqn"] for r in v1.rows if r["tao_defect"]]
    h = header(release="taobench-v1-1.0.0", n=1)
    recs = [{"fqn": bad[0], "formulation": "tao", "attempts": ["theorem x : True := trivial"]},
            {"fqn": v1.fqns()[0], "formulation": "mathlib", "attempts": [honest(v1, v1.fqns()[0], "mathlib")]}]
    header_obj, records = parse_submission(parse_envelope(jsonl([h, *recs]), "s.jsonl"), known_fqns=lambda r: v1.fqns())
    result = score_submission(v1, header_obj, [r for _, r in records], submission_sha256="0" * 64,
                              received_at=RECEIVED, verification=Verification(), n_resamples=0)
    assert len(bad) == 6
    # the headline formulations are scored on the same exercises: the Mathlib twins of malformed Tao files go too
    assert result.metrics["tao"]["pass@1"]["n_items"] == 600 - len(bad)
    assert result.metrics["mathlib"]["pass@1"]["n_items"] == 600 - len(bad)
    assert result.metrics["gap"]["n_items"] == 600 - len(bad)
    assert sorted(result.provenance["excluded_items"]) == sorted([f"{f}@tao" for f in bad]
                                                                 + [f"{f}@mathlib" for f in bad])
    assert any("same 594 exercises" in note and bad[0] in note for note in result.notes)
    assert result.metrics["attempts"]["submitted"] == 1


def _gap_of(handler, release, records, tmp_path):
    data = jsonl([header(n=1), *records])
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        result = handler.score(validate(handler, data), received_at=RECEIVED, oracles=OracleConfig(
            lean=verifier, extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True}))
    return result.metrics["gap"]


def test_the_gap_does_not_depend_on_what_is_left_out(handler, release, tmp_path):
    """Same verdicts, one failing Tao attempt sent or left out: the gap is computed over all 150 either way."""
    f = release.fqns()
    both = [{"fqn": f[0], "formulation": "tao", "attempts": [honest(release, f[0], "tao")]},
            {"fqn": f[0], "formulation": "mathlib", "attempts": [honest(release, f[0], "mathlib")]},
            {"fqn": f[1], "formulation": "mathlib", "attempts": [honest(release, f[1], "mathlib")]}]
    failing_tao = {"fqn": f[1], "formulation": "tao", "attempts": [honest(release, f[1], "tao", ":= by\n  exact (foo")]}
    sent = _gap_of(handler, release, both + [failing_tao], tmp_path)
    left_out = _gap_of(handler, release, both, tmp_path)
    assert sent["n_items"] == left_out["n_items"] == 150
    assert sent["pass@1"]["difference"] == left_out["pass@1"]["difference"] == pytest.approx((1 - 2) / 150)
    assert sent["pass@1"]["tao"] == pytest.approx(1 / 150) and sent["pass@1"]["mathlib"] == pytest.approx(2 / 150)


def test_results_go_to_the_store_and_reported_rows_stay_apart(handler, release, tmp_path):
    from lemmata.benchmarks.taobench.reported import reported_results

    store = Store(tmp_path / "store")
    scored = handler.score(_records(handler, release), received_at=RECEIVED, oracles=OracleConfig())
    assert store.add_result(scored)[1] is True and store.add_result(scored)[1] is False
    reported = reported_results()
    assert len(reported) == 5 + 5 + 3 + 2 and {r.kind for r in reported} == {"reported"}
    for r in reported:
        store.add_result(r)
    goedel = next(r for r in reported if r.model.name == "Goedel-Prover-V2-32B" and r.flags["table"] == "main_pass@128")
    assert (goedel.main.count, goedel.main.total, goedel.main.metric) == (74, 150, "pass@128 (tao)")
    assert goedel.metrics["mathlib"]["count"] == 109 and goedel.frozen.dataset_release == RELEASE
    bfs = next(r for r in reported if r.model.name == "BFS-Prover-V2-7B")
    assert bfs.metrics["tao"] is None and bfs.main.metric.endswith("(mathlib)") and bfs.main.count == 103
    groups = {row["group_key"] for row in store.result_rows(benchmark="taobench") if row["kind"] == "reported"}
    assert scored.frozen.group_key() not in groups and len(groups) == 4
    assert [r.result_id for r in reported_results()] == [r.result_id for r in reported]


def test_reported_file_is_pinned(tmp_path):
    from lemmata.benchmarks.taobench.reported import PAPER, reported_results

    copy = tmp_path / "taobench_paper.json"
    copy.write_text(PAPER.packaged().read_text("utf-8").replace("57", "58", 1), encoding="utf-8")
    with pytest.raises(InputError, match="sha256 mismatch"):
        reported_results(copy)


def test_example_submission_validates_and_scores(handler, releases, tmp_path):
    from lemmata.benchmarks.taobench.example import write_example

    path, n = write_example(tmp_path / "example.jsonl", releases_root=releases)
    # the shipped example (the Submit tab's and the README's) is exactly what the command writes
    shipped = Path(__file__).resolve().parents[3] / "submissions" / "taobench" / "example-taobench.jsonl"
    assert shipped.read_bytes() == path.read_bytes(), "regenerate: lemmata taobench example --out " + str(shipped)
    validated = validate(handler, path.read_bytes(), path.name)
    assert n == len(validated.records) >= 20
    result = handler.score(validated, received_at=RECEIVED, oracles=OracleConfig())
    assert result.metrics["attempts"]["rejected"] == 0, result.metrics["violations"]
    assert result.metrics["attempts"]["pending"] == n


def test_cli_check_and_score(releases, release, tmp_path, capsys, monkeypatch):
    from lemmata.cli import main

    fqn = release.fqns()[0]
    good, bad = tmp_path / "good.lean", tmp_path / "bad.lean"
    good.write_text(honest(release, fqn, "mathlib"), encoding="utf-8")
    bad.write_text(honest(release, fqn, "mathlib", ":= by\n  admit"), encoding="utf-8")
    args = ["taobench", "check", "--releases", str(releases), "--fqn", fqn, "--formulation", "mathlib"]
    assert main(args[:2] + [str(good)] + args[2:]) == 0
    assert main(args[:2] + [str(bad)] + args[2:]) == 2
    assert "sorry: `admit`" in capsys.readouterr().out
    sub = tmp_path / "sub.jsonl"
    sub.write_bytes(jsonl([header(n=1), {"fqn": fqn, "formulation": "mathlib", "attempts": [good.read_text()]}]))
    out = tmp_path / "result.json"
    monkeypatch.setenv("LEMMATA_RELEASES", str(releases))
    assert main(["score", str(sub), "--out", str(out), "--received-at", RECEIVED, "--quiet"]) == 0
    stored = json.loads(out.read_text())
    assert stored["status"] == "pending_oracle" and stored["schema_version"] == "lemmata.result/1"


def test_verification_requires_matching_identity(tmp_path):
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        other = verifier.identity.model_copy(update={"mathlib_version": "other"})
        art = LeanArtifact(tmp_path / "a", benchmark="taobench", identity=other)
        with pytest.raises(ValueError, match="does not match"):
            Verification(artifact=art, verifier=verifier)


def test_every_honest_tao_completion_passes_under_the_protocol_double(handler, release, tmp_path):
    """The verdict pipeline (positions, given sorries and admits, axiom probe) accepts every official Tao file
    completed with a proof; only the double's lexical checks stand in for Lean here."""
    data = jsonl([header(n=1, formulations=["tao"]),
                  *({"fqn": f, "formulation": "tao", "attempts": [honest(release, f, "tao")]} for f in release.fqns())])
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0, batch_size=50))
        result = handler.score(validate(handler, data), received_at=RECEIVED, oracles=OracleConfig(
            lean=verifier, extra={"lean_artifact": str(tmp_path / "art"), "allow_double": True}))
    failed = [(it["fqn"], a["lean"]["reason"]) for it in result.items for a in it["attempts"] if a["outcome"] != "passed"]
    assert failed == [] and result.metrics["attempts"]["passed"] == 150


def test_cli_refuses_protocol_double_verdicts(releases, release, tmp_path, monkeypatch, capsys):
    from lemmata.cli import main

    fqn = release.fqns()[0]
    sub = tmp_path / "sub.jsonl"
    sub.write_bytes(jsonl([header(n=1), {"fqn": fqn, "formulation": "mathlib",
                                         "attempts": [honest(release, fqn, "mathlib")]}]))
    with KiminaDouble() as server:
        monkeypatch.setenv("LEMMATA_LEAN_URL", server.url)
        monkeypatch.setenv("LEMMATA_MATHLIB_VERSION", "test")
        monkeypatch.setenv("LEMMATA_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("LEMMATA_RELEASES", str(releases))
        assert main(["score", str(sub), "--quiet"]) == 1
    assert "protocol double" in capsys.readouterr().err


# -- recorded Lean verdicts cannot be edited ---------------------------------------------------------------


def _edit_lines(path: Path, edit) -> None:
    lines = path.read_text("utf-8").splitlines(keepends=True)
    path.write_text("".join(edit(lines)), "utf-8")


def _flip_failed(lines):
    i = next(i for i, line in enumerate(lines) if '"compiles": false' in line)
    return [*lines[:i], lines[i].replace('"compiles": false', '"compiles": true', 1), *lines[i + 1:]]


@pytest.mark.parametrize("edit, line_field", [
    (_flip_failed, "entry_sha256"),
    (lambda lines: lines[1:], "seq"),
    (lambda lines: [lines[1], lines[0], *lines[2:]], "seq"),
    (lambda lines: lines[:-1], "count"),
])
def test_an_edited_lean_verdict_cache_fails_scoring(handler, release, tmp_path, edit, line_field):
    validated = _records(handler, release)
    art = tmp_path / "art"
    extra = {"lean_artifact": str(art), "allow_double": True}
    with KiminaDouble() as server:
        verifier = LeanVerifier(LeanConfig(url=server.url, mathlib_version="test", backoff_s=0))
        first = handler.score(validated, received_at=RECEIVED, oracles=OracleConfig(lean=verifier, extra=extra))
    assert first.metrics["attempts"]["failed"] == 1 and first.status == "complete"
    _edit_lines(art / "verdicts.jsonl", edit)
    with pytest.raises(InputError) as err:
        handler.score(validated, received_at=RECEIVED, oracles=OracleConfig(extra=extra))
    (problem,) = err.value.problems
    assert problem.field == line_field
    assert problem.file.endswith("verdicts.head.json" if line_field == "count" else "verdicts.jsonl")
    assert (problem.line is None) == (line_field == "count")


def test_the_header_must_say_whether_attempts_were_filtered(handler):
    """Sampling 8 and sending the 2 that pass, declared as n = 2, would quadruple pass@1: the header states
    whether attempts were filtered (required), and the board sets filtered entries apart."""
    old = header()
    del old["flags"]["filtered_attempts"]
    with pytest.raises(InputError) as err:
        validate(handler, jsonl([old]))
    assert any(p.field and p.field.endswith("filtered_attempts") and p.line == 1 for p in err.value.problems)


def test_a_record_with_fewer_than_n_attempts_is_refused(handler, release):
    """Sampling 8 and sending the 2 that pass, declared as n = 2, would quadruple pass@1: every record carries
    exactly n attempts (an exercise left out counts as n failures)."""
    fqn = release.fqns()[0]
    data = jsonl([header(n=2, formulations=["tao"]),
                  {"fqn": fqn, "formulation": "tao", "attempts": ["theorem x : True := trivial"]}])
    with pytest.raises(InputError) as err:
        validate(handler, data)
    [p] = [p for p in err.value.problems if p.field == "attempts"]
    assert p.line == 2 and "n = 2" in p.reason
