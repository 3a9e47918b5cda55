"""``lemmata submission-kit``: write (or check) a declared benchmark's submission README, schema and example."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "submission-kit",
        help="write (or check) the submission README, JSON Schema and example of declared BEIR-style benchmarks",
        description="For a benchmark declared by its metadata (a BEIR-style release with a ranking spec), write "
        "DIR/<name>/README.md (header and record tables read off the exported JSON Schema, scoring from the "
        "metadata, the example's real score), DIR/<name>/example-<name>.jsonl (BM25 over the served release, "
        "built first when missing) and DIR/schema/<schema file>. A README written by hand is never overwritten. "
        "With --check, exit 1 when a file in DIR differs from a fresh generation.",
    )
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
