"""``lemmata list``: the registered benchmark releases."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "list",
        help="list registered benchmark releases, and which are built where",
        description="List every registered benchmark release with its task type, main score and configs, and "
        "whether it is built in the releases folder ($LEMMATA_RELEASES, default $LEMMATA_HOME/releases) and "
        "where. A release that is not built is built by `lemmata build FAMILY`, or on demand by the commands "
        "that need it.",
    )
    p.add_argument("--json", action="store_true", help="print the full metadata records as JSON")
    p.set_defaults(handler=run)


def run(args) -> int:
    import json

    from lemmata.registry import list_benchmarks

    metas = list_benchmarks()
    if args.json:
        print(json.dumps([m.model_dump(mode="json") for m in metas], indent=2, ensure_ascii=False))
        return 0
    for m in metas:
        configs = ", ".join(c.name for c in m.configs)
        print(f"{m.release_id:<28} {m.task_type:<22} main score: {m.main_score.metric:<10} configs: {configs}")
    return 0
