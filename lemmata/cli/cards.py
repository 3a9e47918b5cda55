"""``lemmata cards``: render the release cards kept under ``cards/rendered`` and check they are current."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "cards")
    p.add_argument("families", nargs="*", help="benchmark families (default: every family buildable from sources)")
    p.add_argument("--dir", default="cards/rendered", help="output folder (default: cards/rendered)")
    p.add_argument("--source-dir", metavar="DIR", help="raw-source mirror root (one subfolder per family)")
    p.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on any difference")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.families import builder_classes
    from lemmata.release.cards import check_cards, file_sourced, render_cards

    if args.families:
        builders = [cls for family in args.families for cls in builder_classes(family)]
    else:
        builders = file_sourced(builder_classes())
    if args.check:
        stale = check_cards(args.dir, builders, args.source_dir)
        for line in stale:
            print(line)
        return 1 if stale else 0
    for path in render_cards(args.dir, builders, args.source_dir):
        print(path)
    return 0
