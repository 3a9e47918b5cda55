"""``lemmata run NAME``: the plumbing every chat-model protocol shares, so a family writes only its protocol.

A family declares each protocol as a :class:`RunProtocol` in its record (``Family.runs``): its verb, its help,
its own arguments and one function that, given the parsed arguments and a ready
:class:`~lemmata.oracles.chat_runner.ChatRunner`, writes the submission (and the runner request log when the
benchmark checks one). Everything around it is here, once: the endpoint and sampling arguments, the runner
(concurrency, retries, the on-disk request cache that makes a rerun free and a stopped run resumable), the
run-metadata file, and scoring the written file through the one scoring path (:mod:`lemmata.scoring`) exactly as
``lemmata score`` would. Ctrl-C ends a run with exit status 130 and one sentence.
"""

from __future__ import annotations

import json
import sys
from argparse import ArgumentParser, Namespace
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["RunProtocol", "Written", "add_sampling_args", "endpoint_args", "register_protocol", "request_log",
           "run_model_info", "run_protocol", "sampling_of", "score_written", "write_logged"]


@dataclass(frozen=True)
class Written:
    """What a protocol wrote: the submission, the run's metadata, and the request log the header names (if any)."""

    submission: Path
    meta: dict[str, Any]
    runner_log: Path | None = None


@dataclass(frozen=True)
class RunProtocol:
    """A benchmark's protocol for a chat model: ``run(args, runner) -> Written``."""

    name: str
    help: str
    description: str
    run: Callable[[Namespace, Any], Written]
    add_arguments: Callable[[ArgumentParser], None] = field(default=lambda parser: None)

    @classmethod
    def declared(cls, verbs: Any, name: str, run: Callable[[Namespace, Any], Written],
                 add_arguments: Callable[[ArgumentParser], None] = lambda parser: None) -> RunProtocol:
        """The protocol ``name`` with its texts from the family's ``verbs.toml`` (table ``[run.NAME]``, a
        :class:`~lemmata.core.verbs.Verbs`): the prose stays data beside the family, the code says what runs."""
        text = verbs.text(f"run.{name}")
        return cls(name=name, help=text.help, description=text.description or text.help, run=run,
                   add_arguments=add_arguments)


def endpoint_args(p: ArgumentParser) -> None:
    """The arguments every protocol takes: the model and its endpoint, where files go, caching and scoring."""
    p.add_argument("--model", required=True, metavar="NAME",
                   help="model name at the endpoint (e.g. gpt-4o-mini, Qwen/Qwen2.5-Math-7B-Instruct, llama3.1:8b)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the submission, the run metadata and the result")
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (default: LEMMATA_LLM_BASE_URL, else "
                   "OPENAI_BASE_URL, else https://api.openai.com/v1); the key comes from LEMMATA_LLM_API_KEY or "
                   "OPENAI_API_KEY")
    p.add_argument("--concurrency", type=int, metavar="K", help="requests in flight (default LEMMATA_LLM_CONCURRENCY or 8)")
    p.add_argument("--cache", metavar="FILE", help="request cache file (default: one file per model under "
                   "LEMMATA_LLM_CACHE or $LEMMATA_HOME/cache/chat); rerunning with the same cache resumes a run")
    p.add_argument("--releases", metavar="DIR", help="folder of built releases")
    p.add_argument("--no-score", action="store_true", help="write the submission only")
    p.add_argument("--store", metavar="DIR", help="also add the submission and its result to this leaderboard store "
                   "(`lemmata judge --store DIR` fills its pending verdicts later)")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def add_sampling_args(p: ArgumentParser, *, temperature: float | None = 0.0, seed: int | None = None,
                      temperature_help: str = "default 0", seed_help: str = "seed sent with every request "
                      "(default: none)") -> None:
    """``--temperature``, ``--max-tokens`` and ``--seed``, with the protocol's defaults."""
    p.add_argument("--temperature", type=float, default=temperature, help=temperature_help)
    p.add_argument("--max-tokens", type=int, default=None, help="completion token limit (default: the server's)")
    p.add_argument("--seed", type=int, default=seed, help=seed_help)


def sampling_of(args: Namespace, **override: Any) -> Any:
    """The :class:`~lemmata.oracles.chat_runner.Sampling` the sampling arguments ask for."""
    from lemmata.oracles.chat_runner import Sampling

    values = {"temperature": args.temperature, "max_tokens": args.max_tokens, "seed": args.seed, **override}
    return Sampling(**values)


def run_model_info(runner: Any, sampling: Any, prompt_version: str, **fields: Any) -> Any:
    """The header's ``model`` of a run: the requested name, the id the endpoint reported most, the sampling and
    the prompt version (:class:`~lemmata.formats.results.ModelInfo`)."""
    from lemmata.formats.results import ModelInfo

    reported = runner.stats.endpoint_models.most_common(1)
    return ModelInfo(name=runner.endpoint.model, kind="llm", endpoint_model=reported[0][0] if reported else None,
                     sampling=sampling.model_dump(mode="json"), prompt_version=prompt_version, **fields)


def request_log(runner: Any, benchmark: str, release: str, prompt_version: str, sampling: Any,
                jobs: Sequence[Any], answers: Mapping[str, Any], *, n: int = 1,
                item: Callable[[Any], str] = lambda job: job.id) -> tuple[bytes, list[Any]]:
    """A run's request log (:mod:`lemmata.formats.runner_log`): every job's answer in job order, within the scorer's
    size limit (:func:`~lemmata.formats.runner_log.fit_log`: the longest completions become ``log-limit``
    abstentions when it would pass it). Returns the bytes and the entries written: a protocol makes its records
    from the entries' answers, so a dropped completion is an abstention in the submission as in the log."""
    from lemmata.formats.runner_log import check_log_lines, fit_log, make_header

    check_log_lines(len(jobs), f"lemmata run {benchmark}")
    model = runner.endpoint.model
    header = make_header(benchmark, release, prompt_version, model, sampling.model_dump(mode="json"), n)
    return fit_log(header, [job.logged(model, answers[job.id], item(job)) for job in jobs])


def write_logged(submission: str | Path, lines: Sequence[Mapping[str, Any]], log: bytes) -> Path:
    """Write the request log beside the submission (:func:`~lemmata.formats.runner_log.log_beside`, where the
    scorer and the store look for it), then the submission: a submission never names a log that is not written.
    Returns the log's path."""
    from lemmata.core.atomic import atomic_write_bytes
    from lemmata.core.jsonl import write_jsonl
    from lemmata.formats.runner_log import log_beside

    log_path = atomic_write_bytes(log_beside(submission), log)
    write_jsonl(submission, [dict(line) for line in lines])
    return log_path


def register_protocol(rsub: Any, protocol: RunProtocol) -> None:
    """Add ``protocol`` as ``lemmata run NAME``: the shared endpoint arguments, then its own."""
    p = rsub.add_parser(protocol.name, help=protocol.help, description=protocol.description)
    endpoint_args(p)
    protocol.add_arguments(p)
    p.set_defaults(handler=lambda args: run_protocol(protocol, args))


def _runner(args: Namespace) -> Any:
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint, RequestCache, default_cache

    endpoint = Endpoint.from_env(args.model, base_url=args.base_url, concurrency=args.concurrency)
    cache = RequestCache(args.cache) if args.cache else default_cache(args.model)
    return ChatRunner(endpoint, cache)


def run_protocol(protocol: RunProtocol, args: Namespace) -> int:
    """Run ``protocol`` with a runner made from ``args``, write its metadata, score what it wrote."""
    from lemmata.oracles.chat_runner import RunInterrupted

    try:
        with _runner(args) as runner:
            written = protocol.run(args, runner)
            return _finish(args, written, runner)
    except RunInterrupted as exc:  # every answer so far is cached: a rerun resumes
        print(str(exc), file=sys.stderr)
        return 130


def score_written(path: str | Path, *, store: str | None = None, quiet: bool = False,
                  runner_log: str | Path | None = None) -> Any:
    """Score a written submission exactly as ``lemmata score`` does (live oracles when configured); with ``store``
    the submission and its result are stored there, as an upload's are. ``runner_log``: the run's request log,
    checked against the submission and the release."""
    from lemmata.scoring import oracles_from_env, score_file, score_upload

    path = Path(path)
    oracles = oracles_from_env()
    if store is not None:
        from lemmata.store import Store

        return score_file(path, Store(store), submitter="lemmata-run", oracles=oracles, runner_log=runner_log)
    log = Path(runner_log) if runner_log is not None else None
    return score_upload(path.read_bytes(), path.name, oracles=oracles, quiet=quiet,
                        runner_log=log.read_bytes() if log is not None else None,
                        runner_log_name=log.name if log is not None else "runner-log.jsonl")[2]


def _finish(args: Namespace, written: Written, runner: Any) -> int:
    submission = written.submission
    run_meta = {"submission": Path(submission).name, "model": runner.endpoint.model,
                "endpoint": runner.endpoint.shown_url, **written.meta, "requests": runner.stats.as_dict()}
    meta_path = Path(submission).with_suffix(".run.json")
    meta_path.write_text(json.dumps(run_meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"submission: {submission}")
    print(f"run metadata: {meta_path}")
    stats = runner.stats
    if not args.quiet:
        print(f"{stats.jobs} request(s): {stats.from_cache} from cache, {stats.sent} sent, {stats.retries} retried; "
              f"tokens {stats.prompt_tokens} in / {stats.completion_tokens} out"
              + (f"; cost {stats.cost:.4f}" if stats.cost is not None else "")
              + (f"; abstentions {dict(stats.abstentions)}" if stats.abstentions else ""), file=sys.stderr)
    if args.no_score:
        return 0
    result = score_written(submission, store=args.store, quiet=args.quiet, runner_log=written.runner_log)
    out = Path(submission).with_suffix(".result.json")
    out.write_text(result.to_json(), encoding="utf-8")
    from lemmata.tracks.baseline_report import headline

    print(f"result: {out}")
    print(headline(result), file=sys.stderr)
    return 0
