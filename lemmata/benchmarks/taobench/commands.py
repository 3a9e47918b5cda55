"""``lemmata taobench``: check an attempt offline, build the example submission (scoring: ``lemmata score``).
TaoBench's own CLI verb, declared in its family record (``Family.commands``)."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.benchmarks.taobench")


def register(sub) -> None:
    p = VERBS.add(sub, "taobench")
    tsub = p.add_subparsers(dest="taobench_command", metavar="ACTION", required=True)

    c = VERBS.add(tsub, "taobench.check")
    c.add_argument("attempt", help="the attempt's Lean file")
    c.add_argument("--release", default="taobench-150-1.1.0", help="release id (default: taobench-150-1.1.0)")
    c.add_argument("--fqn", required=True, help="the exercise's FQN")
    c.add_argument("--formulation", choices=("tao", "mathlib"), required=True,
                   help="which statement the attempt proves: Tao's framework or its Mathlib twin")
    c.add_argument("--releases", metavar="DIR", help="folder of built releases")
    c.set_defaults(handler=run_check)

    e = VERBS.add(tsub, "taobench.example")
    e.add_argument("--out", required=True, metavar="FILE", help="where to write the JSONL submission")
    e.add_argument("--proofs", metavar="FILE", help="proof texts (default: submissions/taobench/example_proofs.json)")
    e.add_argument("--releases", metavar="DIR", help="folder of built releases")
    e.set_defaults(handler=run_example)


def run_check(args) -> int:
    from pathlib import Path

    from lemmata.benchmarks.taobench.lean.integrity import check_attempt
    from lemmata.benchmarks.taobench.release import open_taobench

    release = open_taobench(args.release, args.releases)
    if args.fqn not in release.by_fqn:
        from lemmata.core.errors import InputError
        from lemmata.benchmarks.taobench.submission import unknown_fqn

        raise InputError.one(args.attempt, unknown_fqn(args.fqn, set(release.fqns()), args.release), field="fqn")
    report = check_attempt(release.exercise(args.fqn, args.formulation), Path(args.attempt).read_text("utf-8"))
    if report.ok:
        print("ok: no integrity violation")
        return 0
    for v in report.violations:
        print(f"{args.attempt}:{v.line or '-'}: {v.kind}: {v.message}")
    return 2


def run_example(args) -> int:
    from lemmata.benchmarks.taobench.example import write_example

    path, n = write_example(args.out, proofs_path=args.proofs, releases_root=args.releases)
    print(f"{path}: {n} record(s)")
    return 0


def register_baselines(rs, actions) -> None:
    """``lemmata baselines run equivalence`` and ``lemmata baselines export equivalence``."""
    from lemmata.harness.baselines import ALL, common_args

    e = VERBS.add(rs, "baselines.run.equivalence")
    e.add_argument("--release", choices=("taobench-150", "taobench-v1", ALL), default=ALL,
                   help="TaoBench release (default all)")
    e.add_argument("--direction", choices=("tao2mathlib", "mathlib2tao", ALL), default=ALL,
                   help="query framework -> corpus framework (default all)")
    e.add_argument("--retriever", choices=("bm25", "static", "hybrid", ALL), default=ALL,
                   help="bm25, static embeddings, their hybrid, or all (default all)")
    common_args(e)
    e.set_defaults(handler=run_equivalence)

    x = VERBS.add(actions, "baselines.export")
    x.add_argument("what", choices=("equivalence",), help="the derived track (equivalence: TaoBench twins)")
    x.add_argument("--release", choices=("taobench-150", "taobench-v1"), required=True, help="TaoBench release")
    x.add_argument("--direction", choices=("tao2mathlib", "mathlib2tao"), required=True,
                   help="query framework -> corpus framework")
    x.add_argument("--out", metavar="DIR", required=True, help="folder the BEIR files are written to")
    x.set_defaults(handler=run_export)


def run_equivalence(args) -> int:
    from lemmata.benchmarks.taobench.baselines import equivalence_run
    from lemmata.harness.baselines import finish, out_folder, pick, store_of

    store = store_of(args)
    for release in pick(args.release, ("taobench-150", "taobench-v1")):
        for direction in pick(args.direction, ("tao2mathlib", "mathlib2tao")):
            for retriever in pick(args.retriever, ("bm25", "static", "hybrid")):
                finish(equivalence_run(retriever, release, direction, out_folder(args), depth=args.depth), store)
    return 0


def run_export(args) -> int:
    from lemmata.benchmarks.taobench.equivalence import load_track, write_beir
    from lemmata.catalog import release_path
    from lemmata.families import get_benchmark

    track = load_track(release_path(get_benchmark(args.release)), args.direction)
    for name in write_beir(track, args.out):
        print(f"{args.out}/{name}")
    return 0
