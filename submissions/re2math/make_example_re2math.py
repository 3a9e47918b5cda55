"""Produce the example Re²Math submission by really searching the frozen offline artifact.

The procedure is a plain, documented baseline (no LLM): for each instance of
the split it sends one query — the target theorem's text — to the artifact,
records exactly the candidates the artifact returned, and opens candidates in rank order, skipping
the instance's own citing paper, until one has a theorem-like statement in its
frozen text: that source and its first statement are the answer. Its planning anchor (raw
track) is the last sentence of the last local proof block. Instances whose
query returns nothing abstain.

    python submissions/re2math/make_example_re2math.py --out submissions/re2math/example-re2math-bm25-raw-m5.jsonl

The file it writes scores with ``lemmata score`` (judge-free metrics computed,
judge-dependent ones pending until a judge has answered).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.benchmarks.re2math.replay import CANDIDATES_N
from lemmata.benchmarks.re2math.resources import Resources
from lemmata.benchmarks.re2math.scholar.identity import year_cutoff
from lemmata.benchmarks.re2math.submission import MAX_QUERY_CHARS
from lemmata.benchmarks.re2math.scholar.artifact import artifact_id
from lemmata.benchmarks.re2math.scholar.matcher import is_citing_paper
from lemmata.formats.envelope import SUBMISSION_FORMAT

MODEL = {"name": "example: BM25 top-1 on the target theorem", "revision": "1",
         "url": "https://huggingface.co/spaces/lemmata/leaderboard"}


def last_sentence(text: str) -> str | None:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p.strip()]
    return parts[-1][:1000] if parts else None


def record_for(row: dict, artifact) -> dict:
    query = " ".join(row["x"]["global_context"]["target_theorem"].split())[:MAX_QUERY_CHARS]
    result = artifact.search(query, year_cutoff(artifact, row), CANDIDATES_N, instance_id=row["instance_id"])
    candidates = result.ids()
    selected, statement = None, None
    for candidate in result.candidates:
        if is_citing_paper(candidate, row):
            continue
        opened = artifact.materialise(candidate.id, instance_id=row["instance_id"])
        if opened.statements:
            selected, statement = candidate, opened.statements[0].latex
            break
    blocks = row["x"].get("local_context") or []
    return {
        "instance_id": row["instance_id"],
        "anchor": last_sentence(blocks[-1]) if blocks else None,
        "queries": [{"text": query, "candidates": candidates}],
        "selected_source": selected.id if selected is not None else None,
        "statement": statement,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSONL submission")
    parser.add_argument("--split", default="eval200/test", choices=("eval200/test", "pool/dev"))
    parser.add_argument("--releases-root", help="folder of built releases (default: $LEMMATA_HOME/releases)")
    parser.add_argument("--artifacts-root", help="folder of retrieval artifacts (default: $LEMMATA_HOME/artifacts)")
    args = parser.parse_args(argv)
    resources = Resources(releases_root=args.releases_root, artifacts_root=args.artifacts_root)
    artifact = resources.artifact(artifact_id())
    rows = resources.rows(RE2MATH.release_id, args.split)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": "re2math", "release": RE2MATH.release_id, "split": args.split,
        "track": "raw", "window": 5, "model": MODEL, "retrieval_artifact": artifact.artifact_id,
        "flags": {"tuned_on_pool": False, "used_external_tools": False},
        "notes": "Example produced by submissions/re2math/make_example_re2math.py: one query (the target theorem), "
                 "best-ranked candidate (not the citing paper) with a frozen statement, and its first statement.",
    }
    lines = [header] + [record_for(row, artifact) for row in rows.values()]
    Path(args.out).write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines), encoding="utf-8")
    print(f"wrote {len(lines) - 1} records to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
