"""``lemmata run ma-align``: a chat model judges every MA-Align pair, declared for the registry (``Family.runs``);
the harness (:mod:`lemmata.harness.runs`) supplies the endpoint, cache, metadata and scoring."""

from __future__ import annotations

from lemmata.harness.runs import RunProtocol, Written, add_sampling_args, sampling_of


def _run(args, runner) -> Written:
    from lemmata.benchmarks.mathatlas.judge_run import run_ma_align

    path, meta = run_ma_align(runner, args.out, sampling=sampling_of(args), quiet=args.quiet)
    return Written(path, meta)


PROTOCOL = RunProtocol(
    name="ma-align", help="judge the faithfulness of every MA-Align formalization pair",
    description="MA-Align: the model judges every (statement, Lean formalization) pair as faithful or not (prompt "
    "ma-align-judge.v1; the gold label is never shown); a reply without a boolean verdict abstains (null, counted "
    "as wrong). Scored by accuracy against the gold labels.",
    run=_run, add_arguments=add_sampling_args)
