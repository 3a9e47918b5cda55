"""``lemmata submission-kit``: write (or check) a declared benchmark's submission README, schema and example."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "submission-kit")
    p.add_argument("benchmarks", nargs="*", help="declared benchmarks (default: every declared one)")
    p.add_argument("--dir", default="submissions", help="submissions folder (default: submissions)")
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.declared import stale_kit, write_kit
    from lemmata.families import declared_releases, families, get_benchmark

    metas = ([get_benchmark(name) for name in args.benchmarks] if args.benchmarks
             else [m for f in families().values() for m in declared_releases(f)])
    if args.check:
        stale = [line for meta in metas for line in stale_kit(meta, args.dir)]
        for line in stale:
            print(line)
        return 1 if stale else 0
    for meta in metas:
        for path in write_kit(meta, args.dir):
            print(path)
    return 0
