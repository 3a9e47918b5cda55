"""``lemmata render``: show an instance exactly as an agent receives it."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "render",
        help="print a Re²Math instance as rendered agent input",
        description="Print one Re²Math instance exactly as an agent receives it: the paper's setup, the target "
        "theorem, the last m local proof blocks and, on the assisted track, the anchor hint. Nothing of the "
        "reference answer (tool statement, citation) is shown. Useful to check what a system could observe.",
    )
    p.add_argument("release", help="path of a built re2math release folder (`lemmata build re2math` prints it)")
    p.add_argument("instance_id", help="the instance's id (column instance_id of the release)")
    p.add_argument("--track", choices=("raw", "assisted"), default="raw",
                   help="raw: no hint; assisted: with the leakage-controlled anchor hint (default raw)")
    p.add_argument("--window", type=int, choices=(1, 3, 5), default=5,
                   help="local proof blocks shown, m (default 5)")
    p.add_argument("--config", default="full", help="release config to look the instance up in (default full)")
    p.add_argument("--mask-target-cite", action="store_true",
                   help="replace the instance's own citation key inside \\cite-like commands by '?' "
                        "(the rendering the leaderboard's new tracks use)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.core.errors import InputError
    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.catalog import open_release_folder as open_release

    release = open_release(args.release)
    for split in release.splits(args.config):
        for row in release.rows(args.config, split):
            if row["instance_id"] == args.instance_id:
                print(render_instance(row, args.track, args.window, mask_target_cite=args.mask_target_cite))
                return 0
    raise InputError.one(args.release, f"no instance {args.instance_id!r} in config {args.config!r}",
                         field="instance_id")
