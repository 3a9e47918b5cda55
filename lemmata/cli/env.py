"""``lemmata env``: every environment variable Lemmata reads, its current value (secrets masked) and meaning."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "env")
    p.add_argument("--json", action="store_true", help="one JSON object per variable instead of a table")
    p.set_defaults(handler=run)


def run(args) -> int:
    import json

    from lemmata.core.settings import describe

    rows = describe()
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
    else:
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            value = r["value"] if r["value"] is not None else f"(unset; default {r['default']})" if r["default"] \
                else "(unset)"
            print(f"{r['name']:<{width}}  {value}\n{'':<{width}}  {r['description']}")
    return 0  # set-but-unknown LEMMATA_* variables are reported by the CLI's entry point, on stderr
