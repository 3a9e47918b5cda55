"""``lemmata mathrag``: the MathRAG matrix of a store (solver × retrieval condition, gain over zero-shot).
MathNet's own CLI verb, declared in its family record (``Family.commands``)."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "mathrag", help="show the MathRAG matrix: each solver under each retrieval condition, gain over zero-shot",
        description="Read the scored MathNet-Solve results of a store and print one row per solver and condition "
        "(zero-shot, expert-rag, each retriever of retriever-rag): ProofGrade, the gain over the same solver's "
        "zero-shot run on the same subset and grader with a paired bootstrap 95% interval, the problems it helped, "
        "hurt and left unchanged against that run with the exact McNemar p-value, and the retriever's "
        "MathNet-Retrieve Recall@5 on the hard tier where the store holds it. Reported rows are never mixed in.")
    p.add_argument("--store", metavar="DIR", help="leaderboard store (default $LEMMATA_STORE or $LEMMATA_HOME/store)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.set_defaults(handler=run)


def run(args) -> int:
    import json

    from lemmata.benchmarks.mathnet.matrix import markdown, mathrag_matrix
    from lemmata.store import Store, default_store

    store = Store(args.store) if args.store else default_store()
    rows = mathrag_matrix(store.results(benchmark="mathnet-solve"), store.results(benchmark="mathnet-retrieve"))
    print(json.dumps(rows, indent=2, ensure_ascii=False) if args.json else markdown(rows), end="")
    return 0
