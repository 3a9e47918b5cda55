"""MathAtlas faithfulness through the canaries (:mod:`lemmata.oracles.canaries`): a result scored by a judge that
obeys text under review carries the mark; one scored by the honest judge does not (doubles: ``test_canaries``)."""

from __future__ import annotations

import pytest

from lemmata.oracles.canaries import FLAG
from lemmata.tracks.base import OracleConfig
from test_canaries import Double
from test_mathatlas_scoring import ALIGNED, U, _atlas, _file, _rec, _score, served_releases  # noqa: F401


@pytest.mark.parametrize("obeys", [False, True])
def test_a_faithfulness_judge_that_fails_its_canaries_is_marked(tmp_path, monkeypatch, obeys):
    from lemmata.oracles.chat import judge_from_env
    from lemmata.oracles.chat_double import ChatDouble
    from lemmata.oracles.kimina_double import KiminaDouble
    from lemmata.oracles.lean import verifier_from_env

    monkeypatch.setenv("LEMMATA_JUDGE_CANARIES", "1")
    double = Double(obeys=obeys)
    with ChatDouble(double) as jd, KiminaDouble() as lean:
        env = {"LEMMATA_JUDGE_BASE_URL": jd.base_url, "LEMMATA_JUDGE_MODEL": f"judge-canaries-{obeys}",
               "LEMMATA_LEAN_URL": lean.url, "LEMMATA_MATHLIB_VERSION": "v4.24.0"}
        oracles = OracleConfig(judge=judge_from_env(env), lean=verifier_from_env(env),
                               extra={"lean_artifact": str(tmp_path / "lean"), "judge_artifact": str(tmp_path / "j")})
        _, result = _score(_file(_atlas(), [_rec(U["thm-1.8"], "yes", "yes", ALIGNED)]), oracles)
    assert result.status == "complete" and result.metrics["compile_rate"]["count"] == 1
    assert len(double.prompts) == 1 + 12  # the one compiling statement, and the statement rubric's canaries
    record = result.provenance["judge_canaries"]
    # both rubrics' canaries exist; only the statement rubric was asked so far
    assert (record["total"], record["answered"], record["failed"]) == (24, 12, 4 if obeys else 0)
    assert (result.flags.get(FLAG) is True) is obeys and any("canary" in n for n in result.notes) is obeys
    assert not any("canary" in str(item).lower() for item in result.items)
