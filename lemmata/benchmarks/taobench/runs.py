"""``lemmata run taobench``: N whole Lean proofs per exercise and formulation, declared for the registry
(``Family.runs``); the harness (:mod:`lemmata.harness.runs`) supplies the endpoint, cache, metadata and scoring.
The request log is written before the submission, so a submission never names a log that is not there."""

from __future__ import annotations

from lemmata.core.verbs import Verbs
from lemmata.harness.runs import RunProtocol, Written, add_sampling_args, sampling_of, write_logged

VERBS = Verbs("lemmata.benchmarks.taobench")


def _arguments(t) -> None:
    t.add_argument("--n", type=int, default=1, metavar="N", help="samples per exercise and formulation (default 1)")
    add_sampling_args(t, temperature=None, seed=0, temperature_help="default 0 for n = 1, else 1.0",
                      seed_help="base seed; sample i is drawn with seed + i (default 0)")
    t.add_argument("--top-p", type=float, default=None, help="nucleus sampling (default: the server's)")
    t.add_argument("--release", default="taobench-150-1.1.0", help="release id (default taobench-150-1.1.0)")
    t.add_argument("--formulation", choices=("tao", "mathlib", "both"), default="both",
                   help="which formulations to answer (default both; tao under --condition without-context)")
    t.add_argument("--condition", choices=("with-context", "without-context"), default="with-context",
                   help="with-context (default): the paper's protocol, the model sees each exercise's official "
                        "file; without-context: the paper's ablation, the statement alone with none of the local "
                        "definitions its file declares before it (prompt taobench-prove-without-context.v1, Tao's "
                        "formulation only; a board group of its own)")
    t.add_argument("--limit", type=int, metavar="K", help="only the first K exercises (a smoke run: the others count "
                   "as failed)")


def _run(args, runner) -> Written:
    from pathlib import Path

    from lemmata.benchmarks.taobench.release import open_taobench
    from lemmata.benchmarks.taobench.sampler import sample_submission
    from lemmata.core.errors import InputError
    from lemmata.oracles.judge import slug

    if not 1 <= args.n <= 256:
        raise InputError.one("lemmata run taobench", "--n must be between 1 and 256", field="n")
    temperature = args.temperature if args.temperature is not None else (0.0 if args.n == 1 else 1.0)
    sampling = sampling_of(args, temperature=temperature, top_p=args.top_p)
    condition = None if args.condition == "with-context" else args.condition
    if condition and args.formulation == "mathlib":
        raise InputError.one("lemmata run taobench", "--condition without-context removes the local definitions of "
                             "Tao's files; a Mathlib twin has none: use --formulation tao", field="formulation")
    release = open_taobench(args.release, args.releases)
    formulations = ("tao",) if condition else ("tao", "mathlib") if args.formulation == "both" else (args.formulation,)
    lines, meta, log = sample_submission(release, runner, n=args.n, sampling=sampling, formulations=formulations,
                                         limit=args.limit, quiet=args.quiet, condition=condition)
    stem = Path(args.out) / (f"taobench.{args.release}.{slug(args.model)}.n{args.n}"
                             + (f".{condition}" if condition else ""))
    submission = stem.with_name(stem.name + ".jsonl")
    log_path = write_logged(submission, lines, log)  # the log first, beside it, where `lemmata score FILE` finds it
    print(f"runner request log: {log_path}")
    return Written(submission, meta, runner_log=log_path)


PROTOCOL = RunProtocol.declared(VERBS, "taobench", run=_run, add_arguments=_arguments)
