"""``lemmata build``: build a versioned release folder from pinned upstream sources."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "build")
    p.add_argument("family", help="benchmark family, e.g. re2math")
    p.add_argument("--out", metavar="DIR", help="parent folder of the release (default: $LEMMATA_HOME/releases)")
    p.add_argument("--source-dir", metavar="DIR", help="folder holding the raw upstream files (for a Hub dataset: a local snapshot of it)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--check", action="store_true", help="compare the pinned Hub cards with what the builder reads "
                   "(configs, splits, columns, licence) and print the differences; downloads no data file")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.core.registry import UnknownNameError
    from lemmata.families import builder_classes

    try:
        classes = builder_classes(args.family)
    except KeyError as exc:
        raise UnknownNameError(exc.args[0]) from None
    if args.check:
        return _check(classes, args.source_dir)
    for cls in classes:
        target = cls(source_dir=args.source_dir).build(args.out, quiet=args.quiet)
        print(target)
    return 0


def _check(classes, source_dir) -> int:
    from lemmata.core.errors import InputError
    from lemmata.release.card_check import failures, render_table
    from lemmata.release.hub_builder import HubReleaseBuilder
    from lemmata.release.sources import SourceUnavailable

    reports = []
    for cls in classes:
        if not issubclass(cls, HubReleaseBuilder):
            print(f"{cls.meta.release_id}: built from pinned files, not from a Hub dataset card; nothing to check")
            continue
        try:
            reports += cls(source_dir=source_dir).check_cards()
        except SourceUnavailable as exc:
            raise exc.for_family(cls.meta.family) from None
    if reports:
        print(render_table(reports))
    problems = failures(reports)
    if problems:
        raise InputError(problems)
    return 0
