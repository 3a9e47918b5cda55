"""``lemmata schemas``: export (or check) the JSON Schema of every submission format."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "schemas")
    p.add_argument("--dir", default="submissions/schema", help="folder of the schema files (default: submissions/schema)")
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.formats.schema import stale_schemas, write_schemas
    from lemmata.families import schema_files

    files = schema_files()
    if args.check:
        stale = stale_schemas(files, args.dir)
        for line in stale:
            print(line)
        return 1 if stale else 0
    for path in write_schemas(files, args.dir):
        print(path)
    return 0
