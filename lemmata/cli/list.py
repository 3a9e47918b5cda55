"""``lemmata list``: the registered benchmark releases."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "list")
    p.add_argument("--json", action="store_true",
                   help="print the full metadata records as JSON, each with its 'release_id', 'built' "
                        "(true/false) and 'path' (the release folder, where it is or would be built)")
    p.add_argument("--paper-tables", action="store_true",
                   help="print the paper-table map instead (Markdown, the README's section): every table of each "
                        "benchmark's paper and the command giving its Lemmata counterpart, or why none runs offline")
    p.set_defaults(handler=run)


def run(args) -> int:
    import json

    if args.paper_tables:
        from lemmata.cli.paper_map import markdown
        from lemmata.families import paper_tables

        print(markdown(paper_tables()))
        return 0

    from lemmata.catalog import release_root
    from lemmata.core.paths import releases_dir
    from lemmata.families import list_benchmarks

    metas = list_benchmarks()
    folders = {m.release_id: release_root(m) for m in metas}
    built = {rid: (path / "MANIFEST.json").is_file() for rid, path in folders.items()}
    if args.json:
        unset = lambda m: {k for k in ("ranking", "beir", "manifest_sha256") if getattr(m, k) is None}  # noqa: E731 (older listings)
        print(json.dumps([{"release_id": m.release_id, **m.model_dump(mode="json", exclude=unset(m)),
                           "built": built[m.release_id], "path": str(folders[m.release_id])} for m in metas],
                         indent=2, ensure_ascii=False))
        return 0
    for m in metas:
        configs = ", ".join(c.name for c in m.configs)
        state = "built" if built[m.release_id] else "not built"
        print(f"{m.release_id:<28} {state:<10} {m.task_type:<22} main score: {m.main_score.metric:<14} "
              f"configs: {configs}")
    print(f"releases folder: {releases_dir()} ({sum(built.values())} of {len(metas)} built; "
          "`lemmata build FAMILY` builds one)")
    return 0
