"""``lemmata re2math run-agent --live``: the live reference agent (E3/E4 over SerpAPI Scholar and arXiv)."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "re2math", help="Re²Math tools: run the live reference agent",
        description="Re²Math tools. `run-agent --live` runs the reference agent against live services: a chat model "
        "(LEMMATA_AGENT_BASE_URL, LEMMATA_AGENT_MODEL, LEMMATA_AGENT_API_KEY; OpenAI-compatible), Google Scholar "
        "through SerpAPI (SERPAPI_API_KEY, SERPAPI_BASE_URL) and arXiv (LEMMATA_ARXIV_*, LEMMATA_MATERIALISER_*). "
        "It writes a submission plus the frozen query cache and materialisation store it used; score it with "
        "`lemmata score FILE` with LEMMATA_HOME whose artifacts folder is DIR.")
    rsub = p.add_subparsers(dest="re2math_command", metavar="ACTION")
    rsub.required = True
    a = rsub.add_parser(
        "run-agent", help="run the live reference agent on a split",
        description="Run the paper's protocol live on every instance of a split: one E3 query to Google Scholar "
        "through SerpAPI, at most one opened source materialised from arXiv, E4 to choose a source and extract its "
        "statement. Writes the submission, the frozen query cache and the materialisation store.")
    a.add_argument("--live", action="store_true", required=True, help="use live services (the only mode)")
    a.add_argument("--out", required=True, metavar="DIR", help="where the submission goes")
    a.add_argument("--artifacts", required=True, metavar="DIR", help="where the frozen artifacts go")
    a.add_argument("--run-id", required=True, help="names the run's artifacts (letters, digits, '.', '_', '-')")
    a.add_argument("--track", choices=("raw", "assisted"), default="raw",
                   help="raw: context only; assisted: context plus the anchor hint (default raw)")
    a.add_argument("--split", choices=("eval200/test", "pool/dev"), default="eval200/test",
                   help="the instances answered (default eval200/test)")
    a.add_argument("--window", type=int, choices=(1, 3, 5), default=5,
                   help="local proof blocks shown to the agent, m (default 5)")
    a.set_defaults(handler=run_agent)


def run_agent(args) -> int:

    from lemmata.benchmarks.re2math.agent.live_agent import run_live_agent
    from lemmata.benchmarks.re2math.scholar.serpapi import SerpApiScholar
    from lemmata.core.errors import LemmataError
    from lemmata.oracles.chat import ChatClient, ChatConfig

    from lemmata.core.settings import read_prefix

    env = read_prefix("LEMMATA_AGENT_")
    config = ChatConfig.from_env({"LEMMATA_JUDGE_" + k: v for k, v in env.items()})
    if config is None:
        raise LemmataError("no agent model: set LEMMATA_AGENT_BASE_URL and LEMMATA_AGENT_MODEL")
    scholar = SerpApiScholar(f"re2math-serpapi-{args.run_id}")
    paths = run_live_agent(args.out, args.artifacts, run_id=args.run_id, chat=ChatClient(config), scholar=scholar,
                           track=args.track, split=args.split, window=args.window, model_name=config.model)
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0
