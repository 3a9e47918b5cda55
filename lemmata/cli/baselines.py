"""``lemmata baselines``: run the offline baselines, write their submission files and score them into the store."""

from __future__ import annotations

ALL = "all"


def register(sub) -> None:
    p = sub.add_parser(
        "baselines",
        help="run the offline baselines (BM25, static embeddings, hybrid; the Re2Math agent) into the leaderboard",
        description="Run an offline baseline, write its submission file and score it through the normal pipeline "
        "(validation, track handler, immutable result) into the leaderboard store. Releases and the retrieval "
        "artifact are built first when missing. Everything runs on a CPU without network access.",
    )
    sp = p.add_subparsers(dest="baselines_command", metavar="ACTION")
    sp.required = True

    r = sp.add_parser("run", help="run baselines and store their results",
                      description="Run one family of offline baselines (or all of them), write one submission file "
                      "per run under --out and score each into the leaderboard store (unless --no-store).")
    rs = r.add_subparsers(dest="track", metavar="TRACK")
    rs.required = True

    t = rs.add_parser("theorem-retrieval", help="Re2Math proof state -> reference statement (Recall@k, nDCG@10)",
                      description="Rank the Re2Math retrieval corpus of reference statements for each rendered "
                      "proof state, with each chosen retriever and query rendering.")
    t.add_argument("--retriever", choices=("bm25", "static", "hybrid", ALL), default=ALL,
                   help="bm25, static embeddings, their hybrid, or all (default all)")
    t.add_argument("--variant", choices=("raw", "assisted", ALL), default=ALL, help="query rendering (window m=5)")
    t.add_argument("--split", choices=("test", "dev"), default="test", help="query split (test = Eval-200)")
    _common(t)
    t.set_defaults(handler=run_theorem)

    sr = rs.add_parser("source-retrieval", help="Re2Math proof state -> the cited source among the 354k records of "
                                                "re2math-scholar-offline-2.1.0 (not part of `all`)",
                       description="For each rendered Re2Math proof state, rank every record of the current offline "
                       "world re2math-scholar-offline-2.1.0 (distractors included) to find the cited source. About ten "
                       "minutes for all six runs on two cores, so `all` leaves it out.")
    sr.add_argument("--retriever", choices=("bm25", "static", "hybrid", ALL), default=ALL,
                    help="bm25, static embeddings, their hybrid, or all (default all)")
    sr.add_argument("--variant", choices=("raw", "assisted", ALL), default=ALL, help="query rendering (window m=5)")
    sr.add_argument("--split", choices=("test", "dev"), default="test", help="query split (test = Eval-200)")
    _common(sr)
    sr.set_defaults(handler=run_source)

    e = rs.add_parser("equivalence", help="TaoBench statement -> its twin in the other framework",
                      description="For each TaoBench statement, rank the statements of the other framework "
                      "(Tao's definitions or Mathlib) to find its twin.")
    e.add_argument("--release", choices=("taobench-150", "taobench-v1", ALL), default=ALL,
                   help="TaoBench release (default all)")
    e.add_argument("--direction", choices=("tao2mathlib", "mathlib2tao", ALL), default=ALL,
                   help="query framework -> corpus framework (default all)")
    e.add_argument("--retriever", choices=("bm25", "static", "hybrid", ALL), default=ALL,
                   help="bm25, static embeddings, their hybrid, or all (default all)")
    _common(e)
    e.set_defaults(handler=run_equivalence)

    a = rs.add_parser("agent", help="the non-LLM end-to-end Re2Math agent on the offline artifact",
                      description="Run the non-LLM Re2Math agent end to end: search the frozen offline artifact, "
                      "open sources and answer each instance with a trajectory that is replayed when scored.")
    a.add_argument("--track", dest="agent_track", choices=("raw", "assisted"), default="assisted",
                   help="raw: no anchor hint; assisted: with it (default assisted)")
    a.add_argument("--split", choices=("eval200/test", "pool/dev"), default="eval200/test",
                   help="instances to answer, as config/split (default eval200/test)")
    _common(a, depth=False)
    a.set_defaults(handler=run_agent)

    al = rs.add_parser("all", help="every baseline above, in turn",
                       description="Run every baseline above with its default choices, in turn.")
    _common(al)
    al.set_defaults(handler=run_all)

    x = sp.add_parser("export", help="write a derived retrieval track as BEIR files (corpus, queries, qrels)",
                      description="Write a retrieval track derived from a release as BEIR files (corpus.jsonl, "
                      "queries.jsonl, qrels/test.tsv), so any BEIR-compatible system can run on it; the release "
                      "is built first when missing.")
    x.add_argument("what", choices=("equivalence",), help="the derived track (equivalence: TaoBench twins)")
    x.add_argument("--release", choices=("taobench-150", "taobench-v1"), required=True, help="TaoBench release")
    x.add_argument("--direction", choices=("tao2mathlib", "mathlib2tao"), required=True,
                   help="query framework -> corpus framework")
    x.add_argument("--out", metavar="DIR", required=True, help="folder the BEIR files are written to")
    x.set_defaults(handler=run_export)


def _common(p, *, depth: bool = True) -> None:
    p.add_argument("--out", metavar="DIR", help="where submission files go (default: $LEMMATA_HOME/baselines)")
    p.add_argument("--store", metavar="DIR", help="leaderboard store (default: $LEMMATA_STORE or "
                                                  "$LEMMATA_HOME/store)")
    p.add_argument("--no-store", action="store_true", help="write the submission files only")
    if depth:
        p.add_argument("--depth", type=int, default=100, help="documents ranked per query (default 100)")


def _pick(value: str, options: tuple[str, ...]) -> tuple[str, ...]:
    return options if value == ALL else (value,)


def _out(args):
    from pathlib import Path

    from lemmata.core.paths import lemmata_home

    return Path(args.out) if args.out else lemmata_home() / "baselines"


def _store(args):
    if args.no_store:
        return None
    from lemmata.store import Store, default_store

    return Store(args.store) if args.store else default_store()


def _finish(path, store) -> None:
    """Score one submission file into the store and print its line."""
    from lemmata.tracks.baseline_report import result_line

    if store is None:
        print(f"wrote {path}")
        return
    from lemmata.tracks.runner import score_file

    print(result_line(score_file(path, store), path), flush=True)


def run_theorem(args, store=None) -> int:
    from lemmata.benchmarks.re2math.baselines import theorem_retrieval_run

    store = store if store is not None else _store(args)
    for variant in _pick(args.variant, ("raw", "assisted")):
        for retriever in _pick(args.retriever, ("bm25", "static", "hybrid")):
            path = theorem_retrieval_run(retriever, variant, _out(args), split=args.split, depth=args.depth)
            _finish(path, store)
    return 0


def run_source(args, store=None) -> int:
    from lemmata.benchmarks.re2math.baselines import source_retrieval_run

    store = store if store is not None else _store(args)
    for variant in _pick(args.variant, ("raw", "assisted")):
        for retriever in _pick(args.retriever, ("bm25", "static", "hybrid")):
            path = source_retrieval_run(retriever, variant, _out(args), split=args.split, depth=args.depth)
            _finish(path, store)
    return 0


def run_equivalence(args, store=None) -> int:
    from lemmata.benchmarks.taobench.baselines import equivalence_run

    store = store if store is not None else _store(args)
    for release in _pick(args.release, ("taobench-150", "taobench-v1")):
        for direction in _pick(args.direction, ("tao2mathlib", "mathlib2tao")):
            for retriever in _pick(args.retriever, ("bm25", "static", "hybrid")):
                path = equivalence_run(retriever, release, direction, _out(args), depth=args.depth)
                _finish(path, store)
    return 0


def run_agent(args, store=None) -> int:
    from lemmata.benchmarks.re2math.agent.lexical import run_agent as agent

    store = store if store is not None else _store(args)
    path = agent(_out(args), track=args.agent_track, split=args.split)
    _finish(path, store)
    return 0


def run_all(args) -> int:
    import argparse

    store = _store(args)
    common = {"out": args.out, "store": args.store, "no_store": args.no_store}
    run_theorem(argparse.Namespace(variant=ALL, retriever=ALL, split="test", depth=args.depth, **common), store)
    run_equivalence(argparse.Namespace(release=ALL, direction=ALL, retriever=ALL, depth=args.depth, **common), store)
    run_agent(argparse.Namespace(agent_track="assisted", split="eval200/test", **common), store)
    return 0


def run_export(args) -> int:
    from lemmata.benchmarks.taobench.equivalence import load_track, write_beir
    from lemmata.catalog import release_path
    from lemmata.families import get_benchmark

    track = load_track(release_path(get_benchmark(args.release)), args.direction)
    for name in write_beir(track, args.out):
        print(f"{args.out}/{name}")
    return 0
