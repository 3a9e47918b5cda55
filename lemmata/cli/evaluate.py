"""``lemmata evaluate``: run any embedding model (or a built-in baseline) on the ranking tracks, into the board."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    from lemmata.harness.evaluate import default_tracks, tracks

    p = VERBS.add(sub, "evaluate")
    p.add_argument("--model", required=True, metavar="SPEC", help="the model to run (see above)")
    p.add_argument("--track", action="append", metavar="NAME[:VARIANT]",
                   help=f"ranking track, repeatable: {', '.join(tracks())}; ':VARIANT' picks one (e.g. "
                        f"re2math-theorem-retrieval:raw). Default: {', '.join(default_tracks())}")
    p.add_argument("--split", choices=("test", "dev"), default="test",
                   help="Re2Math query split (test = Eval-200; default test)")
    p.add_argument("--out", metavar="DIR", help="where submission files go (default: $LEMMATA_HOME/runs)")
    p.add_argument("--store", metavar="DIR", help="leaderboard store (default: $LEMMATA_STORE or $LEMMATA_HOME/store)")
    p.add_argument("--no-store", action="store_true", help="score in memory only; store nothing")
    p.add_argument("--depth", type=int, default=100, help="documents ranked per query (default 100)")
    p.add_argument("--index", choices=("auto", "exact", "approximate", "hnsw"), default="auto",
                   help="exact blocked search, or an approximate index — a FAISS IVF index (approximate) or a "
                        "usearch HNSW graph (hnsw) — whose recall@10 against exact search is measured and recorded "
                        "(auto: approximate above 1M documents; runs with a year cutoff are always exact)")
    p.add_argument("--no-year-cutoff", action="store_true",
                   help="Re2Math source retrieval: do not apply each query's year cutoff as a filter")
    p.add_argument("--query-prompt", metavar="TEXT", help="prompt prepended to queries (e.g. 'query: ')")
    p.add_argument("--document-prompt", metavar="TEXT", help="prompt prepended to documents (e.g. 'passage: ')")
    given = p.add_mutually_exclusive_group()
    given.add_argument("--instructions", dest="instructions", action="store_const", const=True, default=None,
                       help="the model takes instructions: put each task's declared query instruction (MIRB's "
                            "per-dataset instructions) before its queries as 'Instruct: {instruction}\\nQuery: ' "
                            "(the default for a sentence-transformers model whose own query prompt has that form)")
    given.add_argument("--instruction-template", dest="instructions", metavar="TEXT",
                       help="the model takes instructions in this template, '{instruction}' standing for a "
                            "task's ('\\n' in TEXT is a newline)")
    given.add_argument("--no-instructions", dest="instructions", action="store_const", const=False,
                       help="never apply task instructions (an instructed run is another system on the board)")
    p.add_argument("--rerank", metavar="SPEC",
                   help="rescore the first stage's top documents with a second stage: ce:NAME_OR_PATH (a "
                        "sentence-transformers CrossEncoder) | rerank-api:MODEL (a Cohere/Jina-style POST "
                        "{base}/rerank endpoint at LEMMATA_RERANK_BASE_URL / _API_KEY) | a CrossEncoder folder; the "
                        "reranked run is another system than its first stage")
    p.add_argument("--rerank-depth", type=int, metavar="K",
                   help="how many of the first stage's documents per query are reranked and written (default: "
                        "--depth)")
    p.add_argument("--device", action="append", metavar="DEVICE",
                   help="sentence-transformers device, repeatable: several use the library's multi-process pool")
    p.add_argument("--batch-size", type=int, default=256, help="texts per encoder call (default 256)")
    p.add_argument("--max-length", type=int, help="sentence-transformers maximum sequence length")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def run(args) -> int:
    import sys

    from lemmata.harness.evaluate import evaluate
    from lemmata.tracks.baseline_report import result_line

    if isinstance(args.instructions, str):
        args.instructions = args.instructions.replace("\\n", "\n")
    prompts = {k: v for k, v in (("query", args.query_prompt), ("document", args.document_prompt)) if v}
    store = None
    if not args.no_store:
        from lemmata.store import Store, default_store

        store = Store(args.store) if args.store else default_store()
    done = evaluate(args.model, args.track, split=args.split, out=args.out, store=store, depth=args.depth,
                    index=args.index, year_cutoff=not args.no_year_cutoff, prompts=prompts or None,
                    batch_size=args.batch_size, devices=args.device, max_length=args.max_length, quiet=args.quiet,
                    instructions=args.instructions, rerank=args.rerank, rerank_depth=args.rerank_depth)
    for ev in done:
        print(result_line(ev.result, ev.path), flush=True)
        print(f"  file {ev.path}", file=sys.stderr)
    return 0
