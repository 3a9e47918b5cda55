"""Re²Math's own CLI verbs, declared in its family record (``Family.commands``): ``lemmata render`` (an instance
exactly as an agent receives it) and ``lemmata re2math run-agent --live`` (the live reference agent, E3/E4 over
SerpAPI Scholar and arXiv), and its ``lemmata baselines run`` sub-commands (``Family.baseline_commands``)."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.benchmarks.re2math")


def register(sub) -> None:
    p = VERBS.add(sub, "re2math")
    rsub = p.add_subparsers(dest="re2math_command", metavar="ACTION", required=True)
    a = VERBS.add(rsub, "re2math.run-agent")
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


def register_render(sub) -> None:
    p = VERBS.add(sub, "render")
    p.add_argument("release", help="path of a built re2math release folder (`lemmata build re2math` prints it)")
    p.add_argument("instance_id", help="the instance's id (column instance_id of the release)")
    p.add_argument("--track", choices=("raw", "assisted"), default="raw",
                   help="raw: no hint; assisted: with the leakage-controlled anchor hint (default raw)")
    p.add_argument("--window", type=int, choices=(1, 3, 5), default=5,
                   help="local proof blocks shown, m (default 5)")
    p.add_argument("--config", default="full", help="release config to look the instance up in (default full)")
    p.add_argument("--mask-target-cite", action="store_true",
                   help="replace the instance's own citation key inside \\cite-like commands by '?' "
                        "(the input the offline agents read by default; without it the row is shown as stored)")
    p.add_argument("--scope", choices=("global_local", "local_only"), default="global_local",
                   help="global_local: setup, target theorem and local blocks (default); local_only: the local "
                        "blocks alone (the paper's planning-scope ablation)")
    p.set_defaults(handler=run_render)


def run_render(args) -> int:
    from lemmata.core.errors import InputError
    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.catalog import open_release_folder as open_release

    release = open_release(args.release)
    for split in release.splits(args.config):
        for row in release.rows(args.config, split):
            if row["instance_id"] == args.instance_id:
                print(render_instance(row, args.track, args.window, args.scope,
                                      mask_target_cite=args.mask_target_cite))
                return 0
    raise InputError.one(args.release, f"no instance {args.instance_id!r} in config {args.config!r}",
                         field="instance_id")


def _ranking_args(p, variants: tuple[str, ...] = ("raw", "assisted"), note: str = "") -> None:
    """The options both ranking baselines take: which retrievers, which query rendering, which split."""
    from lemmata.harness.baselines import ALL, common_args

    p.add_argument("--retriever", choices=("bm25", "static", "hybrid", ALL), default=ALL,
                   help="bm25, static embeddings, their hybrid, or all (default all)")
    p.add_argument("--variant", choices=(*variants, ALL), default=ALL,
                   help=f"query rendering (window m=5), or all (default all){note}")
    p.add_argument("--split", choices=("test", "dev"), default="test", help="query split (test = Eval-200)")
    common_args(p)


def add_cite_keys_arg(p) -> None:
    """``--cite-keys``, the same for every Re²Math agent on the offline world."""
    p.add_argument("--cite-keys", choices=("masked", "unmasked"), default="masked",
                   help="masked (default): the instance's own citation key reads \\cite{?} in the input, since it "
                        "often names the answer; unmasked: the input as stored (ranked in its own group)")


def register_baselines(rs, actions) -> None:
    """``lemmata baselines run theorem-retrieval | source-retrieval | agent``."""
    from lemmata.benchmarks.re2math.source.retrieval import SOURCE_VARIANTS
    from lemmata.harness.baselines import common_args

    t = VERBS.add(rs, "baselines.run.theorem-retrieval")
    _ranking_args(t)
    t.set_defaults(handler=run_theorem)

    sr = VERBS.add(rs, "baselines.run.source-retrieval")
    _ranking_args(sr, SOURCE_VARIANTS, "; *-masked: the instance's own cite key masked, the track's default")
    sr.set_defaults(handler=run_source)

    a = VERBS.add(rs, "baselines.run.agent")
    a.add_argument("--track", dest="agent_track", choices=("raw", "assisted"), default="assisted",
                   help="raw: no anchor hint; assisted: with it (default assisted)")
    a.add_argument("--split", choices=("eval200/test", "pool/dev"), default="eval200/test",
                   help="instances to answer, as config/split (default eval200/test)")
    add_cite_keys_arg(a)
    common_args(a, depth=False)
    a.set_defaults(handler=run_baseline_agent)


def run_theorem(args) -> int:
    from lemmata.benchmarks.re2math.baselines import theorem_retrieval_run

    return _retrieval_runs(args, theorem_retrieval_run, ("raw", "assisted"))


def run_source(args) -> int:
    from lemmata.benchmarks.re2math.baselines import source_retrieval_run
    from lemmata.benchmarks.re2math.source.retrieval import SOURCE_VARIANTS

    return _retrieval_runs(args, source_retrieval_run, SOURCE_VARIANTS)


def _retrieval_runs(args, run, variants: tuple[str, ...]) -> int:
    """Every chosen (rendering, retriever) pair of a retrieval baseline, each file scored as it is written."""
    from lemmata.harness.baselines import finish, out_folder, pick, store_of

    store = store_of(args)
    for variant in pick(args.variant, variants):
        for retriever in pick(args.retriever, ("bm25", "static", "hybrid")):
            finish(run(retriever, variant, out_folder(args), split=args.split, depth=args.depth), store)
    return 0


def run_baseline_agent(args) -> int:
    from lemmata.benchmarks.re2math.agent.lexical import run_agent as agent
    from lemmata.harness.baselines import finish, out_folder, store_of

    finish(agent(out_folder(args), track=args.agent_track, split=args.split, cite_keys=args.cite_keys),
           store_of(args))
    return 0
