"""Time scoring an Eval-200 Re²Math submission whose verdicts are all cached.

    python perf/re2math_scoring_speed.py [--runs 5]

Target on a 2-core machine: ≤ 1 s in-process to score an Eval-200 submission
when every verdict is already in the judge artifact's cache.

TIMING ONLY — the verdicts of this run come from a local rule-based server
that speaks the chat-completions protocol on 127.0.0.1 (the test suite's
``ChatServer``); they are written to a temporary judge artifact that is deleted
at the end and are never shipped or used for any score.

Everything runs in a temporary ``LEMMATA_HOME``: the release and the offline
retrieval artifact are built there first (not timed), the example submission
is produced by ``submissions/re2math/make_example_re2math.py`` against that
artifact, one scoring pass fills the temporary cache through the protocol
server (timed and reported separately), then:

- *score (warm)*: ``handler.score`` on a validated submission, release and
  artifact already open — what the scorer does per submission;
- *validate + score (warm)*: the same plus full validation (every query replayed);
- *validate + score (fresh handler)*: a new handler that opens and verifies the
  release and the artifact (sha256 of every file) first.
"""

from __future__ import annotations

import argparse
import os
import runpy
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="lemmata-re2math-speed-") as home:
        os.environ["LEMMATA_HOME"] = home
        sys.path.insert(0, str(ROOT / "tests" / "oracles"))
        from test_judge import ChatServer  # the protocol server the tests verify

        from lemmata.core.hashing import sha256_bytes
        from lemmata.oracles.chat import ChatJudge
        from lemmata.benchmarks.re2math.scoring import Re2MathHandler
        from lemmata.benchmarks.re2math.scholar.artifact import default_artifact
        from lemmata.tracks.base import OracleConfig
        from lemmata.formats.envelope import parse_envelope

        print("building the release and the offline retrieval artifact (not timed) …", file=sys.stderr)
        default_artifact(build=True, quiet=True)
        example = Path(home) / "example-re2math.jsonl"
        runpy.run_path(str(ROOT / "submissions" / "re2math" / "make_example_re2math.py"))["main"](
            ["--out", str(example)])
        data = example.read_bytes()
        sha = sha256_bytes(data)
        judge_dir = Path(home) / "timing-only-judge-artifact"
        cached = OracleConfig(judge=None, extra={"judge_artifact": str(judge_dir)})

        def validate(handler):
            return handler.validate(parse_envelope(data, example.name), sha)

        handler = Re2MathHandler()
        validated = validate(handler)
        with ChatServer() as server:
            t = time.perf_counter()
            first = handler.score(validated, received_at="2026-11-21",
                                  oracles=OracleConfig(judge=ChatJudge(server.config()),
                                                       extra={"judge_artifact": str(judge_dir)}))
            fill = time.perf_counter() - t
            requests = len(server.requests)
        assert first.pending == 0, "the protocol server should have answered every question"

        score_warm, both_warm, fresh = [], [], []
        for _ in range(args.runs):
            t = time.perf_counter()
            result = handler.score(validated, received_at="2026-11-21", oracles=cached)
            score_warm.append(time.perf_counter() - t)
            assert result.result_id == first.result_id and handler.last_judge_stats["asked"] == 0
            t = time.perf_counter()
            result = handler.score(validate(handler), received_at="2026-11-21", oracles=cached)
            both_warm.append(time.perf_counter() - t)
            t = time.perf_counter()
            other = Re2MathHandler()
            result = other.score(validate(other), received_at="2026-11-21", oracles=cached)
            fresh.append(time.perf_counter() - t)
            assert result.result_id == first.result_id

    print(f"Re²Math scoring, Eval-200 (200 instances, {sum(1 for _ in validated.records)} records), "
          f"{args.runs} runs, median (min)")
    print(f"  TIMING-ONLY cache fill through the local protocol judge: {fill:.2f} s for {requests} requests")

    def row(name: str, xs: list[float], target: float | None) -> None:
        verdict = "" if target is None else ("  ok" if statistics.median(xs) <= target else f"  OVER {target:g} s")
        print(f"  {name:<42} {statistics.median(xs):6.3f} s ({min(xs):.3f}){verdict}")

    row("score, all verdicts cached (warm)", score_warm, 1.0)
    row("validate + score, all cached (warm)", both_warm, 1.0)
    row("validate + score, all cached (fresh handler)", fresh, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
