"""``lemmata run ma-align`` (a chat model judges every MA-Align pair) and ``lemmata run mathatlas`` (a chat model
formalizes every entity of a MathAtlas track), declared for the registry (``Family.runs``); the harness
(:mod:`lemmata.harness.runs`) supplies the endpoint, cache, metadata and scoring."""

from __future__ import annotations

from lemmata.core.verbs import Verbs
from lemmata.harness.runs import RunProtocol, Written, add_sampling_args, sampling_of

VERBS = Verbs("lemmata.benchmarks.mathatlas")


def _run(args, runner) -> Written:
    from lemmata.benchmarks.mathatlas.judge_run import run_ma_align

    path, meta = run_ma_align(runner, args.out, sampling=sampling_of(args), quiet=args.quiet)
    return Written(path, meta)


PROTOCOL = RunProtocol.declared(VERBS, "ma-align", run=_run, add_arguments=add_sampling_args)


def _atlas_arguments(p) -> None:
    p.add_argument("--track", choices=("statements", "definitions", "ma-hard"), default="statements",
                   help="entities to formalize (default statements: theorems, examples and exercises)")
    p.add_argument("--context", choices=("zero-shot", "dependencies"), default="zero-shot",
                   help="zero-shot, or shown the statements the entity's links point to (a condition that splits "
                   "board groups; default zero-shot)")
    add_sampling_args(p)
    p.add_argument("--limit", type=int, metavar="K", help="only the first K entities (a smoke run: the others count "
                   "as abstained)")


def _run_atlas(args, runner) -> Written:
    from lemmata.benchmarks.mathatlas.formalize_run import run_mathatlas

    from lemmata.formats.runner_log import log_beside

    path, meta = run_mathatlas(runner, args.out, track=args.track, context=args.context, sampling=sampling_of(args),
                               limit=args.limit, quiet=args.quiet)
    print(f"runner request log: {log_beside(path)}")
    return Written(path, meta, runner_log=log_beside(path))


ATLAS_PROTOCOL = RunProtocol.declared(VERBS, "mathatlas", run=_run_atlas, add_arguments=_atlas_arguments)
