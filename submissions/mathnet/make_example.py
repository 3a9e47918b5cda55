"""Produce the example MathNet-Retrieve submission: BM25 rankings of one tier's queries over a built release.

By default the script builds the release from the test fixture in the upstream
layout (``tests/fixtures/hub/MathNet-Retrieve``) into a temporary folder, so the
example's ids are the *fixture's* ids; pass ``--release`` to rank the queries of
the release built from the Hub instead (``lemmata build mathnet``), which is what
a real submission answers.

The retriever is the project's BM25 baseline (:mod:`lemmata.retrievers.bm25`,
bm25s, Lucene BM25 k1=1.5 b=0.75, its fixed LaTeX-aware tokenizer) over every
corpus document. Each query keeps its ``--depth`` best documents that share a
term with it; scores are rounded to four decimals and each ranking is written
in the order the scorer reads it (score descending, then doc id ascending).

    python submissions/mathnet/make_example.py --out submissions/mathnet/example-mathnet-retrieve-hard.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE, RECALL_KS, TIERS
from lemmata.formats.envelope import SUBMISSION_FORMAT

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hub" / "MathNet-Retrieve"
#: every MathNet measure is cut at 10 at most, so deeper ranks never change a score
DEPTH = max(RECALL_KS)


def build_fixture_release(out_root: Path) -> Path:
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder

    return MathNetRetrieveBuilder(source_dir=FIXTURE).build(out_root, quiet=True)


def rankings(release_dir: Path, depth: int) -> list[dict]:
    """One record per query of the release, in query order (the ranking every declared track's example uses)."""
    from lemmata.release.load import open_release
    from lemmata.tracks.ranking_example import bm25_rankings

    return bm25_rankings(open_release(release_dir), MATHNET_RETRIEVE.ranking, depth)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSONL submission")
    parser.add_argument("--tier", choices=TIERS, default="hard", help="the tier whose qrels score the run")
    parser.add_argument("--depth", type=int, default=DEPTH, help=f"documents kept per query (default {DEPTH})")
    parser.add_argument("--release", metavar="DIR",
                        help="a built mathnet-retrieve release (default: build the test fixture into a temp folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mathnet-example-") as tmp:
        release_dir = Path(args.release) if args.release else build_fixture_release(Path(tmp))
        records = rankings(release_dir, args.depth)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": MATHNET_RETRIEVE.name, "release": MATHNET_RETRIEVE.release_id,
        "track": args.tier,
        "model": {"name": "example: BM25 (bm25s, Lucene k1=1.5 b=0.75)", "revision": "lemmata bm25_baseline"},
        "notes": f"Produced by submissions/mathnet/make_example.py: top {args.depth} BM25 documents per query"
                 f"{'' if args.release else ' of the test fixture release'}.",
    }
    lines = [header, *records]
    Path(args.out).write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines), encoding="utf-8")
    print(f"wrote {len(records)} rankings to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
