"""Produce the example Re²Math submission by really searching the current offline world (``re2math-scholar-offline-2.2.0``).

The procedure is a plain, documented baseline (no LLM) under the paper's
budget — one query, at most one source opened, lists of 20: for each instance
of the split it sends one query — the target theorem's text — to the world,
records exactly the candidates returned, opens the best-ranked candidate that
is not recognisably the instance's own citing paper (by its shown title and
authors), and answers with that source and the first sentence of its abstract
(an opened record holds bibliographic data and the abstract, never a
statement; without an abstract the record abstains with a null statement).
Its planning anchor (raw track) is the last sentence of the last local proof
block. Instances whose query returns nothing abstain.

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
from lemmata.benchmarks.re2math.scholar.worlds import CURRENT, world_id
from lemmata.benchmarks.re2math.scholar.matcher import is_citing_paper
from lemmata.formats.envelope import SUBMISSION_FORMAT

MODEL = {"name": "example: BM25 top-1 on the target theorem", "revision": "1",
         "url": "https://huggingface.co/spaces/lemmata/leaderboard"}


def last_sentence(text: str) -> str | None:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p.strip()]
    return parts[-1][:1000] if parts else None


def abstract_sentence(text: str) -> str | None:
    """The first sentence of the abstract section of an opened record's text (None without an abstract)."""
    _, found, abstract = text.partition("## Abstract")
    if not found:
        return None
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", " ".join(abstract.split())) if p.strip()]
    return parts[0][:2000] if parts else None


def record_for(row: dict, artifact) -> dict:
    query = " ".join(row["x"]["global_context"]["target_theorem"].split())[:MAX_QUERY_CHARS]
    result = artifact.search(query, year_cutoff(artifact, row), CANDIDATES_N, instance_id=row["instance_id"])
    candidates = result.ids()
    selected = next((c for c in result.candidates if not is_citing_paper(c, row)), None)
    statement = None
    if selected is not None:  # the one opening the paper's budget allows
        statement = abstract_sentence(artifact.materialise(selected.id, instance_id=row["instance_id"]).text)
    blocks = row["x"].get("local_context") or []
    return {
        "instance_id": row["instance_id"],
        "anchor": last_sentence(blocks[-1]) if blocks else None,
        "queries": [{"text": query, "candidates": candidates}],
        "opened": [selected.id] if selected is not None else [],
        "selected_source": selected.id if selected is not None else None,
        "statement": statement,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSONL submission")
    parser.add_argument("--split", default="eval200/test", choices=("eval200/test", "pool/dev"))
    parser.add_argument("--releases-root", help="folder of built releases (default: $LEMMATA_HOME/releases)")
    parser.add_argument("--artifacts-root", help="folder of retrieval artifacts (default: $LEMMATA_HOME/artifacts)")
    parser.add_argument("--world", metavar="VERSION", default=CURRENT,
                        help=f"the world version searched (default: {CURRENT}, the current one; an older one "
                             "reproduces the example its results were made with)")
    args = parser.parse_args(argv)
    resources = Resources(releases_root=args.releases_root, artifacts_root=args.artifacts_root)
    artifact = resources.artifact(world_id(args.world))
    rows = resources.rows(RE2MATH.release_id, args.split)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": "re2math", "release": RE2MATH.release_id, "split": args.split,
        "track": "raw", "window": 5, "model": MODEL, "retrieval_artifact": artifact.artifact_id,
        "flags": {"tuned_on_pool": False, "used_external_tools": False},
        "max_queries": 1, "max_opens": 1,
        "notes": "Example produced by submissions/re2math/make_example_re2math.py: one query (the target theorem), "
                 "the best-ranked candidate that is not the citing paper opened, and the first sentence of its "
                 "abstract as the statement.",
    }
    lines = [header] + [record_for(row, artifact) for row in rows.values()]
    Path(args.out).write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines), encoding="utf-8")
    print(f"wrote {len(lines) - 1} records to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
