"""``lemmata run BENCHMARK --model NAME``: run a chat model under a benchmark's protocol into a submission, and score it.

The protocols come from the registry (each family's ``Family.runs``); the shared plumbing is
:mod:`lemmata.harness.runs`.
"""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    from lemmata.families import run_protocols
    from lemmata.harness.runs import register_protocol

    p = VERBS.add(sub, "run")
    rsub = p.add_subparsers(dest="run_benchmark", metavar="BENCHMARK", required=True)
    protocols = run_protocols()
    for name in protocols:
        register_protocol(rsub, protocols[name])
