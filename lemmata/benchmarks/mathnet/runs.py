"""``lemmata run mathnet``: MathNet-Solve under a MathRAG condition, declared for the registry (``Family.runs``);
the harness (:mod:`lemmata.harness.runs`) supplies the endpoint, cache, metadata and scoring."""

from __future__ import annotations

import sys

from lemmata.core.verbs import Verbs
from lemmata.harness.runs import RunProtocol, Written, add_sampling_args, sampling_of, write_logged

VERBS = Verbs("lemmata.benchmarks.mathnet")


def _arguments(m) -> None:
    m.add_argument("--condition", choices=("zero-shot", "expert-rag", "retriever-rag"), default="zero-shot",
                   help="MathRAG condition (default zero-shot)")
    m.add_argument("--modality", choices=("text", "text+image"), required=True,
                   help="what the model reads: text (figures as descriptions) or text+image (figures as image parts)")
    m.add_argument("--subset", default="lemmata_strat_70",
                   choices=("lemmata_strat_70", "lemmata_strat_5500", "full"),
                   help="problems to solve (Lemmata's stratified subsets; default lemmata_strat_70)")
    m.add_argument("--retriever", metavar="SPEC", help="retriever-rag: any `lemmata evaluate --model` spec (bm25, "
                   "static, hybrid, st:NAME, model2vec:NAME, openai:MODEL, a local folder)")
    m.add_argument("--k", type=int, default=1, help="retrieved problems shown per query (default 1, at most 5)")
    m.add_argument("--expert-pairs", metavar="FILE", help="expert-rag: JSONL of {problem_id, similar_id}")
    add_sampling_args(m, temperature_help="sampling temperature (default 0)",
                      seed_help="sampling seed (default: none sent)")
    from lemmata.benchmarks.mathnet.solve_meta import MATHNET_SOLVE

    m.add_argument("--release", default=MATHNET_SOLVE.release_id, help=f"release id (default {MATHNET_SOLVE.release_id})")
    m.add_argument("--limit", type=int, metavar="K", help="only the first K problems (a smoke run: the others count "
                   "as not solved)")


def _run(args, runner) -> Written:
    from pathlib import Path

    from lemmata.benchmarks.mathnet.solve_data import solve_release
    from lemmata.benchmarks.mathnet.solve_run import check_options, solve_logged
    from lemmata.oracles.judge import slug

    check_options(args.condition, args.retriever, args.k)
    release = solve_release(args.release)
    lines, meta, log = solve_logged(release, runner, subset=args.subset, modality=args.modality,
                                    condition=args.condition, sampling=sampling_of(args),
                                    retriever_spec=args.retriever, k=args.k, expert_pairs=args.expert_pairs,
                                    limit=args.limit, quiet=args.quiet)
    tag = args.condition + (f"-{slug(args.retriever)}-k{args.k}" if args.retriever else "")
    path = Path(args.out) / f"mathnet.{args.subset}.{tag}.{slug(args.model)}.jsonl"
    log_path = write_logged(path, lines, log)
    print(f"runner request log: {log_path}")
    if meta.get("advice") and not args.quiet:
        print(f"warning: {meta['advice']}", file=sys.stderr)
    return Written(path, meta, runner_log=log_path)


PROTOCOL = RunProtocol.declared(VERBS, "mathnet", run=_run, add_arguments=_arguments)
