"""arXiv-version twin gaps: found by paper key + source identity + pre-citation context, flagged per scored item."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from lemmata.benchmarks.re2math.twins import main as twins_main
from lemmata.benchmarks.re2math.twins import twin_gaps, twin_pairs
from lemmata.release.load import open_release

ROOT = Path(__file__).resolve().parents[3]

EVAL200_TWINS = [("1710.00668_gap_2", "1710.00668v4_gap_1"), ("1807.07409_gap_4", "1807.07409v3_gap_1"),
                 ("1809.09151_gap_0", "1809.09151v4_gap_0")]


@pytest.fixture(scope="module")
def release(re2math_release):
    return open_release(re2math_release)


def test_the_three_eval200_twin_pairs(release):
    assert twin_pairs(release.rows("eval200", "test")) == EVAL200_TWINS
    flagged = twin_gaps(release.rows("eval200", "test"))
    assert flagged == {a: [b] for a, b in EVAL200_TWINS} | {b: [a] for a, b in EVAL200_TWINS}


def test_twins_over_all_860_and_what_is_not_a_twin(release):
    full = release.rows("full", "full")
    pairs = twin_pairs(full)
    assert len(pairs) == 20 and set(EVAL200_TWINS) <= set(pairs)
    rows = {r["instance_id"]: r for r in full}
    for a, b in pairs:
        assert rows[a]["paper_key"] == rows[b]["paper_key"]
        assert rows[a]["paper"]["paper_id"] != rows[b]["paper"]["paper_id"]
    # two versions citing the same source at a different place are two gaps, not twins
    eval_pairs = set(twin_pairs(release.rows("eval200", "test")))
    assert ("2005.14610_gap_2", "2005.14610v2_gap_1") not in eval_pairs
    assert ("2007.06882_gap_0", "2007.06882v1_gap_3") not in eval_pairs
    # the same row twice (one version) is never its own twin
    one = rows["1710.00668_gap_2"]
    assert twin_pairs([one, {**one, "instance_id": "copy"}]) == []


def test_twins_command_prints_the_pairs(re2math_release, capsys):
    assert twins_main([str(re2math_release)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "3 twin pair(s) in eval200/test"
    assert all(f"{a}\t{b}" in out for a, b in EVAL200_TWINS)


def test_scored_items_carry_the_twin_flag(tmp_path_factory, re2math_release, scholar_artifacts, scholar_world_22):
    from lemmata.benchmarks.re2math.scholar.worlds import world_id
    from lemmata.benchmarks.re2math.scoring import Re2MathHandler
    from lemmata.core.hashing import sha256_bytes
    from lemmata.formats.envelope import parse_envelope
    from lemmata.tracks.base import OracleConfig

    root = tmp_path_factory.mktemp("artifacts")  # the session's worlds, linked (read-only): no second build
    for built in scholar_artifacts.iterdir():
        (root / built.name).symlink_to(built, target_is_directory=built.is_dir())
    (root / world_id()).symlink_to(scholar_world_22, target_is_directory=True)
    script = runpy.run_path(str(ROOT / "submissions" / "re2math" / "make_example_re2math.py"))
    out = tmp_path_factory.mktemp("example") / "example.jsonl"
    assert script["main"](["--out", str(out), "--releases-root", str(re2math_release.parent),
                           "--artifacts-root", str(root)]) == 0
    handler = Re2MathHandler(releases_root=re2math_release.parent, artifacts_root=root, build_missing=False)
    data = out.read_bytes()
    result = handler.score(handler.validate(parse_envelope(data, "sub.jsonl"), sha256_bytes(data)),
                           received_at="2026-11-21", oracles=OracleConfig(judge=None))
    flagged = {i["instance_id"]: i["flags"]["twin_gap"] for i in result.items if "flags" in i}
    assert flagged == {a: [b] for a, b in EVAL200_TWINS} | {b: [a] for a, b in EVAL200_TWINS}
