"""``lemmata run BENCHMARK --model NAME``: run a chat model under a benchmark's protocol into a submission, and score it.

The protocols come from the registry (each family's ``Family.runs``); the shared plumbing is
:mod:`lemmata.harness.runs`.
"""

from __future__ import annotations


def register(sub) -> None:
    from lemmata.families import run_protocols
    from lemmata.harness.runs import register_protocol

    p = sub.add_parser(
        "run", help="run a chat model on a benchmark's protocol into a submission (and score it)",
        description="Run any OpenAI-compatible chat model (OpenAI, vLLM, TGI, llama.cpp server, Ollama) under a "
        "benchmark's own protocol and write a submission that `lemmata score` accepts, then score it as the "
        "leaderboard does (verdicts no oracle has given stay pending; fill them later with `lemmata judge`). Requests "
        "run concurrently, are retried on 429/5xx/timeouts (honouring Retry-After) and cached on disk by (model, prompt, "
        "sampling, seed): a rerun costs nothing and a run stopped with Ctrl-C resumes where it stopped. Unusable "
        "completions (refused, truncated, malformed, empty) are recorded abstentions, never crashes.")
    rsub = p.add_subparsers(dest="run_benchmark", metavar="BENCHMARK")
    rsub.required = True
    protocols = run_protocols()
    for name in protocols:
        register_protocol(rsub, protocols[name])
