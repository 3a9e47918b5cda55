"""``lemmata run re2math``: the paper's agent protocol (E3 → search → E4) for any chat model, on the offline world.

The protocol itself is :func:`lemmata.benchmarks.re2math.agent.llm_agent.run_offline_agent`; this module declares
its verb and arguments for the registry (``Family.runs``), and the harness (:mod:`lemmata.harness.runs`) does the
rest: endpoint, request cache, run metadata, scoring.
"""

from __future__ import annotations

from lemmata.benchmarks.re2math.commands import add_cite_keys_arg
from lemmata.core.verbs import Verbs
from lemmata.harness.runs import RunProtocol, Written, add_sampling_args, sampling_of

VERBS = Verbs("lemmata.benchmarks.re2math")


def _arguments(r) -> None:
    r.add_argument("--track", choices=("raw", "assisted"), default="raw",
                   help="raw: context only (the model writes its own anchor); assisted: plus the anchor hint")
    r.add_argument("--window", type=int, choices=(1, 3, 5), default=5, help="local proof blocks shown, m (default 5)")
    r.add_argument("--split", choices=("eval200/test", "pool/dev"), default="eval200/test",
                   help="instances answered (default eval200/test)")
    r.add_argument("--condition", choices=("retrieval", "oracle-source"), default="retrieval",
                   help="retrieval: the paper's protocol (default); oracle-source: the paper's oracle condition, "
                        "after E3 the cited source's opened text is handed to the model, which only extracts the "
                        "statement (headline Oracle ToolAcc, ranked in its own group)")
    r.add_argument("--scope", choices=("global_local", "local_only"), default="global_local",
                   help="what the model plans from: setup, target theorem and local blocks (default), or the local "
                        "blocks alone (the paper's scope ablation, ranked in its own group)")
    add_cite_keys_arg(r)
    add_sampling_args(r)
    r.add_argument("--artifacts", metavar="DIR", help="folder holding the built offline world (default: the "
                   "artifacts folder under LEMMATA_HOME, built there when missing)")


def _run(args, runner) -> Written:
    from lemmata.benchmarks.re2math.agent.llm_agent import run_offline_agent

    from lemmata.formats.runner_log import log_beside

    path, meta = run_offline_agent(runner, args.out, track=args.track, split=args.split, window=args.window,
                                   sampling=sampling_of(args), artifacts_root=args.artifacts,
                                   condition=args.condition, scope=args.scope, cite_keys=args.cite_keys,
                                   quiet=args.quiet)
    print(f"runner request log: {log_beside(path)}")
    return Written(path, meta, runner_log=log_beside(path))


PROTOCOL = RunProtocol.declared(VERBS, "re2math", run=_run, add_arguments=_arguments)
