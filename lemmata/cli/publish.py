"""``lemmata publish``: push a built release to the Hugging Face Hub, tagged with its version."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "publish",
        help="push a built release to a Hugging Face dataset repo (one commit, tagged with the version)",
        description="Upload every file of a verified release folder in one commit and tag it with the release "
        "version, so load_dataset(repo, config, revision=VERSION) reproduces it. Uses HF_TOKEN or --token.",
    )
    p.add_argument("release", help="path of a built release folder")
    p.add_argument("--repo", required=True, metavar="OWNER/NAME", help="Hub dataset repository")
    p.add_argument("--dry-run", action="store_true", help="list exactly what would be uploaded and the tag")
    p.add_argument("--private", action="store_true", help="create the repository as private")
    p.add_argument("--token", help="Hub token (default: HF_TOKEN or the cached login)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.release.publish import plan_publish, publish

    if args.dry_run:
        print(plan_publish(args.release, args.repo).describe())
        return 0
    print(publish(args.release, args.repo, token=args.token, private=args.private))
    return 0
