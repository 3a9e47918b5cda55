"""Produce the example MIRB submission: BM25 rankings for every query of all fifteen tasks of a built release.

By default the script builds the release from the test fixture in the upstream
layout (``tests/fixtures/hub/mirb``) into a temporary folder, so the example's
ids are the *fixture's* ids; pass ``--release`` to rank the release built from
the Hub instead (``lemmata build mirb``), which is what a real submission answers.

The retriever is the project's BM25 baseline (:mod:`lemmata.retrievers.bm25`,
bm25s, Lucene BM25 k1=1.5 b=0.75, its fixed LaTeX-aware tokenizer), one index per
task over that task's corpus (title and text). For dynamic-corpus tasks the
documents excluded for a query are removed from its ranking before the cut, as
the scorer requires. Each query keeps its ``--depth`` best documents that share a
term with it; scores are rounded to four decimals and each ranking is written in
the order the scorer reads it (score descending, then doc id ascending).

    python submissions/mirb/make_example.py --out submissions/mirb/example-mirb.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from lemmata.benchmarks.mirb.meta import MIRB, TASKS
from lemmata.formats.envelope import SUBMISSION_FORMAT

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hub" / "mirb"
#: every MIRB measure is cut at 10, so deeper ranks never change a score
DEPTH = 10


def build_fixture_release(out_root: Path) -> Path:
    from lemmata.benchmarks.mirb.builder import MirbBuilder

    return MirbBuilder(source_dir=FIXTURE).build(out_root, quiet=True)


def rankings(release_dir: Path, depth: int) -> list[dict]:
    """One record per query of every task, tasks in benchmark order, queries in file order."""
    from lemmata.release.load import open_release
    from lemmata.retrievers.bm25 import BM25Index

    release = open_release(release_dir)
    records = []
    for task in TASKS:
        docs = release.rows("corpus", task.name)
        index = BM25Index([d["_id"] for d in docs],
                          [" ".join(filter(None, (d.get("title"), d["text"]))) for d in docs])
        excluded = ({r["query-id"]: set(r["excluded-ids"]) for r in release.rows("excluded_ids", task.name)}
                    if task.dynamic_corpus else {})
        for q in release.rows("queries", task.name):
            skip = excluded.get(q["_id"], set())
            kept = [(d, s) for d, s in index.search(q["text"], depth + len(skip)) if d not in skip and s > 0][:depth]
            ranked = sorted(((d, round(s, 4)) for d, s in kept), key=lambda pair: (-pair[1], pair[0]))
            records.append({"task": task.name, "query_id": q["_id"],
                            "ranking": [{"doc_id": d, "score": s} for d, s in ranked]})
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSONL submission")
    parser.add_argument("--depth", type=int, default=DEPTH, help=f"documents kept per query (default {DEPTH})")
    parser.add_argument("--release", metavar="DIR",
                        help="a built mirb release (default: build the test fixture into a temp folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mirb-example-") as tmp:
        release_dir = Path(args.release) if args.release else build_fixture_release(Path(tmp))
        records = rankings(release_dir, args.depth)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": MIRB.name, "release": MIRB.release_id, "track": "zero-shot",
        "model": {"name": "example: BM25 (bm25s, Lucene k1=1.5 b=0.75)", "revision": "lemmata bm25_baseline"},
        "notes": f"Produced by submissions/mirb/make_example.py: top {args.depth} BM25 documents per query"
                 f"{'' if args.release else ' of the test fixture release'}.",
    }
    lines = [header, *records]
    Path(args.out).write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines), encoding="utf-8")
    print(f"wrote {len(records)} rankings over {len(TASKS)} tasks to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
