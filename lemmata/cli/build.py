"""``lemmata build``: build a versioned release folder from pinned upstream sources."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "build",
        help="build a benchmark release (Parquet, card, Croissant, manifest, citation)",
        description="Build the release(s) of a benchmark family from its pinned upstream sources. Sources are read "
        "from --source-dir, or from a local mirror (LEMMATA_MIRROR/<family>, or ../shared/data/<family> beside the "
        "checkout when present), or downloaded from their pinned URLs (GitHub files, or a Hugging Face dataset at "
        "its pinned commit); every file's sha256 is verified first. The release is written to a temporary folder "
        "and renamed into place, so a failed build leaves nothing behind.",
    )
    p.add_argument("family", help="benchmark family, e.g. re2math")
    p.add_argument("--out", metavar="DIR", help="parent folder of the release (default: $LEMMATA_HOME/releases)")
    p.add_argument("--source-dir", metavar="DIR", help="folder holding the raw upstream files (for a Hub dataset: a local snapshot of it)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.core.registry import UnknownNameError
    from lemmata.families import builder_classes

    try:
        classes = builder_classes(args.family)
    except KeyError as exc:
        raise UnknownNameError(exc.args[0]) from None
    for cls in classes:
        target = cls(source_dir=args.source_dir).build(args.out, quiet=args.quiet)
        print(target)
    return 0
