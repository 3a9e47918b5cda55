"""The Lean verifier client against a local in-process server that speaks the Kimina Lean server protocol."""

from __future__ import annotations

import json

import pytest

from lemmata.core.errors import LemmataError
from lemmata.oracles.cache import verdict_key
from lemmata.oracles.judge import OracleUnavailable
from lemmata.oracles.lean import (
    CheckResult,
    KiminaClient,
    LeanArtifact,
    LeanConfig,
    LeanVerifier,
    OracleAuthError,
    VerifierIdentity,
)
from lemmata.oracles.kimina_double import DOUBLE_LEAN_VERSION, TIMEOUT_MARKER, KiminaDouble, check_code
from lemmata.benchmarks.taobench.scoring import lean_verdict, with_axiom_probe

GOOD = "theorem t : 1 + 1 = 2 := by\n  norm_num\n"
SORRY = "theorem t : 1 + 1 = 2 := by\n  sorry\n"
BROKEN = "theorem t : (1 + 1 = 2 := by\n  norm_num\n"


def _config(server: KiminaDouble, **kw) -> LeanConfig:
    kw.setdefault("backoff_s", 0)
    return LeanConfig(url=server.url, api_key=kw.pop("api_key", "secret"), mathlib_version="v4.23.0", **kw)


@pytest.fixture
def server():
    with KiminaDouble(api_key="secret") as s:
        yield s


def test_health_version_and_batched_checks(server):
    client = KiminaClient(_config(server))
    assert client.health() is True
    assert client.lean_version() == DOUBLE_LEAN_VERSION
    good, sorry, broken = client.check([("a", GOOD), ("b", SORRY), ("c", BROKEN)])
    assert (good.id, good.error, good.errors(), good.sorries) == ("a", None, [], ())
    assert [m.data for m in sorry.messages] == ["declaration uses 'sorry'"] and sorry.sorries[0].pos.line == 2
    assert broken.errors() and broken.errors()[0].pos.line == 1
    body = server.requests[-1]["body"]
    assert server.requests[-1]["path"] == "/checks"
    assert body["timeout"] == 60 and [s["id"] for s in body["snippets"]] == ["a", "b", "c"]


def test_verifier_batches_and_records_versions(server):
    verifier = LeanVerifier(_config(server, batch_size=2, timeout_s=30))
    assert verifier.identity == VerifierIdentity(verifier="kimina", lean_version=DOUBLE_LEAN_VERSION,
                                                 mathlib_version="v4.23.0", timeout_s=30)
    before = len(server.requests)
    out = verifier.check({f"k{i}": GOOD for i in range(5)})
    assert set(out) == {f"k{i}" for i in range(5)} and all(r is not None and not r.errors() for r in out.values())
    sizes = [len(r["body"]["snippets"]) for r in server.requests[before:]]
    assert sizes == [2, 2, 1] and all(r["body"]["timeout"] == 30 for r in server.requests[before:])
    assert verifier.describe()["lean_version"] == DOUBLE_LEAN_VERSION


def test_credentials(server):
    with pytest.raises(OracleAuthError):
        KiminaClient(_config(server, api_key="wrong")).check([("a", GOOD)])
    with pytest.raises(OracleAuthError):
        KiminaClient(_config(server, api_key="")).check([("a", GOOD)])


def test_busy_server_is_retried_with_backoff(server):
    sleeps: list[float] = []
    server.busy.extend([429, 503])
    client = KiminaClient(_config(server, backoff_s=0.5), sleep=sleeps.append)
    (res,) = client.check([("a", GOOD)])
    assert not res.errors() and len(sleeps) == 2 and sleeps[1] > sleeps[0] >= 0.5


def test_failed_snippets_are_resent_and_retries_run_out(server):
    sleeps: list[float] = []
    server.flaky_snippets = 1
    (res,) = KiminaClient(_config(server), sleep=sleeps.append).check([("a", GOOD)])
    assert res.error is None and len(sleeps) == 1
    server.busy.extend([503] * 10)
    with pytest.raises(OracleUnavailable):
        KiminaClient(_config(server, max_retries=2), sleep=lambda s: None).check([("a", GOOD)])
    server.busy.clear()


def test_unreachable_server_leaves_attempts_pending(server):
    verifier = LeanVerifier(_config(server, max_retries=1))
    server.busy.extend([503] * 4)
    assert verifier.check({"x": GOOD}) == {"x": None}
    server.busy.clear()


def test_timeout_is_a_verdict_not_a_retry(server):
    (res,) = KiminaClient(_config(server, timeout_s=5)).check([("a", GOOD + TIMEOUT_MARKER)])
    assert res.timed_out and res.error == "Lean REPL command timed out in 5 seconds"
    identity = {"verifier": "kimina", "lean_version": "x", "mathlib_version": "y", "timeout_s": 5}
    verdict = lean_verdict(res, (), identity)
    assert verdict["compiles"] is False and verdict["reason"] == "timed out after 5 s"


def test_lean_verdict_reads_sorries_by_line():
    identity = {"verifier": "kimina", "lean_version": "4.23.0-rc2", "mathlib_version": "v4.23.0", "timeout_s": 60}
    code = "theorem given : True := by sorry\n\ntheorem t : 1 + 1 = 2 := by\n  norm_num\n"
    res = CheckResult(id="a", **{k: v for k, v in _as_result(check_code(code, 60)).items()})
    assert lean_verdict(res, ((1, 1),), identity)["compiles"] is True  # the given lemma's sorry is official
    own = lean_verdict(res, (), identity)
    assert own["compiles"] is False and own["own_sorry_lines"] == [1] and own["lean_version"] == "4.23.0-rc2"


def _as_result(answer: dict) -> dict:
    resp = answer.get("response") or {}
    return {"error": answer.get("error"), "messages": tuple(resp.get("messages", [])),
            "sorries": tuple(resp.get("sorries", []))}


def test_other_endpoints_speak_the_protocol(server):
    import urllib.request

    def post(path, payload):
        req = urllib.request.Request(server.url + path, data=json.dumps(payload).encode(), method="POST",
                                     headers={"Authorization": "Bearer secret", "Content-Type": "application/json"})
        with urllib.request.urlopen(req) as resp:
            return json.loads(resp.read())

    one = post("/check", {"snippet": {"id": "s", "code": SORRY}, "timeout": 10})
    assert one["id"] == "s" and one["response"]["sorries"]
    legacy = post("/verify", {"codes": [{"custom_id": "1", "proof": GOOD}], "timeout": 10})
    assert legacy["results"][0]["custom_id"] == "1" and legacy["results"][0]["error"] is None


def test_expected_lean_version_is_enforced(server):
    with pytest.raises(LemmataError, match="runs Lean 0.0.0-protocol-double"):
        LeanVerifier(_config(server, expected_lean_version="v4.23.0-rc2"))


def test_config_from_env():
    assert LeanConfig.from_env({}) is None
    with pytest.raises(LemmataError, match="LEMMATA_MATHLIB_VERSION"):
        LeanConfig.from_env({"LEMMATA_LEAN_URL": "http://127.0.0.1:1"})
    cfg = LeanConfig.from_env({"LEMMATA_LEAN_URL": "http://127.0.0.1:1", "LEMMATA_MATHLIB_VERSION": "v4.26.0",
                               "LEMMATA_LEAN_API_KEY": "s3cr3t-key", "LEMMATA_LEAN_TIMEOUT_S": "90", "LEMMATA_LEAN_BATCH": "16"})
    assert (cfg.timeout_s, cfg.batch_size, cfg.api_key, cfg.verifier_name) == (90, 16, "s3cr3t-key", "kimina")
    assert "s3cr3t-key" not in repr(cfg)
    with pytest.raises(LemmataError, match="LEMMATA_LEAN_TIMEOUT_S"):
        LeanConfig.from_env({"LEMMATA_LEAN_URL": "http://x", "LEMMATA_MATHLIB_VERSION": "v", "LEMMATA_LEAN_TIMEOUT_S": "soon"})


def test_artifact_keys_identity_and_first_verdict_wins(server, tmp_path):
    verifier = LeanVerifier(_config(server))
    art = LeanArtifact(tmp_path / "art", benchmark="taobench", identity=verifier.identity, checks={"integrity": "v1"})
    item = {"release": "taobench-150-1.1.0", "fqn": "F", "formulation": "tao", "attempt_sha256": "a" * 64}
    assert art.lookup(**item) is None
    first = art.record({"compiles": True}, verifier=verifier, **item)
    assert first == {"compiles": True} and art.record({"compiles": False}, verifier=verifier, **item) == first
    assert art.lookup(**item) == {"compiles": True} and len(art) == 1
    fields = art.key_fields(**item)
    assert {"verifier", "lean_version", "mathlib_version", "timeout_s", "release", "fqn", "formulation",
            "attempt_sha256"} <= set(fields)
    entry = json.loads((tmp_path / "art" / "verdicts.jsonl").read_text().splitlines()[0])
    assert entry["key"] == verdict_key(fields) and entry["oracle"]["lean_version"] == DOUBLE_LEAN_VERSION
    reopened = LeanArtifact.open(tmp_path / "art")
    assert reopened.identity == verifier.identity and reopened.lookup(**item) == {"compiles": True}
    other = verifier.identity.model_copy(update={"mathlib_version": "v4.26.0"})
    with pytest.raises(LemmataError, match="is the Lean artifact"):
        LeanArtifact(tmp_path / "art", benchmark="taobench", identity=other, checks={"integrity": "v1"})
    assert verdict_key({**fields, "mathlib_version": "v4.26.0"}) != verdict_key(fields)


def test_axiom_probe_rejects_axioms_a_metaprogram_could_add():
    identity = {"verifier": "kimina", "lean_version": "4.23.0-rc2", "mathlib_version": "v4.23.0", "timeout_s": 60}
    code, line = with_axiom_probe("axiom given_ax : True\ntheorem t : True := trivial", "t")
    assert code.splitlines()[line - 1] == "#print axioms t"
    res = CheckResult(id="a", **_as_result(check_code(code, 60)))
    assert lean_verdict(res, (), identity, probe_line=line, allowed_axioms={"given_ax"})["compiles"] is True
    sorried, sline = with_axiom_probe("theorem g : True := sorry\ntheorem t : True := g", "t")
    given = CheckResult(id="b", **_as_result(check_code(sorried, 60)))
    assert lean_verdict(given, ((1, 1),), identity, probe_line=sline, allowed_axioms={"sorryAx"})["compiles"]
    assert lean_verdict(given, ((1, 1),), identity, probe_line=sline)["reason"].endswith("sorryAx")
    bad = lean_verdict(res, (), identity, probe_line=line)
    assert bad["compiles"] is False and bad["reason"].endswith("given_ax") and "given_ax" in bad["axioms"]
    silent = CheckResult(id="a")
    assert lean_verdict(silent, (), identity, probe_line=line)["reason"] == "Lean did not answer the axiom probe"


@pytest.mark.parametrize("split_header", [True, False])
def test_positions_are_reported_in_the_submitted_codes_lines(split_header):
    code = "import Mathlib\nimport Aesop\n\ntheorem t : True := by\n  sorry\n"
    with KiminaDouble(split_header=split_header) as server:
        client = KiminaClient(LeanConfig(url=server.url, mathlib_version="v", backoff_s=0))
        (res,) = client.check([("a", code)])
        raw = server.requests[-1]
    assert client.body_relative is split_header
    assert res.sorries[0].pos.line == 5 and res.messages[0].pos.line == 4
    assert raw["body"]["snippets"][0]["code"] == code, "the code is sent unchanged"


def _probe_result(*infos: tuple[int, str]) -> CheckResult:
    return CheckResult(id="p", messages=tuple({"severity": "info", "pos": {"line": line, "column": 0}, "data": data}
                                              for line, data in infos))


@pytest.mark.parametrize(
    ("infos", "reason"),
    [
        ([(3, "'A.t' depends on axioms: [propext]")], "compiles"),
        ([(3, "'A.«t»' does not depend on any axioms")], "compiles"),
        # a probe that resolved to another constant (a helper `A.A.t` inside `namespace A`) is no answer
        ([(3, "'A.A.t' depends on axioms: [propext]")],
         "the axiom probe answered for `A.A.t`, not for the exercise `A.t`"),
        # a second answer on the probe's line (something else printing there) makes the probe void
        ([(3, "'A.t' depends on axioms: [propext]"), (3, "'A.t' does not depend on any axioms")],
         "the axiom probe was answered 2 times"),
        # an answer on another line is not the probe's
        ([(2, "'A.t' does not depend on any axioms")], "Lean did not answer the axiom probe"),
    ],
)
def test_axiom_probe_answer_must_be_the_probes_own(infos, reason):
    identity = {"verifier": "kimina", "lean_version": "4.23.0-rc2", "mathlib_version": "v4.23.0", "timeout_s": 60}
    verdict = lean_verdict(_probe_result(*infos), (), identity, probe_line=3, probe_decl="A.t")
    assert verdict["reason"] == reason and verdict["compiles"] is (reason == "compiles")


def test_probe_goes_after_the_attempt_on_its_own_line():
    code, line = with_axiom_probe("theorem t : True := trivial -- no newline at the end", "t")
    assert code.splitlines()[line - 1] == "#print axioms t" and line == 2


@pytest.mark.parametrize("field, value", [("artifact_id", None), ("benchmark", "re2math"), ("cache_file", "x.jsonl")])
def test_lean_artifact_description_fields_are_bound(server, tmp_path, field, value):
    """Editing the Lean artifact's id string (one byte) or another bound field is refused on open."""
    verifier = LeanVerifier(_config(server))
    art = LeanArtifact(tmp_path / "art", benchmark="taobench", identity=verifier.identity, checks={"integrity": "v1"})
    art.record({"compiles": True}, verifier=verifier, release="r", fqn="F", formulation="tao", attempt_sha256="a" * 64)
    path = tmp_path / "art" / "ARTIFACT.json"
    doc = json.loads(path.read_text())
    doc[field] = value if value is not None else doc[field][:-1] + ("0" if doc[field][-1] != "0" else "1")
    path.write_text(json.dumps(doc))
    with pytest.raises(LemmataError, match=f"field '{field}'|is the Lean artifact"):
        LeanArtifact(tmp_path / "art", benchmark="taobench", identity=verifier.identity, checks={"integrity": "v1"})
    with pytest.raises(LemmataError):
        LeanArtifact.open(tmp_path / "art")
