"""``lemmata run BENCHMARK --model NAME``: run a chat model under a benchmark's protocol into a submission, and score it."""

from __future__ import annotations

import sys


def _endpoint_args(p) -> None:
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


def register(sub) -> None:
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

    r = rsub.add_parser("re2math", help="the paper's agent protocol (E3 → search → E4) on the offline world",
                        description="Re²Math: the paper's protocol on the current offline world "
                        "(re2math-scholar-offline-2.0.0) with the live agent's prompts e3.v1 / e4.v1: one query, the "
                        "top 20, at most one source opened, one statement copied from it (or an abstention). The "
                        "budget holds by construction. Judge verdicts come from LEMMATA_JUDGE_* when configured, "
                        "else they are pending (fill them later with `lemmata judge`).")
    _endpoint_args(r)
    r.add_argument("--track", choices=("raw", "assisted"), default="raw",
                   help="raw: context only (the model writes its own anchor); assisted: plus the anchor hint")
    r.add_argument("--window", type=int, choices=(1, 3, 5), default=5, help="local proof blocks shown, m (default 5)")
    r.add_argument("--split", choices=("eval200/test", "pool/dev"), default="eval200/test",
                   help="instances answered (default eval200/test)")
    r.add_argument("--temperature", type=float, default=0.0, help="default 0")
    r.add_argument("--max-tokens", type=int, default=None, help="completion token limit (default: the server's)")
    r.add_argument("--seed", type=int, default=None, help="seed sent with every request (default: none)")
    r.add_argument("--artifacts", metavar="DIR", help="folder holding the built offline world (default: the "
                   "artifacts folder under LEMMATA_HOME, built there when missing)")
    r.set_defaults(handler=run_re2math)

    a = rsub.add_parser("ma-align", help="judge the faithfulness of every MA-Align formalization pair",
                        description="MA-Align: the model judges every (statement, Lean formalization) pair as "
                        "faithful or not (prompt ma-align-judge.v1; the gold label is never shown); a reply without "
                        "a boolean verdict abstains (null, counted as wrong). Scored by accuracy against the gold "
                        "labels.")
    _endpoint_args(a)
    a.add_argument("--temperature", type=float, default=0.0, help="default 0")
    a.add_argument("--max-tokens", type=int, default=None, help="completion token limit (default: the server's)")
    a.add_argument("--seed", type=int, default=None, help="seed sent with every request (default: none)")
    a.set_defaults(handler=run_ma_align)

    t = rsub.add_parser("taobench", help="sample N whole Lean proofs per exercise and formulation",
                        description="TaoBench: N proofs per exercise in both formulations (Tao's framework and the "
                        "Mathlib twin), prompt taobench-prove.v1; every sample is submitted (an unusable one as the "
                        "official file, which fails), so pass@k is unbiased for k ≤ N. The run's request log is written beside the "
                        "submission (*.runner-log.jsonl) and its sha256 in the header: upload both, and the scorer "
                        "checks every attempt against the log and the release. Lean verdicts come from a "
                        "Kimina server when LEMMATA_LEAN_URL and LEMMATA_MATHLIB_VERSION are set, else the attempts "
                        "that pass the integrity checks are pending.")
    _endpoint_args(t)
    t.add_argument("--n", type=int, default=1, metavar="N", help="samples per exercise and formulation (default 1)")
    t.add_argument("--temperature", type=float, default=None, help="default 0 for n = 1, else 1.0")
    t.add_argument("--top-p", type=float, default=None, help="nucleus sampling (default: the server's)")
    t.add_argument("--max-tokens", type=int, default=None, help="completion token limit (default: the server's)")
    t.add_argument("--seed", type=int, default=0, help="base seed; sample i is drawn with seed + i (default 0)")
    t.add_argument("--release", default="taobench-150-1.1.0", help="release id (default taobench-150-1.1.0)")
    t.add_argument("--formulation", choices=("tao", "mathlib", "both"), default="both",
                   help="which formulations to answer (default both)")
    t.add_argument("--limit", type=int, metavar="K", help="only the first K exercises (a smoke run: the others count "
                   "as failed)")
    t.set_defaults(handler=run_taobench)

    m = rsub.add_parser("mathnet", help="solve MathNet olympiad problems (zero-shot, expert-RAG or retriever-RAG)",
                        description="MathNet-Solve: one written solution per problem of a subset (prompt "
                        "mathnet_solve.v1). Figures go to a text+image model as image parts and to a text model as "
                        "their upstream description. Under retriever-rag the retriever ranks the release's problems "
                        "(never the problem itself, its duplicates or its equivalents) and the top k with their "
                        "solutions come first as context. Grades come from a grader model when LEMMATA_JUDGE_BASE_URL "
                        "and LEMMATA_JUDGE_MODEL are set, else they are pending until `lemmata judge`.")
    _endpoint_args(m)
    m.add_argument("--condition", choices=("zero-shot", "expert-rag", "retriever-rag"), default="zero-shot",
                   help="MathRAG condition (default zero-shot)")
    m.add_argument("--modality", choices=("text", "text+image"), required=True,
                   help="what the model reads: text (figures as descriptions) or text+image (figures as image parts)")
    m.add_argument("--subset", default="lemmata_strat_70",
                   choices=("lemmata_strat_70", "lemmata_strat_5500", "full"),
                   help="problems to solve (Lemmata's stratified subsets; default lemmata_strat_70)")
    m.add_argument("--retriever", metavar="SPEC", help="retriever-rag: any `lemmata evaluate --model` spec (bm25, static, hybrid, st:NAME, "
                   "model2vec:NAME, openai:MODEL, a local folder)")
    m.add_argument("--k", type=int, default=1, help="retrieved problems shown per query (default 1, at most 5)")
    m.add_argument("--expert-pairs", metavar="FILE", help="expert-rag: JSONL of {problem_id, similar_id}")
    m.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    m.add_argument("--max-tokens", type=int, default=None, help="completion token limit (default: the server's)")
    m.add_argument("--seed", type=int, default=None, help="sampling seed (default: none sent)")
    m.add_argument("--release", default="mathnet-solve-1.0.0", help="release id (default mathnet-solve-1.0.0)")
    m.add_argument("--limit", type=int, metavar="K", help="only the first K problems (a smoke run: the others count "
                   "as not solved)")
    m.set_defaults(handler=run_mathnet)


def _runner(args):
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint, RequestCache, default_cache

    endpoint = Endpoint.from_env(args.model, base_url=args.base_url, concurrency=args.concurrency)
    cache = RequestCache(args.cache) if args.cache else default_cache(args.model)
    return ChatRunner(endpoint, cache)


def score_written(path, *, store: str | None = None, quiet: bool = False, runner_log=None):
    """Score a written submission exactly as ``lemmata score`` does (live oracles when configured); with ``store``
    the submission and its result are stored there, as an upload's are. ``runner_log``: the run's request log,
    checked against the submission and the release."""
    import datetime as dt
    from pathlib import Path

    from lemmata.oracles.chat import judge_from_env
    from lemmata.oracles.lean import verifier_from_env
    from lemmata.families import handler_for, validate_upload
    from lemmata.tracks.base import OracleConfig

    path = Path(path)
    oracles = OracleConfig(judge=judge_from_env(), lean=verifier_from_env())
    if store is not None:
        from lemmata.store import Store
        from lemmata.tracks.runner import score_file

        return score_file(path, Store(store), submitter="lemmata-run", oracles=oracles, runner_log=runner_log)
    validated = validate_upload(path.read_bytes(), path.name,
                                runner_log=Path(runner_log).read_bytes() if runner_log is not None else None,
                                runner_log_name=Path(runner_log).name if runner_log is not None else "runner-log.jsonl")
    handler = handler_for(validated.benchmark)
    if hasattr(handler, "quiet"):
        handler.quiet = quiet
    received = dt.datetime.now(dt.timezone.utc).date().isoformat()
    return handler.score(validated, received_at=received, oracles=oracles)


def _finish(args, submission, meta: dict, runner, runner_log=None) -> int:
    import json
    from pathlib import Path

    run_meta = {"submission": Path(submission).name, "model": runner.endpoint.model,
                "endpoint": runner.endpoint.shown_url, **meta, "requests": runner.stats.as_dict()}
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
    result = score_written(submission, store=args.store, quiet=args.quiet, runner_log=runner_log)
    out = Path(submission).with_suffix(".result.json")
    out.write_text(result.to_json(), encoding="utf-8")
    main = result.main
    value = "pending" if main.value is None else f"{main.value:.4f}"
    print(f"result: {out}")
    print(f"{main.metric} {value} ({main.count}/{main.total} confirmed), {result.pending} item(s) pending; "
          f"status {result.status}", file=sys.stderr)
    return 0


def _interruptible(run):
    """Ctrl-C ends a run with exit status 130 and one sentence: every answer so far is cached, a rerun resumes."""
    import functools

    @functools.wraps(run)
    def wrapper(args) -> int:
        from lemmata.oracles.chat_runner import RunInterrupted

        try:
            return run(args)
        except RunInterrupted as exc:
            print(str(exc), file=sys.stderr)
            return 130
    return wrapper


@_interruptible
def run_taobench(args) -> int:
    from pathlib import Path

    from lemmata.benchmarks.taobench.release import open_taobench
    from lemmata.benchmarks.taobench.sampler import sample_submission, write_lines
    from lemmata.core.errors import InputError
    from lemmata.oracles.chat_runner import Sampling
    from lemmata.oracles.judge import slug
    from lemmata.formats.runner_log import RUNNER_LOG_SUFFIX
    from lemmata.store.files import atomic_write

    if not 1 <= args.n <= 256:
        raise InputError.one("lemmata run taobench", "--n must be between 1 and 256", field="n")
    temperature = args.temperature if args.temperature is not None else (0.0 if args.n == 1 else 1.0)
    sampling = Sampling(temperature=temperature, top_p=args.top_p, max_tokens=args.max_tokens, seed=args.seed)
    release = open_taobench(args.release, args.releases)
    formulations = ("tao", "mathlib") if args.formulation == "both" else (args.formulation,)
    with _runner(args) as runner:
        lines, meta, log = sample_submission(release, runner, n=args.n, sampling=sampling,
                                             formulations=formulations, limit=args.limit, quiet=args.quiet)
        stem = Path(args.out) / f"taobench.{args.release}.{slug(args.model)}.n{args.n}"
        log_path = stem.with_name(stem.name + RUNNER_LOG_SUFFIX)
        atomic_write(log_path, log)  # first: a submission never names a log that is not written
        path = write_lines(stem.with_name(stem.name + ".jsonl"), lines)
        print(f"runner request log: {log_path}")
        return _finish(args, path, meta, runner, runner_log=log_path)


@_interruptible
def run_re2math(args) -> int:
    from lemmata.benchmarks.re2math.agent.llm_agent import run_offline_agent
    from lemmata.oracles.chat_runner import Sampling

    sampling = Sampling(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed)
    with _runner(args) as runner:
        path, meta = run_offline_agent(runner, args.out, track=args.track, split=args.split, window=args.window,
                                       sampling=sampling, artifacts_root=args.artifacts, quiet=args.quiet)
        return _finish(args, path, meta, runner)


@_interruptible
def run_ma_align(args) -> int:
    from lemmata.benchmarks.mathatlas.judge_run import run_ma_align as run
    from lemmata.oracles.chat_runner import Sampling

    sampling = Sampling(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed)
    with _runner(args) as runner:
        path, meta = run(runner, args.out, sampling=sampling, quiet=args.quiet)
        return _finish(args, path, meta, runner)


@_interruptible
def run_mathnet(args) -> int:
    from pathlib import Path

    from lemmata.benchmarks.mathnet.solve_data import solve_release
    from lemmata.benchmarks.mathnet.solve_run import check_options, solve_submission, write_lines
    from lemmata.oracles.chat_runner import Sampling
    from lemmata.oracles.judge import slug

    check_options(args.condition, args.retriever, args.k)
    sampling = Sampling(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed)
    release = solve_release(args.release)
    with _runner(args) as runner:
        lines, meta = solve_submission(release, runner, subset=args.subset, modality=args.modality,
                                       condition=args.condition, sampling=sampling, retriever_spec=args.retriever,
                                       k=args.k, expert_pairs=args.expert_pairs, limit=args.limit, quiet=args.quiet)
        tag = args.condition + (f"-{slug(args.retriever)}-k{args.k}" if args.retriever else "")
        path = write_lines(Path(args.out) / f"mathnet.{args.subset}.{tag}.{slug(args.model)}.jsonl", lines)
        if meta.get("advice") and not args.quiet:
            print(f"warning: {meta['advice']}", file=sys.stderr)
        return _finish(args, path, meta, runner)
