"""``lemmata mathrag``: the MathRAG matrix of a store (solver × retrieval condition, gain over zero-shot).
MathNet's own CLI verb, declared in its family record (``Family.commands``)."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.benchmarks.mathnet")


def register(sub) -> None:
    p = VERBS.add(sub, "mathrag")
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
