"""Produce the example MathNet-Solve submission: a retriever-RAG run whose "solver" copies the retrieved answer.

No language model takes part. The retrieval is exactly what ``lemmata run mathnet
--condition retriever-rag --retriever bm25 --k 1`` does (the project's BM25
baseline ranks the release's retrieval pool for each problem statement and never
offers the problem itself, its duplicates or its equivalents); the solver is a
documented non-solution: it copies the final answer of the one retrieved problem
into ``\\boxed{}``, and abstains, with the reason, where that problem states no final
answer. It shows the file's shape and the retriever-RAG header; a grader (``lemmata
judge``) grades its "solutions", and the math-verify answer check compares the
copied answers with the references.

By default the script builds the MathNet-Solve and MathNet-Retrieve releases from
the test fixtures in the upstream layout (``tests/fixtures/hub/MathNet`` and
``MathNet-Retrieve``; the exclusion rule reads both) into a temporary folder, so the
example's ids, and its pool id, are the *fixture's*; pass ``--releases`` to answer
the releases built from the Hub (``lemmata build mathnet``), which is what a real
submission answers.

    python submissions/mathnet/make_example_solve.py --out submissions/mathnet/example-mathnet-solve.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from lemmata.benchmarks.mathnet.solve_meta import MATHNET_SOLVE
from lemmata.formats.envelope import SUBMISSION_FORMAT

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hub"
SUBSET = "lemmata_strat_70"
RETRIEVER = "bm25"
MODEL = {"name": "example: BM25 nearest-problem answer copy", "revision": "1", "kind": "baseline",
         "modality": "text"}


def build_fixture_releases(out_root: Path) -> None:
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder

    MathNetSolveBuilder(source_dir=FIXTURES / "MathNet").build(out_root, quiet=True)
    MathNetRetrieveBuilder(source_dir=FIXTURES / "MathNet-Retrieve").build(out_root, quiet=True)


def record(problem_id: str, context_ids: list[str], known: dict) -> dict:
    """One problem's line: the retrieved problem's final answer, boxed, or an abstention saying why not."""
    answers = [known[c]["final_answer"] for c in context_ids if (known[c]["final_answer"] or "").strip()]
    if not answers:
        return {"problem_id": problem_id, "solution": "", "final_answer": None,
                "abstained": "the retrieved problem states no final answer to copy", "context_ids": context_ids}
    solution = (f"Not a solution: the final answer of the most similar problem of the pool ({context_ids[0]}), "
                f"copied. Final answer: \\boxed{{{answers[0]}}}")
    return {"problem_id": problem_id, "solution": solution, "final_answer": None, "abstained": None,
            "context_ids": context_ids}


def lines_for(subset: str) -> list[dict]:
    """The header and one record per problem of ``subset``, sorted by id (as ``lemmata run mathnet`` writes)."""
    from lemmata.benchmarks.mathnet import solve_data
    from lemmata.benchmarks.mathnet.solve_run import contexts_for

    release = solve_data.solve_release()
    known = solve_data.problems(release)
    ids = sorted(solve_data.subset_ids(release, subset))
    contexts, condition = contexts_for("retriever-rag", release, ids, retriever_spec=RETRIEVER, k=1,
                                       expert_pairs=None)
    header = {"format": SUBMISSION_FORMAT, "benchmark": MATHNET_SOLVE.name, "release": release.release_id,
              "track": "retriever-rag", "subset": subset, "model": MODEL, **condition,
              "notes": "Produced by submissions/mathnet/make_example_solve.py: BM25 retrieval as `lemmata run "
                       "mathnet --condition retriever-rag --retriever bm25` does it, and no model: each "
                       "'solution' copies the retrieved problem's final answer."}
    return [header, *(record(pid, contexts[pid], known) for pid in ids)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSONL submission")
    parser.add_argument("--subset", default=SUBSET, choices=("lemmata_strat_70", "lemmata_strat_5500", "full"))
    parser.add_argument("--releases", metavar="DIR", help="a folder holding the built mathnet-solve and "
                        "mathnet-retrieve releases (default: build the test fixtures into a temp folder)")
    args = parser.parse_args(argv)
    before = os.environ.get("LEMMATA_RELEASES")
    with tempfile.TemporaryDirectory(prefix="mathnet-solve-example-") as tmp:
        root = Path(args.releases) if args.releases else Path(tmp)
        if not args.releases:
            build_fixture_releases(root)
        os.environ["LEMMATA_RELEASES"] = str(root)  # where the handlers and the exclusion rule look
        try:
            lines = lines_for(args.subset)
        finally:
            if before is None:
                os.environ.pop("LEMMATA_RELEASES", None)
            else:
                os.environ["LEMMATA_RELEASES"] = before
    Path(args.out).write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines), encoding="utf-8")
    print(f"wrote {len(lines) - 1} records to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
